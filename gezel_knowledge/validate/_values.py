"""Deep checks of every stored value the reader serves (spec section 5.1): storage classes that
match the declared column types, text that decodes as UTF-8, and FTS5 indexes that pass FTS5's
own ``integrity-check``.

SQLite's dynamic typing lets a writer store a BLOB in a TEXT column, text where a number or a
vector belongs, or bytes that are not UTF-8 under the TEXT storage class; the reader would fail
on each while serving it. ``PRAGMA integrity_check`` does not look inside FTS5's index pages,
and FTS5's check is a write statement a read-only connection refuses, so it runs on a copy of
the index in a private scratch database (the catalog stays read-only and unmodified).
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from gezel_knowledge.archive.paths import ROUTER_PATH
from gezel_knowledge.validate._context import Context
from gezk.ddl import DatabaseRole, DeclaredTable, declared_tables

__all__ = ["check_values"]

_STORAGE_CLASSES = {
    "INTEGER": ("integer",),
    "TEXT": ("text",),
    "BLOB": ("blob",),
    "REAL": ("real", "integer"),
}
_FTS_SHADOWS = ("data", "idx", "docsize", "config", "content")
_CONTENT_OPTION = re.compile(r"\bcontent\s*=\s*'(\w+)'", re.IGNORECASE)
_BATCH = 1024


def _databases(ctx: Context) -> Iterator[tuple[str, Path, sqlite3.Connection, DatabaseRole]]:
    """Every open catalog database once: its label, file, connection and role."""
    paths = {s.id: s.path for s in ctx.manifest.router.shards}
    embedded = list(paths.values()) == [ROUTER_PATH]
    if ctx.router is not None:
        role: DatabaseRole = "router+shard" if embedded else "router"
        yield ROUTER_PATH, ctx.root / ROUTER_PATH, ctx.router, role
    for sid, conn in sorted(ctx.shard_conns.items()):
        path = paths.get(sid)
        if conn is ctx.router or path is None:
            continue
        yield path, ctx.root.joinpath(*path.split("/")), conn, "shard"


def check_values(ctx: Context) -> None:
    """Storage classes, UTF-8 text and FTS5 integrity of every database, each guarded."""
    for label, path, conn, role in _databases(ctx):
        ctx.guard(label, functools.partial(_check_database, ctx, label, path, conn, role))


def _check_database(
    ctx: Context, label: str, path: Path, conn: sqlite3.Connection, role: DatabaseRole
) -> None:
    present = _present_columns(conn)
    for table in declared_tables(role, ctx.schema):
        columns = present.get(table.name)
        if columns is None:
            continue  # reported by the layout check
        what = f"{label} {table.name}"
        if table.fts5:
            ctx.guard(what, functools.partial(_fts_integrity, ctx, label, path, table))
            if _CONTENT_OPTION.search(table.sql):
                continue  # its text is the content table's, checked as that table
        else:
            ctx.guard(what, functools.partial(_storage_classes, ctx, label, conn, table, columns))
        ctx.guard(what, functools.partial(_utf8, ctx, label, conn, table, columns))


def _present_columns(conn: sqlite3.Connection) -> dict[str, set[str]]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {
        str(name): {str(r[1]) for r in conn.execute(f'PRAGMA table_info("{name}")')}
        for name in names
        if isinstance(name, str) and '"' not in name
    }


def _storage_classes(
    ctx: Context, label: str, conn: sqlite3.Connection, table: DeclaredTable, present: set[str]
) -> None:
    """One scan of the table counting, per column, values of another storage class."""
    checked: list[tuple[str, tuple[str, ...]]] = []
    for column in table.columns:
        allowed = _STORAGE_CLASSES.get(column.type)
        if allowed is None or column.name not in present:
            continue
        checked.append((column.name, allowed if column.not_null else (*allowed, "null")))
    if not checked:
        return
    sums = ", ".join(
        f"""SUM(typeof("{name}") NOT IN ({", ".join(f"'{c}'" for c in allowed)}))"""
        for name, allowed in checked
    )
    counts = conn.execute(f'SELECT {sums} FROM "{table.name}"').fetchone()
    for (name, allowed), bad in zip(checked, counts, strict=True):
        if bad:
            ctx.add(
                "invalid-value",
                f"{bad} values of {table.name}.{name} are not {' or '.join(allowed)}",
                label,
            )


def _utf8(
    ctx: Context, label: str, conn: sqlite3.Connection, table: DeclaredTable, present: set[str]
) -> None:
    """Every TEXT value of the table's text columns decodes as UTF-8 (the first failure of each
    column is reported with its row)."""
    names = [
        c.name for c in table.columns if c.name in present and (table.fts5 or c.type == "TEXT")
    ]
    if not names:
        return
    selected = ", ".join(f"""CASE WHEN typeof("{n}") = 'text' THEN "{n}" END""" for n in names)
    failed: set[str] = set()
    factory = conn.text_factory
    conn.text_factory = bytes
    try:
        cursor = conn.execute(f'SELECT {selected} FROM "{table.name}"')
        position = 0
        while rows := cursor.fetchmany(_BATCH):
            for values in rows:
                position += 1
                for name, value in zip(names, values, strict=True):
                    if value is None or name in failed:
                        continue
                    try:
                        value.decode("utf-8")
                    except UnicodeDecodeError:
                        failed.add(name)
                        ctx.add(
                            "invalid-text",
                            f"{table.name}.{name} of row {position} is not UTF-8 text",
                            label,
                        )
    finally:
        conn.text_factory = factory


def _fts_integrity(ctx: Context, label: str, path: Path, table: DeclaredTable) -> None:
    """FTS5's ``integrity-check`` on a scratch copy of the table's index, declared as the spec's
    DDL declares it and reading its external content from the catalog itself."""
    scratch = sqlite3.connect("file::memory:", uri=True)
    try:
        scratch.execute("PRAGMA trusted_schema = OFF")
        uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
        scratch.execute("ATTACH DATABASE ? AS cat", (uri,))
        content = _CONTENT_OPTION.search(table.sql)
        if content is not None:
            scratch.execute(
                f'CREATE TEMP VIEW "{content.group(1)}" AS SELECT * FROM cat."{content.group(1)}"'
            )
        scratch.execute(table.sql.replace(f"TABLE {table.name}", f"TABLE temp.{table.name}", 1))
        for suffix in _FTS_SHADOWS:
            shadow = f"{table.name}_{suffix}"
            found = scratch.execute(
                "SELECT 1 FROM sqlite_temp_master WHERE name = ?", (shadow,)
            ).fetchone()
            if found is None:
                continue
            scratch.execute(f'DELETE FROM temp."{shadow}"')
            scratch.execute(f'INSERT INTO temp."{shadow}" SELECT * FROM cat."{shadow}"')
        scratch.execute(f"INSERT INTO temp.{table.name}({table.name}) VALUES ('integrity-check')")
    except sqlite3.Error as exc:
        ctx.add("integrity-check", f"FTS5 {table.name} fails its integrity-check: {exc}", label)
    finally:
        scratch.close()
