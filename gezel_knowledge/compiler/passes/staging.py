"""The scratch database a build keeps its documents in, so that no pass holds the corpus.

A build validates the source's documents one at a time into ``listed`` (with their placements,
locations and aliases), and SQLite, not Python, sorts them into processing order
``(topicPathKey, documentId)`` and catches repeated ids. The read pass then stages each
document's encoded body and chunks under its sequence number in ``docs`` and ``chunks``; the
shard and router writers copy from these tables inside SQLite (:mod:`~gezel_knowledge.compiler
.databases`). ``seen`` maps each distinct embed input to the first vector row that holds it, so
an input repeated anywhere in a build gets that row's vector, however the embedding was split
across processes.

The file lives in the build's scratch folder; durability would only cost fsyncs, so journaling
and syncing are off.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.compiler.passes.chunking import Chunk
from gezel_knowledge.compiler.sources.validation import (
    ValidDocument,
    dumps_compact,
    provenance_json,
)

__all__ = ["Staging"]

_DDL = """
CREATE TABLE listed(
  source_index INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  topic_path_key TEXT NOT NULL,
  title TEXT NOT NULL, slug TEXT NOT NULL, summary TEXT, language TEXT NOT NULL,
  topic_id TEXT NOT NULL, ordinal INTEGER,
  source_url TEXT, source_revision TEXT, source_updated_at TEXT,
  attribution_json TEXT, meta_json TEXT, aliases_text TEXT NOT NULL,
  origin TEXT, origin_line INTEGER
);
CREATE TABLE placements(topic_id TEXT NOT NULL, document_id TEXT NOT NULL, ordinal INTEGER);
CREATE TABLE locations(
  document_id TEXT NOT NULL, location_id TEXT NOT NULL, latitude REAL NOT NULL,
  longitude REAL NOT NULL, role TEXT NOT NULL, provenance_json TEXT
);
CREATE TABLE aliases(alias TEXT NOT NULL, document_id TEXT NOT NULL);
CREATE TABLE docs(
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL, slug TEXT NOT NULL, summary TEXT, language TEXT NOT NULL,
  topic_id TEXT NOT NULL, ordinal INTEGER, chunk_count INTEGER NOT NULL,
  source_url TEXT, source_revision TEXT, source_updated_at TEXT,
  attribution_json TEXT, meta_json TEXT, aliases_text TEXT NOT NULL,
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
CREATE TABLE seen(key BLOB PRIMARY KEY, row INTEGER NOT NULL) WITHOUT ROWID;
"""

_COPY_COLUMNS = (
    "id, title, slug, summary, language, topic_id, ordinal, source_url, source_revision, "
    "source_updated_at, attribution_json, meta_json, aliases_text"
)
_IN_BATCH = 500
"""Keys per ``IN (...)`` lookup (well under SQLite's bound on host parameters)."""


class Staging:
    """The scratch database documents, chunks and first embed-input rows are collected in."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = OFF")
        self.conn.execute("PRAGMA synchronous = OFF")
        self.conn.executescript(_DDL)
        self.conn.execute("BEGIN")

    # --- validation: the listed documents -------------------------------------------------

    def holder_of(self, document_id: str) -> tuple[str | None, int | None] | None:
        """``(origin, line)`` of the listed document with this id, if there is one."""
        row = self.conn.execute(
            "SELECT origin, origin_line FROM listed WHERE id = ?", (document_id,)
        ).fetchone()
        return None if row is None else (row[0], row[1])

    def list_document(self, source_index: int, doc: ValidDocument) -> None:
        """Record a validated document (``source_index``: its position in the source)."""
        src = doc.source
        self.conn.execute(
            "INSERT INTO listed(source_index, id, topic_path_key, title, slug, summary, "
            "language, topic_id, ordinal, source_url, source_revision, source_updated_at, "
            "attribution_json, meta_json, aliases_text, origin, origin_line) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                source_index,
                src.id,
                doc.topic_path_key,
                src.title,
                doc.slug,
                src.summary,
                doc.language,
                src.topic_path[-1],
                src.ordinal,
                src.source_url,
                src.source_revision,
                src.source_updated_at,
                doc.attribution_json,
                doc.meta_json,
                " ".join(doc.aliases),
                src.origin,
                src.origin_line,
            ),
        )
        self.conn.executemany(
            "INSERT INTO placements(topic_id, document_id, ordinal) VALUES (?, ?, ?)",
            [(p.topic_id, src.id, p.ordinal) for p in doc.placements],
        )
        self.conn.executemany(
            "INSERT INTO locations(document_id, location_id, latitude, longitude, role, "
            "provenance_json) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (src.id, loc.id, loc.latitude, loc.longitude, loc.role, provenance_json(loc))
                for loc in doc.locations
            ],
        )
        self.conn.executemany(
            "INSERT INTO aliases(alias, document_id) VALUES (?, ?)",
            [(alias, src.id) for alias in doc.aliases],
        )

    def listed_count(self) -> int:
        """How many documents were listed."""
        return int(self.conn.execute("SELECT COUNT(*) FROM listed").fetchone()[0])

    def processing_order(self) -> NDArray[np.int64]:
        """Source positions of the listed documents in ``(topicPathKey, documentId)`` order."""
        self.conn.execute("CREATE INDEX listed_order ON listed(topic_path_key, id)")
        cursor = self.conn.execute("SELECT source_index FROM listed ORDER BY topic_path_key, id")
        return np.fromiter((row[0] for row in cursor), dtype=np.int64)

    # --- the read pass: bodies, chunks, first rows of embed inputs -----------------------------

    def add(
        self,
        seq: int,
        source_index: int,
        *,
        body_codec: str,
        body_blob: bytes,
        chunks: Sequence[Chunk],
        first_row: int,
    ) -> None:
        """Stage one listed document's body and chunks as number ``seq`` in processing order."""
        self.conn.execute(
            f"INSERT INTO docs(seq, {_COPY_COLUMNS}, chunk_count, body_codec, body_blob, "
            f"first_row) SELECT ?, {_COPY_COLUMNS}, ?, ?, ?, ? FROM listed WHERE source_index = ?",
            (seq, len(chunks), body_codec, body_blob, first_row, source_index),
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

    def first_rows(self, keys: Sequence[bytes]) -> dict[bytes, int]:
        """The vector row already holding each of ``keys`` that an earlier input had."""
        found: dict[bytes, int] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), _IN_BATCH):
            batch = unique[start : start + _IN_BATCH]
            marks = ",".join("?" * len(batch))
            for key, row in self.conn.execute(
                f"SELECT key, row FROM seen WHERE key IN ({marks})", batch
            ):
                found[bytes(key)] = int(row)
        return found

    def note_rows(self, rows: Iterable[tuple[bytes, int]]) -> None:
        """Record the first vector row of embed inputs not seen before."""
        self.conn.executemany("INSERT OR IGNORE INTO seen(key, row) VALUES (?, ?)", rows)

    # --- shards ---------------------------------------------------------------------------

    def spans(self) -> Iterator[tuple[int, int]]:
        """``(first_row, chunk_count)`` of each staged document, in processing order."""
        yield from self.conn.execute("SELECT first_row, chunk_count FROM docs ORDER BY seq")

    def document_id(self, seq: int) -> str:
        """The id of staged document number ``seq``."""
        return str(self.conn.execute("SELECT id FROM docs WHERE seq = ?", (seq,)).fetchone()[0])

    def chunk_counts(self) -> NDArray[np.int64]:
        """Each staged document's chunk count, in processing order."""
        cursor = self.conn.execute("SELECT chunk_count FROM docs ORDER BY seq")
        return np.fromiter((row[0] for row in cursor), dtype=np.int64)

    def assign(self, shards: Iterable[tuple[int, int]]) -> None:
        """Record each staged document's shard from ``(seq, shard)`` pairs, then index them."""
        self.conn.executemany(
            "UPDATE docs SET shard_id = ? WHERE seq = ?", ((s, q) for q, s in shards)
        )
        self.conn.execute("COMMIT")
        self.conn.execute("CREATE INDEX docs_shard ON docs(shard_id, id)")

    def close(self) -> None:
        """Close the staging database."""
        self.conn.close()
