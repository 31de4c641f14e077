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

The test runs over every title at once: each catalog handle reads its titles' tokens once
(FTS5's own, from ``fts_documents``) into arrays, and a search marks the title words its terms
stand for and counts the marks per title. An FTS5 query over the titles holding any query word
would score a large share of a big catalog's documents for every search (a common word is in
thousands of titles); only the named documents are scored, by the same BM25 as before.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge._rows import fetch_all
from gezel_knowledge.archive.paths import ROUTER_PATH
from gezel_knowledge.cjk import has_cjk, term_units, token_keys, token_parts
from gezel_knowledge.query import STOPWORDS
from gezel_knowledge.reader._fold import fold_term
from gezel_knowledge.reader._kwcache import build_connection
from gezel_knowledge.reader._kwindex import K1, bm25_idf, norms_of, varints
from gezel_knowledge.reader._rows import ShardInfo
from gezel_knowledge.reader._store import CatalogStore
from gezel_knowledge.reader.hybrid import RankedDocument

__all__ = ["COMMON_WORD_FRACTION", "named_titles"]

COMMON_WORD_FRACTION = 0.25
"""A word found in more than this share of a catalog's passages names no page by itself.

Such a word is the catalog's own subject, mostly its product's name ("Prettier" in 78% of the
Prettier documentation's passages, "docfx" in 54% of docfx's): every question says it, so a
title made of it ("Why Prettier?", "docfx") would be named by every question."""

TITLE_WEIGHT = 4.0
"""The title column's weight in the title lists' ``bm25(fts_documents, 4.0, 1.0, 2.0)``."""

_BATCH_CHARS = 4_000_000
"""Instance text parsed at once while reading the titles."""

_VERDICTS_KEPT = 4096
"""Common-word verdicts remembered per catalog handle: common words recur across questions."""


@dataclass
class _TitleWords:
    """Every title's tokens as word ids, by document, and what BM25 needs of them."""

    words: dict[str, int]
    rowids: NDArray[np.int64]
    """The documents with a title token (``fts_documents`` rowids), ascending."""
    token_document: NDArray[np.intp]
    """The document (a position in ``rowids``) of each title token."""
    token_word: NDArray[np.intp]
    token_content: NDArray[np.bool_]
    """Whether each token is a content word (not a stopword)."""
    content: NDArray[np.int64]
    """Content words per title (0: a title of stopwords only, never named)."""
    titles_with: NDArray[np.int64]
    """Titles holding each word: FTS5's hit count of a title-column phrase."""
    rows: int
    """Rows of ``fts_documents`` as FTS5's BM25 counts them (0: unknown, FTS5 scores)."""
    tokens: int
    """Tokens of every row and column, as FTS5's BM25 counts them."""
    common: dict[str, bool] = field(default_factory=dict)
    _cjk: dict[int, frozenset[str]] | None = None
    _cjk_holding: dict[str, list[int]] | None = None

    def cjk_keys(self, stem: Callable[[str], str] | None) -> dict[int, frozenset[str]]:
        """The keys of each title word holding CJK characters, by word id (made once)."""
        if self._cjk is None:
            self._cjk = {
                i: frozenset(token_keys(w, stem)) for w, i in self.words.items() if has_cjk(w)
            }
        return self._cjk

    def cjk_holding(self, stem: Callable[[str], str] | None) -> dict[str, list[int]]:
        """The title words holding CJK characters under each of their keys, in word order
        (made once): a question's keys reach their words without a pass over every title."""
        if self._cjk_holding is None:
            holding: dict[str, list[int]] = {}
            for i, keys in self.cjk_keys(stem).items():
                for key in keys:
                    holding.setdefault(key, []).append(i)
            self._cjk_holding = holding
        return self._cjk_holding


_cache: weakref.WeakKeyDictionary[CatalogStore, _TitleWords] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _totals(conn: sqlite3.Connection) -> tuple[int, int]:
    """FTS5's row and token counts of ``fts_documents`` (its averages record), or ``(0, 0)``
    when the record is not as FTS5 writes it."""
    found = conn.execute("SELECT block FROM fts_documents_data WHERE id = 1").fetchone()
    values = varints(bytes(found[0])) if found and isinstance(found[0], bytes) else []
    # The row count, then each column's total (the unindexed document_id's is 0).
    if len(values) != 5 or values[0] <= 0:
        return 0, 0
    return values[0], sum(values[1:])


def _read(store: CatalogStore) -> _TitleWords:
    # A connection of its own: the vocabulary view is a temporary table of the connection.
    conn = build_connection(store.root / ROUTER_PATH)
    words: dict[str, int] = {}
    docs: list[NDArray[np.int64]] = []
    word_of: list[NDArray[np.intp]] = []

    def parse(terms: list[str], texts: list[str]) -> None:
        per_term = np.array([t.count(",") + 1 for t in texts], dtype=np.int64)
        # numpy's text parser reads the joined ids without a Python object per token.
        ids = np.fromstring(",".join(texts), dtype=np.int64, sep=",")
        if ids.shape[0] != int(per_term.sum()):
            raise ValueError("unexpected instance list from fts5vocab")
        first = np.array([words.setdefault(t, len(words)) for t in terms], dtype=np.intp)
        docs.append(ids)
        word_of.append(np.repeat(first, per_term))

    try:
        rows, tokens = _totals(conn)
        # fts5vocab's instance view lists each token FTS5 indexed, so titles are split and
        # folded exactly as the MATCH that scores them splits and folds them; grouped by
        # term, SQLite joins each term's documents into one string numpy parses at once.
        conn.execute(
            "CREATE VIRTUAL TABLE temp.title_tokens USING fts5vocab(main, fts_documents, instance)"
        )
        terms: list[str] = []
        texts: list[str] = []
        size = 0
        for term, text in conn.execute(
            "SELECT term, group_concat(doc) FROM temp.title_tokens"
            " WHERE col = 'title' GROUP BY term"
        ):
            terms.append(str(term))
            texts.append(str(text))
            size += len(texts[-1])
            if size >= _BATCH_CHARS:
                parse(terms, texts)
                terms, texts, size = [], [], 0
        if terms:
            parse(terms, texts)
    finally:
        conn.close()
    all_docs = np.concatenate(docs) if docs else np.zeros(0, dtype=np.int64)
    rowids, token_document = np.unique(all_docs, return_inverse=True)
    token_word = np.concatenate(word_of) if word_of else np.zeros(0, dtype=np.intp)
    stop = np.array([w in STOPWORDS for w in words], dtype=np.bool_)
    token_content = ~stop[token_word] if words else np.zeros(0, dtype=np.bool_)
    pairs = np.unique(token_word.astype(np.int64) * max(1, len(rowids)) + token_document)
    return _TitleWords(
        words=words,
        rowids=rowids,
        token_document=token_document.astype(np.intp),
        token_word=token_word,
        token_content=token_content,
        content=np.bincount(token_document[token_content], minlength=len(rowids)),
        titles_with=np.bincount(pairs // max(1, len(rowids)), minlength=len(words)),
        rows=rows,
        tokens=tokens,
    )


def _title_words(store: CatalogStore) -> _TitleWords:
    with _lock:
        found = _cache.get(store)
        if found is None:
            found = _cache[store] = _read(store)
        return found


def _passages_with(store: CatalogStore, shard: ShardInfo, token: str, limit: int) -> int:
    """Passages of ``shard`` holding ``token`` or a word of its stem (counted to ``limit + 1``
    at most without the shard's keyword index)."""
    indexed = store.keyword.passages_with(shard, token)
    if indexed is not None:
        return indexed
    match = " OR ".join(f'"{v}"' for v in store.keyword.variants(shard, token))
    (count,) = (
        store.connection(shard)
        .execute(
            "SELECT COUNT(*) FROM (SELECT 1 FROM fts_chunks WHERE fts_chunks MATCH ? LIMIT ?)",
            (match, limit + 1),
        )
        .fetchone()
    )
    return int(count)


def _common(store: CatalogStore, titles: _TitleWords, token: str) -> bool:
    """Whether ``token`` (its stem's words) is in more than :data:`COMMON_WORD_FRACTION` of
    the passages; remembered per catalog handle."""
    found = titles.common.get(token)
    if found is not None:
        return found
    total = sum(s.chunk_count for s in store.shards)
    limit = int(COMMON_WORD_FRACTION * total)
    seen = 0
    for shard in store.shards:
        seen += _passages_with(store, shard, token, limit - seen)
        if seen > limit:
            break
    found = total > 0 and seen > limit
    if len(titles.common) >= _VERDICTS_KEPT:
        titles.common.clear()
    titles.common[token] = found
    return found


def named_titles(
    store: CatalogStore, terms: Sequence[str], limit: int, eligible: Sequence[str] | None
) -> list[RankedDocument]:
    """Documents whose title's content words are all among the query's ``terms`` (stems
    aside), at least one of them not common, best BM25 of the title first, at most ``limit``."""
    if not terms or limit < 1:
        return []
    titles = _title_words(store)
    named = _named(store, titles, terms) if titles.words else np.zeros(0, dtype=np.intp)
    if named.size == 0:
        return []
    rowids = titles.rowids[named]
    found = _named_rows(store, rowids)
    if eligible is not None:
        allowed = set(eligible)
        keep = np.array([found[int(r)][0] in allowed for r in rowids], dtype=np.bool_)
        named, rowids = named[keep], rowids[keep]
        if named.size == 0:
            return []
    phrases = [v for t in terms for v in _title_phrases(store, t)]
    if titles.rows == 0 or any(" " in p for p in phrases):
        return _scored_by_fts5(store, rowids, phrases, limit)
    lengths = np.array([found[int(r)][1] for r in rowids], dtype=np.uint32)
    scores = _bm25(titles, phrases, named, norms_of(lengths, titles.rows, titles.tokens))
    ids = [found[int(r)][0] for r in rowids]
    best = sorted(zip(ids, scores.tolist(), strict=True), key=lambda n: (-n[1], n[0]))
    return [RankedDocument(document_id, score) for document_id, score in best[:limit]]


def _title_phrases(store: CatalogStore, term: str) -> list[str]:
    """The title words a query term scores: its stem's variants; for a word holding CJK
    characters, those of its parts, each title word once."""
    units = term_units(term)
    if len(units) == 1:
        return store.keyword.title_variants(term)
    return list(dict.fromkeys(v for u in units for v in store.keyword.title_variants(u)))


def _cjk_named(
    store: CatalogStore, titles: _TitleWords, stands_for: dict[str, list[int]], cjk: set[str]
) -> None:
    """Add to each CJK key of the query (``cjk``) the title words holding CJK characters
    whose every key (bigrams, and the stems of words joined to them) the query holds."""
    stem = store.keyword.stem
    held = set(cjk) | {stem(u) if stem is not None else u for u in stands_for if u not in cjk}
    keys_of, holding = titles.cjk_keys(stem), titles.cjk_holding(stem)
    # Only a word holding one of the query's CJK keys can be added under it; each key's words
    # come in word order, as a pass over every title word would add them.
    for key in cjk:
        stands_for[key] += [word for word in holding.get(key, ()) if keys_of[word] <= held]


def _named(store: CatalogStore, titles: _TitleWords, terms: Sequence[str]) -> NDArray[np.intp]:
    """The titles (positions in ``titles.rowids``) the terms name, ascending."""
    # Each query token stands for the title words sharing its stem; a token holding CJK
    # characters is read as its parts (gezel_knowledge.cjk), each CJK key standing for the
    # title words all of whose keys the query holds.
    stands_for: dict[str, list[int]] = {}
    cjk: set[str] = set()
    for term in terms:
        for token in fold_term(term):
            for unit, is_cjk in token_parts(token):
                if unit in stands_for:
                    continue
                if is_cjk:
                    cjk.add(unit)
                    stands_for[unit] = []
                    continue
                variants = store.keyword.title_variants(unit)
                stands_for[unit] = [titles.words[v] for v in variants if v in titles.words]
    if cjk:
        _cjk_named(store, titles, stands_for, cjk)
    marked = np.zeros(len(titles.words), dtype=np.bool_)
    for ids in stands_for.values():
        marked[ids] = True
    named = np.flatnonzero((titles.content > 0) & (_said(titles, marked) == titles.content))
    if named.size == 0:
        return named
    # Named by at least one word telling this page from the others.
    telling = np.zeros(len(titles.words), dtype=np.bool_)
    for token, ids in stands_for.items():
        if ids and not _common(store, titles, token):
            telling[ids] = True
    return named[_said(titles, telling)[named] > 0]


def _said(titles: _TitleWords, marked: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Per title, how many of its content tokens are ``marked`` words."""
    return np.bincount(
        titles.token_document[marked[titles.token_word] & titles.token_content],
        minlength=len(titles.rowids),
    )


def _named_rows(store: CatalogStore, rowids: NDArray[np.int64]) -> dict[int, tuple[str, int]]:
    """Each named row's document id and length in tokens (every column), by rowid."""
    rows = store.router.execute(
        "SELECT s.id, f.document_id, s.sz FROM fts_documents_docsize s"
        " JOIN fts_documents f ON f.rowid = s.id"
        " WHERE s.id IN (SELECT value FROM json_each(?))",
        (json.dumps(rowids.tolist()),),
    ).fetchall()
    return {int(r[0]): (str(r[1]), sum(varints(bytes(r[2])))) for r in rows}


def _bm25(
    titles: _TitleWords,
    phrases: Sequence[str],
    named: NDArray[np.intp],
    norms: NDArray[np.float64],
) -> NDArray[np.float64]:
    """FTS5's ``bm25(fts_documents, 4.0, 1.0, 2.0)`` of the named documents for the query
    ``title : (phrase OR ...)``, phrase by phrase in its order as FTS5 adds them up: each
    phrase's IDF from the titles holding it, its frequency the title's (weighted 4)."""
    is_named = np.zeros(len(titles.rowids), dtype=np.bool_)
    is_named[named] = True
    picked = is_named[titles.token_document]
    docs, words = titles.token_document[picked], titles.token_word[picked]
    position = np.searchsorted(named, docs)
    score = np.zeros(len(named), dtype=np.float64)
    for phrase in phrases:
        word = titles.words.get(phrase)
        if word is None:
            continue  # in no title: no hit, and a zero frequency adds nothing
        idf = bm25_idf(titles.rows, int(titles.titles_with[word]))
        freq = TITLE_WEIGHT * np.bincount(position[words == word], minlength=len(named))
        score += idf * (freq * (K1 + 1.0)) / (freq + norms)
    return score


def _scored_by_fts5(
    store: CatalogStore, rowids: NDArray[np.int64], phrases: Sequence[str], limit: int
) -> list[RankedDocument]:
    """The named documents scored by FTS5 itself: for a query with a phrase (``snake_case``
    words), which title token counts do not give, or when FTS5's totals could not be read."""
    rows = fetch_all(
        store.router,
        "SELECT f.document_id, bm25(fts_documents, 4.0, 1.0, 2.0) AS score"
        " FROM fts_documents f WHERE fts_documents MATCH ?"
        " AND f.rowid IN (SELECT value FROM json_each(?))"
        " ORDER BY score, f.document_id LIMIT ?",
        [
            "title : (" + " OR ".join(f'"{p}"' for p in phrases) + ")",
            json.dumps(rowids.tolist()),
            limit,
        ],
    )
    return [RankedDocument(str(r["document_id"]), -float(r["score"])) for r in rows]
