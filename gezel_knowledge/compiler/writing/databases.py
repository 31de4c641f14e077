"""Writing the router and shard databases (spec sections 5.1-5.3, 8.3, 10).

A build first stages every document (body already encoded) and chunk in a scratch SQLite file
(:mod:`~gezel_knowledge.compiler.passes.staging`), in processing order. Each final database is then
created with the schema-4 DDL and pragmas, filled from the staging file in the order the format
fixes (documents by id, chunk ids dense from 1 in ``(document_id, ordinal)`` order), its FTS5
tables rebuilt and optimised, and sealed with ``VACUUM INTO`` under ``journal_mode = DELETE``
so that no journal or WAL sidecar exists and the bytes depend only on the content. Bodies,
placements, locations and aliases move from staging to the router inside SQLite; they never
pass through Python a second time. A shard's vectors are read from the build's spill file one
document at a time and quantized in blocks of rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.archive.verify import file_sha256
from gezel_knowledge.compiler.passes.chunking import MAX_PASSAGE_TITLE_CHARS
from gezel_knowledge.compiler.passes.spill import VectorSpill
from gezel_knowledge.compiler.sources.validation import dumps_compact
from gezk import ddl
from gezk.quantize import pack_sign_bits, quantize_int8
from gezk.spatial import SpatialSummary, arc_coverage
from gezk.toc import Topic
from gezk.versions import WRITTEN

__all__ = [
    "SealedFile",
    "ShardContent",
    "ShardRow",
    "create_database",
    "fill_router",
    "fill_shard",
    "router_spatial_summary",
    "seal",
]

_VECTOR_BLOCK = 1024


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
    """What a filled shard holds: counts and leaf topics."""

    shard_id: int
    chunks: int
    documents: int
    topic_ids: tuple[str, ...]


class _Quantizer:
    """Collects a shard's vectors in chunk id order and writes them in blocks of rows."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        center: NDArray[np.float32] | None,
        sample: VectorSpill | None,
        stride: int,
    ) -> None:
        self.conn = conn
        self.center = center
        self.sample = sample
        self.stride = stride
        self.pending: list[NDArray[np.float32]] = []
        self.pending_rows = 0
        self.written = 0

    def add(self, rows: NDArray[np.float32]) -> None:
        for start in range(0, rows.shape[0], _VECTOR_BLOCK):
            part = rows[start : start + _VECTOR_BLOCK]
            self.pending.append(part)
            self.pending_rows += part.shape[0]
            if self.pending_rows >= _VECTOR_BLOCK:
                self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        block = np.ascontiguousarray(np.concatenate(self.pending), dtype=np.float32)
        self.pending, self.pending_rows = [], 0
        # The encoders work in float64 and row by row, so a block of rows bounds their
        # temporaries whatever the shard's size, and any split gives the same bytes.
        int8 = quantize_int8(block)
        bits = pack_sign_bits(block, self.center)
        first = self.written
        ids = range(first + 1, first + 1 + block.shape[0])
        self.conn.executemany(
            "INSERT INTO chunk_vectors_int8(chunk_id, v) VALUES (?, ?)",
            zip(ids, (row.tobytes() for row in int8), strict=True),
        )
        self.conn.executemany(
            "INSERT INTO chunk_vectors_bit(chunk_id, v) VALUES (?, ?)",
            zip(ids, (row.tobytes() for row in bits), strict=True),
        )
        if self.sample is not None:
            # Every stride-th chunk of the shard, counting from its first.
            offset = (-first) % self.stride
            self.sample.append(block[offset :: self.stride])
        self.written += block.shape[0]


def fill_shard(
    conn: sqlite3.Connection,
    staging: Path,
    shard_id: int,
    vectors: VectorSpill,
    center: NDArray[np.float32] | None,
    *,
    sample: VectorSpill | None = None,
    stride: int = 1,
) -> ShardContent:
    """Copy a shard's chunks from staging, write its vectors, rebuild ``fts_chunks``.

    The vectors are read from the spill file one document at a time, in chunk id order; every
    ``stride``-th of them (from the first) is also appended to ``sample``.
    """
    conn.execute("ATTACH DATABASE ? AS staging", (str(staging),))
    conn.execute("BEGIN")
    conn.execute(
        "INSERT INTO chunks(id, chunk_uid, document_id, ordinal, title, heading_path, "
        "heading_text, line_start, line_end, token_count, content_hash, text) "
        "SELECT ROW_NUMBER() OVER (ORDER BY d.id, c.ordinal), c.chunk_uid, d.id, c.ordinal, "
        "substr(d.title, 1, ?), c.heading_path, c.heading_text, c.line_start, c.line_end, "
        "c.token_count, c.content_hash, c.text "
        "FROM staging.docs d JOIN staging.chunks c ON c.doc_seq = d.seq "
        "WHERE d.shard_id = ? ORDER BY d.id, c.ordinal",
        (MAX_PASSAGE_TITLE_CHARS, shard_id),
    )
    quantizer = _Quantizer(conn, center, sample, stride)
    documents = 0
    topic_ids: set[str] = set()
    spans = conn.execute(
        "SELECT first_row, chunk_count, topic_id FROM staging.docs WHERE shard_id = ? ORDER BY id",
        (shard_id,),
    )
    for first_row, count, topic_id in spans:
        documents += 1
        topic_ids.add(topic_id)
        for start in range(0, count, _VECTOR_BLOCK):
            quantizer.add(vectors.read(first_row + start, min(_VECTOR_BLOCK, count - start)))
    quantizer.flush()
    conn.execute("INSERT INTO fts_chunks(fts_chunks) VALUES ('rebuild')")
    conn.execute("INSERT INTO fts_chunks(fts_chunks) VALUES ('optimize')")
    conn.execute("COMMIT")
    conn.execute("DETACH DATABASE staging")
    return ShardContent(
        shard_id=shard_id,
        chunks=quantizer.written,
        documents=documents,
        topic_ids=tuple(sorted(topic_ids)),
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
    shards: Sequence[ShardRow],
) -> None:
    """Write topics, documents (bodies copied inside SQLite), placements, locations, aliases,
    ``fts_documents``, shards and route centroids, every table from the staging database."""
    conn.execute("ATTACH DATABASE ? AS staging", (str(staging),))
    conn.execute("BEGIN")
    placed = dict(
        conn.execute("SELECT topic_id, COUNT(*) FROM staging.placements GROUP BY topic_id")
    )
    conn.executemany(
        "INSERT INTO topics(id, parent_id, name, description, sort_key, document_count) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [
            (t.id, t.parent_id, t.name, t.description, t.sort_key, placed.get(t.id, 0))
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
    conn.execute(
        "INSERT INTO topic_documents(topic_id, document_id, ordinal) "
        "SELECT topic_id, document_id, ordinal FROM staging.placements "
        "ORDER BY topic_id, document_id"
    )
    conn.execute(
        "INSERT INTO document_locations(document_id, location_id, latitude, longitude, role, "
        "provenance_json) SELECT document_id, location_id, latitude, longitude, role, "
        "provenance_json FROM staging.locations ORDER BY document_id, location_id"
    )
    conn.execute(
        "INSERT INTO aliases(alias, document_id) SELECT DISTINCT alias, document_id "
        "FROM staging.aliases ORDER BY alias, document_id"
    )
    conn.execute(
        "INSERT INTO fts_documents(rowid, title, summary, aliases, document_id) "
        "SELECT ROW_NUMBER() OVER (ORDER BY id), title, COALESCE(summary, ''), aliases_text, id "
        "FROM staging.docs ORDER BY id"
    )
    conn.execute("INSERT INTO fts_documents(fts_documents) VALUES ('optimize')")
    _fill_shards(conn, shards)
    conn.execute("COMMIT")
    conn.execute("DETACH DATABASE staging")


def _fill_shards(conn: sqlite3.Connection, shards: Sequence[ShardRow]) -> None:
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


def router_spatial_summary(router: sqlite3.Connection) -> SpatialSummary:
    """The manifest ``spatial`` summary of a router's ``document_locations`` (the subject
    points' longitudes streamed in order, not held)."""
    count, located = router.execute(
        "SELECT COUNT(*), COUNT(DISTINCT document_id) FROM document_locations"
    ).fetchone()
    south, north = router.execute(
        "SELECT MIN(latitude), MAX(latitude) FROM document_locations WHERE role = 'subject'"
    ).fetchone()
    longitudes = (
        float(lon)
        for (lon,) in router.execute(
            "SELECT DISTINCT longitude FROM document_locations WHERE role = 'subject' "
            "ORDER BY longitude"
        )
    )
    bounds = () if south is None else tuple(arc_coverage(longitudes, south, north))
    return SpatialSummary(location_count=count, located_documents=located, coverage=bounds)


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
