"""Temporary stand-ins for gezk modules being written in parallel (ids, uri, jcs, quantize).

Each function here is replaced by its ``gezk`` counterpart as soon as that lands on main; this
module then disappears.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Any
from urllib.parse import quote

import numpy as np
import rfc8785
from numpy.typing import NDArray

from gezk.errors import InvalidIdentifier

_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?\Z")
_VERSION = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._+-]{0,126}[A-Za-z0-9])?\Z")
_RESERVED = (
    {"con", "prn", "aux", "nul"}
    | {f"com{i}" for i in range(1, 10)}
    | {f"lpt{i}" for i in range(1, 10)}
)


def _label(kind: str, value: object) -> str:
    if not isinstance(value, str) or not _LABEL.match(value):
        raise InvalidIdentifier(
            f"invalid {kind} {value!r}: expected [a-z0-9]([a-z0-9-]{{0,62}}[a-z0-9])?",
            reason=f"invalid-{kind.replace(' ', '-')}",
            subject=str(value),
        )
    return value


def validate_publisher_id(value: object) -> str:
    return _label("publisher id", value)


def validate_catalog_id(value: object) -> str:
    return _label("catalog id", value)


def validate_topic_id(value: object) -> str:
    return _label("topic id", value)


def validate_version(value: object) -> str:
    if (
        not isinstance(value, str)
        or not _VERSION.match(value)
        or value.split(".")[0].lower() in _RESERVED
    ):
        raise InvalidIdentifier(
            f"invalid version {value!r}", reason="invalid-version", subject=str(value)
        )
    return value


def validate_document_id(value: object) -> str:
    if (
        not isinstance(value, str)
        or not 1 <= len(value) <= 256
        or unicodedata.normalize("NFC", value) != value
        or value != value.strip()
        or any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in value)
    ):
        raise InvalidIdentifier(
            f"invalid document id {value!r}", reason="invalid-document-id", subject=str(value)
        )
    return value


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_uid(document_id: str, ordinal: int, text: str) -> str:
    inner = hashlib.sha256(text.encode("utf-8")).digest()
    outer = hashlib.sha256(
        document_id.encode("utf-8") + b"\x00" + str(ordinal).encode("ascii") + b"\x00" + inner
    )
    return outer.hexdigest()[:32]


def sort_key_for_order(n: int) -> str:
    if not -(2**31) <= n < 2**31:
        raise ValueError(f"order {n} is not a signed 32-bit integer")
    return f"{n + 2**31:010d}"


def canonicalize(obj: Any) -> bytes:
    return rfc8785.dumps(obj)


def knowledge_uri(
    publisher_id: str,
    catalog_id: str,
    document_id: str,
    line_start: int | None = None,
    line_end: int | None = None,
) -> str:
    encoded = "/".join(quote(seg, safe="-._~") for seg in document_id.split("/"))
    uri = f"knowledge://{publisher_id}/{catalog_id}/{encoded}"
    if line_start is not None:
        uri += f"#line={line_start}" + (f"-{line_end}" if line_end is not None else "")
    return uri


def quantize_int8(x: NDArray[np.float32]) -> NDArray[np.int8]:
    scaled = np.asarray(x, dtype=np.float64) * 127.0
    q = np.floor(scaled + 0.5)
    return np.clip(q, -127, 127).astype(np.int8)


def pack_sign_bits(
    x: NDArray[np.float32], center: NDArray[np.float32] | None = None
) -> NDArray[np.uint8]:
    values = np.asarray(x, dtype=np.float32)
    if center is not None:
        values = values - center
    return np.packbits(values > 0, axis=-1, bitorder="little")


APPLICATION_ID = 0x47455A4B
PAGE_SIZE = 8192

_ROUTER_DDL = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

CREATE TABLE topics(
  id TEXT PRIMARY KEY, parent_id TEXT, name TEXT NOT NULL,
  description TEXT, sort_key TEXT NOT NULL, document_count INTEGER NOT NULL
);

CREATE TABLE documents(
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL, slug TEXT NOT NULL, summary TEXT,
  language TEXT NOT NULL, topic_id TEXT NOT NULL REFERENCES topics(id),
  ordinal INTEGER,
  shard_id INTEGER NOT NULL,
  chunk_count INTEGER NOT NULL,
  source_url TEXT, source_revision TEXT, source_updated_at TEXT,
  attribution_json TEXT,
  meta_json TEXT,
  body_codec TEXT NOT NULL CHECK (body_codec IN ('none','br')),
  body_blob BLOB NOT NULL
);
CREATE INDEX documents_topic ON documents(topic_id, ordinal, slug);
CREATE INDEX documents_shard ON documents(shard_id);

CREATE TABLE document_locations(
  document_id TEXT NOT NULL REFERENCES documents(id),
  location_id TEXT NOT NULL,
  latitude REAL NOT NULL CHECK (latitude BETWEEN -90 AND 90),
  longitude REAL NOT NULL CHECK (longitude >= -180 AND longitude < 180),
  role TEXT NOT NULL CHECK (role IN ('subject','associated')),
  provenance_json TEXT,
  PRIMARY KEY (document_id, location_id)
) WITHOUT ROWID;
CREATE INDEX document_locations_latitude ON document_locations(latitude, longitude, document_id);
CREATE INDEX document_locations_longitude ON document_locations(longitude, latitude, document_id);

CREATE TABLE topic_documents(
  topic_id TEXT NOT NULL REFERENCES topics(id),
  document_id TEXT NOT NULL REFERENCES documents(id),
  ordinal INTEGER CHECK (ordinal IS NULL OR
    (typeof(ordinal) = 'integer' AND ordinal BETWEEN -2147483648 AND 2147483647)),
  PRIMARY KEY (topic_id, document_id)
) WITHOUT ROWID;
CREATE INDEX topic_documents_document ON topic_documents(document_id);
CREATE INDEX topic_documents_order ON topic_documents(topic_id, ordinal, document_id);

CREATE TABLE aliases(alias TEXT NOT NULL, document_id TEXT NOT NULL,
  PRIMARY KEY (alias, document_id)) WITHOUT ROWID;

CREATE TABLE shards(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  chunk_count INTEGER NOT NULL, document_count INTEGER NOT NULL,
  topic_ids_json TEXT NOT NULL, centroid_count INTEGER NOT NULL,
  bytes INTEGER NOT NULL
);

CREATE TABLE route_centroids(
  id INTEGER PRIMARY KEY,
  shard_id INTEGER NOT NULL REFERENCES shards(id),
  embedding BLOB NOT NULL,
  weight INTEGER NOT NULL
);
CREATE INDEX route_centroids_shard ON route_centroids(shard_id);

CREATE VIRTUAL TABLE fts_documents USING fts5(
  title, summary, aliases, document_id UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);
"""

_SHARD_TABLES = """
CREATE TABLE chunks(
  id INTEGER PRIMARY KEY,
  chunk_uid TEXT NOT NULL,
  document_id TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  title TEXT NOT NULL,
  heading_path TEXT NOT NULL,
  heading_text TEXT NOT NULL,
  line_start INTEGER NOT NULL, line_end INTEGER NOT NULL,
  token_count INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE UNIQUE INDEX chunks_uid ON chunks(chunk_uid);
CREATE INDEX chunks_document ON chunks(document_id, ordinal);

CREATE VIRTUAL TABLE fts_chunks USING fts5(
  title, heading_text, text,
  content = 'chunks', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TABLE chunk_vectors_bit(
  chunk_id INTEGER PRIMARY KEY,
  v BLOB NOT NULL
);

CREATE TABLE chunk_vectors_int8(
  chunk_id INTEGER PRIMARY KEY,
  v BLOB NOT NULL
);
"""


def router_ddl(schema_version: int) -> str:
    del schema_version
    return _ROUTER_DDL


def shard_ddl(schema_version: int) -> str:
    del schema_version
    return (
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;\n"
        + _SHARD_TABLES
    )


def embedded_shard_ddl(schema_version: int) -> str:
    del schema_version
    return _SHARD_TABLES


def coverage(points: list[tuple[float, float]]) -> list[dict[str, float]]:
    """Subject-point coverage bounds (spec section 5.2.2), as manifest objects."""
    if not points:
        return []
    lats = [p[0] for p in points]
    lons = sorted({p[1] for p in points})
    south, north = min(lats), max(lats)
    best_gap = -1.0
    best_index = -1
    for i in range(len(lons)):
        nxt = lons[i + 1] if i + 1 < len(lons) else lons[0] + 360.0
        gap = nxt - lons[i]
        if gap > best_gap:
            best_gap, best_index = gap, i
    if best_index == len(lons) - 1:
        return [{"west": lons[0], "south": south, "east": lons[-1], "north": north}]
    west, east = lons[best_index + 1], lons[best_index]
    return [
        {"west": west, "south": south, "east": 180.0, "north": north},
        {"west": -180.0, "south": south, "east": east, "north": north},
    ]
