"""The content index's tables: files, chunks, symbols, imports, image vectors and their FTS5
mirrors kept in step by triggers (seed, "From a file to a searchable passage")."""

from __future__ import annotations

from collections.abc import Sequence

from gezel_knowledge.indexes._storage import IndexSchema
from gezel_knowledge.indexes._text import FTS_TOKENIZER

__all__ = ["CONTENT_SCHEMA", "CONTENT_SCHEMA_VERSION", "HEADING_SEPARATOR"]

CONTENT_SCHEMA_VERSION = 1

HEADING_SEPARATOR = "\n"
"""Joins a chunk's heading path in the ``heading`` column."""

_TRIGGERS = [
    (
        "CREATE TRIGGER {t}_ai AFTER INSERT ON {t} BEGIN "
        "INSERT INTO {t}_fts (rowid, {cols}) VALUES (new.{id}, {new}); END"
    ),
    (
        "CREATE TRIGGER {t}_ad AFTER DELETE ON {t} BEGIN "
        "INSERT INTO {t}_fts ({t}_fts, rowid, {cols}) VALUES ('delete', old.{id}, {old}); END"
    ),
    (
        "CREATE TRIGGER {t}_au AFTER UPDATE OF {cols} ON {t} BEGIN "
        "INSERT INTO {t}_fts ({t}_fts, rowid, {cols}) VALUES ('delete', old.{id}, {old}); "
        "INSERT INTO {t}_fts (rowid, {cols}) VALUES (new.{id}, {new}); END"
    ),
]


def _fts_ddl(table: str, columns: Sequence[str]) -> list[str]:
    cols = ", ".join(columns)
    statements = [
        f"CREATE VIRTUAL TABLE {table}_fts USING fts5({cols}, content='{table}', "
        f"content_rowid='id', tokenize='{FTS_TOKENIZER}')"
    ]
    fmt = {
        "t": table,
        "cols": cols,
        "id": "id",
        "new": ", ".join(f"new.{c}" for c in columns),
        "old": ", ".join(f"old.{c}" for c in columns),
    }
    statements.extend(trigger.format(**fmt) for trigger in _TRIGGERS)
    return statements


CONTENT_SCHEMA = IndexSchema(
    kind="content",
    version=CONTENT_SCHEMA_VERSION,
    statements=(
        "CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, "
        "kind TEXT NOT NULL, language TEXT, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, "
        "content_hash TEXT NOT NULL, name_words TEXT NOT NULL, title TEXT NOT NULL, "
        "summary TEXT NOT NULL DEFAULT '', summary_hash TEXT)",
        "CREATE INDEX files_by_hash ON files (content_hash)",
        "CREATE TABLE chunks (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, "
        "ordinal INTEGER NOT NULL, heading TEXT NOT NULL, line_start INTEGER NOT NULL, "
        "line_end INTEGER NOT NULL, char_start INTEGER NOT NULL, char_end INTEGER NOT NULL, "
        "text TEXT NOT NULL, embedded INTEGER NOT NULL DEFAULT 0)",
        "CREATE INDEX chunks_by_file ON chunks (file_id, line_start)",
        "CREATE INDEX chunks_pending ON chunks (id) WHERE embedded = 0",
        "CREATE TABLE symbols (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, "
        "name TEXT NOT NULL, qualname TEXT NOT NULL, words TEXT NOT NULL, kind TEXT NOT NULL, "
        "line_start INTEGER NOT NULL, line_end INTEGER NOT NULL)",
        "CREATE INDEX symbols_by_file ON symbols (file_id)",
        "CREATE TABLE imports (file_id INTEGER NOT NULL, module TEXT NOT NULL, "
        "PRIMARY KEY (file_id, module)) WITHOUT ROWID",
        "CREATE INDEX imports_by_module ON imports (module)",
        "CREATE TABLE image_vectors (content_hash TEXT PRIMARY KEY, vector BLOB NOT NULL) "
        "WITHOUT ROWID",
        *_fts_ddl("files", ("name_words", "title", "summary")),
        *_fts_ddl("chunks", ("heading", "text")),
        *_fts_ddl("symbols", ("qualname", "words")),
    ),
)
"""The content index's schema (version :data:`CONTENT_SCHEMA_VERSION`)."""
