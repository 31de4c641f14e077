"""Verify an untrusted ``.gezk`` archive and extract it safely (spec sections 3.3, 3.4, 12).

Nothing in an archive is trusted until it passes, in this order: the promised archive digest
(when the caller has one), the stored ``mimetype`` magic at byte 38, the end records, central
directory and every local header as :mod:`._zip` reads them (one interpretation, no gaps or
overlaps; no directories, symlinks, special files, encryption or other ZIP features, unsafe or
colliding names; sizes and compression ratios within the limits), the manifest (size, JSON,
supported generation), and the reconciliation of entries with ``manifest.files``.
:func:`extract_archive` then streams every declared file into a staging directory next to the
destination, checking sizes as it goes, SHA-256 digests and asset contents afterwards, and
renames the staging directory into place only when all of it holds.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import struct
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from gezel_knowledge._faults import naming
from gezel_knowledge.archive import _zip
from gezel_knowledge.archive._zip import (
    CentralDirectory,
    CentralEntry,
    LocalEntry,
    ZipProblem,
    entry_blocks,
    read_central_directory,
    read_local_entry,
)
from gezel_knowledge.archive.assets import asset_problem
from gezel_knowledge.archive.findings import Finding, error_for
from gezel_knowledge.archive.layout import layout_findings
from gezel_knowledge.archive.limits import DEFAULT_LIMITS, ArchiveLimits
from gezel_knowledge.archive.manifest import parse_manifest_bytes
from gezel_knowledge.archive.paths import (
    MANIFEST_PATH,
    MIMETYPE,
    MIMETYPE_PATH,
    entry_name_key,
    entry_name_problem,
)
from gezel_knowledge.errors import InvalidInput, KnowledgeError, NotFound
from gezk.manifest import CatalogManifest

__all__ = [
    "ArchiveEntry",
    "ArchiveFile",
    "ArchiveInfo",
    "extract_archive",
    "file_sha256",
    "inspect_archive",
    "scan_archive",
]

_BLOCK = 1024 * 1024
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
_LOCAL_SIGNATURE = b"PK\x03\x04"
_ALLOWED_METHODS = (_zip.STORED, _zip.DEFLATED)
_ENCRYPTION_FLAGS = (
    _zip.ENCRYPTED_FLAG | _zip.STRONG_ENCRYPTION_FLAG | _zip.ENCRYPTED_DIRECTORY_FLAG
)
# Findings after which entry data cannot be read as the directory describes it: the scan stops
# before it opens the manifest (another reader would not see the same bytes).
_UNREADABLE = frozenset(
    {
        "encrypted-entry",
        "unsupported-compression",
        "unsupported-zip-feature",
        "local-header-mismatch",
        "data-descriptor",
        "overlapping-entries",
        "unlisted-bytes",
        "corrupt-archive",
    }
)


@dataclass(frozen=True, slots=True)
class ArchiveEntry:
    """One ZIP entry as the central directory describes it."""

    path: str
    size_bytes: int
    compressed_bytes: int
    stored: bool


@dataclass(frozen=True, slots=True)
class ArchiveInfo:
    """An inspected archive: its digest, manifest and entries (nothing extracted yet)."""

    path: Path
    sha256: str
    size_bytes: int
    manifest: CatalogManifest
    entries: tuple[ArchiveEntry, ...]
    manifest_bytes: bytes = field(repr=False)


def file_sha256(path: Path | str) -> str:
    """Hex SHA-256 of a file, streamed."""
    with open(path, "rb") as fh:
        return _stream_sha256(fh)


def _stream_sha256(fh: BinaryIO) -> str:
    fh.seek(0)
    digest = hashlib.sha256()
    while block := fh.read(_BLOCK):
        digest.update(block)
    return digest.hexdigest()


class _Fatal(Exception):
    """Stop scanning: nothing after this finding can be trusted."""


@dataclass(slots=True)
class _Scan:
    findings: list[Finding] = field(default_factory=list)

    def add(self, reason: str, message: str, subject: str | None = None) -> None:
        self.findings.append(Finding(reason, message, subject))

    def fatal(self, reason: str, message: str, subject: str | None = None) -> _Fatal:
        self.add(reason, message, subject)
        return _Fatal()


def _check_magic(fh: BinaryIO, scan: _Scan) -> None:
    fh.seek(0)
    head = fh.read(_LOCAL_HEADER.size + len(MIMETYPE_PATH) + len(MIMETYPE))
    if len(head) < _LOCAL_HEADER.size or head[:4] != _LOCAL_SIGNATURE:
        raise scan.fatal("bad-mimetype", "not a gezk catalog: no ZIP local header at byte 0")
    _sig, _ver, flags, method, _t, _d, _crc, csize, usize, nlen, xlen = _LOCAL_HEADER.unpack(
        head[: _LOCAL_HEADER.size]
    )
    name = head[_LOCAL_HEADER.size : _LOCAL_HEADER.size + nlen]
    if name != MIMETYPE_PATH.encode() or nlen != len(MIMETYPE_PATH):
        raise scan.fatal("bad-mimetype", "the first entry is not 'mimetype'")
    if method != _zip.STORED or flags & _ENCRYPTION_FLAGS or xlen != 0:
        raise scan.fatal(
            "bad-mimetype", "the mimetype entry must be stored, unencrypted, without extras"
        )
    if head[38:] != MIMETYPE or csize != len(MIMETYPE) or usize != len(MIMETYPE):
        raise scan.fatal(
            "bad-mimetype", f"bytes 38.. must be exactly {MIMETYPE.decode()!r}", MIMETYPE_PATH
        )


def _entry_kind_problem(entry: CentralEntry) -> tuple[str, str] | None:
    """Entries that are not plain readable files: directories, links, devices, encrypted or
    otherwise unreadable data."""
    mode = entry.external_attr >> 16
    kind = stat.S_IFMT(mode)
    name = entry.label
    if name.endswith("/") or kind == stat.S_IFDIR or entry.external_attr & 0x10:
        return ("directory-entry", "directory entries are not allowed")
    if kind == stat.S_IFLNK:
        return ("symlink-entry", "symbolic links are not allowed")
    if kind not in (0, stat.S_IFREG):
        return ("special-entry", "only regular files are allowed")
    if entry.flags & _ENCRYPTION_FLAGS:
        return ("encrypted-entry", "encrypted entries are not allowed")
    if entry.flags & _zip.PATCHED_DATA_FLAG:
        return ("unsupported-zip-feature", "patched data (flag bit 5) is not a plain file")
    if entry.version_needed > _zip.MAX_VERSION_NEEDED:
        version = f"{entry.version_needed // 10}.{entry.version_needed % 10}"
        return ("unsupported-zip-feature", f"the entry needs ZIP version {version}")
    if entry.method not in _ALLOWED_METHODS:
        return ("unsupported-compression", f"compression method {entry.method}")
    return None


@dataclass(slots=True)
class _Located:
    """Entries as the directory and their local headers agree on them, by name."""

    entries: dict[str, tuple[CentralEntry, LocalEntry]] = field(default_factory=dict)


def _check_entries(
    fh: BinaryIO, cd: CentralDirectory, limits: ArchiveLimits, scan: _Scan
) -> tuple[list[ArchiveEntry], _Located]:
    infos = cd.entries
    first = infos[0] if infos else None
    if (
        first is None
        or first.name != MIMETYPE_PATH
        or first.header_offset != 0
        or first.method != _zip.STORED
    ):
        raise scan.fatal("bad-mimetype", "the central directory does not start with mimetype")

    entries: list[ArchiveEntry] = []
    located = _Located()
    seen: dict[str, str] = {}
    total = 0
    spans: list[tuple[int, int, str]] = []
    for info in infos:
        local = _check_local(fh, info, cd.start, scan)
        if local is not None:
            spans.append((info.header_offset, local.end, info.label))
        if info.name is None:
            scan.add("invalid-entry-name", info.name_problem or "unreadable name", info.label)
            continue
        if not _acceptable_entry(info, info.name, seen, scan):
            continue
        _check_entry_sizes(info, limits, scan)
        total += info.size
        if local is not None:
            located.entries[info.name] = (info, local)
        entries.append(
            ArchiveEntry(
                path=info.name,
                size_bytes=info.size,
                compressed_bytes=info.compressed_size,
                stored=info.method == _zip.STORED,
            )
        )
    if total > limits.max_total_bytes:
        scan.add("archive-too-large", f"{total} uncompressed bytes exceed the total limit")
    _check_tree(seen, scan)
    if len(spans) == len(infos):
        # (An entry whose local header failed has no known extent to tile with.)
        _check_spans(spans, cd.start, scan)
    return entries, located


def _check_local(fh: BinaryIO, info: CentralEntry, limit: int, scan: _Scan) -> LocalEntry | None:
    try:
        return read_local_entry(fh, info, limit)
    except ZipProblem as problem:
        scan.add(problem.reason, problem.message, problem.subject)
        return None


def _acceptable_entry(info: CentralEntry, name: str, seen: dict[str, str], scan: _Scan) -> bool:
    """A safe, regular, readable entry with a name no other entry collides with; else the entry
    is reported and left out. ``seen`` maps collision keys to the first spelling."""
    kind = _entry_kind_problem(info)
    if kind:
        scan.add(kind[0], kind[1], name)
        return False
    problem = entry_name_problem(name)
    if problem:
        scan.add("unsafe-path", problem, name)
        return False
    key = entry_name_key(name)
    if key in seen:
        scan.add(
            "duplicate-entry",
            f"collides with {seen[key]!r} (case, Unicode normalisation or trailing dots)",
            name,
        )
        return False
    seen[key] = name
    return True


def _check_tree(seen: dict[str, str], scan: _Scan) -> None:
    """No entry is also a directory of another entry (``x`` beside ``x/y``)."""
    for key, name in seen.items():
        parts = key.split("/")
        for depth in range(1, len(parts)):
            prefix = "/".join(parts[:depth])
            if prefix in seen:
                scan.add(
                    "duplicate-entry",
                    f"is inside {seen[prefix]!r}, which is a file",
                    name,
                )
                break


def _check_entry_sizes(info: CentralEntry, limits: ArchiveLimits, scan: _Scan) -> None:
    """Size and compression-ratio limits; a stored entry's two sizes agree."""
    name = info.label
    if info.size > limits.max_entry_bytes:
        scan.add("entry-too-large", f"{info.size} bytes exceed the per-entry limit", name)
    ratio = info.size / max(1, info.compressed_size)
    if info.size > 0 and ratio > limits.max_compression_ratio:
        scan.add(
            "compression-ratio",
            f"expands {ratio:.0f}:1, beyond {limits.max_compression_ratio:.0f}:1",
            name,
        )
    if info.method == _zip.STORED and info.compressed_size != info.size:
        scan.add("local-header-mismatch", "stored entry with differing sizes", name)


def _check_spans(spans: list[tuple[int, int, str]], cd_start: int, scan: _Scan) -> None:
    """Entries tile the file from byte 0 to the central directory: no overlap (a zip bomb
    construction), no gap (where a streaming reader would find entries the directory hides)."""
    spans.sort()
    cursor, previous = 0, None
    for start, end, name in spans:
        if start < cursor:
            scan.add("overlapping-entries", f"entry data overlaps {previous!r}", name)
        elif start > cursor:
            scan.add("unlisted-bytes", f"{start - cursor} bytes before the entry", name)
        cursor, previous = max(cursor, end), name
    if cursor > cd_start:
        scan.add("overlapping-entries", "entry data overlaps the central directory", previous)
    elif spans and cursor < cd_start:
        scan.add("unlisted-bytes", f"{cd_start - cursor} bytes before the central directory")


def _read_entry(fh: BinaryIO, located: _Located, name: str, limit: int) -> bytes:
    central, local = located.entries[name]
    out = bytearray()
    for block in entry_blocks(fh, central, local):
        out += block
        if len(out) > limit:
            break
    return bytes(out)


def _read_manifest(
    fh: BinaryIO, located: _Located, entries: list[ArchiveEntry], limits: ArchiveLimits, scan: _Scan
) -> bytes:
    declared = next((e for e in entries if e.path == MANIFEST_PATH), None)
    if declared is None or MANIFEST_PATH not in located.entries:
        raise scan.fatal("missing-manifest", "the archive has no manifest.json")
    if declared.size_bytes > limits.max_manifest_bytes:
        raise scan.fatal("manifest-too-large", f"{declared.size_bytes} bytes", MANIFEST_PATH)
    try:
        data = _read_entry(fh, located, MANIFEST_PATH, limits.max_manifest_bytes)
    except ZipProblem as problem:
        raise scan.fatal(
            problem.reason, f"cannot read manifest.json: {problem.message}", MANIFEST_PATH
        ) from None
    if len(data) > limits.max_manifest_bytes:
        raise scan.fatal("manifest-too-large", "manifest.json exceeds the limit", MANIFEST_PATH)
    return data


def _scan_structure(
    fh: BinaryIO, path: Path, digest: str, limits: ArchiveLimits, scan: _Scan
) -> tuple[ArchiveInfo, _Located]:
    """Every check after the archive digest: magic, entries, manifest, layout."""
    size = os.fstat(fh.fileno()).st_size
    _check_magic(fh, scan)
    try:
        cd = read_central_directory(fh, size, limits.max_entries)
    except ZipProblem as problem:
        raise scan.fatal(problem.reason, problem.message, problem.subject or str(path)) from None
    entries, located = _check_entries(fh, cd, limits, scan)
    if any(f.reason in _UNREADABLE for f in scan.findings):
        # Nothing read after this could be trusted to be what another reader would read.
        raise _Fatal()
    manifest_bytes = _read_manifest(fh, located, entries, limits, scan)
    try:
        manifest = parse_manifest_bytes(manifest_bytes)
    except KnowledgeError as exc:
        raise scan.fatal(exc.reason, exc.message, exc.subject) from exc
    sizes = {e.path: e.size_bytes for e in entries}
    scan.findings.extend(layout_findings(manifest, sizes, limits))
    info = ArchiveInfo(
        path=path,
        sha256=digest,
        size_bytes=size,
        manifest=manifest,
        entries=tuple(entries),
        manifest_bytes=manifest_bytes,
    )
    return info, located


def _open_archive(path: Path) -> BinaryIO:
    if not path.is_file():
        raise NotFound(f"no archive at {path}", reason="archive-not-found", subject=str(path))
    return open(path, "rb")


def _first_error(findings: list[Finding]) -> Finding | None:
    return next((f for f in findings if f.severity == "error"), None)


def _prepare_destination(dest: Path) -> None:
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise InvalidInput(
            f"extraction destination {dest} exists and is not empty",
            reason="destination-exists",
            subject=str(dest),
        )
    dest.parent.mkdir(parents=True, exist_ok=True)


class ArchiveFile:
    """A ``.gezk`` file held open, so its digest, its checks and its extraction read one file.

    The file is hashed at most once and scanned at most once, however many of :attr:`sha256`,
    :meth:`scan`, :meth:`inspect` and :meth:`extract` a caller uses; :func:`scan_archive`,
    :func:`inspect_archive` and :func:`extract_archive` are the one-call forms.
    """

    def __init__(self, path: Path | str, *, limits: ArchiveLimits = DEFAULT_LIMITS) -> None:
        self.path = Path(path)
        self.limits = limits
        self._fh = _open_archive(self.path)
        self._sha256: str | None = None
        self._scanned: tuple[ArchiveInfo | None, list[Finding]] | None = None
        self._located = _Located()

    def __enter__(self) -> ArchiveFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file."""
        self._fh.close()

    def stat(self) -> os.stat_result:
        """The open file's status (of the bytes this object reads, whatever the path names now)."""
        return os.fstat(self._fh.fileno())

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of the whole file."""
        if self._sha256 is None:
            self._sha256 = _stream_sha256(self._fh)
        return self._sha256

    def scan(self, expected_sha256: str | None = None) -> tuple[ArchiveInfo | None, list[Finding]]:
        """Run every pre-extraction check; return what was learned and all findings.

        The info is ``None`` when a fatal problem (digest, magic, ZIP structure, manifest)
        stopped the scan early.
        """
        digest = self.sha256
        if expected_sha256 is not None and digest != expected_sha256.lower():
            mismatch = Finding(
                "archive-digest-mismatch",
                f"archive SHA-256 is {digest}, expected {expected_sha256}",
                str(self.path),
            )
            return None, [mismatch]
        if self._scanned is None:
            scan = _Scan()
            info: ArchiveInfo | None = None
            try:
                info, self._located = _scan_structure(
                    self._fh, self.path, digest, self.limits, scan
                )
            except _Fatal:
                info = None
            self._scanned = (info, scan.findings)
        info, findings = self._scanned
        return info, list(findings)

    def inspect(self, expected_sha256: str | None = None) -> ArchiveInfo:
        """Check the archive without extracting it; raise the first problem as a typed error."""
        info, findings = self.scan(expected_sha256)
        first = _first_error(findings)
        if first is not None:
            raise error_for(first)
        assert info is not None
        return info

    def extract(
        self,
        dest_dir: Path | str,
        expected_sha256: str | None = None,
        *,
        on_staged: Callable[[Path], None] | None = None,
    ) -> ArchiveInfo:
        """Verify the archive and extract it to ``dest_dir`` (see :func:`extract_archive`)."""
        dest = Path(dest_dir)
        _prepare_destination(dest)
        info, findings = self.scan(expected_sha256)
        first = _first_error(findings)
        if first is not None:
            raise error_for(first)
        assert info is not None
        staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.staging-", dir=dest.parent))
        try:
            _extract_into(self._fh, self._located, info, staging)
            if on_staged is not None:
                on_staged(staging)
            if dest.exists():
                dest.rmdir()
            os.replace(staging, dest)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return info


def scan_archive(
    path: Path | str,
    expected_sha256: str | None = None,
    *,
    limits: ArchiveLimits = DEFAULT_LIMITS,
) -> tuple[ArchiveInfo | None, list[Finding]]:
    """Run every pre-extraction check; return what was learned and all findings.

    The info is ``None`` when a fatal problem (digest, magic, ZIP structure, manifest) stopped
    the scan early.
    """
    with ArchiveFile(path, limits=limits) as archive:
        return archive.scan(expected_sha256)


def inspect_archive(
    path: Path | str,
    expected_sha256: str | None = None,
    *,
    limits: ArchiveLimits = DEFAULT_LIMITS,
) -> ArchiveInfo:
    """Check an archive without extracting it; raise the first problem as a typed error."""
    with ArchiveFile(path, limits=limits) as archive:
        return archive.inspect(expected_sha256)


def _copy_entry(
    fh: BinaryIO,
    located: _Located,
    name: str,
    target: Path,
    *,
    expected_size: int,
    keep_bytes: bool,
) -> tuple[str, int, bytes | None]:
    digest = hashlib.sha256()
    written = 0
    kept: list[bytes] | None = [] if keep_bytes else None
    central, local = located.entries[name]
    with naming(target), open(target, "xb") as out:
        for block in entry_blocks(fh, central, local):
            written += len(block)
            if written > expected_size:
                raise error_for(
                    Finding("size-mismatch", "entry expands beyond its declared size", name)
                )
            digest.update(block)
            out.write(block)
            if kept is not None:
                kept.append(block)
    return digest.hexdigest(), written, b"".join(kept) if kept is not None else None


def _extract_into(fh: BinaryIO, located: _Located, info: ArchiveInfo, staging: Path) -> None:
    (staging / MIMETYPE_PATH).write_bytes(MIMETYPE)
    (staging / MANIFEST_PATH).write_bytes(info.manifest_bytes)
    for declared in info.manifest.files:
        target = staging.joinpath(*declared.path.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        is_asset = declared.path.startswith("assets/")
        try:
            digest, size, data = _copy_entry(
                fh,
                located,
                declared.path,
                target,
                expected_size=declared.size_bytes,
                keep_bytes=is_asset,
            )
        except ZipProblem as problem:
            raise error_for(
                Finding(problem.reason, f"cannot read entry: {problem.message}", declared.path)
            ) from None
        if size != declared.size_bytes:
            raise error_for(
                Finding(
                    "size-mismatch",
                    f"{size} bytes, declared {declared.size_bytes}",
                    declared.path,
                )
            )
        if digest != declared.sha256:
            raise error_for(
                Finding("digest-mismatch", "SHA-256 differs from manifest.files", declared.path)
            )
        if data is not None:
            problem_ = asset_problem(declared.path, data)
            if problem_ is not None:
                raise error_for(Finding(problem_.reason, problem_.message, declared.path))


def extract_archive(
    path: Path | str,
    dest_dir: Path | str,
    expected_sha256: str | None = None,
    *,
    limits: ArchiveLimits = DEFAULT_LIMITS,
    on_staged: Callable[[Path], None] | None = None,
) -> ArchiveInfo:
    """Verify an archive and extract it to ``dest_dir`` (which must not exist, or be empty).

    Extraction happens in a sibling staging directory that is renamed into place only after
    every size, digest and asset check passed; on any failure nothing is left behind.
    ``on_staged`` may run further checks (such as catalog validation) on the staging directory
    before it is published; an exception it raises aborts the extraction.
    """
    # The destination is checked before the archive is opened, as it always was.
    _prepare_destination(Path(dest_dir))
    with ArchiveFile(path, limits=limits) as archive:
        return archive.extract(dest_dir, expected_sha256, on_staged=on_staged)
