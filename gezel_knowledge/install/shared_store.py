"""The machine-wide shared store: verified, read-only catalogs whose bytes exist once per computer.

Seed "Installation, integrity, and updates": trusted public catalog downloads may be placed in
an immutable store shared by every user of the computer, while each user's installed
references, enabled state and project selections stay in their own registry. The store is
opt-in: it exists only where one is configured (``GEZEL_SHARED_STORE`` or an explicit path).
Layout::

    <store>/
      store.lock                             writers' lock (publish, reference, reclaim)
      catalogs/<archive sha256>/             one entry, published read-only by one rename
        catalog/                             the extracted, deep-validated catalog
        entry.json                           what it is (publisher, catalog, version, sizes)
      refs/<archive sha256>/<home id>.json   one record per Gezel home that references it
      .staging/  .trash/                     extractions in progress, deletions

Entries are keyed by the full archive SHA-256, the digest every install verifies before it
extracts anything. Nothing publishes into the store before digest, archive checks and deep
validation succeeded, and no user ever modifies an entry: removing a catalog drops that home's
reference, and the bytes stay until :meth:`SharedStore.reclaim` finds that no home refers to
them any more. Publishing, adding a reference, and registering it in the user registry happen
under ``store.lock`` (taken before the registry's own lock, never after), so reclaim can never
delete an entry between a user adopting it and their registry saying so.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import json
import os
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from gezel_knowledge._atomic import move_to_trash, publish_read_only, remove_tree, write_atomic
from gezel_knowledge._locking import FileLock
from gezel_knowledge.errors import IntegrityFailure, KnowledgeError, Unsupported
from gezel_knowledge.install._time import utc_now
from gezel_knowledge.install.registry import UserRegistry
from gezk import untrusted_json
from gezk.ids import is_sha256_hex

__all__ = [
    "ENV_SHARED_STORE",
    "ReclaimReport",
    "SharedEntry",
    "SharedReference",
    "SharedStore",
    "home_reference_id",
    "shared_store_from",
]

ENV_SHARED_STORE = "GEZEL_SHARED_STORE"
"""Environment variable naming the machine's shared store directory (unset: no shared store)."""

STALE_WORK_SECONDS = 24 * 3600.0
"""Staging directories older than this belong to crashed installs and are removed by reclaim."""


def _check_digest(sha256: str) -> str:
    if not is_sha256_hex(sha256):
        raise IntegrityFailure(
            f"not a lowercase SHA-256 hex digest: {sha256!r}",
            reason="invalid-digest",
            subject=sha256,
        )
    return sha256


def home_reference_id(home_root: Path) -> str:
    """The name of a home's reference records: 16 hex digits of its absolute path's SHA-256."""
    text = str(Path(home_root).expanduser().absolute())
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class SharedEntry:
    """One published catalog in the store, as its ``entry.json`` describes it."""

    archive_sha256: str
    publisher_id: str
    catalog_id: str
    version: str
    archive_bytes: int
    extracted_bytes: int
    format_version: str
    embedding_profile: str
    name: str
    source: str
    published_at: str

    def to_json(self) -> dict[str, Any]:
        """The ``entry.json`` form."""
        return {
            "archiveSha256": self.archive_sha256,
            "publisherId": self.publisher_id,
            "catalogId": self.catalog_id,
            "version": self.version,
            "archiveBytes": self.archive_bytes,
            "extractedBytes": self.extracted_bytes,
            "formatVersion": self.format_version,
            "embeddingProfile": self.embedding_profile,
            "name": self.name,
            "source": self.source,
            "publishedAt": self.published_at,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> SharedEntry:
        """Parse the ``entry.json`` form."""
        return cls(
            archive_sha256=str(obj["archiveSha256"]),
            publisher_id=str(obj["publisherId"]),
            catalog_id=str(obj["catalogId"]),
            version=str(obj["version"]),
            archive_bytes=int(obj["archiveBytes"]),
            extracted_bytes=int(obj["extractedBytes"]),
            format_version=str(obj["formatVersion"]),
            embedding_profile=str(obj["embeddingProfile"]),
            name=str(obj["name"]),
            source=str(obj["source"]),
            published_at=str(obj["publishedAt"]),
        )


@dataclass(frozen=True, slots=True)
class SharedReference:
    """One Gezel home's claim on a store entry."""

    archive_sha256: str
    home: str
    """The absolute path of the referencing Gezel home."""
    user: str
    catalog: str
    version: str
    created_at: str


@dataclass(frozen=True, slots=True)
class ReclaimReport:
    """What :meth:`SharedStore.reclaim` deleted and what it kept."""

    reclaimed: tuple[str, ...]
    """Archive digests whose bytes were deleted (no home referenced them)."""
    bytes_freed: int
    kept: tuple[str, ...]
    """Archive digests still referenced by at least one home."""
    dropped_references: tuple[SharedReference, ...]
    """Stale references removed: their home no longer lists the entry (or no longer exists)."""


def _current_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid:{os.getuid()}" if hasattr(os, "getuid") else "unknown"


def _tree_bytes(root: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(root):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


class SharedStore:
    """A machine-wide directory of verified, read-only catalogs shared by several Gezel homes."""

    def __init__(self, path: Path | str, *, lock_timeout: float | None = 60.0) -> None:
        self.root = Path(path).expanduser().absolute()
        self.lock_timeout = lock_timeout

    def __repr__(self) -> str:
        return f"SharedStore({str(self.root)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SharedStore) and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)

    # -- layout -----------------------------------------------------------------------------

    @property
    def catalogs_dir(self) -> Path:
        """Where published entries live, one directory per archive digest."""
        return self.root / "catalogs"

    @property
    def refs_dir(self) -> Path:
        """Where the per-home reference records live."""
        return self.root / "refs"

    @property
    def staging_dir(self) -> Path:
        """Where entries are extracted and validated before they are published."""
        return self.root / ".staging"

    @property
    def trash_dir(self) -> Path:
        """Where reclaimed entries are moved before they are deleted."""
        return self.root / ".trash"

    def entry_dir(self, sha256: str) -> Path:
        """``catalogs/<sha256>``: one published entry."""
        return self.catalogs_dir / _check_digest(sha256)

    def catalog_dir(self, sha256: str) -> Path:
        """``catalogs/<sha256>/catalog``: the extracted catalog of an entry."""
        return self.entry_dir(sha256) / "catalog"

    def owns(self, path: Path) -> str | None:
        """The digest when ``path`` is the catalog directory of an entry of this store."""
        parts = Path(path).parts
        if len(parts) < 3 or parts[-1] != "catalog":
            return None
        digest = parts[-2]
        if not is_sha256_hex(digest):
            return None
        return digest if Path(path) == self.catalog_dir(digest) else None

    def lock(self) -> FileLock:
        """The store's writers' lock (take it before a registry lock, never after)."""
        return FileLock(self.root / "store.lock", timeout=self.lock_timeout)

    # -- availability -----------------------------------------------------------------------

    def problem(self, *, probe_write: bool = True) -> str | None:
        """Why this store cannot take new entries and references now, or ``None`` when it can.

        The store directory must already exist (an administrator creates it). With
        ``probe_write`` a real write is attempted, because permission bits do not tell the
        whole story (read-only mounts, immutable directories, ``root``); without it only the
        permission bits are consulted and nothing is written.
        """
        if not self.root.is_dir():
            return f"the shared store {self.root} does not exist or is not a directory"
        if not probe_write:
            if not os.access(self.root, os.W_OK | os.X_OK):
                return f"the shared store {self.root} is not writable"
            return None
        try:
            for directory in (self.catalogs_dir, self.refs_dir, self.staging_dir):
                directory.mkdir(exist_ok=True)
            probe = self.staging_dir / f".probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
            probe.write_bytes(b"")
            probe.unlink()
            with self.lock():
                pass
        except OSError as exc:
            return f"the shared store {self.root} is not writable: {exc.strerror or exc}"
        except KnowledgeError as exc:
            return f"the shared store {self.root} is not usable: {exc.message}"
        return None

    # -- entries ----------------------------------------------------------------------------

    def has(self, sha256: str) -> bool:
        """Whether an entry with this archive digest is published."""
        entry = self.entry_dir(sha256)
        return (entry / "entry.json").is_file() and (entry / "catalog").is_dir()

    def entry(self, sha256: str) -> SharedEntry | None:
        """The published entry of this digest, if any."""
        path = self.entry_dir(sha256) / "entry.json"
        try:
            obj = untrusted_json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise IntegrityFailure(
                f"shared store entry {path} is unreadable: {exc}",
                reason="shared-entry-corrupt",
                subject=str(path),
            ) from exc
        try:
            entry = SharedEntry.from_json(obj)
        except (KeyError, TypeError, ValueError) as exc:
            raise IntegrityFailure(
                f"shared store entry {path} is malformed: {exc}",
                reason="shared-entry-corrupt",
                subject=str(path),
            ) from exc
        if entry.archive_sha256 != sha256:
            raise IntegrityFailure(
                f"shared store entry {path} describes {entry.archive_sha256}, not {sha256}",
                reason="shared-entry-corrupt",
                subject=str(path),
            )
        return entry

    def entries(self) -> list[SharedEntry]:
        """Every published entry, by digest (unreadable ones are skipped)."""
        out: list[SharedEntry] = []
        for digest in self._digests():
            with contextlib.suppress(IntegrityFailure):
                entry = self.entry(digest)
                if entry is not None:
                    out.append(entry)
        return out

    def _digests(self) -> list[str]:
        if not self.catalogs_dir.is_dir():
            return []
        return sorted(p.name for p in self.catalogs_dir.iterdir() if is_sha256_hex(p.name))

    def new_staging(self, label: str) -> Path:
        """A fresh directory under ``.staging`` for one entry being prepared."""
        self.staging_dir.mkdir(parents=True, exist_ok=True)
        path = self.staging_dir / f"{label}-{uuid.uuid4().hex[:12]}"
        path.mkdir()
        return path

    def publish(self, staged: Path, entry: SharedEntry) -> Path:
        """Publish a staged entry (``staged/catalog`` extracted and validated); caller holds
        :meth:`lock`. Returns the catalog directory. An entry already present is kept as is."""
        target = self.entry_dir(entry.archive_sha256)
        if self.has(entry.archive_sha256):
            return target / "catalog"
        if target.exists():
            # A leftover that is not a complete entry (it cannot be: publishing is one rename),
            # e.g. created by hand. Move it out of the way rather than trust it.
            self._move_to_trash(target)
        write_atomic(staged / "entry.json", (json.dumps(entry.to_json(), indent=2) + "\n").encode())
        publish_read_only(staged, target)
        return target / "catalog"

    # -- references -------------------------------------------------------------------------

    def _ref_path(self, sha256: str, home_root: Path) -> Path:
        return self.refs_dir / _check_digest(sha256) / f"{home_reference_id(home_root)}.json"

    def add_reference(self, sha256: str, home_root: Path, *, catalog: str, version: str) -> None:
        """Record that ``home_root`` uses this entry; caller holds :meth:`lock`."""
        record = {
            "archiveSha256": sha256,
            "home": str(Path(home_root).expanduser().absolute()),
            "user": _current_user(),
            "catalog": catalog,
            "version": version,
            "createdAt": utc_now(),
        }
        write_atomic(
            self._ref_path(sha256, home_root),
            (json.dumps(record, indent=2) + "\n").encode("utf-8"),
        )

    def release(self, sha256: str, home_root: Path) -> bool:
        """Drop ``home_root``'s reference (the bytes stay until :meth:`reclaim`)."""
        with self.lock():
            path = self._ref_path(sha256, home_root)
            try:
                path.unlink()
            except FileNotFoundError:
                return False
            with contextlib.suppress(OSError):
                path.parent.rmdir()
            return True

    def references(self, sha256: str) -> list[SharedReference]:
        """The homes referencing an entry (unreadable records are skipped)."""
        folder = self.refs_dir / _check_digest(sha256)
        if not folder.is_dir():
            return []
        out: list[SharedReference] = []
        for path in sorted(folder.glob("*.json")):
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                obj = untrusted_json.loads(path.read_bytes())
                out.append(
                    SharedReference(
                        archive_sha256=sha256,
                        home=str(obj["home"]),
                        user=str(obj["user"]),
                        catalog=str(obj["catalog"]),
                        version=str(obj["version"]),
                        created_at=str(obj["createdAt"]),
                    )
                )
        return out

    def _reference_state(self, ref: SharedReference) -> Literal["live", "stale", "unknown"]:
        """Whether the referencing home's registry still lists the entry as shared."""
        home = Path(ref.home)
        if not home.exists():
            return "stale"
        try:
            snapshot = UserRegistry(home / "knowledge" / "registry.json").read()
        except (OSError, KnowledgeError):
            return "unknown"  # another user's unreadable registry: never guess it away
        for catalog in snapshot:
            for version in catalog.versions:
                if version.archive_sha256 == ref.archive_sha256 and version.placement == "shared":
                    return "live"
        return "stale"

    # -- reclaim ----------------------------------------------------------------------------

    def reclaim(self, *, check_homes: bool = True) -> ReclaimReport:
        """Delete entries no home references; return what was freed and what was kept.

        With ``check_homes``, a reference whose home no longer exists, or whose registry no
        longer lists the entry, is stale and dropped first (a home deleted without ``remove``,
        an install that crashed before registering). A registry that cannot be read keeps its
        reference. Staging directories of crashed installs older than a day go too.
        """
        reclaimed: list[str] = []
        kept: list[str] = []
        dropped: list[SharedReference] = []
        freed = 0
        doomed: list[Path] = []
        if not self.root.is_dir():
            raise Unsupported(
                f"the shared store {self.root} does not exist",
                reason="shared-store-unavailable",
                subject=str(self.root),
            )
        with self.lock():
            for digest in self._digests():
                live = 0
                for ref in self.references(digest):
                    state = self._reference_state(ref) if check_homes else "live"
                    if state == "stale":
                        with contextlib.suppress(FileNotFoundError):
                            self._ref_path(digest, Path(ref.home)).unlink()
                        dropped.append(ref)
                    else:
                        live += 1
                if live:
                    kept.append(digest)
                    continue
                entry = self.entry_dir(digest)
                freed += _tree_bytes(entry)
                doomed.append(self._move_to_trash(entry))
                with contextlib.suppress(OSError):
                    (self.refs_dir / digest).rmdir()
                reclaimed.append(digest)
            doomed += self._stale_work()
        for path in doomed:
            remove_tree(path)
        return ReclaimReport(tuple(reclaimed), freed, tuple(kept), tuple(dropped))

    def _move_to_trash(self, path: Path) -> Path:
        """``path`` moved to the trash, or ``path`` itself when it cannot be moved."""
        try:
            return move_to_trash(path, self.trash_dir, name=path.name[:16])
        except OSError:
            return path

    def _stale_work(self) -> list[Path]:
        out: list[Path] = []
        if self.trash_dir.is_dir():
            out += list(self.trash_dir.iterdir())
        if self.staging_dir.is_dir():
            cutoff = time.time() - STALE_WORK_SECONDS
            for path in self.staging_dir.iterdir():
                with contextlib.suppress(OSError):
                    if path.stat().st_mtime < cutoff:
                        out.append(path)
        return out


def shared_store_from(
    value: SharedStore | Path | str | Literal[False] | None,
) -> SharedStore | None:
    """The configured store: ``value``, else ``$GEZEL_SHARED_STORE``; ``False`` or an empty
    setting means none (shared placement is opt-in)."""
    if value is False:
        return None
    if isinstance(value, SharedStore):
        return value
    if value is not None and str(value):
        return SharedStore(value)
    env = os.environ.get(ENV_SHARED_STORE, "").strip()
    return SharedStore(env) if env else None
