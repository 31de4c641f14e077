"""Hand-built archives for the verifier tests: a valid catalog layout and ways to break it.

The databases inside are placeholder bytes: archive checks never open them. Each helper writes
exactly the ZIP structure asked for, so a test can produce the malicious variant it names.
"""

from __future__ import annotations

import hashlib
import json
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gezk.profiles import MARKDOWN_CHUNKS_2, TEST_HASH_EMBED_1

MIMETYPE = b"application/vnd.gezk+zip"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40
SVG_OK = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><rect width="1"/></svg>'


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest_for(files: dict[str, bytes], **overrides: Any) -> dict[str, Any]:
    """A structurally valid 0.7 manifest declaring ``files``."""
    assets = sum(1 for p in files if p.startswith("assets/"))
    manifest: dict[str, Any] = {
        "kind": "gezk-catalog",
        "formatVersion": "0.7",
        "indexSchemaVersion": 4,
        "id": "demo",
        "version": "1.0.0",
        "name": "Demo",
        "language": "en",
        "publisher": {"id": "tester", "name": "Tester"},
        "createdAt": "2026-01-01T00:00:00.000Z",
        "license": {
            "name": "CC0",
            "noticePath": "LICENSES/catalog.txt",
            "attributionRequired": False,
        },
        "embedding": TEST_HASH_EMBED_1.to_json(),
        "chunking": MARKDOWN_CHUNKS_2.to_json(),
        "topics": [{"id": "root", "name": "Root"}],
        "router": {
            "shardTargetChunks": 200000,
            "shards": [
                {
                    "id": 0,
                    "path": "index/router.db",
                    "chunks": 1,
                    "documents": 1,
                    "centroids": 1,
                    "sha256": sha(files.get("index/router.db", b"")),
                }
            ],
            "totalCentroids": 1,
        },
        "counts": {"documents": 1, "chunks": 1, "shards": 1, "assets": assets},
        "files": [
            {"path": p, "sizeBytes": len(b), "sha256": sha(b)} for p, b in sorted(files.items())
        ],
        "spatial": {
            "schema": "document-points@1",
            "crs": "EPSG:4326",
            "distanceModel": "sphere-6371000",
            "locationCount": 0,
            "locatedDocuments": 0,
            "coverage": [],
        },
        "requires": {"formatVersion": "0.7", "features": []},
    }
    manifest.update(overrides)
    return manifest


@dataclass
class Entry:
    """One ZIP entry with every attribute a malicious archive might set."""

    name: str
    data: bytes
    method: int = zipfile.ZIP_STORED
    external_attr: int = 0o100644 << 16
    flag_bits: int = 0


def write_zip(path: Path, entries: list[Entry]) -> Path:
    """Write exactly these entries, in this order."""
    with zipfile.ZipFile(path, "w") as zf:
        for e in entries:
            info = zipfile.ZipInfo(e.name, date_time=(2000, 1, 1, 0, 0, 0))
            info.compress_type = e.method
            info.external_attr = e.external_attr
            info.flag_bits |= e.flag_bits
            zf.writestr(info, e.data)
    return path


@dataclass
class ArchiveSpec:
    """A valid catalog's entries; tests edit ``files``/``manifest``/``extra`` then ``build``."""

    files: dict[str, bytes] = field(
        default_factory=lambda: {
            "README.md": b"# Demo\n",
            "LICENSES/catalog.txt": b"CC0\n",
            "index/router.db": b"not really sqlite, never opened by archive checks",
        }
    )
    overrides: dict[str, Any] = field(default_factory=dict)
    extra: list[Entry] = field(default_factory=list)

    def manifest(self) -> dict[str, Any]:
        return manifest_for(self.files, **self.overrides)

    def entries(self, manifest: dict[str, Any] | None = None) -> list[Entry]:
        body = json.dumps(manifest or self.manifest()).encode()
        out = [Entry("mimetype", MIMETYPE), Entry("manifest.json", body)]
        out += [Entry(p, b) for p, b in sorted(self.files.items())]
        return out + self.extra

    def build(self, path: Path) -> Path:
        return write_zip(path, self.entries())


def set_flag_bits(path: Path, name: str, bits: int) -> None:
    """OR ``bits`` into an entry's general-purpose flags in both its local and central headers.

    ``zipfile`` resets the flags it writes, so the encrypted bit has to be patched in.
    """
    raw = bytearray(path.read_bytes())
    encoded = name.encode()
    with zipfile.ZipFile(path) as zf:
        offset = zf.getinfo(name).header_offset
    raw[offset + 6] |= bits & 0xFF
    at = raw.find(b"PK\x01\x02")
    while at >= 0:
        name_len = int.from_bytes(raw[at + 28 : at + 30], "little")
        if raw[at + 46 : at + 46 + name_len] == encoded:
            raw[at + 8] |= bits & 0xFF
        at = raw.find(b"PK\x01\x02", at + 4)
    path.write_bytes(bytes(raw))


@dataclass
class RawEntry:
    """One entry of a hand-assembled ZIP: every header field a hostile writer controls.

    ``local_*`` fields, when set, put a different value in the local header than in the
    central directory (the two must agree in a valid archive).
    """

    name: bytes
    data: bytes
    method: int = zipfile.ZIP_STORED
    flags: int = 0
    version_needed: int = 20
    external_attr: int = 0o100644 << 16
    extra: bytes = b""
    descriptor: bytes | None = None
    """Bytes written after the data (a data descriptor), when the writer uses one."""
    local_name: bytes | None = None
    local_crc: int | None = None
    local_sizes: tuple[int, int] | None = None
    local_flags: int | None = None
    local_extra: bytes | None = None
    gap_before: bytes = b""
    """Bytes written before this entry's local header that no central record accounts for."""

    def data_as_stored(self) -> bytes:
        if self.method == zipfile.ZIP_DEFLATED:
            packer = zlib.compressobj(6, zlib.DEFLATED, -15)
            return packer.compress(self.data) + packer.flush()
        return self.data


def raw_entries(spec: ArchiveSpec, manifest: dict[str, Any] | None = None) -> list[RawEntry]:
    """The valid catalog of ``spec`` as hand-assembled entries (names as UTF-8 bytes)."""
    return [RawEntry(e.name.encode(), e.data) for e in spec.entries(manifest)]


def write_raw_zip(
    path: Path,
    entries: list[RawEntry],
    *,
    eocd_count: int | None = None,
    comment: bytes = b"",
    trailing: bytes = b"",
) -> Path:
    """Assemble a ZIP byte by byte, independently of the production writer."""
    out = bytearray()
    central = bytearray()
    for e in entries:
        out += e.gap_before
        stored = e.data_as_stored()
        crc = zlib.crc32(e.data)
        offset = len(out)
        local_sizes = e.local_sizes if e.local_sizes is not None else (len(stored), len(e.data))
        local_extra = e.extra if e.local_extra is None else e.local_extra
        local_name = e.name if e.local_name is None else e.local_name
        out += struct.pack(
            "<4sHHHHHIIIHH",
            b"PK\x03\x04",
            e.version_needed,
            e.flags if e.local_flags is None else e.local_flags,
            e.method,
            0,
            (20 << 9) | (1 << 5) | 1,
            crc if e.local_crc is None else e.local_crc,
            local_sizes[0],
            local_sizes[1],
            len(local_name),
            len(local_extra),
        )
        out += local_name + local_extra + stored
        if e.descriptor is not None:
            out += e.descriptor
        central += struct.pack(
            "<4sHHHHHHIIIHHHHHII",
            b"PK\x01\x02",
            (3 << 8) | 20,
            e.version_needed,
            e.flags,
            e.method,
            0,
            (20 << 9) | (1 << 5) | 1,
            crc,
            len(stored),
            len(e.data),
            len(e.name),
            len(e.extra),
            0,
            0,
            0,
            e.external_attr,
            offset,
        )
        central += e.name + e.extra
    count = len(entries) if eocd_count is None else eocd_count
    cd_offset = len(out)
    out += central
    out += struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, len(central), cd_offset, len(comment)
    )
    out += comment + trailing
    path.write_bytes(bytes(out))
    return path


def descriptor_for(data: bytes, stored: bytes | None = None) -> bytes:
    """A data descriptor (with its optional signature) for ``data``."""
    stored = data if stored is None else stored
    return struct.pack("<4sIII", b"PK\x07\x08", zlib.crc32(data), len(stored), len(data))
