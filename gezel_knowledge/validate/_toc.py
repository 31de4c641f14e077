"""Table-of-contents checks: the topic forest, placements and counts (spec section 5.2).

Schema 4 rules: ``topic_documents`` holds every primary placement and every additional
reference, each pair once, targets declared, ordinals signed 32-bit or NULL, the primary row's
ordinal equal to ``documents.ordinal``, ``topics.document_count`` equal to the topic's rows, and
``counts.documents`` equal to the canonical ``documents`` rows. Schemas 2 and 3 count the direct
filings of ``documents.topic_id`` instead; 0.5 filed every document at a root.
"""

from __future__ import annotations

import sqlite3

from gezel_knowledge.archive.paths import ROUTER_PATH
from gezel_knowledge.validate._context import Context

__all__ = ["check_toc"]

_INT32 = (-(2**31), 2**31 - 1)


def _forest(ctx: Context, parents: dict[str, str | None]) -> None:
    limit = ctx.limits.max_topic_depth
    depth: dict[str, int] = {}
    for start in sorted(parents):
        path: list[str] = []
        node: str | None = start
        while node is not None and node not in depth:
            if node in path:
                ctx.add("topic-cycle", f"topics {' -> '.join([*path, node])} form a cycle", node)
                for member in path:
                    depth[member] = -1
                path = []
                break
            if node not in parents:
                ctx.add(
                    "undeclared-parent",
                    f"parent topic {node!r} is not declared",
                    path[-1] if path else node,
                )
                for member in path:
                    depth[member] = -1
                path = []
                break
            path.append(node)
            node = parents[node]
        base = 0 if node is None else depth.get(node, -1)
        for member in reversed(path):
            base = -1 if base < 0 else base + 1
            depth[member] = base
            if base > limit:
                ctx.add("topic-too-deep", f"topic is {base} levels deep (at most {limit})", member)


def check_toc(ctx: Context) -> None:
    """Topics match the manifest and form a forest; placements and counts follow section 5.2."""
    conn = ctx.router
    if conn is None:
        return
    _check_topics(ctx, conn)
    _check_filing(ctx, conn)
    if ctx.schema < 4:
        _check_direct_counts(ctx, conn)
    else:
        _check_placements(ctx, conn)


def _check_topics(ctx: Context, conn: sqlite3.Connection) -> None:
    """The router's topics form a forest and are the manifest's, with its names and order."""
    m = ctx.manifest
    router_topics = {
        tid: (parent, name, sort_key)
        for tid, parent, name, _description, sort_key, _count in conn.execute(
            "SELECT id, parent_id, name, description, sort_key, document_count FROM topics"
        )
    }
    _forest(ctx, {tid: parent for tid, (parent, _, _) in router_topics.items()})
    manifest_topics = {t.id: t for t in m.topics}
    if set(router_topics) != set(manifest_topics):
        missing = sorted(set(manifest_topics) ^ set(router_topics))[:5]
        ctx.add(
            "toc-mismatch", f"manifest and router topics differ ({', '.join(missing)})", ROUTER_PATH
        )
    for tid, t in manifest_topics.items():
        row = router_topics.get(tid)
        if row is None:
            continue
        parent, name, sort_key = row
        if name != t.name or (m.format_version != "0.5" and parent != t.parent_id):
            ctx.add("toc-mismatch", "name or parent differs from the manifest", tid)
        if t.sort_key is not None and sort_key != t.sort_key:
            ctx.add("toc-mismatch", "sortKey differs from the router's sort_key", tid)


def _check_filing(ctx: Context, conn: sqlite3.Connection) -> None:
    """Every document filed under a declared topic (at a root in 0.5), with a valid ordinal,
    and as many documents as ``counts.documents``."""
    m = ctx.manifest
    undeclared = conn.execute(
        "SELECT d.id FROM documents d LEFT JOIN topics t ON t.id = d.topic_id WHERE t.id IS NULL"
    ).fetchall()
    for (doc,) in undeclared:
        ctx.add("undeclared-topic", "the document's topic is not declared", doc)
    if m.format_version == "0.5":
        for (doc,) in conn.execute(
            "SELECT d.id FROM documents d JOIN topics t ON t.id = d.topic_id"
            " WHERE t.parent_id IS NOT NULL"
        ):
            ctx.add("not-at-root", "0.5 files every document at a root topic", doc)
    if ctx.schema >= 3:
        for doc, ordinal in conn.execute(
            "SELECT id, ordinal FROM documents WHERE ordinal IS NOT NULL AND"
            " (typeof(ordinal) != 'integer' OR ordinal < ? OR ordinal > ?)",
            _INT32,
        ):
            ctx.add("invalid-ordinal", f"ordinal {ordinal!r} is not a signed 32-bit integer", doc)

    documents = conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
    if documents != m.counts.documents:
        ctx.add(
            "document-count-mismatch",
            f"{documents} documents, counts.documents is {m.counts.documents}",
            ROUTER_PATH,
        )


def _check_direct_counts(ctx: Context, conn: sqlite3.Connection) -> None:
    """Schemas 2 and 3: ``topics.document_count`` counts the documents filed there."""
    for tid, stored, actual in conn.execute(
        "SELECT t.id, t.document_count, (SELECT COUNT(*) FROM documents d"
        " WHERE d.topic_id = t.id) FROM topics t"
    ):
        if stored != actual:
            ctx.add(
                "topic-count-mismatch",
                f"document_count is {stored}, {actual} documents are filed there",
                tid,
            )


def _check_placements(ctx: Context, conn: sqlite3.Connection) -> None:
    """Schema 4: ``topic_documents`` rows, primary placements and per-topic counts."""
    for tid, doc in conn.execute(
        "SELECT td.topic_id, td.document_id FROM topic_documents td"
        " LEFT JOIN topics t ON t.id = td.topic_id LEFT JOIN documents d ON d.id = td.document_id"
        " WHERE t.id IS NULL OR d.id IS NULL"
    ):
        ctx.add("undeclared-placement-target", f"placement ({tid}, {doc}) names a missing row", doc)
    for tid, doc, n in conn.execute(
        "SELECT topic_id, document_id, COUNT(*) FROM topic_documents"
        " GROUP BY topic_id, document_id HAVING COUNT(*) > 1"
    ):
        ctx.add("duplicate-placement", f"placement ({tid}, {doc}) occurs {n} times", doc)
    for tid, doc, ordinal in conn.execute(
        "SELECT topic_id, document_id, ordinal FROM topic_documents WHERE ordinal IS NOT NULL"
        " AND (typeof(ordinal) != 'integer' OR ordinal < ? OR ordinal > ?)",
        _INT32,
    ):
        ctx.add(
            "invalid-ordinal",
            f"placement ({tid}, {doc}) ordinal {ordinal!r} is not a signed 32-bit integer",
            doc,
        )
    for doc, primary, placed in conn.execute(
        "SELECT d.id, d.ordinal, td.document_id FROM documents d LEFT JOIN topic_documents td"
        " ON td.document_id = d.id AND td.topic_id = d.topic_id"
        " WHERE td.document_id IS NULL OR NOT (td.ordinal IS d.ordinal)"
    ):
        if placed is None:
            ctx.add(
                "missing-primary-placement", "no topic_documents row for the primary topic", doc
            )
        else:
            ctx.add(
                "primary-ordinal-mismatch",
                f"the primary placement's ordinal differs from documents.ordinal {primary!r}",
                doc,
            )
    for tid, stored, actual in conn.execute(
        "SELECT t.id, t.document_count, (SELECT COUNT(*) FROM topic_documents td"
        " WHERE td.topic_id = t.id) FROM topics t"
    ):
        if stored != actual:
            ctx.add(
                "topic-count-mismatch",
                f"document_count is {stored}, the topic has {actual} placements",
                tid,
            )
