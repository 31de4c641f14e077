"""The shared storage layer: binding choice, schema versioning, transactions."""

from __future__ import annotations

import sqlite3
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.indexes import _storage
from gezel_knowledge.indexes._storage import (
    INDEX_APPLICATION_ID,
    IndexSchema,
    connect,
    open_index,
    read_meta,
    sqlite_backend,
    transaction,
)
from gezel_knowledge.indexes.errors import IndexSchemaUnsupported, SqliteExtensionUnavailable


@pytest.fixture
def fresh_backend() -> Iterator[None]:
    _storage._reset_backend_cache()
    yield
    _storage._reset_backend_cache()


class _NoExtensionConnection:
    """A DB-API connection like CPython's when built without loadable extensions."""

    def execute(self, sql: str, *args: object) -> None:
        return None

    def close(self) -> None:
        return None


@pytest.mark.usefixtures("fresh_backend")
def test_no_binding_with_extension_loading_is_a_typed_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = types.ModuleType("gezel_test_sqlite_no_ext")
    fake.connect = lambda *a, **k: _NoExtensionConnection()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gezel_test_sqlite_no_ext", fake)
    monkeypatch.setattr(
        _storage, "_CANDIDATES", ("gezel_test_sqlite_no_ext", "gezel_test_missing_binding")
    )
    with pytest.raises(SqliteExtensionUnavailable) as info:
        connect(tmp_path / "x.db")
    error = info.value
    assert error.reason == "sqlite-extension-unavailable"
    assert "gezel_test_sqlite_no_ext: built without extension loading" in str(error)
    assert "gezel_test_missing_binding: not installed" in str(error)
    assert "pip install pysqlite3-binary" in str(error)
    assert "\n" not in str(error)
    assert not (tmp_path / "x.db").exists()


@pytest.mark.usefixtures("fresh_backend")
def test_the_chosen_binding_loads_sqlite_vec_and_has_fts5(tmp_path: Path) -> None:
    backend = sqlite_backend()
    assert backend.name in _storage._CANDIDATES
    conn = connect(tmp_path / "x.db")
    assert conn.execute("SELECT vec_version()").fetchone()[0].startswith("v")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    conn.execute("CREATE VIRTUAL TABLE v USING vec0(embedding float[2] distance_metric=cosine)")
    conn.close()


_V1 = IndexSchema("content", 1, ["CREATE TABLE things (x TEXT)"])
_V2 = IndexSchema("content", 2, ["CREATE TABLE things (x TEXT, y TEXT)"])


def test_new_database_gets_application_id_version_and_kind(tmp_path: Path) -> None:
    conn = open_index(tmp_path / "i.db", _V1)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == INDEX_APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert read_meta(conn)["index_kind"] == "content"
    conn.close()


def test_a_database_another_process_created_meanwhile_is_opened_not_recreated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "i.db"
    other = open_index(path, _V1)  # the other process, done creating
    with transaction(other):
        other.execute("INSERT INTO things VALUES ('theirs')")
    # This process looked while the file was still empty, then asked for the write lock.
    real = _storage._is_empty
    looks = iter([True])
    monkeypatch.setattr(_storage, "_is_empty", lambda conn: next(looks, None) or real(conn))
    conn = open_index(path, _V1)
    assert conn.execute("SELECT x FROM things").fetchall() == [("theirs",)]
    assert read_meta(conn)["index_kind"] == "content"
    conn.close()
    other.close()


def test_older_schema_is_a_stale_cache_and_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "i.db"
    conn = open_index(path, _V1)
    with transaction(conn):
        conn.execute("INSERT INTO things VALUES ('old')")
    conn.close()
    conn = open_index(path, _V2)
    assert conn.execute("SELECT count(*) FROM things").fetchone()[0] == 0
    assert [r[1] for r in conn.execute("PRAGMA table_info(things)")] == ["x", "y"]
    conn.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "i.db"
    open_index(path, _V2).close()
    with pytest.raises(IndexSchemaUnsupported) as info:
        open_index(path, _V1)
    assert info.value.reason == "index-schema-unsupported"


def test_a_foreign_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "mine.db"
    plain = sqlite3.connect(path)
    plain.execute("CREATE TABLE precious (x)")
    plain.execute("INSERT INTO precious VALUES (1)")
    plain.commit()
    plain.close()
    with pytest.raises(InvalidInput) as info:
        open_index(path, _V1)
    assert info.value.reason == "not-an-index-database"
    plain = sqlite3.connect(path)
    assert plain.execute("SELECT x FROM precious").fetchall() == [(1,)]
    plain.close()


def test_an_index_of_another_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "i.db"
    open_index(path, _V1).close()
    with pytest.raises(InvalidInput) as info:
        open_index(path, IndexSchema("memory", 1, []))
    assert info.value.reason == "not-an-index-database"


def test_transaction_rolls_back_every_write_on_error(tmp_path: Path) -> None:
    conn = open_index(tmp_path / "i.db", _V1)

    def write_then_fail() -> None:
        with transaction(conn):
            conn.execute("INSERT INTO things VALUES ('a')")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_then_fail()
    assert conn.execute("SELECT count(*) FROM things").fetchone()[0] == 0
    conn.close()
