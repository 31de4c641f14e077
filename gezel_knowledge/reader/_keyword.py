"""A catalog's keyword lists: title/summary/alias matches and passage matches (spec section 9).

Titles are searched over the whole catalog (``fts_documents`` in the router), so a document
named by the query is found whatever the routing; passages (``fts_chunks``) in the shards the
caller names. Both are ranked by BM25 inside FTS5 and only the winners are joined to their rows.

The two lists ask different questions. The passage list OR-s the query's terms, so a passage
sharing only some words with a question is still found and BM25 puts those sharing the most
distinctive ones first; since every passage carries its document's title as a column, titles
already count there. The title list admits only documents whose title, summary and aliases
together hold *every* query term: a short query naming a subject, or a document's exact title.
OR-ed over titles it ranked documents by whichever single query word their short title shared
(on SciFact, fusing that list cost hybrid search 0.13 nDCG@10; see docs/quality.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge._rows import fetch_all
from gezel_knowledge.cjk import JOINED, has_cjk, key_parts, term_units, token_parts
from gezel_knowledge.query import MAX_QUERY_TERMS, terms_match_expression
from gezel_knowledge.reader._fold import fold_term
from gezel_knowledge.reader._kwindex import (
    DamagedIndex,
    KeywordIndex,
    QueryTerm,
    bm25_idf,
    search_idf,
    top_passages,
)
from gezel_knowledge.reader._rows import CHUNK_COLUMNS, ChunkRow, ShardInfo
from gezel_knowledge.reader._store import CatalogStore
from gezel_knowledge.reader.hybrid import RankedDocument, RankedPassage
from gezel_knowledge.reader.vectors import HOT_AFTER_SEARCHES, compiled_keyword_kernel

__all__ = [
    "COMMON_TERM_FRACTION",
    "COMMON_TERM_MIN_CHUNKS",
    "HYBRID_IDF",
    "LONG_QUESTION_KEPT",
    "Idf",
    "idf_weights",
    "keyword_passages",
    "passage_terms",
    "title_matches",
]

Idf = Callable[[int, int], float]
"""An IDF of a term found in ``hits`` of ``rows`` passages."""

HYBRID_IDF: Idf = bm25_idf
"""The passage list's IDF inside hybrid search: FTS5's, which weighs a term in half of the
passages or more at nothing. Keyword mode weighs it a little (Lucene's, :func:`search_idf`):
on the evaluation collections' dev halves that raised keyword mode (+0.010 CISI, +0.014 CACM)
but lowered hybrid (-0.011 CISI), and on the 80 documentation trees hybrid search found seven
answers fewer with it and none more (docs/quality.md). In hybrid search the vector list
carries a question's common words; the keyword list is worth most on its rare ones."""

COMMON_TERM_FRACTION = 0.05
"""Passage search skips query terms found in more than this fraction of a shard's passages."""

COMMON_TERM_MIN_CHUNKS = 20_000
"""Shards smaller than this search every query term (scoring all their matches is cheap)."""

LONG_QUESTION_KEPT = 0.9
"""The share of a long question's terms the derived keyword index scores, the rarest first
(never fewer than :data:`~gezel_knowledge.query.MAX_QUERY_TERMS`): a pasted paragraph is
matched on nearly all its words, as BM25 matches it, but not on its commonest tenth, which on
CISI's dev half cost 0.035 hybrid nDCG@10 when kept (docs/quality.md, sixth round: long
questions)."""

_JOINED_CHUNK_COLUMNS = ", ".join("c." + c.strip() for c in CHUNK_COLUMNS.split(","))


def title_matches(
    store: CatalogStore, terms: Sequence[str], limit: int, eligible: Sequence[str] | None
) -> list[RankedDocument]:
    """Documents whose title, aliases and summary hold every term (or a word sharing its stem,
    in a catalog whose language has a stemmer), best BM25 first."""
    if not terms:
        return []
    # A word holding CJK characters is held when each of its bigrams is (gezel_knowledge.cjk).
    units = list(dict.fromkeys(u for t in terms for u in term_units(t)))
    joined = any(has_cjk(t) for t in terms)
    match = " AND ".join(
        "(" + " OR ".join(f'"{v}"' for v in store.keyword.title_variants(u, joined=joined)) + ")"
        for u in units
    )
    where = ""
    params: list[Any] = [match]
    if eligible is not None:
        where = " AND f.document_id IN (SELECT value FROM json_each(?))"
        params.append(json.dumps(list(eligible)))
    # Title matches weigh most, then aliases, then the summary.
    rows = fetch_all(
        store.router,
        "SELECT f.document_id, bm25(fts_documents, 4.0, 1.0, 2.0) AS score"
        " FROM fts_documents f JOIN documents d ON d.id = f.document_id"
        f" WHERE fts_documents MATCH ?{where} ORDER BY score, f.document_id LIMIT ?",
        [*params, limit],
    )
    return [RankedDocument(str(r["document_id"]), -float(r["score"])) for r in rows]


TERM_COUNT_CACHE = 4096
"""Term counts remembered per catalog handle: common words recur across questions."""


def _term_count(store: CatalogStore, shard: ShardInfo, term: str, limit: int) -> int:
    """Passages of ``shard`` holding ``term``, counted to ``limit + 1`` at most (remembered)."""
    key = (shard.id, term)
    count = store.term_counts.get(key)
    if count is None:
        # Counting stops one past the limit: a common term costs no more than a rare one.
        (count,) = (
            store.connection(shard)
            .execute(
                "SELECT COUNT(*) FROM (SELECT 1 FROM fts_chunks WHERE fts_chunks MATCH ? LIMIT ?)",
                (terms_match_expression([term]), limit + 1),
            )
            .fetchone()
        )
        if len(store.term_counts) >= TERM_COUNT_CACHE:
            store.term_counts.clear()
        store.term_counts[key] = int(count)
    return int(count)


def passage_terms(store: CatalogStore, shard: ShardInfo, terms: Sequence[str]) -> list[str]:
    """The terms worth a passage search in this shard (see :data:`COMMON_TERM_FRACTION`).

    In a large shard, a term in more than that fraction of the passages adds almost nothing to
    BM25 (its IDF is near zero) but makes FTS5 score every passage holding it; it is dropped
    while rarer query terms remain.
    """
    if shard.chunk_count < COMMON_TERM_MIN_CHUNKS:
        return list(terms)
    limit = _count_limit(shard)
    frequency = {term: _term_count(store, shard, term, limit) for term in terms}
    present = [t for t in terms if frequency[t] > 0]
    rare = [t for t in present if frequency[t] <= limit]
    return rare or present


def _eligible_filter(eligible: Sequence[str] | None) -> tuple[str, list[Any]]:
    """The ``WHERE`` tail limiting FTS rows to eligible documents, and its parameters."""
    if eligible is None:
        return "", []
    # External-content FTS: the filter reads chunks, so join inside the subquery.
    where = (
        " AND rowid IN (SELECT id FROM chunks WHERE document_id IN"
        " (SELECT value FROM json_each(?)))"
    )
    return where, [json.dumps(list(eligible))]


def _count_limit(shard: ShardInfo) -> int:
    """Where a shard's term counts stop: exact in a small shard, just past common in a large one."""
    if shard.chunk_count < COMMON_TERM_MIN_CHUNKS:
        return shard.chunk_count
    return int(COMMON_TERM_FRACTION * shard.chunk_count)


def idf_weights(
    store: CatalogStore,
    shards: Sequence[ShardInfo],
    terms: Sequence[Sequence[str]],
    idf: Idf = search_idf,
) -> list[dict[str, float]]:
    """Per shard, each of its ``terms`` held there: the search's IDF over all ``shards``
    (``idf``, by default :func:`search_idf`) / FTS5's IDF in the shard (:func:`bm25_idf`).

    Multiplying a term's ``bm25()`` part by its weight turns a shard's score into the score the
    derived index gives the passage, as if the shards were one table (the average passage
    length stays the shard's own). A term common in a large shard is counted there only to just
    past :data:`COMMON_TERM_FRACTION`, so its weight is not exact: such a term is searched only
    when no rarer one is, and the ranking is the fallback's (docs/search.md).
    """
    every = list(dict.fromkeys(t for ts in terms for t in ts))
    counts = {(s.id, t): _term_count(store, s, t, _count_limit(s)) for s in shards for t in every}
    rows = sum(s.chunk_count for s in shards)
    overall = {t: idf(rows, sum(counts[(s.id, t)] for s in shards)) for t in every}
    return [
        {
            t: overall[t] / bm25_idf(s.chunk_count, counts[(s.id, t)])
            for t in ts
            if counts[(s.id, t)] > 0
        }
        for s, ts in zip(shards, terms, strict=True)
    ]


def _weighted_passages(
    store: CatalogStore,
    shard: ShardInfo,
    weights: dict[str, float],
    limit: int,
    eligible: Sequence[str] | None,
) -> list[RankedPassage]:
    """The shard's best passages by BM25 with each term's part scaled by its weight.

    FTS5's ``bm25()`` sums one part per phrase of the query with no per-phrase weight, so each
    term is matched on its own and the weighted parts are summed per passage, all inside SQLite.
    """
    if not weights:
        return []
    where, extra = _eligible_filter(eligible)
    # Each arm is kept a subquery of its own (LIMIT -1): flattened into the union,
    # bm25() loses the FTS5 cursor it reads.
    arm = (
        "SELECT * FROM (SELECT rowid AS id, ? * bm25(fts_chunks, 1.0, 1.0, 1.0) AS part"
        f" FROM fts_chunks WHERE fts_chunks MATCH ?{where} LIMIT -1)"
    )
    params: list[Any] = []
    for term, weight in weights.items():
        params += [weight, terms_match_expression([term]), *extra]
    union = " UNION ALL ".join([arm] * len(weights))
    rows = fetch_all(
        store.connection(shard),
        f"SELECT {_JOINED_CHUNK_COLUMNS}, r.score FROM (SELECT id, SUM(part) AS score"
        f" FROM ({union}) GROUP BY id ORDER BY score, id LIMIT ?) r"
        " JOIN chunks c ON c.id = r.id ORDER BY r.score, c.id",
        [*params, limit],
    )
    return [RankedPassage(ChunkRow.from_row(shard.id, r), -float(r["score"])) for r in rows]


def _chunk_filter(
    store: CatalogStore, shard: ShardInfo, eligible: Sequence[str] | None, size: int
) -> NDArray[np.bool_] | None:
    """Which passage ids of ``shard`` belong to eligible documents (``None``: every one)."""
    if eligible is None:
        return None
    allowed = np.zeros(size, dtype=np.bool_)
    ids = [
        int(r[0])
        for r in store.connection(shard).execute(
            "SELECT id FROM chunks WHERE document_id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(eligible)),),
        )
    ]
    ids = [i for i in ids if 0 <= i < size]
    allowed[np.asarray(ids, dtype=np.int64)] = True
    return allowed


def _informative(
    keys: Sequence[str], counts: dict[str, int], df: dict[str, int], limit: int = MAX_QUERY_TERMS
) -> list[tuple[str, int]]:
    """At most ``limit`` keys found in the shards, the rarest first chosen, returned in query
    order with their counts (a pasted paragraph keeps its telling words). The FTS5 fallback
    keeps :data:`MAX_QUERY_TERMS` (each term is a query arm of its own there); the derived
    indexes keep :data:`LONG_QUESTION_KEPT` of a long question's."""
    present = [k for k in keys if df.get(k, 0) > 0]
    if len(present) > limit:
        rank = {k: i for i, k in enumerate(present)}
        chosen = set(sorted(present, key=lambda k: (df[k], rank[k]))[:limit])
        present = [k for k in present if k in chosen]
    return [(k, counts[k]) for k in present]


def _query_keys(
    terms: Sequence[tuple[str, int]], stem: Callable[[str], str] | None
) -> dict[str, tuple[int, str | None]] | None:
    """The index keys of the query's terms, each with its count and the question's word it
    stems from (``None`` for a CJK pair or a joined word's key); ``None`` for a phrase, except
    in a long question (more than :data:`MAX_QUERY_TERMS` terms), whose phrases count as their
    words."""
    keyed: dict[str, tuple[int, str | None]] = {}

    def add(key: str, count: int, word: str | None) -> None:
        keyed[key] = (keyed[key][0] + count, keyed[key][1]) if key in keyed else (count, word)

    # A pasted paragraph's ``3.5`` or ``e_mail`` is one of many words it shares with an
    # answer, not the name it asks for: sending the whole paragraph to FTS5 for its phrases
    # would cut it to MAX_QUERY_TERMS terms there (docs/quality.md, sixth round).
    long = len(terms) > MAX_QUERY_TERMS
    # A question holding CJK characters finds its words joined to CJK text too (cjk.JOINED).
    joined = any(has_cjk(t) for t, _ in terms)
    for term, count in terms:
        tokens = fold_term(term)
        if len(tokens) != 1 and not long:
            return None
        for token in tokens:
            # A word's key is itself or its stem; a CJK run's its bigrams (gezel_knowledge.cjk).
            parts = token_parts(token)
            for (key, cjk), (word, _) in zip(key_parts(token, stem), parts, strict=True):
                add(key, count, None if cjk else word)
                if joined and not cjk:
                    add(JOINED + key, count, None)
    return keyed


def _scoped_passages(  # noqa: PLR0917 - the keyword_passages arguments
    store: CatalogStore,
    terms: Sequence[tuple[str, int]],
    shards: Sequence[ShardInfo],
    limit: int,
    eligible: Sequence[str] | None,
    idf: Idf,
) -> list[RankedPassage] | None:
    """The passage list of a question holding CJK characters without the derived indexes:
    an index of the question's keys only, per shard (``reader._kwscoped``); ``None`` for a
    phrase."""
    keyed = _query_keys(terms, store.keyword.stem)
    if keyed is None:
        return None
    words = {key: word for key, (_, word) in keyed.items()}
    indexes = [store.keyword.scoped(shard, words) for shard in shards]
    return _indexed_passages(store, indexes, terms, shards, limit, eligible, idf)


def _indexed_passages(  # noqa: PLR0917 - the keyword_passages arguments and the indexes
    store: CatalogStore,
    indexes: Sequence[KeywordIndex],
    terms: Sequence[tuple[str, int]],
    shards: Sequence[ShardInfo],
    limit: int,
    eligible: Sequence[str] | None,
    idf: Idf,
) -> list[RankedPassage] | None:
    """The passage list from the shards' derived indexes; ``None`` when a term is a phrase."""
    keyed = _query_keys(terms, store.keyword.stem if indexes[0].stemmed else None)
    if keyed is None:
        return None  # a phrase needs positions: FTS5 answers
    counts = {key: count for key, (count, _) in keyed.items()}
    ids = [{k: ix.term_id(k) for k in counts} for ix in indexes]
    df = dict.fromkeys(counts, 0)
    for ix, found_ids in zip(indexes, ids, strict=True):
        for k, term_id in found_ids.items():
            if term_id is not None:
                df[k] += ix.df(term_id)
    # A long question keeps most of its words with their counts (BM25's query side); the
    # bounded top-k scoring keeps that cheap. A short one keeps all of them.
    present = sum(1 for k in counts if df[k] > 0)
    chosen = _informative(
        list(counts), counts, df, max(MAX_QUERY_TERMS, int(LONG_QUESTION_KEPT * present))
    )
    rows = sum(ix.rows for ix in indexes)
    found: list[RankedPassage] = []
    for shard, ix, term_ids in zip(shards, indexes, ids, strict=True):
        query = []
        for key, count in chosen:
            term_id = term_ids[key]
            if term_id is None:
                continue
            # The IDF over every shard searched, as one table's (one shard: its own).
            query.append(QueryTerm(term_id, idf(rows, df[key]), count))
        allowed = _chunk_filter(store, shard, eligible, ix.norms.shape[0])
        ix.searches += 1
        # As for vectors: a shard searched again is hot, and gets the compiled kernel once it
        # is ready (the same results); a one-shot search never starts compiling.
        kernel = compiled_keyword_kernel() if ix.searches >= HOT_AFTER_SEARCHES else None
        try:
            passage_ids, scores = top_passages(ix, query, limit, allowed, kernel)
        except DamagedIndex as exc:
            exc.shard = shard
            raise
        if not passage_ids.shape[0]:
            continue
        chunks = store.chunk_rows(shard, passage_ids.tolist())
        found += [
            RankedPassage(chunks[int(i)], float(score))
            for i, score in zip(passage_ids.tolist(), scores.tolist(), strict=True)
            if int(i) in chunks
        ]
    return found


def _expanded(
    store: CatalogStore, shard: ShardInfo, terms: Sequence[tuple[str, int]]
) -> list[tuple[str, int]]:
    """Each word term with the shard's vocabulary terms sharing its stem (stemmed catalogs)."""
    out: dict[str, int] = {}
    joined = any(has_cjk(t) for t, _ in terms)
    for term, count in terms:
        for unit in term_units(term):
            for variant in store.keyword.variants(shard, unit, joined=joined):
                out[variant] = out.get(variant, 0) + count
    return list(out.items())


def _fts_passages(
    store: CatalogStore,
    terms: Sequence[tuple[str, int]],
    shards: Sequence[ShardInfo],
    limit: int,
    eligible: Sequence[str] | None,
    *,
    idf: Idf,
) -> list[RankedPassage]:
    """The passage list from FTS5 itself: the fallback while a large shard's index is built.

    Each term is matched on its own and its ``bm25()`` part rescaled to the search's IDF
    (:func:`idf_weights`), so an unstemmed query in a shard below
    :data:`COMMON_TERM_MIN_CHUNKS` passages gets the derived index's scores (to rounding).
    """
    found: list[RankedPassage] = []
    per_shard = [_fts_terms(store, shard, terms) for shard in shards]
    searched = [
        passage_terms(store, shard, [t for t, _ in counted])
        for shard, counted in zip(shards, per_shard, strict=True)
    ]
    weights = idf_weights(store, shards, searched, idf)
    for shard, weight, counted in zip(shards, weights, per_shard, strict=True):
        times = dict(counted)
        scaled = {t: w * times.get(t, 1) for t, w in weight.items()}
        found += _weighted_passages(store, shard, scaled, limit, eligible)
    return found


def _fts_terms(
    store: CatalogStore, shard: ShardInfo, terms: Sequence[tuple[str, int]]
) -> list[tuple[str, int]]:
    """The shard's FTS5 terms: stem variants, the most informative :data:`MAX_QUERY_TERMS`."""
    counted = _expanded(store, shard, terms)
    if len(counted) <= MAX_QUERY_TERMS:
        return counted
    df = {t: _term_count(store, shard, t, _count_limit(shard)) for t, _ in counted}
    return _informative([t for t, _ in counted], dict(counted), df)


def keyword_passages(
    store: CatalogStore,
    terms: Sequence[tuple[str, int]],
    shards: Sequence[ShardInfo],
    limit: int,
    eligible: Sequence[str] | None,
    *,
    idf: Idf = search_idf,
) -> list[RankedPassage]:
    """Passages matching ``terms`` (distinct terms with their query counts) across ``shards``,
    best BM25 first, at most ``limit``; a term weighs ``idf`` (hybrid search passes FTS5's,
    :data:`HYBRID_IDF`).

    The shards' derived keyword indexes answer when every shard has one (exact BM25 over the
    query's terms, stems grouped when the catalog's language has a stemmer); otherwise FTS5
    does, with the same stem variants where it can. Either way a term weighs Lucene's IDF over
    all the shards searched together (:func:`search_idf`; FTS5's own parts are rescaled to it,
    :func:`idf_weights`), so shard lists merge as one table's would.
    """
    found: list[RankedPassage] | None = None
    for _attempt in range(2 if shards and terms else 0):
        indexes = [store.keyword.get(shard) for shard in shards]
        ready = [ix for ix in indexes if ix is not None]
        if len(ready) < len(shards):
            break
        try:
            found = _indexed_passages(store, ready, terms, shards, limit, eligible, idf)
            break
        except DamagedIndex as exc:
            # A cache file failed a check: forget it and build again (at once when small).
            if exc.shard is not None:
                store.keyword.discard(exc.shard)
    if found is None and any(has_cjk(t) for t, _ in terms):
        found = _scoped_passages(store, terms, shards, limit, eligible, idf)
    if found is None:
        found = _fts_passages(store, terms, shards, limit, eligible, idf=idf)
    found.sort(key=lambda p: (-p.score, p.row.shard_id, p.row.chunk_id))
    return found[:limit]
