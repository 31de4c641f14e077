"""Writing the ``.gezk`` ZIP container byte-for-byte reproducibly (spec sections 3.1-3.2, 10).

The ZIP structures are written by hand rather than through :mod:`zipfile` so that every byte is
chosen here: the ``mimetype`` entry first and stored (its content therefore sits at offset 38),
every entry STORED, entries sorted by their UTF-8 path, timestamps fixed at
2000-01-01T00:00:00, external attributes encoding a regular file with mode ``0100644``
("version made by" Unix, so readers interpret them), and no extra field other than ZIP64 where
a size, an offset or the entry count needs it. The archive is written to a temporary file in
the destination directory and renamed into place, so a failed write leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from gezel_knowledge._faults import naming
from gezel_knowledge.archive.paths import MIMETYPE, entry_name_key, entry_name_problem
from gezel_knowledge.errors import InvalidInput

__all__ = ["write_archive"]

_LOCAL_SIGNATURE = 0x04034B50
_CENTRAL_SIGNATURE = 0x02014B50
_EOCD_SIGNATURE = 0x06054B50
_ZIP64_EOCD_SIGNATURE = 0x06064B50
_ZIP64_LOCATOR_SIGNATURE = 0x07064B50
_ZIP64_EXTRA_ID = 0x0001
_DOS_TIME = 0  # 00:00:00
_DOS_DATE = ((2000 - 1980) << 9) | (1 << 5) | 1  # 2000-01-01
_EXTERNAL_ATTRIBUTES = 0o100644 << 16
_MADE_BY_UNIX = 3 << 8
_UTF8_FLAG = 0x0800
_MAX32 = 0xFFFFFFFF
_MAX16 = 0xFFFF
_COPY_BUFFER = 1 << 20


@dataclass(slots=True)
class _Written:
    name: bytes
    crc: int
    size: int
    offset: int
    zip64_sizes: bool


def _check_entry_path(path: str) -> None:
    # The verifier's own rule, so the writer never produces an archive the verifier refuses.
    problem = entry_name_problem(path)
    if problem is None:
        try:
            path.encode("utf-8")  # names are UTF-8 (section 3.2); a lone surrogate is not
        except UnicodeEncodeError:
            problem = "entry name is not valid Unicode"
    if problem is not None:
        raise InvalidInput(
            f"archive entry path {path!r} is refused: {problem}",
            reason="invalid-archive-path",
            subject=path,
        )


def _dos_header_fields(zip64: bool, name: bytes) -> tuple[int, int]:
    version_needed = 45 if zip64 else 10
    flags = 0 if name.isascii() else _UTF8_FLAG
    return version_needed, flags


def _write_entry(
    out: BinaryIO, name: bytes, source: Path | bytes, size: int, zip64_threshold: int
) -> _Written:
    offset = out.tell()
    zip64 = size >= zip64_threshold
    version_needed, flags = _dos_header_fields(zip64, name)
    extra = struct.pack("<HHQQ", _ZIP64_EXTRA_ID, 16, size, size) if zip64 else b""
    stored_size = _MAX32 if zip64 else size
    header = struct.pack(
        "<IHHHHHIIIHH",
        _LOCAL_SIGNATURE,
        version_needed,
        flags,
        0,  # STORED
        _DOS_TIME,
        _DOS_DATE,
        0,  # CRC-32, patched below once the data has been streamed
        stored_size,
        stored_size,
        len(name),
        len(extra),
    )
    out.write(header + name + extra)
    crc = 0
    copied = 0
    if isinstance(source, bytes):
        crc = zlib.crc32(source)
        out.write(source)
        copied = len(source)
    else:
        with source.open("rb") as fh:
            while block := fh.read(_COPY_BUFFER):
                crc = zlib.crc32(block, crc)
                out.write(block)
                copied += len(block)
    if copied != size:
        raise InvalidInput(
            f"{name.decode('utf-8')} changed size while it was being archived "
            f"({size} -> {copied} bytes)",
            reason="source-changed",
            subject=name.decode("utf-8"),
        )
    end = out.tell()
    out.seek(offset + 14)
    out.write(struct.pack("<I", crc))
    out.seek(end)
    return _Written(name, crc, size, offset, zip64)


def _central_record(entry: _Written, offset_threshold: int) -> bytes:
    zip64_offset = entry.offset >= offset_threshold
    extra_values: list[int] = []
    if entry.zip64_sizes:
        extra_values += [entry.size, entry.size]
    if zip64_offset:
        extra_values.append(entry.offset)
    extra = b""
    if extra_values:
        extra = struct.pack(
            f"<HH{len(extra_values)}Q", _ZIP64_EXTRA_ID, 8 * len(extra_values), *extra_values
        )
    zip64 = bool(extra_values)
    version_needed, flags = _dos_header_fields(zip64, entry.name)
    size = _MAX32 if entry.zip64_sizes else entry.size
    return (
        struct.pack(
            "<IHHHHHHIIIHHHHHII",
            _CENTRAL_SIGNATURE,
            _MADE_BY_UNIX | (45 if zip64 else 20),
            version_needed,
            flags,
            0,  # STORED
            _DOS_TIME,
            _DOS_DATE,
            entry.crc,
            size,
            size,
            len(entry.name),
            len(extra),
            0,  # comment length
            0,  # disk number start
            0,  # internal attributes
            _EXTERNAL_ATTRIBUTES,
            _MAX32 if zip64_offset else entry.offset,
        )
        + entry.name
        + extra
    )


def _end_records(count: int, cd_offset: int, cd_size: int, threshold: int) -> bytes:
    needs_zip64 = count >= _MAX16 or cd_offset >= threshold or cd_size >= threshold
    out = b""
    if needs_zip64:
        zip64_eocd_offset = cd_offset + cd_size
        out += struct.pack(
            "<IQHHIIQQQQ",
            _ZIP64_EOCD_SIGNATURE,
            44,  # size of the remaining record
            _MADE_BY_UNIX | 45,
            45,
            0,
            0,
            count,
            count,
            cd_size,
            cd_offset,
        )
        out += struct.pack("<IIQI", _ZIP64_LOCATOR_SIGNATURE, 0, zip64_eocd_offset, 1)
    out += struct.pack(
        "<IHHHHIIH",
        _EOCD_SIGNATURE,
        0,
        0,
        min(count, _MAX16),
        min(count, _MAX16),
        _MAX32 if needs_zip64 else cd_size,
        _MAX32 if needs_zip64 else cd_offset,
        0,  # comment length
    )
    return out


def write_archive(
    dest: Path, entries: Mapping[str, Path | bytes], *, _zip64_threshold: int = _MAX32
) -> str:
    """Write a ``.gezk`` archive of ``entries`` to ``dest``; return its SHA-256 (hex).

    ``entries`` maps archive paths to file paths or bytes; ``mimetype`` is added first by the
    writer. Paths must pass the verifier's entry-name rule
    (:func:`~gezel_knowledge.archive.paths.entry_name_problem`) and be unique even when compared
    case-insensitively.
    """
    folded: dict[str, str] = {}
    for path in entries:
        _check_entry_path(path)
        key = entry_name_key(path)
        if key in folded:
            raise InvalidInput(
                f"archive entries {folded[key]!r} and {path!r} collide (case, Unicode "
                "normalisation or trailing dots)",
                reason="duplicate-archive-path",
                subject=path,
            )
        folded[key] = path
    for key, path in folded.items():
        parts = key.split("/")
        inside = ["/".join(parts[:depth]) for depth in range(1, len(parts))]
        outer = next((folded[p] for p in inside if p in folded), None)
        if outer is not None:
            raise InvalidInput(
                f"archive entry {path!r} would sit inside the file {outer!r}",
                reason="duplicate-archive-path",
                subject=path,
            )
    if "mimetype" in folded:
        raise InvalidInput(
            "the 'mimetype' entry is written by the archive writer itself",
            reason="invalid-archive-path",
            subject="mimetype",
        )
    ordered = sorted(entries, key=lambda p: p.encode("utf-8"))
    sizes = {
        path: len(source) if isinstance(source, bytes) else source.stat().st_size
        for path, source in entries.items()
    }
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".partial", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with naming(dest), os.fdopen(fd, "w+b") as out:
            written = [_write_entry(out, b"mimetype", MIMETYPE, len(MIMETYPE), _zip64_threshold)]
            for path in ordered:
                written.append(
                    _write_entry(
                        out, path.encode("utf-8"), entries[path], sizes[path], _zip64_threshold
                    )
                )
            cd_offset = out.tell()
            for entry in written:
                out.write(_central_record(entry, _zip64_threshold))
            cd_size = out.tell() - cd_offset
            out.write(_end_records(len(written), cd_offset, cd_size, _zip64_threshold))
            out.flush()
            os.fsync(out.fileno())
            out.seek(0)
            digest = hashlib.sha256()
            while block := out.read(_COPY_BUFFER):
                digest.update(block)
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return digest.hexdigest()
