"""Ranking metrics over one question's ranked document ids and its graded judgements.

The definitions are the ones BEIR reports through trec_eval: nDCG with linear gain
(``grade / log2(rank + 1)``) normalised by the ideal ordering of the judged grades, recall as
the share of relevant documents (grade above zero) in the first ``k``, and reciprocal rank of
the first relevant document within ``k``. Repeated ids in a ranking count once, at their first
position.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from gezel_knowledge.errors import InvalidInput

__all__ = ["mrr_at_k", "ndcg_at_k", "percentile", "recall_at_k"]


def _top(ranking: Sequence[str], k: int) -> list[str]:
    if k < 1:
        raise InvalidInput(f"k must be positive, not {k}", reason="invalid-argument")
    seen: set[str] = set()
    top: list[str] = []
    for doc in ranking:
        if doc not in seen:
            seen.add(doc)
            top.append(doc)
            if len(top) == k:
                break
    return top


def ndcg_at_k(ranking: Sequence[str], grades: Mapping[str, int], k: int) -> float:
    """Normalised discounted cumulative gain of the first ``k`` documents (0 with no relevant)."""
    top = _top(ranking, k)
    dcg = sum(max(grades.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(top))
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranking: Sequence[str], grades: Mapping[str, int], k: int) -> float:
    """Share of the relevant documents found in the first ``k`` (0 with no relevant)."""
    relevant = {d for d, g in grades.items() if g > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(_top(ranking, k))) / len(relevant)


def mrr_at_k(ranking: Sequence[str], grades: Mapping[str, int], k: int) -> float:
    """Reciprocal rank of the first relevant document within the first ``k``, else 0."""
    for i, doc in enumerate(_top(ranking, k)):
        if grades.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation between order statistics."""
    if not values:
        return math.nan
    if not 0 <= q <= 100:
        raise InvalidInput(f"percentile must be within 0-100, not {q}", reason="invalid-argument")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
