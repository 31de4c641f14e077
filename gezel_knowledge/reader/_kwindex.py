"""A shard's derived keyword index: postings read once from its FTS5 tables, scored as FTS5 does.

The spec's FTS5 tables stay what they are; this is the reader's own view of them, built from
the shard itself (no second tokenizer): ``fts5vocab`` (``instance``) lists every token of every
passage by term, which gives each term's postings (passage id, term frequency), and the docsize
table gives each passage's length in tokens. When the catalog's language has a Snowball
stemmer, the vocabulary is grouped by stem: one posting list per stem, a passage's frequency
the sum of its variants' (``attenuators`` finds ``attenuator``).

Scores are FTS5's ``bm25()`` arithmetic (``fts5_aux.c``: k1 = 1.2, b = 0.75, every column
weighing 1 as the reader's ``bm25(fts_chunks, 1.0, 1.0, 1.0)``), evaluated in float64 in the
same order, with the IDF each query term is given: with FTS5's own (:func:`bm25_idf`) an
unstemmed query gets bit-identical scores and the same ties (by ascending passage id); keyword
search gives Lucene's (:func:`search_idf`).
:func:`top_passages` finds the best passages by MaxScore: terms with the highest possible
contribution are scored in full, and once the rest together could not lift an unseen passage
into the top, they are scored only for the passages already found; the winners are then scored
again exactly, term by term in query order.
"""

from __future__ import annotations

import itertools
import math
import sqlite3
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.cjk import has_cjk
from gezel_knowledge.reader._kwkeys import term_keys
from gezel_knowledge.reader._kwvariants import Variants, ranges, utf8_offsets

__all__ = [
    "K1",
    "B",
    "BuiltIndex",
    "DamagedIndex",
    "KeywordIndex",
    "QueryTerm",
    "assembled",
    "bm25_idf",
    "build_index",
    "docsize_lengths",
    "search_idf",
    "top_passages",
    "varints",
]

K1 = 1.2
"""FTS5's BM25 k1."""

B = 0.75
"""FTS5's BM25 b."""

_MARGIN = 1e-9
"""Relative slack on pruning bounds: the upper bounds are summed in another order than scores."""

Postings = tuple[NDArray[np.int32], NDArray[np.uint16]]


class DamagedIndex(Exception):
    """A posting list read from a cache file failed its check."""

    shard: Any = None
    """The shard whose index it is, when the caller knows."""


def bm25_idf(rows: int, hits: int) -> float:
    """FTS5's IDF of a term found in ``hits`` of ``rows`` passages (never below 1e-6)."""
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    return idf if idf > 0.0 else 1e-6


def search_idf(rows: int, hits: int) -> float:
    """The IDF keyword search weighs terms by: Lucene's ``log(1 + (N - n + 0.5) / (n + 0.5))``.

    It differs from FTS5's (:func:`bm25_idf`) by the ``1 +``, which keeps a term found in half
    of the passages or more worth a little (FTS5 floors it at 1e-6: nothing) and leaves rare
    terms' weights almost as they were. Chosen on the dev halves of five collections, level on
    their test halves (docs/quality.md); the arithmetic of each term's part stays FTS5's.
    """
    return math.log(1.0 + (rows - hits + 0.5) / (hits + 0.5))


@dataclass(frozen=True, slots=True)
class QueryTerm:
    """One query term in a shard: its posting list, its IDF and how often the query says it."""

    term_id: int
    idf: float
    count: int


@dataclass(slots=True)
class BuiltIndex:
    """An index's arrays, as built or as read from its file."""

    lengths: NDArray[np.uint32]
    """Passage length in tokens (every column), by passage id (0 where no passage)."""
    rows: int
    tokens: int
    keys: list[str]
    """Sorted dictionary keys: terms, or stems when the shard's vocabulary is stemmed."""
    offsets: NDArray[np.int64]
    max_parts: NDArray[np.float64]
    checks: NDArray[np.uint32]
    docs: NDArray[np.int32]
    freqs: NDArray[np.uint16]
    variants: Variants | None = None
    """Each key's vocabulary terms: a stem's variants, the CJK terms holding a pair (``None``
    when unstemmed without CJK terms: a key is its only variant)."""


def varints(blob: bytes) -> list[int]:
    """SQLite varints, as FTS5 writes its sizes and totals (7 bits a byte, high bit: more)."""
    out: list[int] = []
    value = 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            out.append(value)
            value = 0
    return out


def docsize_lengths(conn: sqlite3.Connection, table: str) -> tuple[NDArray[np.uint32], int]:
    """Each passage's token count (all columns) from ``<table>_docsize``, by passage id, and
    the number of passages."""
    ids: list[int] = []
    sizes: list[int] = []
    for rowid, blob in conn.execute(f"SELECT id, sz FROM {table}_docsize ORDER BY id"):
        # One varint per column.
        ids.append(int(rowid))
        sizes.append(sum(varints(bytes(blob))))
    top = max(ids, default=0)
    if ids and (ids[0] < 0 or top > max(64 * len(ids), 1 << 20) or top >= 2**31 - 1):
        raise ValueError("passage ids too sparse or too large for a dense length table")
    lengths = np.zeros(top + 1, dtype=np.uint32)
    lengths[np.asarray(ids, dtype=np.int64)] = np.asarray(sizes, dtype=np.uint32)
    return lengths, len(ids)


_BATCH_CHARS = 4_000_000
"""Instance text parsed at once while building (about half a million token instances)."""

_BLOCK_POSTINGS = 1_000_000
"""Postings handled at once when the built lists are ordered and bounded."""


@dataclass(slots=True)
class _Runs:
    """Every vocabulary term's postings, in vocabulary order, in arrays sized for the worst
    case (one posting per token) and filled batch by batch."""

    terms: list[str]
    counts: list[NDArray[np.int64]]
    docs: NDArray[np.int32]
    freqs: NDArray[np.uint16]
    used: int = 0


def _parse_batch(runs: _Runs, terms: list[str], texts: list[str]) -> None:
    """Postings of a batch of terms from their instance lists (``"3,3,8"``: ascending ids)."""
    per_term = np.array([t.count(",") + 1 for t in texts], dtype=np.int64)
    # numpy's text parser reads the joined ids without a Python object per id.
    ids = np.fromstring(",".join(texts), dtype=np.int64, sep=",")
    if ids.shape[0] != int(per_term.sum()):
        raise ValueError("unexpected instance list from fts5vocab")
    term_of = np.repeat(np.arange(len(texts), dtype=np.int32), per_term)
    first = np.ones(ids.shape[0], dtype=np.bool_)
    first[1:] = (ids[1:] != ids[:-1]) | (term_of[1:] != term_of[:-1])
    starts = np.flatnonzero(first)
    freqs = np.diff(np.append(starts, ids.shape[0]))
    if freqs.shape[0] and freqs.max() > 0xFFFF:
        raise ValueError("a term occurs too often in one passage for this index")
    end = runs.used + starts.shape[0]
    if end > runs.docs.shape[0]:
        raise ValueError("the docsize table counts fewer tokens than the vocabulary holds")
    runs.docs[runs.used : end] = ids[starts]
    runs.freqs[runs.used : end] = freqs
    runs.used = end
    runs.terms += terms
    runs.counts.append(np.bincount(term_of[starts], minlength=len(texts)).astype(np.int64))


def _read_runs(conn: sqlite3.Connection, table: str, tokens: int) -> _Runs:
    """Stream the shard's token instances, term by term, into posting lists."""
    runs = _Runs([], [], np.zeros(tokens, np.int32), np.zeros(tokens, np.uint16))
    vocab = "temp.gezel_kw_instance"
    conn.execute(f"DROP TABLE IF EXISTS {vocab}")
    conn.execute(f"CREATE VIRTUAL TABLE {vocab} USING fts5vocab(main, {table}, instance)")
    try:
        terms: list[str] = []
        texts: list[str] = []
        size = 0
        # fts5vocab yields terms in order, so GROUP BY streams without sorting.
        for term, text in conn.execute(
            f"SELECT term, group_concat(doc) FROM {vocab} GROUP BY term"
        ):
            terms.append(str(term))
            texts.append(str(text))
            size += len(texts[-1])
            if size >= _BATCH_CHARS:
                _parse_batch(runs, terms, texts)
                terms, texts, size = [], [], 0
        if terms:
            _parse_batch(runs, terms, texts)
    finally:
        conn.execute(f"DROP TABLE IF EXISTS {vocab}")
    return runs


def _grouped(
    runs: _Runs, stem: Callable[[str], str] | None
) -> tuple[list[str], NDArray[np.int64], NDArray[np.int32], NDArray[np.uint16], Variants | None]:
    """Keys (terms or stems, sorted), posting counts per key, postings in key order: the terms
    of a key (a stem's variants, the CJK terms holding a bigram) merged into one list,
    frequencies summed per passage (times the key's repeats in each term)."""
    counts = np.concatenate(runs.counts) if runs.counts else np.zeros(0, np.int64)
    docs, freqs = runs.docs[: runs.used], runs.freqs[: runs.used]
    if stem is None and not any(not t.isascii() and has_cjk(t) for t in runs.terms):
        return runs.terms, counts, docs, freqs, None  # the vocabulary is sorted already
    keys, pair_term, key_of, times = term_keys(runs.terms, stem)
    term_start = np.concatenate(([0], np.cumsum(counts)[:-1]))
    pair_counts = counts[pair_term]
    key_terms = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(np.bincount(key_of, minlength=len(keys)), out=key_terms[1:])
    key_postings = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(np.bincount(key_of, weights=pair_counts, minlength=len(keys)), out=key_postings[1:])
    size = int(key_postings[-1])
    out_docs = np.zeros(size, dtype=np.int32)
    out_freqs = np.zeros(size, dtype=np.uint16)
    key_counts = np.zeros(len(keys), dtype=np.int64)
    used = 0
    # Blocks of keys, so that sorting variants together needs memory for one block only.
    for lo, hi in _blocks(key_postings):
        # The pairs come by key, a key's terms in vocabulary order.
        block = np.arange(key_terms[lo], key_terms[hi])
        take = ranges(term_start[pair_term[block]], pair_counts[block])
        b_docs = docs[take]
        b_freqs = freqs[take].astype(np.int64) * np.repeat(times[block], pair_counts[block])
        b_key = np.repeat(key_of[block] - lo, pair_counts[block])
        order = np.lexsort((b_docs, b_key))
        b_docs, b_freqs, b_key = b_docs[order], b_freqs[order], b_key[order]
        first = np.ones(b_docs.shape[0], dtype=np.bool_)
        first[1:] = (b_key[1:] != b_key[:-1]) | (b_docs[1:] != b_docs[:-1])
        starts = np.flatnonzero(first)
        summed = np.add.reduceat(b_freqs, starts) if starts.shape[0] else b_freqs
        if summed.shape[0] and summed.max() > 0xFFFF:
            raise ValueError("a stem occurs too often in one passage for this index")
        end = used + starts.shape[0]
        out_docs[used:end] = b_docs[starts]
        out_freqs[used:end] = summed
        key_counts[lo:hi] = np.bincount(b_key[starts], minlength=hi - lo)
        used = end
    term_offsets, text = utf8_offsets(runs.terms)
    variants = Variants(key_terms, pair_term.astype(np.int32), term_offsets, text)
    return keys, key_counts, out_docs[:used], out_freqs[:used], variants


def _blocks(offsets: NDArray[np.int64]) -> list[tuple[int, int]]:
    """Ranges of keys holding about :data:`_BLOCK_POSTINGS` postings each."""
    bounds = [0]
    while bounds[-1] < offsets.shape[0] - 1:
        target = offsets[bounds[-1]] + _BLOCK_POSTINGS
        nxt = int(np.searchsorted(offsets, target, side="right")) - 1
        bounds.append(min(max(nxt, bounds[-1] + 1), offsets.shape[0] - 1))
    return list(itertools.pairwise(bounds))


def norms_of(lengths: NDArray[np.uint32], rows: int, tokens: int) -> NDArray[np.float64]:
    """``k1 * (1 - b + b * D / avgdl)`` per passage, as FTS5 evaluates it."""
    avgdl = float(tokens) / float(rows) if rows else 1.0
    return K1 * ((1.0 - B) + (B * lengths.astype(np.float64)) / avgdl)


def _parts(freqs: NDArray[Any], norms: NDArray[np.float64]) -> NDArray[np.float64]:
    tf = freqs.astype(np.float64)
    return (tf * (K1 + 1.0)) / (tf + norms)


def postings_check(docs: NDArray[np.int32], freqs: NDArray[np.uint16]) -> int:
    """The CRC-32 of one posting list, checked the first time a search reads it."""
    # memoryview: no copy of the (possibly memory-mapped) slice.
    return zlib.crc32(memoryview(freqs), zlib.crc32(memoryview(docs)))  # type: ignore[arg-type]


def build_index(
    conn: sqlite3.Connection,
    stem: Callable[[str], str] | None,
    *,
    table: str = "fts_chunks",
) -> BuiltIndex:
    """Read a shard's FTS5 tables into an index, grouping terms by ``stem`` when given.

    The instance list is streamed (SQLite concatenates each term's passage ids; batches of
    terms are parsed at once), so memory holds the postings and one batch of instances, never
    the token stream.
    """
    lengths, rows = docsize_lengths(conn, table)
    tokens = int(lengths.sum(dtype=np.int64))
    keys, counts, docs, freqs, variants = _grouped(_read_runs(conn, table, tokens), stem)
    return assembled(lengths, rows, keys, counts, docs, freqs, variants)


def assembled(  # noqa: PLR0917 - the index's arrays
    lengths: NDArray[np.uint32],
    rows: int,
    keys: list[str],
    counts: NDArray[np.int64],
    docs: NDArray[np.int32],
    freqs: NDArray[np.uint16],
    variants: Variants | None,
) -> BuiltIndex:
    """An index of postings grouped by key (``counts`` postings each, in key order): their
    offsets, each key's largest possible part of a score and each list's check."""
    tokens = int(lengths.sum(dtype=np.int64))
    norms = norms_of(lengths, rows, tokens)
    offsets = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    max_parts = np.zeros(len(keys), dtype=np.float64)
    for lo, hi in _blocks(offsets):
        start, end = int(offsets[lo]), int(offsets[hi])
        parts = _parts(freqs[start:end], norms[docs[start:end]])
        bounds = offsets[lo:hi] - start
        nonempty = counts[lo:hi] > 0
        if parts.shape[0]:
            max_parts[lo:hi][nonempty] = np.maximum.reduceat(parts, bounds[nonempty])
    # postings_check per list over byte views of the whole arrays: slicing a memoryview costs
    # a third of slicing two arrays, over a million keys in a Chinese shard.
    doc_bytes = np.ascontiguousarray(docs).data.cast("B")
    freq_bytes = np.ascontiguousarray(freqs).data.cast("B")
    at, crc = offsets.tolist(), zlib.crc32
    d, f = docs.dtype.itemsize, freqs.dtype.itemsize
    checks = np.array(
        [
            crc(freq_bytes[f * a : f * e], crc(doc_bytes[d * a : d * e]))
            for a, e in itertools.pairwise(at)
        ],
        dtype=np.uint32,
    )
    return BuiltIndex(
        lengths, rows, tokens, keys, offsets, max_parts, checks, docs, freqs, variants
    )


class KeywordIndex:
    """A loaded index (built, or memory-mapped from its file) ready for searches."""

    def __init__(self, built: BuiltIndex, *, stemmed: bool, verified: bool = False) -> None:
        self.arrays = built
        self.stemmed = stemmed
        self.rows = built.rows
        self.norms = norms_of(built.lengths, built.rows, built.tokens)
        self._ids = {key: i for i, key in enumerate(built.keys)}
        # Postings read from a file are checked once each, the first time a search needs them.
        self._checked = np.full(len(built.keys), verified, dtype=np.bool_)
        self.searches = 0
        """Searches through this handle: from the second on, compiled kernels are worth it."""

    def variants(self, term_id: int) -> list[str]:
        """The vocabulary terms of a dictionary entry (its stem's variants, or itself)."""
        found = self.arrays.variants
        return [self.arrays.keys[term_id]] if found is None else found.of(term_id)

    def term_id(self, key: str) -> int | None:
        """The dictionary entry of ``key`` (a folded term, or its stem), if the shard has it."""
        return self._ids.get(key)

    def df(self, term_id: int) -> int:
        """Passages holding the term (or any variant of the stem)."""
        o = self.arrays.offsets
        return int(o[term_id + 1] - o[term_id])

    def postings(self, term_id: int) -> Postings:
        """The term's passage ids (ascending) and frequencies; refuses a damaged list."""
        a = self.arrays
        start, end = int(a.offsets[term_id]), int(a.offsets[term_id + 1])
        docs, freqs = a.docs[start:end], a.freqs[start:end]
        if not self._checked[term_id]:
            if postings_check(docs, freqs) != int(a.checks[term_id]):
                raise DamagedIndex(f"keyword index postings of entry {term_id} are damaged")
            self._checked[term_id] = True
        return docs, freqs


def _kth_largest(values: NDArray[np.float64], k: int) -> float:
    if values.shape[0] < k:
        return 0.0
    return float(np.partition(values, values.shape[0] - k)[values.shape[0] - k])


class KeywordKernels(Protocol):
    """The compiled passes (``reader._compiled``): MaxScore candidates, their exact scores."""

    def keyword_candidates(  # noqa: PLR0917 - the kernel's arrays
        self,
        docs: NDArray[np.int32],
        freqs: NDArray[np.uint16],
        starts: NDArray[np.int64],
        ends: NDArray[np.int64],
        weights: NDArray[np.float64],
        bounds: NDArray[np.float64],
        norms: NDArray[np.float64],
        allowed: NDArray[np.bool_] | None,
        limit: int,
        margin: float,
    ) -> NDArray[np.int64]: ...

    def keyword_scores(  # noqa: PLR0917 - the kernel's arrays
        self,
        candidates: NDArray[np.int64],
        docs: NDArray[np.int32],
        freqs: NDArray[np.uint16],
        starts: NDArray[np.int64],
        ends: NDArray[np.int64],
        idfs: NDArray[np.float64],
        counts: NDArray[np.int64],
        norms: NDArray[np.float64],
        k1p1: float,
    ) -> NDArray[np.float64]: ...


def top_passages(
    index: KeywordIndex,
    terms: Sequence[QueryTerm],
    limit: int,
    allowed: NDArray[np.bool_] | None = None,
    kernel: KeywordKernels | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The ``limit`` best passages (ids, scores), best first, ties by ascending id.

    ``allowed`` (by passage id) limits the search to some passages (a radius filter). Scores
    are BM25 as FTS5 computes them with each term repeated ``count`` times in the query.
    ``kernel``, when given, finds the candidates compiled; either way they hold every passage
    that can be among the best, and the same exact scoring ranks them, so results are identical.
    """
    terms = [t for t in terms if index.df(t.term_id) > 0]
    if not terms or limit < 1:
        return np.zeros(0, np.int64), np.zeros(0, np.float64)
    weight = [t.idf * t.count for t in terms]
    bound = [
        w * float(index.arrays.max_parts[t.term_id]) for w, t in zip(weight, terms, strict=True)
    ]
    order = sorted(range(len(terms)), key=lambda i: (-bound[i], i))
    for t in terms:
        index.postings(t.term_id)  # checks each list read from a file once
    if kernel is not None:
        offsets = index.arrays.offsets
        ids = np.array([terms[i].term_id for i in order], dtype=np.int64)
        candidates = kernel.keyword_candidates(
            index.arrays.docs,
            index.arrays.freqs,
            offsets[ids],
            offsets[ids + 1],
            np.array([weight[i] for i in order], dtype=np.float64),
            np.array([bound[i] for i in order], dtype=np.float64),
            index.norms,
            allowed,
            limit,
            _MARGIN,
        )
    else:
        candidates = _candidates(
            index, [terms[i] for i in order], [bound[i] for i in order], limit, allowed
        )
    if kernel is None:
        return _exact(index, terms, candidates, limit)
    candidates = np.sort(candidates)
    ids = np.array([t.term_id for t in terms], dtype=np.int64)
    offsets = index.arrays.offsets
    scores = kernel.keyword_scores(
        candidates,
        index.arrays.docs,
        index.arrays.freqs,
        offsets[ids],
        offsets[ids + 1],
        np.array([t.idf for t in terms], dtype=np.float64),
        np.array([t.count for t in terms], dtype=np.int64),
        index.norms,
        K1 + 1.0,
    )
    ranked = np.lexsort((candidates, -scores))[:limit]
    return candidates[ranked].astype(np.int64), scores[ranked]


def _candidates(
    index: KeywordIndex,
    terms: Sequence[QueryTerm],
    bound: Sequence[float],
    limit: int,
    allowed: NDArray[np.bool_] | None,
) -> NDArray[np.int64]:
    """MaxScore with numpy over ``terms`` by descending ``bound``: the passages that may be
    among the ``limit`` best."""
    norms = index.norms
    acc = np.zeros(norms.shape[0], dtype=np.float64)
    seen = np.zeros(norms.shape[0], dtype=np.bool_)
    rest = float(sum(bound))
    theta = top = 0.0
    done = 0
    # Essential terms: scored for every passage holding them, highest bound first.
    while done < len(terms) and not rest < theta * (1.0 - _MARGIN):
        docs, freqs = index.postings(terms[done].term_id)
        if allowed is not None:
            keep = allowed[docs]
            docs, freqs = docs[keep], freqs[keep]
        acc[docs] += terms[done].idf * terms[done].count * _parts(freqs, norms[docs])
        seen[docs] = True
        if docs.shape[0]:
            top = max(top, float(acc[docs].max()))
        rest -= bound[done]
        done += 1
        # The k-th best so far can only beat the rest's bound when the best does.
        if done < len(terms) and rest < top:
            theta = _kth_largest(acc[np.flatnonzero(seen)], limit)
    candidates = np.flatnonzero(seen)
    # The others: scored only for passages already found, dropping those that cannot win.
    for t, b in zip(terms[done:], bound[done:], strict=True):
        candidates = candidates[acc[candidates] + rest >= theta * (1.0 - _MARGIN)]
        docs, freqs = index.postings(t.term_id)
        at = np.minimum(np.searchsorted(docs, candidates), max(docs.shape[0] - 1, 0))
        hit = docs[at] == candidates
        found = candidates[hit]
        acc[found] += t.idf * t.count * _parts(freqs[at[hit]], norms[found])
        rest -= b
        theta = max(theta, _kth_largest(acc[candidates], limit))
    return candidates[acc[candidates] >= theta * (1.0 - _MARGIN)]


def _exact(
    index: KeywordIndex, terms: Sequence[QueryTerm], candidates: NDArray[np.int64], limit: int
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The candidates scored again as FTS5 sums: query order, each repeat added on its own."""
    scores = np.zeros(candidates.shape[0], dtype=np.float64)
    norms = index.norms[candidates]
    for t in terms:
        docs, freqs = index.postings(t.term_id)
        if docs.shape[0] == 0:
            continue
        at = np.minimum(np.searchsorted(docs, candidates), docs.shape[0] - 1)
        tf = np.where(docs[at] == candidates, freqs[at], 0).astype(np.float64)
        part = t.idf * ((tf * (K1 + 1.0)) / (tf + norms))
        for _ in range(t.count):
            scores += part
    ranked = np.lexsort((candidates, -scores))[:limit]
    return candidates[ranked].astype(np.int64), scores[ranked]
