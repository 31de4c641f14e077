"""The extraction cache of ``.gezk`` files opened by path: verdicts, cheap re-checks, a budget.

Layout of a cache directory (default ``<GEZEL_HOME>/cache/catalogs``)::

    <sha256>/                  an archive's catalog, extracted and deeply validated
    .entries/<sha256>.json     the verdict on those bytes: valid (with every file's size and
                               mtime) or refused (with the reason); its mtime is the last use
    .entries/<sha256>.lock     held while the bytes are extracted and validated
    .entries/<sha256>.lease    held shared by every open catalog of the entry (POSIX)
    .paths/                    remembered digests of archive paths (see ``_digests``)
    .trash/                    entries being deleted
    .lock                      held while the cache is pruned

An archive is deeply validated on its first extraction and the verdict is kept with its digest,
so a refused archive is refused again at once and a valid one is not validated again. A verdict
counts only for the limits, the library version and the validation rules that reached it (a
changed rule reaches it again). On reuse, every file of the
entry is checked against the sizes and mtimes recorded when it was published (cheap: one
``stat`` per file); an entry that fails is discarded and extracted again.

The cache keeps to a byte budget (``GEZEL_CACHE_BUDGET``, default 4 GiB): after each new
extraction the least recently used entries are removed until it fits, never the entry just
opened and never one an open catalog holds (POSIX: a shared lock on its lease file; elsewhere,
entries used in the last day count as held). Pruning also removes what interrupted runs left:
staging directories no extraction holds, entries without a verdict, verdicts without an entry,
trash, and remembered digests of files that changed or disappeared.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import time
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import gezel_knowledge.validate as validating
from gezel_knowledge._atomic import move_to_trash, remove_tree, write_atomic
from gezel_knowledge._locking import FileLock, LockTimeout, fcntl_available
from gezel_knowledge._version import __version__
from gezel_knowledge.archive.findings import Finding, error_for
from gezel_knowledge.archive.limits import ArchiveLimits
from gezel_knowledge.archive.verify import ArchiveFile
from gezel_knowledge.errors import IntegrityFailure, InvalidInput, Unsupported
from gezel_knowledge.home import gezel_home
from gezel_knowledge.opening._digests import forget_stale_digests
from gezk import untrusted_json
from gezk.ids import is_sha256_hex

try:
    import fcntl as _fcntl
except ImportError:  # pragma: no cover - Windows
    _fcntl = None  # type: ignore[assignment]

__all__ = [
    "BUDGET_ENV",
    "CANNOT_WRITE",
    "DEFAULT_CACHE_BUDGET",
    "CacheEntry",
    "CachePrune",
    "CatalogCache",
    "Lease",
    "default_cache_dir",
    "parse_size",
]

DEFAULT_CACHE_BUDGET = 4 * 1024**3
"""Bytes the extraction cache keeps by default (``GEZEL_CACHE_BUDGET`` overrides it)."""

BUDGET_ENV = "GEZEL_CACHE_BUDGET"

CANNOT_WRITE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
"""What a write into a read-only file system, or a folder without permission, fails with."""

_KIND = "gezel-knowledge-cache-entry"
_SCHEMA = 1
_UNLEASED_GRACE = 24 * 3600.0
_SIZE = re.compile(r"^\s*(\d+)\s*([KMGT]?)(?:i?B)?\s*$", re.IGNORECASE)
_STAGING = re.compile(r"^\.([0-9a-f]{64})\.staging-")

VALIDATION_RULES = 3
"""Bumped whenever deep validation accepts or refuses something it did not before (2: a
probed chunk may find itself among its first three; 3: or further down behind
near-duplicates scoring within 0.02 of the first), so a verdict kept under the old rules
is reached again rather than trusted; a release's version number does the same."""

CHECKED_BY = f"{__version__} rules {VALIDATION_RULES}"
"""Who reached a kept verdict: the library version and the validation rules."""


def default_cache_dir() -> Path:
    """Where ``.gezk`` files opened directly are extracted: ``<GEZEL_HOME>/cache/catalogs``.

    Installed catalogs live in the knowledge home instead; this cache only holds verified
    extractions of files opened by path, keyed by archive digest, and may be deleted.
    """
    return gezel_home() / "cache" / "catalogs"


def parse_size(text: str) -> int:
    """Bytes from ``4294967296``, ``512M``, ``4GiB`` (binary multiples)."""
    match = _SIZE.match(text)
    if match is None:
        raise InvalidInput(
            f"{text!r} is not a size (bytes, or a number with K, M, G or T)",
            reason="invalid-size",
            subject=text,
        )
    power = "_KMGT".index(match.group(2).upper() or "_")
    return int(match.group(1)) * (1 << (10 * power))


def _budget_from_environment() -> int:
    raw = os.environ.get(BUDGET_ENV)
    return DEFAULT_CACHE_BUDGET if not raw else parse_size(raw)


def limits_fingerprint(limits: ArchiveLimits) -> str:
    """A verdict is reused only under the limits that reached it."""
    return hashlib.sha256(repr(limits).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """One extracted archive in the cache."""

    sha256: str
    path: Path
    catalog: str
    """``publisher/catalog@version``."""
    bytes: int
    last_used: float
    """Seconds since the epoch."""
    in_use: bool


@dataclass(frozen=True, slots=True)
class CachePrune:
    """What a prune removed and what the cache holds afterwards."""

    removed: tuple[CacheEntry, ...]
    leftovers: tuple[str, ...]
    """Names of what interrupted runs left behind (staging, orphans, trash, stale records)."""
    freed_bytes: int
    kept_bytes: int


@dataclass(slots=True)
class _Verdict:
    """A verdict record (see the module docstring)."""

    sha256: str
    status: str
    catalog: str = ""
    bytes: int = 0
    files: list[tuple[str, int, int]] = field(default_factory=list)
    reason: str = ""
    message: str = ""
    subject: str | None = None
    unsupported: bool = False

    def refusal(self) -> IntegrityFailure | Unsupported:
        error = error_for(Finding(self.reason, self.message, self.subject))
        assert isinstance(error, IntegrityFailure | Unsupported)
        return error


class Lease:
    """A shared lock on an entry's lease file, held while a catalog of it is open."""

    def __init__(self, path: Path) -> None:
        self._handle: IO[Any] | None = None
        if _fcntl is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle: IO[Any] = path.open("a+b")
        except OSError as exc:
            if exc.errno not in CANNOT_WRITE:
                raise
            # A cache that cannot be written (a read-only home) is pruned by no one: an entry
            # already there is held by reading its lease file, or needs no holding at all.
            if not path.is_file():
                return
            handle = path.open("rb")
        try:
            _fcntl.flock(handle.fileno(), _fcntl.LOCK_SH)
        except BaseException:
            handle.close()
            raise
        self._handle = handle

    def release(self) -> None:
        """Let the entry be pruned again (as far as this lease is concerned)."""
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()

    def attach(self, holder: object) -> None:
        """Release when ``holder`` (a catalog handle) is garbage-collected."""
        weakref.finalize(holder, self.release)


class CatalogCache:
    """The extraction cache in ``root`` (see the module docstring)."""

    def __init__(self, root: Path | str | None = None, *, budget_bytes: int | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()
        self.budget_bytes = _budget_from_environment() if budget_bytes is None else budget_bytes
        self._entries = self.root / ".entries"
        self.memo_dir = self.root / ".paths"
        self._trash = self.root / ".trash"

    # -- paths -------------------------------------------------------------------------------

    def entry_dir(self, sha256: str) -> Path:
        """Where the catalog of these archive bytes is extracted."""
        return self.root / sha256

    def derived_dir(self, sha256: str) -> Path:
        """Where the reader caches what it derives from the entry (keyword indexes); it goes
        when the entry goes."""
        return self.root / ".keyword" / sha256

    def _record(self, sha256: str) -> Path:
        return self._entries / f"{sha256}.json"

    def extraction_lock(self, sha256: str) -> FileLock:
        """Held while these bytes are extracted and validated (one process at a time)."""
        return FileLock(self._entries / f"{sha256}.lock", timeout=None)

    def hold(self, sha256: str) -> Lease:
        """Hold the entry against pruning until the lease is released (or attached to a handle
        with :meth:`Lease.attach`)."""
        return Lease(self._entries / f"{sha256}.lease")

    # -- verdicts ----------------------------------------------------------------------------

    def verdict(self, sha256: str, limits: ArchiveLimits) -> _Verdict | None:
        """The verdict on these bytes, if one reached under ``limits`` by this version is kept
        (and, for a valid one, its entry is still there)."""
        try:
            obj = untrusted_json.loads(self._record(sha256).read_bytes())
        except (OSError, ValueError):
            return None
        if (
            not isinstance(obj, dict)
            or obj.get("kind") != _KIND
            or obj.get("schema") != _SCHEMA
            or obj.get("checkedBy") != CHECKED_BY
            or obj.get("limits") != limits_fingerprint(limits)
            or obj.get("sha256") != sha256
        ):
            return None
        try:
            verdict = _Verdict(
                sha256=sha256,
                status=str(obj["status"]),
                catalog=str(obj.get("catalog", "")),
                bytes=int(obj.get("bytes", 0)),
                files=[(str(p), int(s), int(m)) for p, s, m in obj.get("files", [])],
                reason=str(obj.get("reason", "")),
                message=str(obj.get("message", "")),
                subject=None if obj.get("subject") is None else str(obj["subject"]),
                unsupported=bool(obj.get("unsupported", False)),
            )
        except (KeyError, TypeError, ValueError):
            return None
        if verdict.status == "valid" and not self.entry_dir(sha256).is_dir():
            return None
        return verdict

    def files_intact(self, verdict: _Verdict) -> bool:
        """Every file of a valid entry still has the size and mtime it was published with."""
        root = self.entry_dir(verdict.sha256)
        for rel, size, mtime_ns in verdict.files:
            try:
                status = os.stat(root.joinpath(*rel.split("/")))
            except OSError:
                return False
            if status.st_size != size or status.st_mtime_ns != mtime_ns:
                return False
        return bool(verdict.files)

    def touch(self, sha256: str) -> None:
        """Mark the entry as used now (its verdict's mtime orders the pruning)."""
        with contextlib.suppress(OSError):
            os.utime(self._record(sha256))

    def _write(self, sha256: str, obj: dict[str, Any], limits: ArchiveLimits) -> None:
        record = {
            "kind": _KIND,
            "schema": _SCHEMA,
            "sha256": sha256,
            "checkedBy": CHECKED_BY,
            "limits": limits_fingerprint(limits),
            **obj,
        }
        write_atomic(self._record(sha256), json.dumps(record).encode("utf-8"))

    # -- extraction --------------------------------------------------------------------------

    def publish(self, archive: ArchiveFile, sha256: str) -> None:
        """Extract and deeply validate ``archive`` into its entry and record the verdict (the
        caller holds :meth:`extraction_lock`); a refusal is recorded, then raised."""
        target = self.entry_dir(sha256)
        if target.exists():
            # A stale or damaged extraction (or one from before verdicts were kept).
            self._discard(target)
        try:
            # Through the validate face: opening an already extracted catalog never loads the
            # validators (and their cryptography, SQLite and schema modules).
            report = validating.extract_verified(archive, target, deep=True)
        except (IntegrityFailure, Unsupported) as exc:
            self._write(
                sha256,
                {
                    "status": "refused",
                    "reason": exc.reason,
                    "message": exc.message,
                    "subject": exc.subject,
                    "unsupported": isinstance(exc, Unsupported),
                },
                archive.limits,
            )
            raise
        manifest = report.manifest
        assert manifest is not None
        files = _file_stats(target)
        self._write(
            sha256,
            {
                "status": "valid",
                "catalog": f"{manifest.publisher.id}/{manifest.id}@{manifest.version}",
                "bytes": sum(size for _, size, _ in files),
                "files": files,
            },
            archive.limits,
        )

    # -- listing and pruning -----------------------------------------------------------------

    def entries(self) -> list[CacheEntry]:
        """Every valid entry, least recently used first."""
        out: list[CacheEntry] = []
        for record in self._entries.glob("*.json") if self._entries.is_dir() else []:
            sha = record.stem
            if not is_sha256_hex(sha) or not self.entry_dir(sha).is_dir():
                continue
            entry = self._entry(sha, record)
            if entry is not None:
                out.append(entry)
        return sorted(out, key=lambda e: (e.last_used, e.sha256))

    def _entry(self, sha: str, record: Path) -> CacheEntry | None:
        try:
            obj = untrusted_json.loads(record.read_bytes())
            used = record.stat().st_mtime
        except (OSError, ValueError):
            return None
        if not isinstance(obj, dict) or obj.get("status") != "valid":
            return None
        return CacheEntry(
            sha256=sha,
            path=self.entry_dir(sha),
            catalog=str(obj.get("catalog", "")),
            bytes=int(obj.get("bytes", 0)) if isinstance(obj.get("bytes"), int) else 0,
            last_used=used,
            in_use=self._in_use(sha, used),
        )

    def _in_use(self, sha: str, last_used: float) -> bool:
        if _fcntl is None or not fcntl_available():
            return time.time() - last_used < _UNLEASED_GRACE
        path = self._entries / f"{sha}.lease"
        if not path.exists():
            return False
        with path.open("a+b") as handle:
            try:
                _fcntl.flock(handle.fileno(), _fcntl.LOCK_EX | _fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            _fcntl.flock(handle.fileno(), _fcntl.LOCK_UN)
        return False

    @contextlib.contextmanager
    def _exclusive_lease(self, sha: str) -> Iterator[bool]:
        """Hold the entry's lease exclusively (no catalog of it is open); yields whether held."""
        if _fcntl is None:
            yield True
            return
        path = self._entries / f"{sha}.lease"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a+b") as handle:
            try:
                _fcntl.flock(handle.fileno(), _fcntl.LOCK_EX | _fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            yield True

    def prune(
        self,
        *,
        budget_bytes: int | None = None,
        keep: Iterable[str] = (),
        everything: bool = False,
    ) -> CachePrune:
        """Remove leftovers, then least recently used entries until the cache fits its budget
        (every entry not held open, with ``everything``). Entries in ``keep`` stay."""
        budget = self.budget_bytes if budget_bytes is None else budget_bytes
        kept = set(keep)
        with FileLock(self.root / ".lock", timeout=60.0):
            leftovers = self._clean_leftovers()
            removed: list[CacheEntry] = []
            entries = self.entries()
            total = sum(e.bytes for e in entries)
            for entry in entries:
                if not everything and total <= budget:
                    break
                if entry.sha256 in kept or entry.in_use:
                    continue
                with self._exclusive_lease(entry.sha256) as free:
                    if not free:
                        continue
                    self._record(entry.sha256).unlink(missing_ok=True)
                    self._discard(entry.path)
                    self._discard_derived(entry.sha256)
                removed.append(entry)
                total -= entry.bytes
        return CachePrune(
            tuple(removed),
            tuple(leftovers),
            sum(e.bytes for e in removed),
            total,
        )

    def prune_quietly(self, keep: Iterable[str]) -> None:
        """:meth:`prune` to the budget, giving up when another process is pruning."""
        with contextlib.suppress(LockTimeout, OSError):
            self.prune(keep=keep)

    def _discard(self, path: Path) -> None:
        try:
            doomed = move_to_trash(path, self._trash)
        except OSError:
            doomed = path
        remove_tree(doomed)

    def _discard_derived(self, sha256: str) -> None:
        folder = self.derived_dir(sha256)
        if folder.exists():
            self._discard(folder)

    def _clean_leftovers(self) -> list[str]:
        """What interrupted runs left; the caller holds the cache lock."""
        removed: list[str] = []
        if not self.root.is_dir():
            return removed
        for path in sorted(self.root.iterdir()):
            staging = _STAGING.match(path.name)
            digest = staging.group(1) if staging else path.name
            orphan = (
                staging is None
                and path.is_dir()
                and is_sha256_hex(path.name)
                and not self._record(path.name).is_file()
            )
            if staging is None and not orphan:
                continue
            # An extraction in progress holds the digest's lock.
            lock = FileLock(self._entries / f"{digest}.lock", timeout=0.0)
            try:
                with lock:
                    if orphan and self._record(path.name).is_file():
                        continue
                    self._discard(path)
            except LockTimeout:
                continue
            removed.append(path.name)
        for record in sorted(self._entries.glob("*.json")) if self._entries.is_dir() else []:
            obj: Any = None
            with contextlib.suppress(OSError, ValueError):
                obj = untrusted_json.loads(record.read_bytes())
            damaged = not isinstance(obj, dict)
            gone = not damaged and obj.get("status") == "valid"
            if damaged or (gone and not self.entry_dir(record.stem).is_dir()):
                record.unlink(missing_ok=True)
                removed.append(f".entries/{record.name}")
        derived = self.root / ".keyword"
        for folder in sorted(derived.iterdir()) if derived.is_dir() else []:
            if not self.entry_dir(folder.name).is_dir():
                self._discard(folder)
                removed.append(f".keyword/{folder.name}")
        if self._trash.is_dir():
            for grave in sorted(self._trash.iterdir()):
                remove_tree(grave)
                removed.append(f".trash/{grave.name}")
        stale = forget_stale_digests(self.memo_dir)
        if stale:
            removed.append(f".paths ({stale} stale)")
        return removed


def _file_stats(root: Path) -> list[tuple[str, int, int]]:
    """Every regular file under ``root``: relative path, size and mtime in nanoseconds."""
    out: list[tuple[str, int, int]] = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            full = Path(dirpath) / name
            status = full.stat()
            rel = full.relative_to(root).as_posix()
            out.append((rel, status.st_size, status.st_mtime_ns))
    return sorted(out)
