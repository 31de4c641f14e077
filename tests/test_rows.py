"""Rows by column name: one mapping per row, or one tuple per column."""

from __future__ import annotations

import sqlite3

from gezel_knowledge._rows import fetch_all, fetch_columns, fetch_one


def _conn() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(1, "a"), (2, "b"), (3, "c")])
    return conn


def test_columns_come_back_by_name_in_row_order() -> None:
    sql = "SELECT t.name, t.id AS n FROM t WHERE id > ? ORDER BY id"
    columns = fetch_columns(_conn(), sql, (1,))
    assert columns == {"name": ("b", "c"), "n": (2, 3)}


def test_no_rows_still_name_every_column() -> None:
    assert fetch_columns(_conn(), "SELECT id, name FROM t WHERE id > 9") == {"id": (), "name": ()}


def test_rows_come_back_as_mappings_by_name() -> None:
    conn = _conn()
    assert fetch_all(conn, "SELECT id, name FROM t WHERE id < 3 ORDER BY id") == [
        {"id": 1, "name": "a"},
        {"id": 2, "name": "b"},
    ]
    assert fetch_one(conn, "SELECT name FROM t WHERE id = 9") is None
