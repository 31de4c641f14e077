"""Smoke queries: full-text queries over the document directory, verified at build time.

A query is run by :func:`~gezel_knowledge.validate.smoke_query_hits`, the function deep
validation, and so every install, re-runs it; every expected document must be among the first
ten. A build that checked queries any other way could ship a catalog its own installer
refuses. Queries the author gives must pass; when
none are given, up to three are derived from document titles spread across the catalog, and
only those that pass are kept.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from gezel_knowledge.validate.smoke import SMOKE_TOP_N, smoke_query_hits
from gezk.manifest import SmokeQuery

__all__ = ["SMOKE_TOP_N", "derive_smoke_queries", "smoke_query_passes"]


def smoke_query_passes(router: sqlite3.Connection, query: SmokeQuery) -> bool:
    """Whether every expected document is in the query's top ten."""
    top = set(smoke_query_hits(router, query.query))
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
