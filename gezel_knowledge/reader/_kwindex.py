"""A shard's derived keyword index: postings read once from its FTS5 tables, scored as FTS5 does.

The spec's FTS5 tables stay what they are; this is the reader's own view of them, built from
the shard itself (no second tokenizer): ``fts5vocab`` (``instance``) lists every token of every
passage by term, which gives each term's postings (passage id, term frequency), and the docsize
table gives each passage's length in tokens. When the catalog's language has a Snowball
stemmer, the vocabulary is grouped by stem: one posting list per stem, a passage's frequency
the sum of its variants' (``attenuators`` finds ``attenuator``).

Scores are FTS5's ``bm25()`` arithmetic (``fts5_aux.c``: k1 = 1.2, b = 0.75, every column
weighing 1 as the reader's ``bm25(fts_chunks, 1.0, 1.0, 1.0)``, the IDF
``log((N - n + 0.5) / (n + 0.5))`` floored at 1e-6), evaluated in float64 in the same order, so
an unstemmed query gets bit-identical scores and the same ties (by ascending passage id).
:func:`top_passages` finds the best passages by MaxScore: terms with the highest possible
contribution are scored in full, and once the rest together could not lift an unseen passage
into the top, they are scored only for the passages already found; the winners are then scored
again exactly, term by term in query order.
"""

from __future__ import annotations

import math
import sqlite3
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "K1",
    "B",
    "BuiltIndex",
    "DamagedIndex",
    "KeywordIndex",
    "QueryTerm",
    "bm25_idf",
    "build_index",
    "top_passages",
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


def _docsize_lengths(conn: sqlite3.Connection, table: str) -> NDArray[np.uint32]:
    """Each passage's token count (all columns) from ``<table>_docsize``, by passage id."""
    ids: list[int] = []
    sizes: list[int] = []
    for rowid, blob in conn.execute(f"SELECT id, sz FROM {table}_docsize ORDER BY id"):
        total, shift, value = 0, 0, 0
        for byte in bytes(blob):  # one varint per column
            value |= (byte & 0x7F) << shift
            if byte & 0x80:
                shift += 7
                continue
            total += value
            shift, value = 0, 0
        ids.append(int(rowid))
        sizes.append(total)
    top = max(ids, default=0)
    if ids and (ids[0] < 0 or top > max(64 * len(ids), 1 << 20) or top >= 2**31 - 1):
        raise ValueError("passage ids too sparse or too large for a dense length table")
    lengths = np.zeros(top + 1, dtype=np.uint32)
    lengths[np.asarray(ids, dtype=np.int64)] = np.asarray(sizes, dtype=np.uint32)
    return lengths


def _postings_of(text: str) -> Postings:
    """A term's postings from its instance list (``"3,3,8,..."``, ascending passage ids)."""
    ids = np.array(text.split(","), dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1])))
    counts = np.diff(np.append(starts, ids.shape[0]))
    if counts.max() > 0xFFFF:
        raise ValueError("a term occurs too often in one passage for this index")
    return ids[starts].astype(np.int32), counts.astype(np.uint16)


def _merged(parts: list[Postings]) -> Postings:
    """One posting list of several (a stem's variants): frequencies summed per passage."""
    if len(parts) == 1:
        return parts[0]
    docs = np.concatenate([p[0] for p in parts])
    freqs = np.concatenate([p[1].astype(np.int64) for p in parts])
    unique, inverse = np.unique(docs, return_inverse=True)
    summed = np.bincount(inverse, weights=freqs, minlength=unique.shape[0]).astype(np.int64)
    if summed.max() > 0xFFFF:
        raise ValueError("a stem occurs too often in one passage for this index")
    return unique.astype(np.int32), summed.astype(np.uint16)


def norms_of(lengths: NDArray[np.uint32], rows: int, tokens: int) -> NDArray[np.float64]:
    """``k1 * (1 - b + b * D / avgdl)`` per passage, as FTS5 evaluates it."""
    avgdl = float(tokens) / float(rows) if rows else 1.0
    return K1 * ((1.0 - B) + (B * lengths.astype(np.float64)) / avgdl)


def _parts(freqs: NDArray[Any], norms: NDArray[np.float64]) -> NDArray[np.float64]:
    tf = freqs.astype(np.float64)
    return (tf * (K1 + 1.0)) / (tf + norms)


def postings_check(docs: NDArray[np.int32], freqs: NDArray[np.uint16]) -> int:
    """The CRC-32 of one posting list, checked the first time a search reads it."""
    return zlib.crc32(freqs.tobytes(), zlib.crc32(docs.tobytes()))


def build_index(
    conn: sqlite3.Connection,
    stem: Callable[[str], str] | None,
    *,
    table: str = "fts_chunks",
) -> BuiltIndex:
    """Read a shard's FTS5 tables into an index, grouping terms by ``stem`` when given.

    The instance list is streamed one term at a time (SQLite concatenates each term's passage
    ids), so memory holds the postings and one term's instances, never the token stream.
    """
    lengths = _docsize_lengths(conn, table)
    rows = int(conn.execute(f"SELECT COUNT(*) FROM {table}_docsize").fetchone()[0])
    tokens = int(lengths.sum(dtype=np.int64))
    norms = norms_of(lengths, rows, tokens)
    vocab = "temp.gezel_kw_instance"
    conn.execute(f"DROP TABLE IF EXISTS {vocab}")
    conn.execute(f"CREATE VIRTUAL TABLE {vocab} USING fts5vocab(main, {table}, instance)")
    grouped: dict[str, list[Postings]] = {}
    try:
        for term, text in conn.execute(
            f"SELECT term, group_concat(doc) FROM {vocab} GROUP BY term"
        ):
            key = str(term) if stem is None else stem(str(term))
            grouped.setdefault(key, []).append(_postings_of(str(text)))
    finally:
        conn.execute(f"DROP TABLE IF EXISTS {vocab}")
    keys = sorted(grouped)
    offsets = np.zeros(len(keys) + 1, dtype=np.int64)
    max_parts = np.zeros(len(keys), dtype=np.float64)
    checks = np.zeros(len(keys), dtype=np.uint32)
    docs_parts: list[NDArray[np.int32]] = []
    freq_parts: list[NDArray[np.uint16]] = []
    for i, key in enumerate(keys):
        docs, freqs = _merged(grouped.pop(key))
        offsets[i + 1] = offsets[i] + docs.shape[0]
        max_parts[i] = float(_parts(freqs, norms[docs]).max())
        checks[i] = postings_check(docs, freqs)
        docs_parts.append(docs)
        freq_parts.append(freqs)
    docs_all = np.concatenate(docs_parts) if docs_parts else np.zeros(0, np.int32)
    del docs_parts
    freqs_all = np.concatenate(freq_parts) if freq_parts else np.zeros(0, np.uint16)
    del freq_parts
    return BuiltIndex(lengths, rows, tokens, keys, offsets, max_parts, checks, docs_all, freqs_all)


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


def top_passages(
    index: KeywordIndex,
    terms: Sequence[QueryTerm],
    limit: int,
    allowed: NDArray[np.bool_] | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The ``limit`` best passages (ids, scores), best first, ties by ascending id.

    ``allowed`` (by passage id) limits the search to some passages (a radius filter). Scores
    are BM25 as FTS5 computes them with each term repeated ``count`` times in the query.
    """
    terms = [t for t in terms if index.df(t.term_id) > 0]
    if not terms or limit < 1:
        return np.zeros(0, np.int64), np.zeros(0, np.float64)
    norms = index.norms
    weight = [t.idf * t.count for t in terms]
    bound = [
        w * float(index.arrays.max_parts[t.term_id]) for w, t in zip(weight, terms, strict=True)
    ]
    order = sorted(range(len(terms)), key=lambda i: (-bound[i], i))
    acc = np.zeros(norms.shape[0], dtype=np.float64)
    seen = np.zeros(norms.shape[0], dtype=np.bool_)
    rest = float(sum(bound))
    theta = 0.0
    done = 0
    # Essential terms: scored for every passage holding them, highest bound first.
    for i in order:
        if rest < theta * (1.0 - _MARGIN):
            break
        docs, freqs = index.postings(terms[i].term_id)
        if allowed is not None:
            keep = allowed[docs]
            docs, freqs = docs[keep], freqs[keep]
        acc[docs] += weight[i] * _parts(freqs, norms[docs])
        seen[docs] = True
        rest -= bound[i]
        done += 1
        if rest < theta * (1.0 - _MARGIN) or done == len(order):
            continue
        theta = _kth_largest(acc[np.flatnonzero(seen)], limit)
    candidates = np.flatnonzero(seen)
    # The others: scored only for passages already found, dropping those that cannot win.
    for i in order[done:]:
        candidates = candidates[acc[candidates] + rest >= theta * (1.0 - _MARGIN)]
        docs, freqs = index.postings(terms[i].term_id)
        at = np.minimum(np.searchsorted(docs, candidates), max(docs.shape[0] - 1, 0))
        hit = docs[at] == candidates
        found = candidates[hit]
        acc[found] += weight[i] * _parts(freqs[at[hit]], norms[found])
        rest -= bound[i]
        theta = max(theta, _kth_largest(acc[candidates], limit))
    candidates = candidates[acc[candidates] >= theta * (1.0 - _MARGIN)]
    return _exact(index, terms, candidates, limit)


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
