"""The ZIP structures of a ``.gezk``, read strictly and without :mod:`zipfile` (spec section 3).

A catalog is untrusted, and ZIP is a format that different readers parse differently: one takes
the last end record, another walks local headers from the front, a third prefers an Info-ZIP
Unicode path field to the header's name. This module reads exactly one interpretation and
refuses every archive on which two common readers could disagree:

- the end-of-central-directory record is the last one in the file and nothing follows it but
  its own comment; the ZIP64 records, when present, agree with it; one disk only;
- the central directory holds exactly the number of records the end record counts and ends
  where the end records begin;
- every entry's local header repeats the central directory's flags, method, name, CRC and
  sizes (a data descriptor, allowed only after a deflated entry, repeats them too), and entry
  data tiles the file from byte 0 to the central directory without gaps or overlaps, so a
  streaming reader finds the same entries;
- names are UTF-8 (flagged) or ASCII, with no Unicode path field renaming them.

Entry data is then read here too (stored, or raw deflate with a bounded output and a CRC check),
so no :mod:`zipfile` exception (``RuntimeError`` for encryption, ``NotImplementedError`` for
unknown methods or versions) can escape as a traceback. Every problem is a
:class:`ZipProblem` carrying a stable ``reason``.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

__all__ = [
    "CentralDirectory",
    "CentralEntry",
    "LocalEntry",
    "ZipProblem",
    "entry_blocks",
    "read_central_directory",
    "read_local_entry",
]

STORED = 0
DEFLATED = 8
ENCRYPTED_FLAG = 0x0001
DESCRIPTOR_FLAG = 0x0008
PATCHED_DATA_FLAG = 0x0020
STRONG_ENCRYPTION_FLAG = 0x0040
UTF8_FLAG = 0x0800
ENCRYPTED_DIRECTORY_FLAG = 0x2000
# ZIP64 is version 4.5; stored and deflate need at most that. Later versions mean features
# (other methods, strong encryption) this reader refuses anyway.
MAX_VERSION_NEEDED = 45

_EOCD = struct.Struct("<4sHHHHIIH")
_ZIP64_LOCATOR = struct.Struct("<4sIQI")
_ZIP64_EOCD = struct.Struct("<4sQHHIIQQQQ")
_CENTRAL = struct.Struct("<4sHHHHHHIIIHHHHHII")
_LOCAL = struct.Struct("<4sHHHHHIIIHH")
_EOCD_SIG = b"PK\x05\x06"
_ZIP64_LOCATOR_SIG = b"PK\x06\x07"
_ZIP64_EOCD_SIG = b"PK\x06\x06"
_CENTRAL_SIG = b"PK\x01\x02"
_LOCAL_SIG = b"PK\x03\x04"
_DESCRIPTOR_SIG = b"PK\x07\x08"
_ZIP64_EXTRA = 0x0001
_UNICODE_PATH_EXTRA = 0x7075
_MAX16 = 0xFFFF
_MAX32 = 0xFFFFFFFF
_BLOCK = 1 << 20


class ZipProblem(Exception):
    """A structure that is refused: a stable ``reason``, a one-line message, a subject."""

    def __init__(self, reason: str, message: str, subject: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.subject = subject


@dataclass(frozen=True, slots=True)
class CentralEntry:
    """One central directory record, with its ZIP64 values resolved.

    ``name`` is ``None`` and ``name_problem`` says why when the name cannot be read the same
    way by every reader.
    """

    index: int
    raw_name: bytes
    name: str | None
    name_problem: str | None
    version_needed: int
    flags: int
    method: int
    crc: int
    compressed_size: int
    size: int
    external_attr: int
    header_offset: int

    @property
    def label(self) -> str:
        """The name for messages (undecodable bytes shown escaped)."""
        return self.name if self.name is not None else self.raw_name.decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class CentralDirectory:
    """The central directory and where it sits: entries, its first byte and one past its last."""

    entries: tuple[CentralEntry, ...]
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class LocalEntry:
    """Where an entry's data starts and where its bytes (data and descriptor) end."""

    data_offset: int
    end: int


def _read_at(fh: BinaryIO, offset: int, n: int) -> bytes:
    fh.seek(offset)
    return fh.read(n)


def read_central_directory(fh: BinaryIO, size: int, max_entries: int) -> CentralDirectory:
    """Find the end record, check it, and parse every central directory record."""
    eocd_at, count, cd_size, cd_offset = _end_record(fh, size)
    zip64_start = eocd_at
    locator_at = eocd_at - _ZIP64_LOCATOR.size
    if locator_at >= 0 and _read_at(fh, locator_at, 4) == _ZIP64_LOCATOR_SIG:
        zip64_start, count, cd_size, cd_offset = _zip64_end_record(
            fh, locator_at, count, cd_size, cd_offset
        )
    elif count == _MAX16 or _MAX32 in (cd_size, cd_offset):
        raise ZipProblem("corrupt-archive", "the end record defers to absent ZIP64 records")
    if count > max_entries:
        raise ZipProblem("too-many-entries", f"{count} entries exceed the limit of {max_entries}")
    cd_end = cd_offset + cd_size
    if cd_end > zip64_start:
        raise ZipProblem("eocd-mismatch", "the central directory overlaps the end records")
    if cd_end < zip64_start:
        raise ZipProblem(
            "trailing-bytes",
            f"{zip64_start - cd_end} bytes between the central directory and the end record",
        )
    data = _read_at(fh, cd_offset, cd_size)
    if len(data) != cd_size:
        raise ZipProblem("corrupt-archive", "the central directory is truncated")
    entries = _central_records(data, count)
    return CentralDirectory(tuple(entries), cd_offset, cd_end)


def _end_record(fh: BinaryIO, size: int) -> tuple[int, int, int, int]:
    """The last end-of-central-directory record: its offset, entry count, CD size and offset."""
    tail_start = max(0, size - (_EOCD.size + _MAX16))
    tail = _read_at(fh, tail_start, size - tail_start)
    at = tail.rfind(_EOCD_SIG)
    if at < 0 or at + _EOCD.size > len(tail):
        raise ZipProblem("corrupt-archive", "no end-of-central-directory record")
    _sig, disk, cd_disk, on_disk, count, cd_size, cd_offset, comment = _EOCD.unpack_from(tail, at)
    end = at + _EOCD.size + comment
    if end != len(tail):
        raise ZipProblem(
            "trailing-bytes",
            f"{len(tail) - end} bytes after the end-of-central-directory record"
            if end < len(tail)
            else "the archive comment runs past the end of the file",
        )
    if disk != 0 or cd_disk != 0 or on_disk != count:
        raise ZipProblem("eocd-mismatch", "multi-disk archives are not catalogs")
    return tail_start + at, count, cd_size, cd_offset


def _zip64_end_record(
    fh: BinaryIO, locator_at: int, count: int, cd_size: int, cd_offset: int
) -> tuple[int, int, int, int]:
    """The ZIP64 end record the locator names; where the 32-bit record gives a value (not the
    all-ones placeholder) the two must agree."""
    _sig, disk, record_at, disks = _ZIP64_LOCATOR.unpack(
        _read_at(fh, locator_at, _ZIP64_LOCATOR.size)
    )
    if disk != 0 or disks > 1:
        raise ZipProblem("eocd-mismatch", "multi-disk archives are not catalogs")
    raw = _read_at(fh, record_at, _ZIP64_EOCD.size) if record_at < locator_at else b""
    if len(raw) != _ZIP64_EOCD.size or raw[:4] != _ZIP64_EOCD_SIG:
        raise ZipProblem("corrupt-archive", "the ZIP64 end record is missing or damaged")
    (_s, rest, _made, _need, disk64, cd_disk64, on_disk64, count64, size64, offset64) = (
        _ZIP64_EOCD.unpack(raw)
    )
    if record_at + 12 + rest != locator_at:
        raise ZipProblem("trailing-bytes", "bytes between the ZIP64 end record and its locator")
    if disk64 != 0 or cd_disk64 != 0 or on_disk64 != count64:
        raise ZipProblem("eocd-mismatch", "multi-disk archives are not catalogs")
    for short, full, placeholder, what in (
        (count, count64, _MAX16, "entry count"),
        (cd_size, size64, _MAX32, "central directory size"),
        (cd_offset, offset64, _MAX32, "central directory offset"),
    ):
        if short not in (placeholder, full):
            raise ZipProblem("eocd-mismatch", f"the end records disagree on the {what}")
    return record_at, count64, size64, offset64


def _central_records(data: bytes, count: int) -> list[CentralEntry]:
    entries: list[CentralEntry] = []
    pos = 0
    while pos < len(data):
        if len(entries) == count:
            raise ZipProblem(
                "eocd-mismatch",
                f"the central directory holds more than the {count} records the end record counts",
            )
        entry, pos = _central_record(data, pos, len(entries))
        entries.append(entry)
    if len(entries) != count:
        raise ZipProblem(
            "eocd-mismatch",
            f"the end record counts {count} entries, the central directory holds {len(entries)}",
        )
    return entries


def _central_record(data: bytes, pos: int, index: int) -> tuple[CentralEntry, int]:
    if pos + _CENTRAL.size > len(data) or data[pos : pos + 4] != _CENTRAL_SIG:
        raise ZipProblem("corrupt-archive", f"central directory record {index} is damaged")
    (
        _sig,
        _made_by,
        needed,
        flags,
        method,
        _time,
        _date,
        crc,
        csize,
        usize,
        name_len,
        extra_len,
        comment_len,
        disk,
        _internal,
        external,
        offset,
    ) = _CENTRAL.unpack_from(data, pos)
    start = pos + _CENTRAL.size
    end = start + name_len + extra_len + comment_len
    if end > len(data):
        raise ZipProblem("corrupt-archive", f"central directory record {index} is truncated")
    raw_name = data[start : start + name_len]
    extra = data[start + name_len : start + name_len + extra_len]
    name, name_problem = _decode_name(raw_name, flags)
    label = name or raw_name.decode("utf-8", "replace")
    fields = _extra_fields(extra, label)
    if _UNICODE_PATH_EXTRA in fields:
        name, name_problem = None, "an Info-ZIP Unicode path field renames the entry"
    usize, csize, offset, disk = _zip64_values(fields, (usize, csize, offset), disk, label)
    if disk != 0:
        raise ZipProblem("eocd-mismatch", "the entry starts on another disk", label)
    entry = CentralEntry(
        index=index,
        raw_name=raw_name,
        name=name,
        name_problem=name_problem,
        version_needed=needed,
        flags=flags,
        method=method,
        crc=crc,
        compressed_size=csize,
        size=usize,
        external_attr=external,
        header_offset=offset,
    )
    return entry, end


def _decode_name(raw: bytes, flags: int) -> tuple[str | None, str | None]:
    """The entry name; CP437 and UTF-8 agree only on ASCII, so an unflagged name must be ASCII."""
    if flags & UTF8_FLAG:
        try:
            return raw.decode("utf-8"), None
        except UnicodeDecodeError:
            return None, "the name is flagged UTF-8 but is not"
    if raw.isascii():
        return raw.decode("ascii"), None
    return None, "a non-ASCII name without the UTF-8 flag (readers disagree on its encoding)"


def _extra_fields(extra: bytes, subject: str) -> dict[int, bytes]:
    fields: dict[int, bytes] = {}
    pos = 0
    while pos < len(extra):
        if pos + 4 > len(extra):
            raise ZipProblem("corrupt-archive", "a damaged extra field", subject)
        field_id, length = struct.unpack_from("<HH", extra, pos)
        if pos + 4 + length > len(extra):
            raise ZipProblem("corrupt-archive", "a damaged extra field", subject)
        if field_id in fields:
            raise ZipProblem("corrupt-archive", f"extra field {field_id:#06x} repeated", subject)
        fields[field_id] = extra[pos + 4 : pos + 4 + length]
        pos += 4 + length
    return fields


def _zip64_values(
    fields: dict[int, bytes], values: tuple[int, int, int], disk: int, subject: str
) -> tuple[int, int, int, int]:
    """Sizes, offset and disk with the all-ones placeholders replaced from the ZIP64 field
    (which lists only the placeholders' values, in this order)."""
    wanted = [v == _MAX32 for v in values] + [disk == _MAX16]
    resolved = [*values, disk]
    if not any(wanted):
        return resolved[0], resolved[1], resolved[2], resolved[3]
    payload = fields.get(_ZIP64_EXTRA)
    if payload is None:
        raise ZipProblem("corrupt-archive", "a ZIP64 placeholder without its extra field", subject)
    pos = 0
    for i, needed in enumerate(wanted):
        if not needed:
            continue
        width = 4 if i == 3 else 8
        if pos + width > len(payload):
            raise ZipProblem("corrupt-archive", "a ZIP64 extra field too short", subject)
        resolved[i] = int.from_bytes(payload[pos : pos + width], "little")
        pos += width
    return resolved[0], resolved[1], resolved[2], resolved[3]


def read_local_entry(fh: BinaryIO, entry: CentralEntry, limit: int) -> LocalEntry:
    """Check an entry's local header (and data descriptor) against its central record.

    ``limit`` is the first byte past the entry area (the central directory's start).
    """
    subject = entry.label
    raw = _read_at(fh, entry.header_offset, _LOCAL.size) if entry.header_offset < limit else b""
    if len(raw) != _LOCAL.size or raw[:4] != _LOCAL_SIG:
        raise ZipProblem(
            "local-header-mismatch", "no local header where the directory says", subject
        )
    _sig, _need, flags, method, _t, _d, crc, csize, usize, name_len, extra_len = _LOCAL.unpack(raw)
    name = fh.read(name_len)
    extra = fh.read(extra_len)
    if flags != entry.flags or method != entry.method or name != entry.raw_name:
        raise ZipProblem(
            "local-header-mismatch",
            "the local header's flags, method or name differ from the central directory",
            subject,
        )
    fields = _extra_fields(extra, subject)
    if _UNICODE_PATH_EXTRA in fields:
        raise ZipProblem(
            "invalid-entry-name", "an Info-ZIP Unicode path field renames the entry", subject
        )
    zip64 = _ZIP64_EXTRA in fields
    if zip64 and _MAX32 in (usize, csize):
        usize, csize, _o, _d = _zip64_values(fields, (usize, csize, 0), 0, subject)
    data_offset = entry.header_offset + _LOCAL.size + name_len + extra_len
    end = data_offset + entry.compressed_size
    if flags & DESCRIPTOR_FLAG:
        end += _check_descriptor(fh, entry, end, zip64, (crc, csize, usize))
    elif (crc, csize, usize) != (entry.crc, entry.compressed_size, entry.size):
        raise ZipProblem(
            "local-header-mismatch",
            "the local header's CRC or sizes differ from the central directory",
            subject,
        )
    if end > limit:
        raise ZipProblem(
            "overlapping-entries", "entry data overlaps the central directory", subject
        )
    return LocalEntry(data_offset, end)


def _check_descriptor(
    fh: BinaryIO, entry: CentralEntry, at: int, zip64: bool, local: tuple[int, int, int]
) -> int:
    """The data descriptor after a deflated entry repeats the directory's CRC and sizes; return
    its length."""
    subject = entry.label
    if entry.method == STORED:
        # A stored entry's end is only knowable from its sizes, which a descriptor defers.
        raise ZipProblem(
            "data-descriptor", "a stored entry must not defer its sizes to a descriptor", subject
        )
    expected = (entry.crc, entry.compressed_size, entry.size)
    if local not in ((0, 0, 0), expected):
        raise ZipProblem(
            "local-header-mismatch",
            "the local header's CRC or sizes differ from the central directory",
            subject,
        )
    width = 8 if zip64 else 4
    raw = _read_at(fh, at, 4 + 4 + 2 * width)
    signed = raw[:4] == _DESCRIPTOR_SIG
    body = raw[4:] if signed else raw
    if len(body) < 4 + 2 * width:
        raise ZipProblem("local-header-mismatch", "the data descriptor is truncated", subject)
    found = (
        int.from_bytes(body[0:4], "little"),
        int.from_bytes(body[4 : 4 + width], "little"),
        int.from_bytes(body[4 + width : 4 + 2 * width], "little"),
    )
    if found != expected:
        raise ZipProblem(
            "local-header-mismatch",
            "the data descriptor differs from the central directory",
            subject,
        )
    return (4 if signed else 0) + 4 + 2 * width


def entry_blocks(
    fh: BinaryIO, entry: CentralEntry, local: LocalEntry, block: int = _BLOCK
) -> Iterator[bytes]:
    """The entry's uncompressed bytes in blocks, never more than its declared size; the CRC
    and size are checked at the end."""
    subject = entry.label
    remaining = entry.compressed_size
    produced = 0
    crc = 0
    inflater = zlib.decompressobj(-15) if entry.method == DEFLATED else None
    fh.seek(local.data_offset)
    while remaining > 0:
        chunk = fh.read(min(block, remaining))
        if not chunk:
            raise ZipProblem("corrupt-archive", "entry data is truncated", subject)
        remaining -= len(chunk)
        pos = fh.tell()
        for out in _inflate(inflater, chunk, entry.size - produced, subject):
            produced += len(out)
            crc = zlib.crc32(out, crc)
            yield out
        fh.seek(pos)
    if inflater is not None:
        # Output zlib still holds once every input byte went in (bounded like the rest).
        for out in _inflate(inflater, b"", entry.size - produced, subject):
            produced += len(out)
            crc = zlib.crc32(out, crc)
            yield out
        if not inflater.eof or inflater.unused_data:
            raise ZipProblem("corrupt-archive", "the deflate stream does not end there", subject)
    if produced != entry.size:
        raise ZipProblem(
            "size-mismatch", f"{produced} bytes, the directory says {entry.size}", subject
        )
    if crc != entry.crc:
        raise ZipProblem("corrupt-archive", "the entry fails its CRC check", subject)


def _inflate(
    inflater: zlib._Decompress | None, chunk: bytes, room: int, subject: str
) -> Iterator[bytes]:
    """Stored bytes as they are, or deflate output bounded by ``room`` (the declared size left):
    a stream that expands further is refused before the excess is produced."""
    if inflater is None:
        if len(chunk) > room:
            raise ZipProblem("size-mismatch", "entry expands beyond its declared size", subject)
        yield chunk
        return
    data = chunk
    while True:
        if inflater.eof:
            if data or inflater.unused_data:
                raise ZipProblem(
                    "corrupt-archive", "bytes after the end of the deflate stream", subject
                )
            return
        try:
            out = inflater.decompress(data, room + 1)
        except zlib.error as exc:
            raise ZipProblem("corrupt-archive", f"invalid deflate data: {exc}", subject) from None
        if len(out) > room:
            raise ZipProblem("size-mismatch", "entry expands beyond its declared size", subject)
        room -= len(out)
        before, data = data, inflater.unconsumed_tail
        if not out:
            if not data:
                return
            if len(data) >= len(before):
                raise ZipProblem("corrupt-archive", "the deflate stream makes no progress", subject)
            continue
        yield out
