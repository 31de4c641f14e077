"""Documents whose title the query names: the second way into a catalog's title list.

The title list of :func:`~gezel_knowledge.reader._keyword.title_matches` admits a document
whose title, summary and aliases hold *every* query term: a short query naming a subject. A
question is longer than the title of the page that answers it ("How do I render Jinja2
templates?" for a page called "Templates"), so that list is empty for nearly every question a
reader writes. This module turns the test around: a document whose title's every content word
is a word of the query (or shares its stem) is named by the query, however many other words
the question has. Such documents form a list of their own, fused at a quarter of the title
list's weight (:data:`gezel_knowledge.reader.hybrid.NAMED_SHARE`): on 25 public documentation
trees the page answering a question was named so by it in about half of the questions whose
first hit was another page, but so was a page with a one-word title in others (docs/quality.md).

Titles made only of stopwords are never named (a title "Where in" has no word to match), and a
long title is named only by a question holding all its words, which is why titles of papers
(SciFact, Cranfield) are rarely named by a claim or question about them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gezel_knowledge._rows import fetch_all
from gezel_knowledge.query import query_term_counts, terms_match_expression
from gezel_knowledge.reader._fold import fold_term
from gezel_knowledge.reader._store import CatalogStore
from gezel_knowledge.reader.hybrid import RankedDocument

__all__ = ["COMMON_WORD_FRACTION", "NAMED_CANDIDATES", "named_titles"]

NAMED_CANDIDATES = 64
"""Titles holding a query word that are checked, best BM25 first, per search."""

COMMON_WORD_FRACTION = 0.25
"""A word found in more than this share of a catalog's passages names no page by itself.

Such a word is the catalog's own subject, mostly its product's name ("Prettier" in 78% of the
Prettier documentation's passages, "docfx" in 54% of docfx's): every question says it, so a
title made of it ("Why Prettier?", "docfx") would be named by every question."""


def _common(store: CatalogStore, term: str) -> bool:
    """Whether ``term`` is in more than :data:`COMMON_WORD_FRACTION` of the passages."""
    match = terms_match_expression([term])
    total = sum(s.chunk_count for s in store.shards)
    if match is None or total == 0:
        return False
    limit = int(COMMON_WORD_FRACTION * total)
    found = 0
    for shard in store.shards:
        # Counting stops one past the limit: a common word costs no more than a rare one.
        (count,) = (
            store.connection(shard)
            .execute(
                "SELECT COUNT(*) FROM (SELECT 1 FROM fts_chunks WHERE fts_chunks MATCH ? LIMIT ?)",
                (match, limit + 1 - found),
            )
            .fetchone()
        )
        found += int(count)
        if found > limit:
            return True
    return False


def _stems(store: CatalogStore, terms: Sequence[str]) -> set[str]:
    """The folded (and, with a stemmer, stemmed) tokens of ``terms``."""
    stem = store.keyword.stem
    return {stem(t) if stem is not None else t for term in terms for t in fold_term(term)}


def named_titles(
    store: CatalogStore, terms: Sequence[str], limit: int, eligible: Sequence[str] | None
) -> list[RankedDocument]:
    """Documents whose title's content words are all among the query's ``terms`` (stems
    aside), best BM25 of the title first, at most ``limit``."""
    if not terms or limit < 1:
        return []
    variants = [f'"{v}"' for t in terms for v in store.keyword.title_variants(t)]
    where = ""
    params: list[Any] = ["title : (" + " OR ".join(variants) + ")"]
    if eligible is not None:
        where = " AND f.document_id IN (SELECT value FROM json_each(?))"
        params.append(json.dumps(list(eligible)))
    rows = fetch_all(
        store.router,
        "SELECT f.document_id, f.title, bm25(fts_documents, 4.0, 1.0, 2.0) AS score"
        f" FROM fts_documents f WHERE fts_documents MATCH ?{where}"
        " ORDER BY score, f.document_id LIMIT ?",
        [*params, NAMED_CANDIDATES],
    )
    by_stem = {s: t for t in terms for s in _stems(store, [t])}
    common: dict[str, bool] = {}
    named: list[RankedDocument] = []
    for row in rows:
        words = [t for t, _ in query_term_counts(str(row["title"]), None)]
        own = _stems(store, words)
        # A title of stopwords only keeps them as its words; the query's terms never hold one.
        if not own or not own <= by_stem.keys():
            continue
        for stem in own - common.keys():
            common[stem] = _common(store, by_stem[stem])
        # Named by at least one word telling this page from the others.
        if not all(common[stem] for stem in own):
            named.append(RankedDocument(str(row["document_id"]), -float(row["score"])))
            if len(named) == limit:
                break
    return named
