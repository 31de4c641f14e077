"""Writing the router and shard databases (spec sections 5.1-5.3, 8.3, 10).

A build first stages every document (body already encoded) and chunk in a scratch SQLite file,
in processing order. Each final database is then created with the schema-4 DDL and pragmas,
filled from the staging file in the order the format fixes (documents by id, chunk ids dense
from 1 in ``(document_id, ordinal)`` order), its FTS5 tables rebuilt and optimised, and sealed
with ``VACUUM INTO`` under ``journal_mode = DELETE`` so that no journal or WAL sidecar exists
and the bytes depend only on the content. Bodies move from staging to the router inside SQLite;
they never pass through Python a second time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import brotli
import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.archive.verify import file_sha256
from gezel_knowledge.compiler.chunking import Chunk
from gezel_knowledge.compiler.validation import ValidDocument, dumps_compact, provenance_json
from gezk import ddl
from gezk.quantize import pack_sign_bits, quantize_int8
from gezk.toc import Topic
from gezk.versions import WRITTEN

__all__ = [
    "BODY_BROTLI_MIN_BYTES",
    "MAX_BODY_BYTES",
    "SealedFile",
    "ShardContent",
    "ShardRow",
    "Staging",
    "create_database",
    "encode_body",
    "fill_router",
    "fill_shard",
    "seal",
]

BODY_BROTLI_MIN_BYTES = 512
_VECTOR_BLOCK = 1024
MAX_BODY_BYTES = 16 * 1024 * 1024

_STAGING_DDL = """
CREATE TABLE docs(
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL, slug TEXT NOT NULL, summary TEXT, language TEXT NOT NULL,
  topic_id TEXT NOT NULL, ordinal INTEGER, chunk_count INTEGER NOT NULL,
  source_url TEXT, source_revision TEXT, source_updated_at TEXT,
  attribution_json TEXT, meta_json TEXT,
  body_codec TEXT NOT NULL, body_blob BLOB NOT NULL,
  first_row INTEGER NOT NULL, shard_id INTEGER NOT NULL DEFAULT -1
);
CREATE TABLE chunks(
  doc_seq INTEGER NOT NULL, ordinal INTEGER NOT NULL,
  chunk_uid TEXT NOT NULL, heading_path TEXT NOT NULL, heading_text TEXT NOT NULL,
  line_start INTEGER NOT NULL, line_end INTEGER NOT NULL, token_count INTEGER NOT NULL,
  content_hash TEXT NOT NULL, text TEXT NOT NULL,
  PRIMARY KEY (doc_seq, ordinal)
);
"""


def encode_body(body: bytes) -> tuple[str, bytes]:
    """``("br", brotli quality 5 text mode)`` for bodies of 512 bytes or more, else ``"none"``."""
    if len(body) >= BODY_BROTLI_MIN_BYTES:
        return "br", brotli.compress(body, mode=brotli.MODE_TEXT, quality=5)
    return "none", body


class Staging:
    """The scratch database documents and chunks are collected in during a build."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = OFF")
        self.conn.execute("PRAGMA synchronous = OFF")
        self.conn.executescript(_STAGING_DDL)
        self.conn.execute("BEGIN")

    def add(
        self,
        seq: int,
        doc: ValidDocument,
        *,
        body_codec: str,
        body_blob: bytes,
        chunks: Sequence[Chunk],
        first_row: int,
    ) -> None:
        """Stage one document and its chunks."""
        src = doc.source
        self.conn.execute(
            "INSERT INTO docs(seq, id, title, slug, summary, language, topic_id, ordinal, "
            "chunk_count, source_url, source_revision, source_updated_at, attribution_json, "
            "meta_json, body_codec, body_blob, first_row) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                seq,
                src.id,
                src.title,
                doc.slug,
                src.summary,
                doc.language,
                src.topic_path[-1],
                src.ordinal,
                len(chunks),
                src.source_url,
                src.source_revision,
                src.source_updated_at,
                doc.attribution_json,
                doc.meta_json,
                body_codec,
                body_blob,
                first_row,
            ),
        )
        self.conn.executemany(
            "INSERT INTO chunks(doc_seq, ordinal, chunk_uid, heading_path, heading_text, "
            "line_start, line_end, token_count, content_hash, text) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    seq,
                    c.ordinal,
                    c.chunk_uid,
                    dumps_compact(list(c.heading_path)),
                    c.heading_text,
                    c.line_start,
                    c.line_end,
                    c.token_count,
                    c.content_hash,
                    c.text,
                )
                for c in chunks
            ],
        )

    def assign(self, shard_of: Mapping[int, int]) -> None:
        """Record each staged document's shard (by sequence number)."""
        self.conn.executemany(
            "UPDATE docs SET shard_id = ? WHERE seq = ?", [(s, q) for q, s in shard_of.items()]
        )
        self.conn.execute("COMMIT")
        self.conn.execute("CREATE INDEX docs_shard ON docs(shard_id, id)")

    def close(self) -> None:
        """Close the staging database."""
        self.conn.close()


def create_database(path: Path, *, router: bool, shard: bool) -> sqlite3.Connection:
    """A new build database at ``path`` with the schema-4 pragmas and DDL."""
    conn = sqlite3.connect(path, isolation_level=None)
    role: ddl.DatabaseRole = ("router+shard" if shard else "router") if router else "shard"
    # A build database is scratch until sealed: durability would only cost fsyncs.
    conn.execute("PRAGMA synchronous = OFF")
    ddl.create_schema(conn, role, WRITTEN.index_schema_version)
    return conn


@dataclass(frozen=True, slots=True)
class ShardContent:
    """What a filled shard holds: counts, leaf topics, and its chunk vectors in id order."""

    shard_id: int
    chunks: int
    documents: int
    topic_ids: tuple[str, ...]
    rows: NDArray[np.int64]
    """Row indices into the build's vector array, in chunk id order."""


def fill_shard(
    conn: sqlite3.Connection,
    staging: Path,
    shard_id: int,
    vectors: NDArray[np.float32],
    center: NDArray[np.float32] | None,
) -> ShardContent:
    """Copy a shard's chunks from staging, write its vectors, rebuild ``fts_chunks``."""
    conn.execute("ATTACH DATABASE ? AS staging", (str(staging),))
    conn.execute("BEGIN")
    conn.execute(
        "INSERT INTO chunks(id, chunk_uid, document_id, ordinal, title, heading_path, "
        "heading_text, line_start, line_end, token_count, content_hash, text) "
        "SELECT ROW_NUMBER() OVER (ORDER BY d.id, c.ordinal), c.chunk_uid, d.id, c.ordinal, "
        "d.title, c.heading_path, c.heading_text, c.line_start, c.line_end, c.token_count, "
        "c.content_hash, c.text "
        "FROM staging.docs d JOIN staging.chunks c ON c.doc_seq = d.seq "
        "WHERE d.shard_id = ? ORDER BY d.id, c.ordinal",
        (shard_id,),
    )
    spans = conn.execute(
        "SELECT first_row, chunk_count, topic_id FROM staging.docs WHERE shard_id = ? ORDER BY id",
        (shard_id,),
    ).fetchall()
    rows = (
        np.concatenate([np.arange(f, f + n, dtype=np.int64) for f, n, _ in spans])
        if spans
        else np.zeros(0, np.int64)
    )
    # Quantize in blocks: the encoders work in float64, so a whole shard at once would need
    # several times the shard's vectors in temporaries.
    for start in range(0, rows.size, _VECTOR_BLOCK):
        block = np.ascontiguousarray(vectors[rows[start : start + _VECTOR_BLOCK]], dtype=np.float32)
        int8 = quantize_int8(block)
        bits = pack_sign_bits(block, center)
        ids = range(start + 1, start + 1 + block.shape[0])
        conn.executemany(
            "INSERT INTO chunk_vectors_int8(chunk_id, v) VALUES (?, ?)",
            zip(ids, (row.tobytes() for row in int8), strict=True),
        )
        conn.executemany(
            "INSERT INTO chunk_vectors_bit(chunk_id, v) VALUES (?, ?)",
            zip(ids, (row.tobytes() for row in bits), strict=True),
        )
    conn.execute("INSERT INTO fts_chunks(fts_chunks) VALUES ('rebuild')")
    conn.execute("INSERT INTO fts_chunks(fts_chunks) VALUES ('optimize')")
    conn.execute("COMMIT")
    conn.execute("DETACH DATABASE staging")
    return ShardContent(
        shard_id=shard_id,
        chunks=int(rows.size),
        documents=len(spans),
        topic_ids=tuple(sorted({t for _, _, t in spans})),
        rows=rows,
    )


@dataclass(frozen=True, slots=True)
class ShardRow:
    """A ``shards`` row and its routing centroids."""

    shard_id: int
    path: str
    chunks: int
    documents: int
    topic_ids: tuple[str, ...]
    centroids: NDArray[np.float32]
    weights: NDArray[np.int64]
    bytes: int


def fill_router(
    conn: sqlite3.Connection,
    staging: Path,
    topics: Sequence[Topic],
    documents: Sequence[ValidDocument],
    shards: Sequence[ShardRow],
) -> None:
    """Write topics, documents (bodies copied inside SQLite), placements, locations, aliases,
    ``fts_documents``, shards and route centroids."""
    by_id = sorted(documents, key=lambda d: d.source.id)
    placements: dict[str, int] = {}
    rows: list[tuple[str, str, int | None]] = []
    for doc in by_id:
        for placement in doc.placements:
            rows.append((placement.topic_id, doc.source.id, placement.ordinal))
            placements[placement.topic_id] = placements.get(placement.topic_id, 0) + 1
    conn.execute("ATTACH DATABASE ? AS staging", (str(staging),))
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO topics(id, parent_id, name, description, sort_key, document_count) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [
            (t.id, t.parent_id, t.name, t.description, t.sort_key, placements.get(t.id, 0))
            for t in sorted(topics, key=lambda t: t.id)
        ],
    )
    conn.execute(
        "INSERT INTO documents(id, title, slug, summary, language, topic_id, ordinal, shard_id, "
        "chunk_count, source_url, source_revision, source_updated_at, attribution_json, "
        "meta_json, body_codec, body_blob) "
        "SELECT id, title, slug, summary, language, topic_id, ordinal, shard_id, chunk_count, "
        "source_url, source_revision, source_updated_at, attribution_json, meta_json, "
        "body_codec, body_blob FROM staging.docs ORDER BY id"
    )
    rows.sort(key=lambda r: (r[0], r[1]))
    conn.executemany(
        "INSERT INTO topic_documents(topic_id, document_id, ordinal) VALUES (?, ?, ?)", rows
    )
    conn.executemany(
        "INSERT INTO document_locations(document_id, location_id, latitude, longitude, role, "
        "provenance_json) VALUES (?, ?, ?, ?, ?, ?)",
        [
            (d.source.id, loc.id, loc.latitude, loc.longitude, loc.role, provenance_json(loc))
            for d in by_id
            for loc in d.locations
        ],
    )
    conn.executemany(
        "INSERT INTO aliases(alias, document_id) VALUES (?, ?)",
        sorted({(alias, d.source.id) for d in by_id for alias in d.aliases}),
    )
    conn.executemany(
        "INSERT INTO fts_documents(rowid, title, summary, aliases, document_id) "
        "VALUES (?, ?, ?, ?, ?)",
        [
            (i + 1, d.source.title, d.source.summary or "", " ".join(d.aliases), d.source.id)
            for i, d in enumerate(by_id)
        ],
    )
    conn.execute("INSERT INTO fts_documents(fts_documents) VALUES ('optimize')")
    next_centroid = 1
    for shard in sorted(shards, key=lambda s: s.shard_id):
        conn.execute(
            "INSERT INTO shards(id, path, chunk_count, document_count, topic_ids_json, "
            "centroid_count, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                shard.shard_id,
                shard.path,
                shard.chunks,
                shard.documents,
                dumps_compact(list(shard.topic_ids)),
                int(shard.centroids.shape[0]),
                shard.bytes,
            ),
        )
        for centroid, weight in zip(shard.centroids, shard.weights, strict=True):
            conn.execute(
                "INSERT INTO route_centroids(id, shard_id, embedding, weight) VALUES (?, ?, ?, ?)",
                (
                    next_centroid,
                    shard.shard_id,
                    np.asarray(centroid, dtype="<f4").tobytes(),
                    int(weight),
                ),
            )
            next_centroid += 1
    conn.execute("COMMIT")
    conn.execute("DETACH DATABASE staging")


@dataclass(frozen=True, slots=True)
class SealedFile:
    """A sealed database: where it is, its size and SHA-256."""

    path: Path
    size: int
    sha256: str


def seal(conn: sqlite3.Connection, dest: Path) -> SealedFile:
    """``VACUUM INTO`` ``dest`` (journal mode DELETE), close ``conn``, hash the result."""
    conn.execute("PRAGMA journal_mode = DELETE")
    ddl.seal(conn, str(dest))
    conn.close()
    return SealedFile(dest, dest.stat().st_size, file_sha256(dest))
