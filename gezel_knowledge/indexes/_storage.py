"""SQLite storage shared by the memory and content indexes.

Both indexes are derived caches (seed, "Local databases and ownership"): the files are the source
of truth, so a database of an older schema is deleted and rebuilt rather than migrated, and
every write happens inside an explicit transaction. This module owns the pieces both share: the
choice of SQLite binding (the interpreter's own ``sqlite3`` when it can load extensions,
otherwise ``pysqlite3``), loading sqlite-vec, schema versioning and the embedder stamp.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import sqlite_vec

from gezel_knowledge._faults import storage_faults
from gezel_knowledge.embedders import Embedder, embedder_stamp
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.indexes.errors import IndexSchemaUnsupported, SqliteExtensionUnavailable

__all__ = [
    "INDEX_APPLICATION_ID",
    "IndexSchema",
    "SqliteBackend",
    "StoredStamp",
    "connect",
    "open_index",
    "read_meta",
    "read_stamp",
    "sqlite_backend",
    "stamp_text",
    "transaction",
    "write_meta",
    "write_stamp",
]

INDEX_APPLICATION_ID = 0x47455A49
"""``PRAGMA application_id`` of the mutable indexes ("GEZI"); catalogs use "GEZK"."""

# Tried in order; the first binding that loads sqlite-vec and has FTS5 wins.
_CANDIDATES: tuple[str, ...] = ("sqlite3", "pysqlite3.dbapi2")
_INSTALL_HINT = (
    "install pysqlite3-binary (pip install pysqlite3-binary) or use a Python whose sqlite3 "
    "module supports enable_load_extension"
)

_backend: SqliteBackend | None = None


@dataclass(frozen=True, slots=True)
class SqliteBackend:
    """The DB-API module the indexes use and the SQLite library version behind it."""

    module: ModuleType
    name: str
    sqlite_version: str


def _probe(name: str) -> SqliteBackend | str:
    """The backend named ``name`` if it can load sqlite-vec and has FTS5, else why not."""
    try:
        module = importlib.import_module(name)
    except ImportError:
        return f"{name}: not installed"
    try:
        conn = module.connect(":memory:")
    except Exception as exc:  # a broken binding is a reason, not a crash
        return f"{name}: cannot open a database ({exc})"
    try:
        if not hasattr(conn, "enable_load_extension"):
            return f"{name}: built without extension loading"
        try:
            _load_vec(conn)
        except Exception as exc:
            return f"{name}: cannot load sqlite-vec ({exc})"
        try:
            conn.execute("CREATE VIRTUAL TABLE temp.probe USING fts5(x)")
        except Exception:
            return f"{name}: SQLite has no FTS5"
        version = str(getattr(module, "sqlite_version", "?"))
    finally:
        conn.close()
    return SqliteBackend(module=module, name=name, sqlite_version=version)


def _load_vec(conn: Any) -> None:
    conn.enable_load_extension(True)
    try:
        sqlite_vec.load(conn)
    finally:
        conn.enable_load_extension(False)


def sqlite_backend() -> SqliteBackend:
    """The SQLite binding the indexes use; raises :class:`SqliteExtensionUnavailable`."""
    global _backend  # noqa: PLW0603 - a process-wide cache of an environment fact
    if _backend is not None:
        return _backend
    reasons: list[str] = []
    for name in _CANDIDATES:
        found = _probe(name)
        if isinstance(found, SqliteBackend):
            _backend = found
            return found
        reasons.append(found)
    raise SqliteExtensionUnavailable(
        f"no SQLite binding can load the sqlite-vec extension ({'; '.join(reasons)}); "
        f"{_INSTALL_HINT}",
        subject="sqlite-vec",
    )


BUSY_TIMEOUT_MS = 60_000
"""How long a write waits for another connection's transaction before failing."""


def _reset_backend_cache() -> None:
    """Forget the probed backend (tests simulate other environments)."""
    global _backend  # noqa: PLW0603
    _backend = None


def connect(path: Path | str) -> sqlite3.Connection:
    """Open ``path`` in autocommit mode with sqlite-vec loaded and the index pragmas set.

    The returned object is a ``sqlite3.Connection`` or its ``pysqlite3`` twin; both have the same
    API. Transactions are explicit (:func:`transaction`).
    """
    backend = sqlite_backend()
    conn = backend.module.connect(str(path), isolation_level=None, check_same_thread=False)
    _load_vec(conn)
    # Several processes may write one index (indexers serialise on a file lock, enrichments
    # and memory writes interleave by batch): on a loaded machine a writer can wait behind
    # many of the others' batches, and 5 s was seen to run out. Waiting is what a user wants.
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    if str(path) != ":memory:":
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    return cast(sqlite3.Connection, conn)


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """Run the block in one write transaction: all of its writes land, or none do.

    A failed ``COMMIT`` (a full disk, a lock) is rolled back too, and a transaction SQLite
    already rolled back itself (it may, on ``SQLITE_FULL``) is not rolled back twice: the error
    that ended the block is the one raised.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            with contextlib.suppress(Exception):
                conn.execute("ROLLBACK")
        raise


@dataclass(frozen=True, slots=True)
class IndexSchema:
    """A versioned schema: its kind (``content``, ``memory``), version and DDL statements."""

    kind: str
    version: int
    statements: Sequence[str]


_META_DDL = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID"
_STAMP_DDL = (
    "CREATE TABLE embedder_stamps (role TEXT PRIMARY KEY, stamp TEXT NOT NULL, "
    "dimensions INTEGER NOT NULL) WITHOUT ROWID"
)


def _is_empty(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return int(row[0]) == 0


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(str(path) + suffix)


def open_index(path: Path, schema: IndexSchema) -> sqlite3.Connection:
    """Open (creating if needed) the index database at ``path`` with ``schema``.

    A database of an older version of the same kind is a stale cache: it is deleted and created
    afresh. A newer version raises :class:`IndexSchemaUnsupported`; a file that is not one of our
    index databases is refused with :class:`InvalidInput` and left untouched. A folder that
    cannot be written, a full disk or a database another process holds is a
    :class:`~gezel_knowledge.errors.StorageUnavailable` naming the path.
    """
    with storage_faults(path, f"open the {schema.kind} index"):
        return _open_index(path, schema)


def _open_index(path: Path, schema: IndexSchema) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = connect(path)
    if not _is_empty(conn):
        app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        meta = read_meta(conn) if app_id == INDEX_APPLICATION_ID else {}
        kind = meta.get("index_kind")
        if app_id != INDEX_APPLICATION_ID or kind != schema.kind:
            conn.close()
            raise InvalidInput(
                f"{path} is not a gezel-knowledge {schema.kind} index database; "
                "choose another path",
                reason="not-an-index-database",
                subject=str(path),
            )
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version == schema.version:
            return conn
        if version > schema.version:
            conn.close()
            raise IndexSchemaUnsupported(
                f"{path} has {schema.kind} index schema {version}, newer than the supported "
                f"{schema.version}; delete it to rebuild or upgrade gezel-knowledge",
                subject=str(path),
            )
        conn.close()
        _remove_database(path)  # an older derived cache: rebuild from the files
        conn = connect(path)
    with transaction(conn):
        # Checked again under the write lock: another process may have created the database
        # since the check above.
        created = _is_empty(conn)
        if created:
            conn.execute(f"PRAGMA application_id = {INDEX_APPLICATION_ID}")
            conn.execute(_META_DDL)
            conn.execute(_STAMP_DDL)
            for statement in schema.statements:
                conn.execute(statement)
            write_meta(conn, {"index_kind": schema.kind})
            conn.execute(f"PRAGMA user_version = {int(schema.version)}")
    if created:
        return conn
    conn.close()
    return _open_index(path, schema)  # someone else's creation: check it like any database


def read_meta(conn: sqlite3.Connection) -> dict[str, str]:
    """The index's ``meta`` key/value pairs."""
    return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}


def write_meta(conn: sqlite3.Connection, values: dict[str, str]) -> None:
    """Insert or replace ``meta`` entries (inside the caller's transaction)."""
    conn.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        sorted(values.items()),
    )


@dataclass(frozen=True, slots=True)
class StoredStamp:
    """The embedder stamp an index's vectors were made with, and their dimensions."""

    stamp: str
    dimensions: int


def read_stamp(conn: sqlite3.Connection, role: str) -> StoredStamp | None:
    """The stamp stored for ``role`` (``text``, ``memory``, ``image``), if any."""
    row = conn.execute(
        "SELECT stamp, dimensions FROM embedder_stamps WHERE role = ?", (role,)
    ).fetchone()
    return None if row is None else StoredStamp(str(row[0]), int(row[1]))


def write_stamp(conn: sqlite3.Connection, role: str, stamp: StoredStamp | None) -> None:
    """Record (or with ``None`` forget) the stamp for ``role``."""
    if stamp is None:
        conn.execute("DELETE FROM embedder_stamps WHERE role = ?", (role,))
        return
    conn.execute(
        "INSERT INTO embedder_stamps (role, stamp, dimensions) VALUES (?, ?, ?) "
        "ON CONFLICT (role) DO UPDATE SET stamp = excluded.stamp, "
        "dimensions = excluded.dimensions",
        (role, stamp.stamp, stamp.dimensions),
    )


def stamp_text(embedder: Embedder) -> str:
    """The embedder stamp of ``embedder`` in its stable text form, as stored in the index."""
    return str(embedder_stamp(embedder))
