"""The derived keyword index's arithmetic over one question's keys, read from FTS5 directly.

A question holding CJK characters is scored by keys no FTS5 term is (pairs of characters,
words joined to CJK text: ``gezel_knowledge.cjk``). While a shard has no derived index (a
large shard's first searches, or ``GEZEL_KNOWLEDGE_KEYWORD_INDEX=off``), searching each
vocabulary term holding a key as its own FTS5 term would weigh a long, rare run holding a
common pair as if the pair were rare. So the fallback builds a small index of the question's
keys only: each key's vocabulary terms are read from ``fts5vocab``'s instance view and their
occurrences summed per passage as the full index sums them, with the shard's passage lengths,
and the passages get the derived index's scores.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence

import numpy as np

from gezel_knowledge.reader._kwindex import BuiltIndex, assembled

__all__ = ["INSTANCES", "scoped_index"]

INSTANCES = "temp.gezel_kw_scoped"
"""The ``fts5vocab`` instance view a scoped index reads (created by the caller)."""


def _occurrences(conn: sqlite3.Connection, terms: Sequence[str]) -> np.ndarray:
    """The passage id of each occurrence of any of ``terms`` (one per occurrence)."""
    # One statement: SQLite looks each term of the list up in the view itself.
    (text,) = conn.execute(
        f"SELECT group_concat(doc) FROM {INSTANCES} WHERE term IN (SELECT value FROM json_each(?))",
        (json.dumps(list(terms)),),
    ).fetchone()
    if not text:
        return np.zeros(0, dtype=np.int64)
    return np.fromstring(str(text), dtype=np.int64, sep=",")


def scoped_index(
    conn: sqlite3.Connection,
    lengths: np.ndarray,
    rows: int,
    variants: Mapping[str, Sequence[tuple[str, int]]],
) -> BuiltIndex:
    """An index of the keys of ``variants``, each from its vocabulary terms and how many times
    the key occurs in each, over the passages of ``lengths`` (``rows`` of them)."""
    keys = sorted(variants)
    counts = np.zeros(len(keys), dtype=np.int64)
    docs: list[np.ndarray] = []
    freqs: list[np.ndarray] = []
    for i, key in enumerate(keys):
        by_times: dict[int, list[str]] = {}
        for term, times in variants[key]:
            by_times.setdefault(times, []).append(term)
        found = [np.repeat(_occurrences(conn, ts), times) for times, ts in by_times.items()]
        ids, tf = np.unique(
            np.concatenate(found) if found else np.zeros(0, np.int64), return_counts=True
        )
        counts[i] = ids.shape[0]
        docs.append(ids.astype(np.int32))
        # A count past a posting's 16 bits (a valid catalog may repeat a word that often; the
        # full index refuses such a shard and this index answers for it) is the most it holds:
        # BM25's term part is within 1e-4 of its limit, k1 + 1, long before it.
        freqs.append(np.minimum(tf, 0xFFFF).astype(np.uint16))
    return assembled(
        lengths.astype(np.uint32),
        rows,
        keys,
        counts,
        np.concatenate(docs) if docs else np.zeros(0, np.int32),
        np.concatenate(freqs) if freqs else np.zeros(0, np.uint16),
        None,
    )
