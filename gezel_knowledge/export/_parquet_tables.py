"""The tables of the Parquet companion: Arrow schemas and batches read from a catalog's databases.

Each table is read in primary-key order with ``fetchmany``, so a batch is at most
:data:`FETCH_ROWS` rows of Python objects before it becomes Arrow columns; the writer groups
batches into row groups. Column names are the gezk DDL names (spec section 5), with the
companion's conventions of spec section 14: a document's decoded body is ``markdown``, its
``topic_path`` the root-to-leaf ids of its primary topic, ``meta`` and ``attribution`` canonical
JSON (RFC 8785), ``aliases`` a sorted list; a chunk's ``heading_path`` a list, ``embedding`` its
int8 vector and ``embedding_bit`` its sign bits exactly as the archive stores them (section 6.2).

``pyarrow`` is handed in by the caller (it is an optional extra, imported on first use).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from gezel_knowledge.archive.limits import DEFAULT_LIMITS
from gezel_knowledge.errors import IntegrityFailure
from gezel_knowledge.reader.body import decode_body
from gezk.errors import SchemaViolation
from gezk.jcs import canonicalize

__all__ = [
    "FETCH_ROWS",
    "Batch",
    "CompanionTable",
    "TableName",
    "TableSource",
    "chunks_table",
    "document_locations_table",
    "documents_table",
    "topic_documents_table",
    "topic_paths",
    "topics_table",
]

FETCH_ROWS = 1024
"""Rows read from SQLite per Arrow batch."""

TableName = Literal["topics", "topic_documents", "document_locations", "documents", "chunks"]
Columns = dict[str, Sequence[Any]]
"""A batch of rows as columns, by the names SQLite reports (``d.title`` is ``title``)."""


@dataclass(frozen=True, slots=True)
class Batch:
    """Arrow columns of up to :data:`FETCH_ROWS` rows, and the text bytes they carry."""

    record_batch: Any
    text_bytes: int


@dataclass(frozen=True, slots=True)
class CompanionTable:
    """One Parquet file of the companion: its table, schema and a reader of its batches."""

    table: TableName
    file: str
    schema: Any
    batches: Callable[[], Iterator[Batch]]
    shard_id: int | None = None
    expected_rows: int | None = None


@dataclass(frozen=True, slots=True)
class TableSource:
    """What every table reads with: pyarrow, the router, its schema and the file metadata."""

    pa: Any
    router: sqlite3.Connection
    schema_version: int
    metadata: dict[str, str]


def _fetch(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> Iterator[Columns]:
    """The rows of ``sql``, :data:`FETCH_ROWS` at a time, as columns by name."""
    cursor = conn.execute(sql, params)
    names = [column[0] for column in cursor.description]
    try:
        while rows := cursor.fetchmany(FETCH_ROWS):
            yield dict(zip(names, zip(*rows, strict=True), strict=True))
    finally:
        cursor.close()


def _batch(pa: Any, schema: Any, columns: Columns, text_bytes: int = 0) -> Batch:
    """The schema's fields, in its order, from the columns of the same names."""
    arrays = [
        column if isinstance(column, pa.Array) else pa.array(column, type=field.type)
        for field in schema
        for column in (columns[field.name],)
    ]
    return Batch(pa.RecordBatch.from_arrays(arrays, schema=schema), text_bytes)


def _canonical(value: str | None, what: str, subject: str) -> str | None:
    if value is None:
        return None
    try:
        return canonicalize(json.loads(value)).decode("utf-8")
    except (ValueError, TypeError, SchemaViolation) as exc:
        raise IntegrityFailure(
            f"{subject}: {what} is not valid JSON ({exc})", reason="corrupt-row", subject=subject
        ) from None


# -- topics ------------------------------------------------------------------------------------


def topic_paths(router: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    """Each topic's ids from its root down to it (a cycle, which validation refuses, stops)."""
    parents = dict(router.execute("SELECT id, parent_id FROM topics").fetchall())
    paths: dict[str, tuple[str, ...]] = {}
    for topic in parents:
        path: list[str] = []
        cursor: str | None = topic
        while cursor is not None and cursor not in path and len(path) <= 32:
            path.append(cursor)
            cursor = parents.get(cursor)
        paths[topic] = tuple(reversed(path))
    return paths


def topics_table(src: TableSource) -> CompanionTable:
    """``topics.parquet``: the router's ``topics`` table in id order."""
    pa = src.pa
    schema = pa.schema(
        [
            pa.field("id", pa.string(), nullable=False),
            pa.field("parent_id", pa.string()),
            pa.field("name", pa.string(), nullable=False),
            pa.field("description", pa.string()),
            pa.field("sort_key", pa.string(), nullable=False),
            pa.field("document_count", pa.int64(), nullable=False),
        ],
        metadata=src.metadata,
    )
    sql = (
        "SELECT id, parent_id, name, description, sort_key, document_count FROM topics ORDER BY id"
    )

    def batches() -> Iterator[Batch]:
        for columns in _fetch(src.router, sql):
            yield _batch(pa, schema, columns)

    return CompanionTable("topics", "topics.parquet", schema, batches)


def topic_documents_table(src: TableSource) -> CompanionTable:
    """``topic_documents.parquet``: every placement (primary and shared), in key order.

    Schemas 2 and 3 have no placement table: each document's one primary placement is all
    there is, so it is exported from ``documents`` and the file means the same in every
    generation.
    """
    pa, schema_version = src.pa, src.schema_version
    schema = pa.schema(
        [
            pa.field("topic_id", pa.string(), nullable=False),
            pa.field("document_id", pa.string(), nullable=False),
            pa.field("ordinal", pa.int32()),
        ],
        metadata=src.metadata,
    )
    if schema_version >= 4:
        sql = (
            "SELECT topic_id, document_id, ordinal FROM topic_documents "
            "ORDER BY topic_id, document_id"
        )
    else:
        ordinal = "ordinal" if schema_version >= 3 else "NULL"
        sql = (
            f"SELECT topic_id, id AS document_id, {ordinal} AS ordinal FROM documents"
            " ORDER BY topic_id, id"
        )

    def batches() -> Iterator[Batch]:
        for columns in _fetch(src.router, sql):
            yield _batch(pa, schema, columns)

    return CompanionTable("topic_documents", "topic_documents.parquet", schema, batches)


def document_locations_table(src: TableSource) -> CompanionTable:
    """``document_locations.parquet`` (spec 5.2.2): every point, zero rows before 0.7."""
    pa = src.pa
    schema = pa.schema(
        [
            pa.field("document_id", pa.string(), nullable=False),
            pa.field("location_id", pa.string(), nullable=False),
            pa.field("latitude", pa.float64(), nullable=False),
            pa.field("longitude", pa.float64(), nullable=False),
            pa.field("role", pa.string(), nullable=False),
            pa.field("provenance_json", pa.string()),
        ],
        metadata=src.metadata,
    )
    sql = (
        "SELECT document_id, location_id, latitude, longitude, role, provenance_json "
        "FROM document_locations ORDER BY document_id, location_id"
    )

    def batches() -> Iterator[Batch]:
        if src.schema_version < 4:
            return
        for columns in _fetch(src.router, sql):
            yield _batch(pa, schema, columns)

    return CompanionTable("document_locations", "document_locations.parquet", schema, batches)


# -- documents ---------------------------------------------------------------------------------


def documents_table(
    src: TableSource, shard_id: int, *, expected_rows: int, paths: dict[str, tuple[str, ...]]
) -> CompanionTable:
    """``documents-NNN.parquet``: the documents whose chunks live in shard ``shard_id``."""
    pa = src.pa
    schema = pa.schema(
        [
            pa.field("id", pa.string(), nullable=False),
            pa.field("title", pa.string(), nullable=False),
            pa.field("slug", pa.string(), nullable=False),
            pa.field("summary", pa.string()),
            pa.field("language", pa.string(), nullable=False),
            pa.field("topic_id", pa.string(), nullable=False),
            pa.field("topic_path", pa.list_(pa.string()), nullable=False),
            pa.field("ordinal", pa.int32()),
            pa.field("shard_id", pa.int32(), nullable=False),
            pa.field("chunk_count", pa.int32(), nullable=False),
            pa.field("source_url", pa.string()),
            pa.field("source_revision", pa.string()),
            pa.field("source_updated_at", pa.string()),
            pa.field("attribution", pa.string()),
            pa.field("meta", pa.string()),
            pa.field("aliases", pa.list_(pa.string()), nullable=False),
            pa.field("markdown", pa.string(), nullable=False),
        ],
        metadata=src.metadata,
    )
    ordinal, meta = ("d.ordinal", "d.meta_json") if src.schema_version >= 3 else ("NULL", "NULL")
    # The aliases are grouped once and joined (SQLite indexes the grouped rows automatically);
    # the aliases table is keyed by alias, so a lookup per document would scan it each time.
    sql = f"""
        SELECT d.id, d.title, d.slug, d.summary, d.language, d.topic_id, {ordinal} AS ordinal,
               d.shard_id, d.chunk_count, d.source_url, d.source_revision, d.source_updated_at,
               d.attribution_json, {meta} AS meta_json, a.aliases, d.body_codec, d.body_blob
          FROM documents d
          LEFT JOIN (SELECT document_id, json_group_array(alias) AS aliases
                       FROM aliases GROUP BY document_id) a ON a.document_id = d.id
         WHERE d.shard_id = ?
         ORDER BY d.id"""
    max_body = DEFAULT_LIMITS.max_body_bytes

    def convert(cols: Columns) -> Batch:
        ids = cols["id"]
        markdown = [
            decode_body(doc, codec, blob, max_body)
            for doc, codec, blob in zip(ids, cols["body_codec"], cols["body_blob"], strict=True)
        ]
        attribution = zip(cols["attribution_json"], ids, strict=True)
        meta = zip(cols["meta_json"], ids, strict=True)
        columns: Columns = {
            **cols,
            "topic_path": [paths.get(topic, (topic,)) for topic in cols["topic_id"]],
            "attribution": [_canonical(v, "attribution_json", d) for v, d in attribution],
            "meta": [_canonical(v, "meta_json", d) for v, d in meta],
            "aliases": [sorted(json.loads(v)) if v is not None else [] for v in cols["aliases"]],
            "markdown": markdown,
        }
        return _batch(pa, schema, columns, sum(len(m) for m in markdown))

    def batches() -> Iterator[Batch]:
        for columns in _fetch(src.router, sql, (shard_id,)):
            yield convert(columns)

    return CompanionTable(
        "documents", f"documents-{shard_id:03d}.parquet", schema, batches, shard_id, expected_rows
    )


# -- chunks ------------------------------------------------------------------------------------


def chunks_table(
    src: TableSource,
    shard: sqlite3.Connection,
    shard_id: int,
    *,
    expected_rows: int,
    dimensions: int,
) -> CompanionTable:
    """``chunks-NNN.parquet``: a shard's chunks in id order with their two stored vectors."""
    pa = src.pa
    bit_bytes = (dimensions + 7) // 8
    schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("chunk_uid", pa.string(), nullable=False),
            pa.field("document_id", pa.string(), nullable=False),
            pa.field("ordinal", pa.int32(), nullable=False),
            pa.field("title", pa.string(), nullable=False),
            pa.field("heading_path", pa.list_(pa.string()), nullable=False),
            pa.field("heading_text", pa.string(), nullable=False),
            pa.field("line_start", pa.int32(), nullable=False),
            pa.field("line_end", pa.int32(), nullable=False),
            pa.field("token_count", pa.int32(), nullable=False),
            pa.field("content_hash", pa.string(), nullable=False),
            pa.field("text", pa.string(), nullable=False),
            pa.field("shard_id", pa.int32(), nullable=False),
            pa.field("embedding", pa.list_(pa.int8(), dimensions), nullable=False),
            pa.field("embedding_bit", pa.binary(), nullable=False),
        ],
        metadata=src.metadata,
    )
    # LEFT JOINs: a chunk without a vector row is an error to report, not a row to drop.
    sql = """
        SELECT c.id, c.chunk_uid, c.document_id, c.ordinal, c.title, c.heading_path,
               c.heading_text, c.line_start, c.line_end, c.token_count, c.content_hash, c.text,
               q.v AS embedding, b.v AS embedding_bit
          FROM chunks c
          LEFT JOIN chunk_vectors_int8 q ON q.chunk_id = c.id
          LEFT JOIN chunk_vectors_bit b ON b.chunk_id = c.id
         ORDER BY c.id"""

    def vectors(uids: Sequence[str], int8: Sequence[Any], bits: Sequence[Any]) -> Any:
        for uid, q, b in zip(uids, int8, bits, strict=True):
            if not isinstance(q, bytes) or len(q) != dimensions:
                raise _bad_vector(uid, "int8", dimensions)
            if not isinstance(b, bytes) or len(b) != bit_bytes:
                raise _bad_vector(uid, "bit", bit_bytes)
        flat = np.frombuffer(b"".join(int8), dtype=np.int8)
        return pa.FixedSizeListArray.from_arrays(pa.array(flat, type=pa.int8()), dimensions)

    def convert(cols: Columns) -> Batch:
        uids = cols["chunk_uid"]
        headings = zip(cols["heading_path"], uids, strict=True)
        columns: Columns = {
            **cols,
            "heading_path": [_heading_path(raw, uid) for raw, uid in headings],
            "shard_id": [shard_id] * len(uids),
            "embedding": vectors(uids, cols["embedding"], cols["embedding_bit"]),
        }
        return _batch(pa, schema, columns, sum(len(t) for t in cols["text"]))

    def batches() -> Iterator[Batch]:
        for columns in _fetch(shard, sql):
            yield convert(columns)

    return CompanionTable(
        "chunks", f"chunks-{shard_id:03d}.parquet", schema, batches, shard_id, expected_rows
    )


def _heading_path(raw: Any, uid: str) -> list[str]:
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        value = None
    if not isinstance(value, list) or not all(isinstance(h, str) for h in value):
        raise IntegrityFailure(
            f"chunk {uid}: heading_path is not a JSON array of strings",
            reason="corrupt-row",
            subject=uid,
        )
    return value


def _bad_vector(uid: str, kind: str, width: int) -> IntegrityFailure:
    return IntegrityFailure(
        f"chunk {uid}: the {kind} vector is missing or not {width} bytes",
        reason="corrupt-vector",
        subject=uid,
    )
