"""SQLite layout of a catalog's databases: DDL, pragmas, ``meta`` keys and a layout checker.

Implements spec section 5 for index schemas 2 (gezk 0.5), 3 (0.6) and 4 (0.7). The DDL text is
the spec's own, statement for statement; the only differences between the schemas are in the
router: schema 3 adds ``documents.ordinal`` and ``documents.meta_json`` (and ``ordinal`` in the
``documents_topic`` index), schema 4 adds ``document_locations`` and ``topic_documents``. Shard
databases are identical in all three. A catalog small enough for one shard embeds the shard
tables in the router database with one shared ``meta`` table (section 8.3); that layout is the
role ``"router+shard"``.

Everything here works on an already-open ``sqlite3.Connection`` with stock SQLite and FTS5; no
function opens a file. :func:`seal` asks SQLite itself to write the sealed copy (``VACUUM
INTO``); writing to a temporary name and renaming it into place is the caller's job. The layout
checker learns which tables and columns to expect by running the same DDL in a private
in-memory database, so the DDL text is the one statement of the layout.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Final, Literal, cast, get_args

from gezk.errors import GezkError, SchemaViolation, UnsupportedVersion
from gezk.versions import generation_for_schema

__all__ = [
    "APPLICATION_ID",
    "OPTIONAL_META_KEYS",
    "PAGE_SIZE",
    "ROUTER_META_KEYS",
    "SHARD_META_KEYS",
    "DatabaseRole",
    "DeclaredColumn",
    "DeclaredTable",
    "apply_pragmas",
    "check_database",
    "create_schema",
    "database_ddl",
    "declared_tables",
    "read_meta",
    "required_meta_keys",
    "router_ddl",
    "seal",
    "shard_ddl",
    "write_meta",
]

PAGE_SIZE: Final = 8192
"""``PRAGMA page_size`` of every catalog database."""

APPLICATION_ID: Final = 0x47455A4B
"""``PRAGMA application_id`` of every catalog database: the ASCII bytes ``GEZK``."""

DatabaseRole = Literal["router", "shard", "router+shard"]
"""Which tables a database holds; ``router+shard`` is a router with its single shard embedded."""

SHARD_META_KEYS: Final[tuple[str, ...]] = (
    "format_version",
    "index_schema_version",
    "catalog_id",
    "catalog_version",
    "embedding_profile_id",
    "chunking_profile_id",
    "shard_id",
    "chunk_count",
)
"""``meta`` keys every database (router or shard) echoes."""

ROUTER_META_KEYS: Final[tuple[str, ...]] = (
    "embedding_profile_json",
    "chunking_profile_json",
    "created_at",
    "toolchain_json",
)
"""``meta`` keys the router stores in addition to :data:`SHARD_META_KEYS`."""

OPTIONAL_META_KEYS: Final[frozenset[str]] = frozenset({"toolchain_json"})
"""``meta`` keys a database may omit."""

_ROLES: Final[tuple[str, ...]] = get_args(DatabaseRole)

# --- DDL text, as printed in spec section 5.2 / 5.3 -------------------------------------------

_META = "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"

_TOPICS = """CREATE TABLE topics(
  id TEXT PRIMARY KEY, parent_id TEXT, name TEXT NOT NULL,
  description TEXT, sort_key TEXT NOT NULL, document_count INTEGER NOT NULL
);"""

_DOCUMENTS_2 = """CREATE TABLE documents(
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL, slug TEXT NOT NULL, summary TEXT,
  language TEXT NOT NULL, topic_id TEXT NOT NULL REFERENCES topics(id),
  shard_id INTEGER NOT NULL,
  chunk_count INTEGER NOT NULL,
  source_url TEXT, source_revision TEXT, source_updated_at TEXT,
  attribution_json TEXT,
  body_codec TEXT NOT NULL CHECK (body_codec IN ('none','br')),
  body_blob BLOB NOT NULL
);
CREATE INDEX documents_topic ON documents(topic_id, slug);
CREATE INDEX documents_shard ON documents(shard_id);"""

_DOCUMENTS_3 = """CREATE TABLE documents(
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
CREATE INDEX documents_shard ON documents(shard_id);"""

_DOCUMENT_LOCATIONS = """CREATE TABLE document_locations(
  document_id TEXT NOT NULL REFERENCES documents(id),
  location_id TEXT NOT NULL,
  latitude REAL NOT NULL CHECK (latitude BETWEEN -90 AND 90),
  longitude REAL NOT NULL CHECK (longitude >= -180 AND longitude < 180),
  role TEXT NOT NULL CHECK (role IN ('subject','associated')),
  provenance_json TEXT,
  PRIMARY KEY (document_id, location_id)
) WITHOUT ROWID;
CREATE INDEX document_locations_latitude ON document_locations(latitude, longitude, document_id);
CREATE INDEX document_locations_longitude ON document_locations(longitude, latitude, document_id);"""  # noqa: E501 (spec text verbatim)

_TOPIC_DOCUMENTS = """CREATE TABLE topic_documents(
  topic_id TEXT NOT NULL REFERENCES topics(id),
  document_id TEXT NOT NULL REFERENCES documents(id),
  ordinal INTEGER CHECK (ordinal IS NULL OR
    (typeof(ordinal) = 'integer' AND ordinal BETWEEN -2147483648 AND 2147483647)),
  PRIMARY KEY (topic_id, document_id)
) WITHOUT ROWID;
CREATE INDEX topic_documents_document ON topic_documents(document_id);
CREATE INDEX topic_documents_order ON topic_documents(topic_id, ordinal, document_id);"""

_ROUTER_TAIL = """CREATE TABLE aliases(alias TEXT NOT NULL, document_id TEXT NOT NULL,
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
);"""

_SHARD_TABLES = """CREATE TABLE chunks(
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
);"""


def _router_parts(schema_version: int) -> list[str]:
    if schema_version == 2:
        return [_META, _TOPICS, _DOCUMENTS_2, _ROUTER_TAIL]
    if schema_version == 3:
        return [_META, _TOPICS, _DOCUMENTS_3, _ROUTER_TAIL]
    return [_META, _TOPICS, _DOCUMENTS_3, _DOCUMENT_LOCATIONS, _TOPIC_DOCUMENTS, _ROUTER_TAIL]


def _join(parts: list[str]) -> str:
    return "\n\n".join(parts) + "\n"


def router_ddl(schema_version: int) -> str:
    """The DDL script of ``index/router.db`` for an index schema (2, 3 or 4)."""
    return _join(_router_parts(_checked_version(schema_version)))


def shard_ddl(schema_version: int) -> str:
    """The DDL script of a shard database ``index/shards/NNN.db`` (the same in schemas 2-4)."""
    _checked_version(schema_version)
    return _join([_META, _SHARD_TABLES])


def database_ddl(role: DatabaseRole, schema_version: int) -> str:
    """The DDL script of a database in ``role``; ``router+shard`` shares one ``meta`` table."""
    version = _checked_version(schema_version)
    if _checked_role(role) == "router":
        return router_ddl(version)
    if role == "shard":
        return shard_ddl(version)
    return _join([*_router_parts(version), _SHARD_TABLES])


# --- pragmas ----------------------------------------------------------------------------------


def apply_pragmas(conn: sqlite3.Connection, schema_version: int) -> None:
    """Set page size, application id, ``user_version`` and ``journal_mode = DELETE``.

    Call it on an empty database, before any table exists: SQLite fixes the page size when the
    first page is written, so a later call could not honour section 5.1 and is refused.
    """
    version = _checked_version(schema_version)
    if _schema_object_count(conn):
        raise SchemaViolation(
            "apply_pragmas needs an empty database: tables already exist, so the page size "
            f"could no longer become {PAGE_SIZE}",
            reason="database-not-empty",
        )
    conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {version}")
    # In-memory databases answer "memory"; only a file database can (and must) use DELETE.
    conn.execute("PRAGMA journal_mode = DELETE")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    if page_size != PAGE_SIZE:
        raise SchemaViolation(
            f"SQLite kept page_size {page_size} instead of {PAGE_SIZE} (is the database in WAL "
            "mode or already written?)",
            reason="page-size-refused",
        )


def create_schema(conn: sqlite3.Connection, role: DatabaseRole, schema_version: int) -> None:
    """Apply the pragmas and create every table of ``role`` on an empty database."""
    script = database_ddl(role, schema_version)
    apply_pragmas(conn, schema_version)
    conn.executescript(script)


def seal(conn: sqlite3.Connection, dest_path: str) -> None:
    """Commit and write a compacted copy of the database to ``dest_path`` with ``VACUUM INTO``.

    SQLite writes the file and refuses an existing non-empty destination; the copy keeps the
    page size, application id and ``user_version`` and has no journal or WAL sidecar.
    Determinism and the temp-file-and-rename step belong to the caller.
    """
    if conn.in_transaction:
        conn.commit()
    try:
        conn.execute("VACUUM INTO ?", (dest_path,))
    except sqlite3.Error as exc:
        raise SchemaViolation(
            f"VACUUM INTO {dest_path!r} failed: {exc}", reason="seal-failed", subject=dest_path
        ) from exc


# --- meta -------------------------------------------------------------------------------------


ROUTER_ONLY_OPTIONAL_META_KEYS: Final[frozenset[str]] = frozenset({"shard_id", "chunk_count"})
"""Shard echoes a router without an embedded shard may omit.

Spec section 5.1 says every database echoes them and the compiler writes them, but a router
whose shards are all external has no shard to echo, and the reference toolchain omits them
there; a reader that refused such routers would refuse that toolchain's sharded catalogs.
"""


def required_meta_keys(role: DatabaseRole) -> tuple[str, ...]:
    """The ``meta`` keys a database in ``role`` must hold (optional keys excluded)."""
    checked = _checked_role(role)
    keys = SHARD_META_KEYS
    if checked != "shard":
        keys = keys + ROUTER_META_KEYS
    optional = OPTIONAL_META_KEYS
    if checked == "router":
        optional = optional | ROUTER_ONLY_OPTIONAL_META_KEYS
    return tuple(key for key in keys if key not in optional)


def write_meta(conn: sqlite3.Connection, mapping: Mapping[str, str | int]) -> None:
    """Insert or replace ``meta`` rows; integers are stored as their decimal text."""
    rows: list[tuple[str, str]] = []
    for key in sorted(mapping):
        value = mapping[key]
        if not isinstance(key, str) or not key:
            raise SchemaViolation(f"meta key {key!r} is not a non-empty string", reason="bad-meta")
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise SchemaViolation(
                f"meta value of {key!r} must be text or an integer, not {type(value).__name__}",
                reason="bad-meta",
                subject=key,
            )
        rows.append((key, str(value)))
    conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        rows,
    )


def read_meta(conn: sqlite3.Connection) -> dict[str, str]:
    """Every ``meta`` row as a dict, keys in ascending order."""
    try:
        rows = conn.execute("SELECT key, value FROM meta ORDER BY key").fetchall()
    except sqlite3.OperationalError as exc:
        raise SchemaViolation(
            f"cannot read the meta table: {exc}", reason="missing-table", subject="meta"
        ) from exc
    meta: dict[str, str] = {}
    for key, value in rows:
        if not isinstance(key, str) or not isinstance(value, str):
            raise SchemaViolation(
                f"meta row {key!r} does not hold text", reason="bad-meta", subject=str(key)
            )
        meta[key] = value
    return meta


# --- layout check -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeclaredColumn:
    """One column as the DDL declares it (``type`` is ``""`` for FTS5 columns)."""

    name: str
    type: str
    not_null: bool


@dataclass(frozen=True, slots=True)
class DeclaredTable:
    """One table the DDL creates: its columns, whether it is FTS5, and its ``CREATE`` text."""

    name: str
    columns: tuple[DeclaredColumn, ...]
    fts5: bool
    sql: str


_CREATE_TABLE = re.compile(r"CREATE (?:VIRTUAL )?TABLE (\w+)")


@cache
def declared_tables(role: DatabaseRole, schema_version: int) -> tuple[DeclaredTable, ...]:
    """The tables the DDL of ``role`` creates, with their columns as SQLite declares them.

    Derived by running the DDL in a private in-memory database, so checks built on it can never
    drift from the DDL text; FTS5 shadow tables are not part of the layout.
    """
    script = database_ddl(_checked_role(role), _checked_version(schema_version))
    scratch = sqlite3.connect(":memory:")
    try:
        scratch.executescript(script)
        tables: list[DeclaredTable] = []
        for name in _CREATE_TABLE.findall(script):
            (sql,) = scratch.execute(
                "SELECT sql FROM sqlite_master WHERE name = ?", (name,)
            ).fetchone()
            columns = tuple(
                DeclaredColumn(str(row[1]), str(row[2]).upper(), bool(row[3]))
                for row in scratch.execute(f'PRAGMA table_info("{name}")')
            )
            tables.append(DeclaredTable(name, columns, bool(_USING_FTS5.search(sql)), str(sql)))
    finally:
        scratch.close()
    return tuple(tables)


_USING_FTS5 = re.compile(r"\bUSING\s+fts5\b", re.IGNORECASE)


def check_database(conn: sqlite3.Connection, role: DatabaseRole, schema_version: int) -> list[str]:
    """Human-readable problems of a database against the schema of ``role``; empty when fine.

    Reports a wrong ``application_id``/``user_version``, WAL journalling, missing tables,
    columns and FTS5 virtual tables, wrongly declared column types, missing required ``meta``
    keys and version echoes in ``meta`` that disagree with ``schema_version``. Extra tables,
    columns and indexes are not problems.
    """
    version = _checked_version(schema_version)
    _checked_role(role)
    problems: list[str] = []

    application_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if application_id != APPLICATION_ID:
        problems.append(
            f"application_id is {application_id} (0x{application_id & 0xFFFFFFFF:08X}), "
            f"expected {APPLICATION_ID} (0x{APPLICATION_ID:08X}, 'GEZK')"
        )
    user_version = conn.execute("PRAGMA user_version").fetchone()[0]
    if user_version != version:
        problems.append(f"user_version is {user_version}, expected {version} (index schema)")
    journal_mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
    if journal_mode == "wal":
        problems.append("journal_mode is WAL; a sealed catalog database uses DELETE")

    objects = {
        str(name): (str(kind), str(sql or ""))
        for name, kind, sql in conn.execute(
            "SELECT name, type, sql FROM sqlite_master WHERE type IN ('table', 'view')"
        )
    }
    for table in declared_tables(role, version):
        found = objects.get(table.name)
        if found is None or found[0] != "table":
            kind = "FTS5 virtual table" if table.fts5 else "table"
            problems.append(f"missing {kind} {table.name}")
            continue
        is_fts5 = bool(_USING_FTS5.search(found[1]))
        if table.fts5 and not is_fts5:
            problems.append(f"{table.name} is not an FTS5 virtual table")
        declared = {
            str(row[1]): str(row[2]).upper()
            for row in conn.execute(f'PRAGMA table_info("{table.name}")')
        }
        for column in table.columns:
            if column.name not in declared:
                problems.append(f"table {table.name} lacks column {column.name}")
            elif column.type and declared[column.name] != column.type:
                problems.append(
                    f"column {table.name}.{column.name} is declared "
                    f"{declared[column.name] or 'untyped'}, expected {column.type}"
                )

    meta_found = objects.get("meta")
    if meta_found is not None and meta_found[0] == "table":
        problems += _meta_problems(conn, role, version)
    return problems


def _meta_problems(conn: sqlite3.Connection, role: DatabaseRole, version: int) -> list[str]:
    try:
        meta = read_meta(conn)
    except SchemaViolation as exc:
        return [exc.message]
    problems = [f"missing meta key {key}" for key in required_meta_keys(role) if key not in meta]
    expected = {
        "index_schema_version": str(version),
        "format_version": generation_for_schema(version).format_version,
    }
    for key, value in expected.items():
        if key in meta and meta[key] != value:
            problems.append(f"meta {key} is {meta[key]!r}, expected {value!r}")
    return problems


# --- argument checks --------------------------------------------------------------------------


def _checked_version(schema_version: object) -> int:
    if isinstance(schema_version, bool) or not isinstance(schema_version, int):
        raise UnsupportedVersion(
            f"index schema version must be an integer, not {schema_version!r}",
            reason="unsupported-format",
            subject=str(schema_version),
        )
    return generation_for_schema(schema_version).index_schema_version


def _checked_role(role: object) -> DatabaseRole:
    if role in _ROLES:
        return cast(DatabaseRole, role)
    raise GezkError(
        f"database role {role!r} is not one of {', '.join(_ROLES)}",
        reason="invalid-role",
        subject=str(role),
    )


def _schema_object_count(conn: sqlite3.Connection) -> int:
    count: int = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    return count
