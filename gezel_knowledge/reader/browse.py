"""The table of contents: topic rollups and listings (spec section 5.2 and Appendix A).

Schema 4 (0.7) reads placements from ``topic_documents``: direct counts count placements,
subtree counts and listings count distinct documents, and a document placed several times in a
scope is listed once, at its first placement by ``(ordinal IS NULL), ordinal, sort_key,
topic_id``, before ordering and pagination. Schemas 2 and 3 (0.5, 0.6) have one placement per
document in ``documents.topic_id``. Every descendant walk is depth-bounded so a hostile
``parent_id`` cycle terminates (validation refuses such catalogs).

Listings come in two orders. ``spec`` is the specification's (section 5.2): documents by their
chosen placement's ordinal, then slug, across every topic in scope, so ``#0`` of each topic comes
first. ``toc`` is table-of-contents order, as a reader of the book sees it: topics depth first
(siblings by ``sort_key, id``), each topic's own documents by ordinal before its subtopics, and a
document placed several times listed once, at its first place in that walk.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Literal, get_args

from gezel_knowledge._rows import Row, fetch_all, fetch_one
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.reader.models import DocumentPage, DocumentSummary, TopicSummary
from gezk import untrusted_json
from gezk.toc import TopicPlacement

__all__ = [
    "LISTING_ORDERS",
    "WALK_DEPTH",
    "ListingOrder",
    "list_documents",
    "placements",
    "topic_path",
    "topics",
]

WALK_DEPTH = 32
"""Bound of every recursive topic walk (twice the deepest valid tree)."""

ListingOrder = Literal["spec", "toc"]
"""``spec``: by ordinal across topics (spec 5.2); ``toc``: table-of-contents order."""

LISTING_ORDERS: tuple[ListingOrder, ...] = get_args(ListingOrder)


def _placement_source(schema: int) -> str:
    """A ``(topic_id, document_id, ordinal)`` relation of every placement."""
    if schema >= 4:
        return "SELECT topic_id, document_id, ordinal FROM topic_documents"
    if schema == 3:
        return "SELECT topic_id, id AS document_id, ordinal FROM documents"
    return "SELECT topic_id, id AS document_id, NULL AS ordinal FROM documents"


def topics(conn: sqlite3.Connection, schema: int) -> list[TopicSummary]:
    """Every topic in tree order (roots, then children by ``sort_key, id``), with counts."""
    totals = dict(
        conn.execute(
            f"""
            WITH RECURSIVE walk(root, id, depth) AS (
              SELECT id, id, 0 FROM topics
              UNION ALL
              SELECT walk.root, t.id, walk.depth + 1
              FROM topics t JOIN walk ON t.parent_id = walk.id WHERE walk.depth < {WALK_DEPTH}
            ), placed AS ({_placement_source(schema)})
            SELECT w.root, COUNT(DISTINCT p.document_id)
            FROM walk w LEFT JOIN placed p ON p.topic_id = w.id GROUP BY w.root
            """
        ).fetchall()
    )
    rows = fetch_all(
        conn,
        "SELECT id, parent_id, name, description, sort_key, document_count FROM topics"
        " ORDER BY sort_key, id",
    )
    by_parent: dict[str | None, list[Row]] = {}
    for r in rows:
        by_parent.setdefault(r["parent_id"], []).append(r)
    out: list[TopicSummary] = []
    seen: set[str] = set()

    def topic(r: Row, depth: int) -> TopicSummary:
        return TopicSummary(
            id=r["id"],
            name=r["name"],
            parent_id=r["parent_id"],
            sort_key=r["sort_key"],
            depth=depth,
            direct_count=int(r["document_count"]),
            subtree_count=int(totals.get(r["id"], 0)),
            description=r["description"],
        )

    def visit(parent: str | None, depth: int) -> None:
        for r in by_parent.get(parent, []):
            if r["id"] in seen or depth > WALK_DEPTH:
                continue
            seen.add(r["id"])
            out.append(topic(r, depth))
            visit(r["id"], depth + 1)

    visit(None, 0)
    # Topics outside the forest (a cycle, an undeclared parent) are still listed, flat.
    for r in rows:
        if r["id"] not in seen:
            seen.add(r["id"])
            out.append(topic(r, 0))
    return out


def topic_path(conn: sqlite3.Connection, topic_id: str) -> tuple[str, ...]:
    """The root-to-leaf path ending at ``topic_id`` (cut short on a cycle)."""
    path: list[str] = []
    current: str | None = topic_id
    while current is not None and current not in path and len(path) <= WALK_DEPTH:
        path.append(current)
        row = fetch_one(conn, "SELECT parent_id FROM topics WHERE id = ?", (current,))
        current = row["parent_id"] if row else None
    return tuple(reversed(path))


def placements(
    conn: sqlite3.Connection, schema: int, document_id: str, primary_topic: str, ordinal: int | None
) -> tuple[TopicPlacement, ...]:
    """Every placement of a document, the primary first."""
    if schema < 4:
        return (TopicPlacement(primary_topic, ordinal, True),)
    rows = fetch_all(
        conn,
        "SELECT td.topic_id, td.ordinal FROM topic_documents td JOIN topics t ON t.id = td.topic_id"
        " WHERE td.document_id = ? ORDER BY (td.ordinal IS NULL), td.ordinal, t.sort_key,"
        " td.topic_id",
        (document_id,),
    )
    out = [TopicPlacement(primary_topic, ordinal, True)]
    out += [
        TopicPlacement(r["topic_id"], r["ordinal"], False)
        for r in rows
        if r["topic_id"] != primary_topic
    ]
    return tuple(out)


def _require_topic(conn: sqlite3.Connection, topic_id: str) -> None:
    if conn.execute("SELECT 1 FROM topics WHERE id = ?", (topic_id,)).fetchone() is None:
        raise NotFound(
            f"no topic {topic_id!r} in this catalog", reason="topic-not-found", subject=topic_id
        )


def _scope(schema: int, topic_id: str | None, descendants: bool) -> str:
    """``sub`` (the topics in scope) and ``scoped`` (their placements) as SQL CTEs; the
    statement's first parameter is the scope's topic when there is one."""
    if topic_id is None:
        sub = "sub(id, depth) AS (SELECT id, 0 FROM topics)"
        where = ""
    else:
        recursive = (
            f"UNION ALL SELECT t.id, sub.depth + 1 FROM topics t JOIN sub ON t.parent_id = sub.id"
            f" WHERE sub.depth < {WALK_DEPTH}"
            if descendants
            else ""
        )
        sub = f"sub(id, depth) AS (SELECT ?, 0 {recursive})"
        where = "WHERE p.topic_id IN (SELECT id FROM sub)"
    return f"""
        WITH RECURSIVE {sub},
        position(topic_id, position) AS (SELECT key, value FROM json_each(?)),
        scoped AS (
          SELECT p.document_id, p.topic_id, p.ordinal, t.sort_key,
                 COALESCE(pos.position, 2147483647) AS position
          FROM ({_placement_source(schema)}) p JOIN topics t ON t.id = p.topic_id
          LEFT JOIN position pos ON pos.topic_id = p.topic_id
          {where}
        )"""


_ORDERS: dict[ListingOrder, tuple[str, str]] = {
    # (how a document's placement is chosen, how the chosen documents are ordered)
    "spec": (
        "(ordinal IS NULL), ordinal, sort_key, topic_id",
        "(p.ordinal IS NULL), p.ordinal, d.slug, d.id",
    ),
    "toc": (
        "position, (ordinal IS NULL), ordinal, topic_id",
        "p.position, (p.ordinal IS NULL), p.ordinal, d.slug, d.id",
    ),
}


def _unscoped_spec_rows(conn: sqlite3.Connection, schema: int, limit: int, offset: int) -> Any:
    # Spec 5.2: unscoped listings report primary metadata, ordered by the primary ordinal.
    order = "(d.ordinal IS NULL), d.ordinal, d.slug, d.id" if schema >= 3 else "d.slug, d.id"
    ordinal = "d.ordinal" if schema >= 3 else "NULL"
    return fetch_all(
        conn,
        f"SELECT d.id, d.title, d.slug, d.topic_id, {ordinal} AS ordinal,"
        f" d.summary AS summary FROM documents d ORDER BY {order} LIMIT ? OFFSET ?",
        (limit, offset),
    )


def list_documents(
    conn: sqlite3.Connection,
    schema: int,
    topic_id: str | None,
    *,
    descendants: bool,
    limit: int,
    offset: int,
    order: ListingOrder = "spec",
) -> DocumentPage:
    """One page of documents, scoped to a topic (and its subtree) or unscoped, in ``order``."""
    if order not in _ORDERS:
        raise InvalidInput(
            f"unknown listing order {order!r}; orders are {', '.join(LISTING_ORDERS)}",
            reason="invalid-order",
            subject=str(order),
        )
    if topic_id is not None:
        _require_topic(conn, topic_id)
    if topic_id is None and order == "spec":
        (total,) = conn.execute("SELECT COUNT(*) FROM documents").fetchone()
        rows = _unscoped_spec_rows(conn, schema, limit, offset)
    else:
        tree = topics(conn, schema) if order == "toc" else []
        positions = json.dumps({t.id: i for i, t in enumerate(tree)})
        scope = _scope(schema, topic_id, descendants)
        head = () if topic_id is None else (topic_id,)
        choose, ordering = _ORDERS[order]
        (total,) = conn.execute(
            scope + " SELECT COUNT(DISTINCT document_id) FROM scoped", (*head, positions)
        ).fetchone()
        rows = fetch_all(
            conn,
            scope
            + f""",
            ranked AS (
              SELECT *, ROW_NUMBER() OVER (PARTITION BY document_id ORDER BY {choose})
                AS placement_rank
              FROM scoped
            )
            SELECT d.id, d.title, d.slug, p.topic_id, p.ordinal, d.summary AS summary
            FROM documents d JOIN ranked p ON p.document_id = d.id AND p.placement_rank = 1
            ORDER BY {ordering} LIMIT ? OFFSET ?""",
            (*head, positions, limit, offset),
        )
    docs = tuple(
        DocumentSummary(
            id=r["id"],
            title=r["title"],
            slug=r["slug"],
            topic_id=r["topic_id"],
            ordinal=r["ordinal"],
            summary=r["summary"],
        )
        for r in rows
    )
    return DocumentPage(docs, int(total), offset, limit, topic_id, descendants)


def parse_json_object(raw: object) -> dict[str, Any] | None:
    """A JSON object column, or ``None`` when absent or not an object (opaque producer data)."""
    if not isinstance(raw, str):
        return None
    try:
        value = untrusted_json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
