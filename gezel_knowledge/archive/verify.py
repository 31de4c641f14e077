"""Verify an untrusted ``.gezk`` archive and extract it safely (spec sections 3.3, 3.4, 12).

Nothing in an archive is trusted until it passes, in this order: the promised archive digest
(when the caller has one), the stored ``mimetype`` magic at byte 38, the central directory and
every local header (no directories, symlinks, special files, encryption, unsafe or
case-insensitively duplicated names, overlapping entries; sizes and compression ratios within
the limits), the manifest (size, JSON, supported generation), and the reconciliation of entries
with ``manifest.files``. :func:`extract_archive` then streams every declared file into a staging
directory next to the destination, checking sizes as it goes, SHA-256 digests and asset
contents afterwards, and renames the staging directory into place only when all of it holds.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import shutil
import stat
import struct
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from gezel_knowledge.archive.assets import asset_problem
from gezel_knowledge.archive.findings import Finding, error_for
from gezel_knowledge.archive.layout import layout_findings
from gezel_knowledge.archive.limits import DEFAULT_LIMITS, ArchiveLimits
from gezel_knowledge.archive.manifest import parse_manifest_bytes
from gezel_knowledge.archive.paths import (
    MANIFEST_PATH,
    MIMETYPE,
    MIMETYPE_PATH,
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
_UTF8_FLAG = 0x800
_ENCRYPTED_FLAG = 0x1
_DESCRIPTOR_FLAG = 0x8
_ALLOWED_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


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
    if method != zipfile.ZIP_STORED or flags & _ENCRYPTED_FLAG or xlen != 0:
        raise scan.fatal(
            "bad-mimetype", "the mimetype entry must be stored, unencrypted, without extras"
        )
    if head[38:] != MIMETYPE or csize != len(MIMETYPE) or usize != len(MIMETYPE):
        raise scan.fatal(
            "bad-mimetype", f"bytes 38.. must be exactly {MIMETYPE.decode()!r}", MIMETYPE_PATH
        )


def _entry_kind_problem(info: zipfile.ZipInfo) -> tuple[str, str] | None:
    mode = info.external_attr >> 16
    kind = stat.S_IFMT(mode)
    if info.filename.endswith("/") or kind == stat.S_IFDIR or info.external_attr & 0x10:
        return ("directory-entry", "directory entries are not allowed")
    if kind == stat.S_IFLNK:
        return ("symlink-entry", "symbolic links are not allowed")
    if kind not in (0, stat.S_IFREG):
        return ("special-entry", "only regular files are allowed")
    if info.flag_bits & _ENCRYPTED_FLAG:
        return ("encrypted-entry", "encrypted entries are not allowed")
    return None


def _check_local_header(fh: BinaryIO, info: zipfile.ZipInfo, scan: _Scan) -> int | None:
    """Compare an entry's local header with the central directory; return its data end."""
    fh.seek(info.header_offset)
    raw = fh.read(_LOCAL_HEADER.size)
    if len(raw) != _LOCAL_HEADER.size:
        scan.add("local-header-mismatch", "local header is truncated", info.filename)
        return None
    sig, _ver, flags, method, _t, _d, _crc, _cs, _us, nlen, xlen = _LOCAL_HEADER.unpack(raw)
    name = fh.read(nlen)
    expected = info.orig_filename.encode("utf-8" if info.flag_bits & _UTF8_FLAG else "cp437")
    if (
        sig != _LOCAL_SIGNATURE
        or name != expected
        or method != info.compress_type
        or (flags & _ENCRYPTED_FLAG) != (info.flag_bits & _ENCRYPTED_FLAG)
    ):
        scan.add(
            "local-header-mismatch",
            "local header disagrees with the central directory",
            info.filename,
        )
        return None
    end: int = info.header_offset + _LOCAL_HEADER.size + nlen + xlen + info.compress_size
    if flags & _DESCRIPTOR_FLAG:
        end += 12
    return end


def _check_entries(
    fh: BinaryIO, zf: zipfile.ZipFile, limits: ArchiveLimits, scan: _Scan
) -> list[ArchiveEntry]:
    infos = zf.infolist()
    if len(infos) > limits.max_entries:
        raise scan.fatal(
            "too-many-entries", f"{len(infos)} entries exceed the limit of {limits.max_entries}"
        )
    first = infos[0] if infos else None
    if (
        first is None
        or first.filename != MIMETYPE_PATH
        or first.header_offset != 0
        or first.compress_type != zipfile.ZIP_STORED
    ):
        raise scan.fatal("bad-mimetype", "the central directory does not start with mimetype")

    entries: list[ArchiveEntry] = []
    seen: dict[str, str] = {}
    total = 0
    spans: list[tuple[int, int, str]] = []
    for info in infos:
        if not _acceptable_entry(info, seen, scan):
            continue
        _check_entry_sizes(info, limits, scan)
        total += info.file_size
        end = _check_local_header(fh, info, scan)
        if end is not None:
            spans.append((info.header_offset, end, info.filename))
        entries.append(
            ArchiveEntry(
                path=info.filename,
                size_bytes=info.file_size,
                compressed_bytes=info.compress_size,
                stored=info.compress_type == zipfile.ZIP_STORED,
            )
        )
    if total > limits.max_total_bytes:
        scan.add("archive-too-large", f"{total} uncompressed bytes exceed the total limit")
    _check_spans(spans, zf.start_dir, scan)
    return entries


def _acceptable_entry(info: zipfile.ZipInfo, seen: dict[str, str], scan: _Scan) -> bool:
    """A safe, regular, unencrypted entry with a unique name and an allowed method; else the
    entry is reported and left out. ``seen`` maps case-folded names to the first spelling."""
    name = info.filename
    if info.orig_filename != name:
        scan.add("unsafe-path", "entry name contains a NUL or platform separator", name)
        return False
    kind = _entry_kind_problem(info)
    if kind:
        scan.add(kind[0], kind[1], name)
        return False
    problem = entry_name_problem(name)
    if problem:
        scan.add("unsafe-path", problem, name)
        return False
    folded = name.casefold()
    if folded in seen:
        scan.add("duplicate-entry", f"duplicates {seen[folded]!r} (case-insensitively)", name)
        return False
    seen[folded] = name
    if info.compress_type not in _ALLOWED_METHODS:
        scan.add("unsupported-compression", f"compression method {info.compress_type}", name)
        return False
    return True


def _check_entry_sizes(info: zipfile.ZipInfo, limits: ArchiveLimits, scan: _Scan) -> None:
    """Size and compression-ratio limits; a stored entry's two sizes agree."""
    name = info.filename
    if info.file_size > limits.max_entry_bytes:
        scan.add("entry-too-large", f"{info.file_size} bytes exceed the per-entry limit", name)
    ratio = info.file_size / max(1, info.compress_size)
    if info.file_size > 0 and ratio > limits.max_compression_ratio:
        scan.add(
            "compression-ratio",
            f"expands {ratio:.0f}:1, beyond {limits.max_compression_ratio:.0f}:1",
            name,
        )
    if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
        scan.add("local-header-mismatch", "stored entry with differing sizes", name)


def _check_spans(spans: list[tuple[int, int, str]], start_dir: int, scan: _Scan) -> None:
    """Entry data never overlaps another entry's or the central directory."""
    spans.sort()
    for (_, end, name), (start, _, nxt) in itertools.pairwise(spans):
        if start < end:
            scan.add("overlapping-entries", f"entry data overlaps {nxt!r}", name)
    if spans and spans[-1][1] > start_dir:
        scan.add("overlapping-entries", "entry data overlaps the central directory", spans[-1][2])


def _read_manifest(zf: zipfile.ZipFile, limits: ArchiveLimits, scan: _Scan) -> bytes:
    try:
        info = zf.getinfo(MANIFEST_PATH)
    except KeyError:
        raise scan.fatal("missing-manifest", "the archive has no manifest.json") from None
    if info.file_size > limits.max_manifest_bytes:
        raise scan.fatal("manifest-too-large", f"{info.file_size} bytes", MANIFEST_PATH)
    try:
        with zf.open(info) as src:
            data = src.read(limits.max_manifest_bytes + 1)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise scan.fatal("corrupt-archive", f"cannot read manifest.json: {exc}") from exc
    if len(data) > limits.max_manifest_bytes:
        raise scan.fatal("manifest-too-large", "manifest.json exceeds the limit", MANIFEST_PATH)
    return data


def _scan_structure(
    fh: BinaryIO, path: Path, digest: str, limits: ArchiveLimits, scan: _Scan
) -> ArchiveInfo:
    """Every check after the archive digest: magic, entries, manifest, layout."""
    size = os.fstat(fh.fileno()).st_size
    _check_magic(fh, scan)
    fh.seek(0)
    try:
        zf = zipfile.ZipFile(fh)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise scan.fatal("corrupt-archive", f"unreadable ZIP structure: {exc}", str(path)) from exc
    with zf:
        entries = _check_entries(fh, zf, limits, scan)
        manifest_bytes = _read_manifest(zf, limits, scan)
    try:
        manifest = parse_manifest_bytes(manifest_bytes)
    except KnowledgeError as exc:
        raise scan.fatal(exc.reason, exc.message, exc.subject) from exc
    sizes = {e.path: e.size_bytes for e in entries}
    scan.findings.extend(layout_findings(manifest, sizes, limits))
    return ArchiveInfo(
        path=path,
        sha256=digest,
        size_bytes=size,
        manifest=manifest,
        entries=tuple(entries),
        manifest_bytes=manifest_bytes,
    )


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

    def __enter__(self) -> ArchiveFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file."""
        self._fh.close()

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
            try:
                info: ArchiveInfo | None = _scan_structure(
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
        if info is None:
            raise error_for(findings[-1])
        first = _first_error(findings)
        if first is not None:
            raise error_for(first)
        staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.staging-", dir=dest.parent))
        try:
            _extract_into(self._fh, info, staging)
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
    zf: zipfile.ZipFile,
    name: str,
    target: Path,
    expected_size: int,
    keep_bytes: bool,
) -> tuple[str, int, bytes | None]:
    digest = hashlib.sha256()
    written = 0
    kept: list[bytes] | None = [] if keep_bytes else None
    with zf.open(name) as src, open(target, "xb") as out:
        while block := src.read(_BLOCK):
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


def _extract_into(fh: BinaryIO, info: ArchiveInfo, staging: Path) -> None:
    fh.seek(0)
    with zipfile.ZipFile(fh) as zf:
        (staging / MIMETYPE_PATH).write_bytes(MIMETYPE)
        (staging / MANIFEST_PATH).write_bytes(info.manifest_bytes)
        for declared in info.manifest.files:
            target = staging.joinpath(*declared.path.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            is_asset = declared.path.startswith("assets/")
            try:
                digest, size, data = _copy_entry(
                    zf, declared.path, target, declared.size_bytes, keep_bytes=is_asset
                )
            except (zipfile.BadZipFile, EOFError, ValueError) as exc:
                raise error_for(
                    Finding("corrupt-archive", f"cannot read entry: {exc}", declared.path)
                ) from exc
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
                problem = asset_problem(declared.path, data)
                if problem is not None:
                    raise error_for(Finding(problem.reason, problem.message, declared.path))


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
