"""Which keys of the derived keyword index each vocabulary term files its postings under.

A term without CJK characters has one key: itself, or its stem in a stemmed catalog. A term
holding CJK characters has several (``gezel_knowledge.cjk``): the overlapping pairs of each
CJK run (a run of one character: that character) and the marked keys of the words joined to
them, each as many times as it occurs in the term. A Chinese shard's vocabulary holds hundreds
of thousands of such terms, so the terms made of CJK characters only (nearly all of them) are
split into pairs with numpy over their code points, a pair packed in one integer; the few
that join other words are split one by one.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.cjk import all_cjk, has_cjk, token_keys

__all__ = ["term_keys"]

_LOW = 21
"""Bits of a code point: a pair packs its first character above them, its second below."""

Pairs = tuple[list[str], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]


def _packed_keys(terms: list[str]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Each pair of adjacent characters of each term (a one-character term: that character)
    packed in an integer, with the term's position in ``terms``."""
    sizes = np.array([len(t) for t in terms], dtype=np.int64)
    codes = np.frombuffer("".join(terms).encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    ends = np.cumsum(sizes)
    starts = ends - sizes
    # A pair starts at every character but a term's last; a lone character is a key itself.
    begins = np.ones(codes.shape[0], dtype=np.bool_)
    begins[ends - 1] = False
    begins[starts[sizes == 1]] = True
    at = np.flatnonzero(begins)
    owner = np.repeat(np.arange(len(terms), dtype=np.int64), np.maximum(sizes - 1, 1))
    second = np.zeros(at.shape[0], dtype=np.int64)
    pair = sizes[owner] > 1
    second[pair] = codes[at[pair] + 1]
    return (codes[at] << _LOW) | second, owner


def _unpacked(code: int) -> str:
    low = code & ((1 << _LOW) - 1)
    return chr(code >> _LOW) + (chr(low) if low else "")


def _merged(
    pair_keys: list[str], word_keys: list[str]
) -> tuple[list[str], NDArray[np.int64], dict[str, int]]:
    """The sorted keys (``pair_keys``, sorted and distinct, with the other ``word_keys``), each
    pair key's place among them and each word key's."""
    others = sorted(set(word_keys).difference(pair_keys))
    # Timsort merges the two sorted runs in one pass.
    keys = sorted(pair_keys + others) if others else pair_keys
    below = np.array([bisect.bisect_left(pair_keys, k) for k in others], dtype=np.int64)
    # A pair key moves up by the other keys sorting before it.
    at = np.arange(len(pair_keys), dtype=np.int64)
    pair_index = at + np.searchsorted(below, at, side="right")
    index = {k: bisect.bisect_left(keys, k) for k in set(word_keys)}
    return keys, pair_index, index


def term_keys(terms: list[str], stem: Callable[[str], str] | None) -> Pairs:
    """Sorted keys and the (term, key, times) pairs mapping ``terms`` to them, ordered by key,
    then term: one pair per term without CJK characters, one per distinct key of a term
    holding them, ``times`` the key's repeats in that term."""
    word_term: list[int] = []
    word_key: list[str] = []
    word_times: list[int] = []
    pure: list[int] = []
    for i, term in enumerate(terms):
        if term.isascii() or not has_cjk(term):
            word_term.append(i)
            word_key.append(term if stem is None else stem(term))
            word_times.append(1)
        elif all_cjk(term):
            pure.append(i)
        else:
            for key, n in Counter(token_keys(term, stem, mark_joined=True)).items():
                word_term.append(i)
                word_key.append(key)
                word_times.append(n)
    packed, owner = _packed_keys([terms[i] for i in pure])
    # Each pair's rank among the distinct pairs, sorted as their strings are (a pair packs its
    # first character above the second, a lone character's second is 0).
    distinct, rank = np.unique(packed, return_inverse=True)
    del packed
    width = max(int(distinct.shape[0]), 1)
    # Distinct (term, pair) with their counts, sorted by term, then pair: one sort of one
    # integer (term * width + rank) rather than a lexsort of two arrays.
    joint, times = np.unique(owner * width + rank.reshape(-1), return_counts=True)
    del owner, rank
    owner = np.asarray(pure, dtype=np.int64)[joint // width]
    inverse = joint % width
    del joint
    pair_keys = [_unpacked(int(c)) for c in distinct.tolist()]
    keys, pair_index, index = _merged(pair_keys, word_key)
    pair_term = np.concatenate((np.array(word_term, dtype=np.int64), owner))
    key_of = np.concatenate(
        (np.array([index[k] for k in word_key], dtype=np.int64), pair_index[inverse])
    )
    pair_times = np.concatenate((np.array(word_times, dtype=np.int64), times))
    # (key, term) pairs are distinct: one sort of key * terms + term orders them by key, then
    # term, as a lexsort would.
    by_key = np.argsort(key_of * max(len(terms), 1) + pair_term, kind="stable")
    return keys, pair_term[by_key], key_of[by_key], pair_times[by_key]
