"""Smoke queries (manifest ``smokeQueries``): the one full-text statement that checks them.

The compiler runs it before it packs a catalog and deep validation (so every install) runs it
again; both call :func:`smoke_query_hits`, so a build can never ship a catalog its installer
refuses. A query is the reader's keyword terms
(:func:`~gezel_knowledge.query.fts_match_expression`) against ``fts_documents``, ranked by
BM25 weighting title 4, summary 1 and aliases 2, ties by document id.
"""

from __future__ import annotations

import sqlite3

from gezel_knowledge.query import fts_match_expression

__all__ = ["SMOKE_TOP_N", "smoke_query_hits"]

SMOKE_TOP_N = 10
"""A smoke query passes when its expected documents are in this many title matches."""


def smoke_query_hits(router: sqlite3.Connection, query: str, top_n: int = SMOKE_TOP_N) -> list[str]:
    """The ids of the first ``top_n`` documents a smoke query finds, best first."""
    match = fts_match_expression(query)
    if match is None:
        return []
    return [
        row[0]
        for row in router.execute(
            "SELECT f.document_id FROM fts_documents f JOIN documents d"
            " ON d.id = f.document_id WHERE fts_documents MATCH ?"
            " ORDER BY bm25(fts_documents, 4.0, 1.0, 2.0), f.document_id LIMIT ?",
            (match, top_n),
        )
    ]
