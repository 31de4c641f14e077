"""Smoke queries: full-text queries over the document directory, verified at build time.

A query is run the way a reader re-runs it after install: its ``\\w+`` tokens (NFKC, at most 16,
deduplicated) are OR-ed as quoted FTS5 terms against ``fts_documents``, ranked by BM25, and
every expected document must be among the first ten. Queries the author gives must pass; when
none are given, up to three are derived from document titles spread across the catalog, and
only those that pass are kept.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Sequence

from gezel_knowledge.compiler.metadata import SmokeQuery

__all__ = ["SMOKE_TOP_N", "derive_smoke_queries", "fts_match", "smoke_query_passes"]

SMOKE_TOP_N = 10
_TOKEN = re.compile(r"\w+")


def fts_match(query: str) -> str | None:
    """The FTS5 MATCH expression of a smoke query, or ``None`` when it has no tokens."""
    tokens = list(dict.fromkeys(_TOKEN.findall(unicodedata.normalize("NFKC", query))))[:16]
    if not tokens:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens)


def smoke_query_passes(router: sqlite3.Connection, query: SmokeQuery) -> bool:
    """Whether every expected document is in the query's top ten."""
    match = fts_match(query.query)
    if match is None:
        return False
    top = {
        row[0]
        for row in router.execute(
            "SELECT document_id FROM fts_documents WHERE fts_documents MATCH ? "
            "ORDER BY rank LIMIT ?",
            (match, SMOKE_TOP_N),
        )
    }
    return all(doc_id in top for doc_id in query.expected_document_ids)


def derive_smoke_queries(
    router: sqlite3.Connection, documents: Sequence[tuple[str, str]], want: int = 3
) -> tuple[SmokeQuery, ...]:
    """Up to ``want`` title queries, from documents spread evenly over ``(id, title)`` pairs."""
    ordered = sorted(documents)
    found: list[SmokeQuery] = []
    used: set[str] = set()
    if not ordered:
        return ()
    for slot in range(want):
        start = slot * len(ordered) // want
        for doc_id, title in ordered[start:] + ordered[:start]:
            if doc_id in used:
                continue
            candidate = SmokeQuery(title, (doc_id,))
            used.add(doc_id)
            if smoke_query_passes(router, candidate):
                found.append(candidate)
                break
        if len(used) == len(ordered):
            break
    return tuple(found)
