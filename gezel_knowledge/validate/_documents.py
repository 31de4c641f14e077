"""Document directory checks: identifiers, JSON columns, aliases and ``fts_documents`` (5.2)."""

from __future__ import annotations

from gezel_knowledge.archive.paths import ROUTER_PATH
from gezel_knowledge.reader.browse import parse_json_object
from gezel_knowledge.validate._context import Context
from gezk.ids import is_document_id

__all__ = ["check_documents"]


def check_documents(ctx: Context) -> None:
    """Document ids, ``meta_json``/``attribution_json`` shape and size, aliases, document FTS."""
    conn = ctx.router
    if conn is None:
        return
    meta_col = "meta_json" if ctx.schema >= 3 else "NULL"
    for doc, attribution, meta, codec in conn.execute(
        f"SELECT id, attribution_json, {meta_col}, body_codec FROM documents"
    ):
        if not is_document_id(doc):
            ctx.add("invalid-document-id", "not a valid document id", str(doc))
        if attribution is not None:
            obj = parse_json_object(attribution)
            if obj is None or not all(isinstance(v, str) for v in obj.values()):
                ctx.add("invalid-attribution", "attribution_json must be an object of strings", doc)
        if meta is not None:
            if not isinstance(meta, str) or parse_json_object(meta) is None:
                ctx.add("invalid-meta-json", "meta_json must be a JSON object", doc)
            elif len(meta.encode("utf-8")) > ctx.limits.max_meta_json_bytes:
                ctx.add(
                    "invalid-meta-json",
                    f"meta_json exceeds {ctx.limits.max_meta_json_bytes} bytes",
                    doc,
                )
        if codec not in ("none", "br"):
            ctx.add("corrupt-body", f"unknown body codec {codec!r}", doc)
    for alias, doc in conn.execute(
        "SELECT a.alias, a.document_id FROM aliases a LEFT JOIN documents d"
        " ON d.id = a.document_id WHERE d.id IS NULL"
    ):
        ctx.add("orphan-alias", f"alias {alias!r} names a missing document", doc)
    indexed = conn.execute("SELECT COUNT(*), COUNT(DISTINCT document_id) FROM fts_documents")
    rows, distinct = indexed.fetchone()
    documents = conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
    unmatched = conn.execute(
        "SELECT COUNT(*) FROM fts_documents f LEFT JOIN documents d ON d.id = f.document_id"
        " WHERE d.id IS NULL"
    ).fetchone()[0]
    if rows != documents or distinct != documents or unmatched:
        ctx.add(
            "fts-mismatch",
            f"fts_documents has {rows} rows for {documents} documents ({unmatched} unmatched)",
            ROUTER_PATH,
        )
