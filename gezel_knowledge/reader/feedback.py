"""Pseudo-relevance feedback in hybrid search: the vector list re-scored by a query moved
towards the first fused documents (Rocchio's update), over the passages already gathered.

The first fusion's best documents are taken as relevant; the mean of their kept passages'
vectors, mixed with the question's, scores every passage of the vector list again (the
passages the vector list found and the keyword-found documents it was completed with), and the
lists are fused a second time. No shard is scanned again: the pool is the first search's, so
the cost is one read of the pool's int8 vectors and one matrix product (docs/quality.md, sixth
round).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.fusion import Fused
from gezel_knowledge.reader._rows import ChunkRow
from gezel_knowledge.reader.hybrid import RankedPassage

__all__ = ["feedback_query", "rescored"]

PassageKey = tuple[int, int]
"""A passage's (shard id, chunk id)."""


def _key(row: ChunkRow) -> PassageKey:
    return (row.shard_id, row.chunk_id)


def feedback_query(
    query: NDArray[np.float32],
    fused: Sequence[Fused[str, ChunkRow]],
    vectors: Mapping[PassageKey, NDArray[np.float64]],
    documents: int,
    share: float,
) -> NDArray[np.float64] | None:
    """``(1 - share) * query + share * mean`` of the vectors of the kept passages of the first
    ``documents`` fused documents; ``None`` when none of them has a vector in ``vectors``."""
    kept = [f.item for f in fused[:documents] if f.item is not None]
    found = [vectors[_key(row)] for row in kept if _key(row) in vectors]
    if not found:
        return None
    centre: NDArray[np.float64] = np.mean(np.stack(found), axis=0)
    moved: NDArray[np.float64] = (1.0 - share) * query.astype(np.float64) + share * centre
    return moved


def rescored(
    passages: Sequence[RankedPassage],
    vectors: Mapping[PassageKey, NDArray[np.float64]],
    query: NDArray[np.float64],
) -> list[RankedPassage]:
    """``passages`` scored against ``query`` (a passage without a vector keeps its score), best
    first; equal scores keep the list's order."""
    out = [
        RankedPassage(p.row, float(vectors[_key(p.row)] @ query)) if _key(p.row) in vectors else p
        for p in passages
    ]
    out.sort(key=lambda p: -p.score)
    return out
