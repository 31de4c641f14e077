"""An optional reranking stage after rank fusion (seed "Hybrid ranking and selecting evidence":
"when an optional calibrated relevance model is available, it can further judge and rerank
candidates").

A :class:`Reranker` reads the query and each candidate hit (its title, passage text, heading
path) and returns one score per hit, higher meaning more relevant: a cross-encoder, a language
model judging relevance, or a rule. Every source applies it the same way, with
:func:`rerank_hits`: the best :func:`rerank_depth` fused hits are scored, reordered by score
(ties keep the fused order), cut to ``k``, renumbered, and each keeps its fused signals plus a
``rerank`` signal with its new 1-based rank and the reranker's score.

The library ships no reranking model: no package on the registries carries a cross-encoder's
weights, and nothing here downloads at run time. Any object with a matching ``score`` method
plugs in (see ``docs/search.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.fusion import relevance
from gezel_knowledge.hits import SearchHit, Signal
from gezel_knowledge.results import SearchResult

__all__ = [
    "RERANK",
    "RERANK_DEPTH",
    "Reranker",
    "rerank_depth",
    "rerank_hits",
    "rerank_result",
]

RERANK = "rerank"
"""The signal a reranked hit carries: its rank after reranking and the reranker's score."""

RERANK_DEPTH = 50
"""Fused hits a reranker sees when fewer are asked for: it can lift a hit from below ``k``."""


@runtime_checkable
class Reranker(Protocol):
    """Judges how well each candidate hit answers the query."""

    def score(self, query: str, hits: Sequence[SearchHit]) -> Sequence[float]:
        """One finite score per hit, in the hits' order; higher is more relevant."""
        ...


def rerank_depth(k: int, reranker: Reranker | None) -> int:
    """How many fused hits to build for a search of ``k``: ``k``, or the reranker's pool."""
    return k if reranker is None else max(k, RERANK_DEPTH)


def rerank_hits(
    reranker: Reranker, query: str, hits: Sequence[SearchHit], k: int
) -> tuple[SearchHit, ...]:
    """``hits`` (fused, best first) reordered by ``reranker``, the best ``k``, renumbered."""
    if not hits:
        return ()
    scores = [float(s) for s in reranker.score(query, hits)]
    if len(scores) != len(hits) or not all(math.isfinite(s) for s in scores):
        raise InvalidInput(
            f"the reranker returned {len(scores)} scores for {len(hits)} hits, or a score that "
            "is not a finite number",
            reason="invalid-rerank-scores",
        )
    order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))[:k]
    return tuple(
        replace(
            hits[i],
            rank=rank,
            relevance=relevance(rank),
            signals=(*hits[i].signals, Signal(RERANK, rank + 1, scores[i])),
        )
        for rank, i in enumerate(order)
    )


def rerank_result(reranker: Reranker | None, result: SearchResult, k: int) -> SearchResult:
    """``result`` with its hits reranked and cut to ``k`` (as it is without a reranker)."""
    if reranker is None:
        return result
    hits = rerank_hits(reranker, result.query, result.hits, k)
    sources = tuple(
        replace(r, hits=sum(1 for h in hits if h.source == r.source)) for r in result.sources
    )
    return replace(result, hits=hits, sources=sources)
