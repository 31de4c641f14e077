"""Reading SQLite rows by column name, whichever DB-API binding produced them.

The catalog reader and the mutable indexes read every row through these helpers into typed
values (``row["title"]``, never ``row[12]``); the indexes may run on ``pysqlite3`` rather than
the interpreter's ``sqlite3``, so rows are plain mappings, not a binding's own row class.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

__all__ = ["Row", "fetch_all", "fetch_columns", "fetch_one"]

Row = Mapping[str, Any]
"""One result row, by column name (the name SQLite reports: ``c.title`` is ``title``)."""


class _Connection(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...


def _named(cursor: Any, rows: Iterable[tuple[Any, ...]]) -> list[Row]:
    names = tuple(column[0] for column in cursor.description)
    return [dict(zip(names, row, strict=True)) for row in rows]


def fetch_all(conn: _Connection, sql: str, parameters: Any = ()) -> list[Row]:
    """Every row of ``sql`` as a mapping from column name to value."""
    cursor = conn.execute(sql, parameters)
    return _named(cursor, cursor.fetchall())


def fetch_one(conn: _Connection, sql: str, parameters: Any = ()) -> Row | None:
    """The first row of ``sql`` by column name, or ``None`` when there is none."""
    cursor = conn.execute(sql, parameters)
    row = cursor.fetchone()
    return None if row is None else _named(cursor, [row])[0]


def fetch_columns(conn: _Connection, sql: str, parameters: Any = ()) -> dict[str, tuple[Any, ...]]:
    """Every row of ``sql`` as one tuple per column, by column name (no mapping per row)."""
    cursor = conn.execute(sql, parameters)
    rows = cursor.fetchall()
    names = [column[0] for column in cursor.description]
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in names]
    return dict(zip(names, columns, strict=True))
