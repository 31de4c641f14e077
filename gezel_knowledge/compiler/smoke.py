"""Smoke queries: full-text queries over the document directory, verified at build time.

A query is run exactly as deep validation, and so every install, re-runs it: the reader's
keyword terms (:func:`~gezel_knowledge.reader.fts.fts_match_expression`) against
``fts_documents``, ranked by BM25 weighting title 4, summary 1 and aliases 2, ties by document
id; every expected document must be among the first ten. A build that checked queries any other
way could ship a catalog its own installer refuses. Queries the author gives must pass; when
none are given, up to three are derived from document titles spread across the catalog, and
only those that pass are kept.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from gezel_knowledge.compiler.metadata import SmokeQuery
from gezel_knowledge.reader.fts import fts_match_expression

__all__ = ["SMOKE_TOP_N", "derive_smoke_queries", "smoke_query_passes"]

SMOKE_TOP_N = 10


def smoke_query_passes(router: sqlite3.Connection, query: SmokeQuery) -> bool:
    """Whether every expected document is in the query's top ten."""
    match = fts_match_expression(query.query)
    if match is None:
        return False
    # The statement deep validation re-runs (validate/_deep.py); the two must not drift.
    top = {
        row[0]
        for row in router.execute(
            "SELECT f.document_id FROM fts_documents f JOIN documents d"
            " ON d.id = f.document_id WHERE fts_documents MATCH ?"
            " ORDER BY bm25(fts_documents, 4.0, 1.0, 2.0), f.document_id LIMIT ?",
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
