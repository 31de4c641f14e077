"""Reciprocal rank fusion and rank-anchored relevance.

Independently ranked lists (vector neighbours, title matches, keyword passages) are combined by
position, never by comparing a BM25 score with a cosine: ``score(d) = sum_i w_i / (k + rank_i(d))``
with 1-based ranks and ``k = 60``. The fused order maps to relevance ``11 / (11 + rank)`` with a
zero-based rank: a statement about position, not probability.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

__all__ = ["RRF_K", "reciprocal_rank_fusion", "relevance"]

RRF_K = 60
K = TypeVar("K", bound=Hashable)


def reciprocal_rank_fusion(
    ranked_lists: Sequence[Sequence[K]],
    weights: Sequence[float] | None = None,
    *,
    k: int = RRF_K,
) -> list[tuple[K, float]]:
    """Fuse ranked key lists; return ``(key, score)`` best first, ties by first appearance.

    A key repeated within one list counts at its first (best) position only.
    """
    if weights is None:
        weights = [1.0] * len(ranked_lists)
    if len(weights) != len(ranked_lists):
        raise ValueError("one weight per ranked list is required")
    # A dict keeps keys in order of first appearance and sorted() is stable: equal scores stay
    # in that order without keeping it separately.
    scores: dict[K, float] = {}
    for weight, ranked in zip(weights, ranked_lists, strict=True):
        seen: set[K] = set()
        for position, key in enumerate(ranked, start=1):
            if key in seen:
                continue
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + weight / (k + position)
    return sorted(scores.items(), key=lambda item: -item[1])


def relevance(rank: int) -> float:
    """Rank-anchored relevance ``11 / (11 + rank)`` for a zero-based fused rank."""
    if rank < 0:
        raise ValueError("rank must be >= 0")
    return 11.0 / (11.0 + rank)
