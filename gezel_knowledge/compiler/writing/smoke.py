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
from collections.abc import Iterator

from gezel_knowledge.validate.smoke import SMOKE_TOP_N, smoke_query_hits
from gezk.manifest import SmokeQuery

__all__ = ["SMOKE_TOP_N", "derive_smoke_queries", "smoke_query_passes"]

_PAGE = 256


def smoke_query_passes(router: sqlite3.Connection, query: SmokeQuery) -> bool:
    """Whether every expected document is in the query's top ten."""
    top = set(smoke_query_hits(router, query.query))
    return all(doc_id in top for doc_id in query.expected_document_ids)


_MAX_QUERIES = 64
"""Distinct title queries run per derived smoke query: the search stops there."""


def derive_smoke_queries(router: sqlite3.Connection, want: int = 3) -> tuple[SmokeQuery, ...]:
    """Up to ``want`` title queries, from documents spread evenly over the router's documents
    in id order (read a page at a time from the sealed router, never all at once).

    Each distinct title is searched once: a document passes when it is in its title's top ten,
    so twenty thousand documents titled "Overview" cost one query, not one each; and at most
    :data:`_MAX_QUERIES` titles are searched per query derived, so the cost stays linear in the
    catalog whatever its titles.
    """
    total = int(router.execute("SELECT COUNT(*) FROM documents").fetchone()[0])
    found: list[SmokeQuery] = []
    used: set[str] = set()
    top: dict[str, set[str]] = {}
    for slot in range(want):
        start = slot * total // want
        tried = 0
        for doc_id, title in _documents_from(router, start, total):
            if doc_id in used:
                continue
            used.add(doc_id)
            hits = top.get(title)
            if hits is None:
                if tried == _MAX_QUERIES:
                    break
                tried += 1
                hits = top[title] = set(smoke_query_hits(router, title))
            if doc_id in hits:
                found.append(SmokeQuery(title, (doc_id,)))
                break
        if len(used) == total:
            break
    return tuple(found)


def _documents_from(
    router: sqlite3.Connection, start: int, total: int
) -> Iterator[tuple[str, str]]:
    """``(id, title)`` in id order from the ``start``-th document, wrapping round to the first."""
    for offset in (start, 0):
        limit = total - start if offset == start else start
        cursor = router.execute(
            "SELECT id, title FROM documents ORDER BY id LIMIT ? OFFSET ?", (limit, offset)
        )
        while page := cursor.fetchmany(_PAGE):
            yield from page
