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
    # Distinct (term, pair) with their counts: sorted by term, then pair.
    order = np.lexsort((packed, owner))
    packed, owner = packed[order], owner[order]
    first = np.ones(packed.shape[0], dtype=np.bool_)
    first[1:] = (packed[1:] != packed[:-1]) | (owner[1:] != owner[:-1])
    starts = np.flatnonzero(first)
    times = np.diff(np.append(starts, packed.shape[0]))
    packed, owner = packed[starts], np.asarray(pure, dtype=np.int64)[owner[starts]]
    distinct, inverse = np.unique(packed, return_inverse=True)
    pair_keys = [_unpacked(int(c)) for c in distinct.tolist()]
    keys = sorted(set(word_key).union(pair_keys))
    index = {k: i for i, k in enumerate(keys)}
    pair_index = np.array([index[k] for k in pair_keys], dtype=np.int64)
    pair_term = np.concatenate((np.array(word_term, dtype=np.int64), owner))
    key_of = np.concatenate(
        (np.array([index[k] for k in word_key], dtype=np.int64), pair_index[inverse])
    )
    pair_times = np.concatenate((np.array(word_times, dtype=np.int64), times))
    by_key = np.lexsort((pair_term, key_of))
    return keys, pair_term[by_key], key_of[by_key], pair_times[by_key]
