"""What an evaluation returns: per-mode scores, latency, routing, and the baselines."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from gezel_knowledge.errors import NotFound
from gezel_knowledge.evaluate.baselines import DenseCheck

__all__ = ["EvalReport", "Kernels", "Latency", "ModeReport", "RoutingReport", "Scores"]

Kernels = Literal["compiled", "numpy"]
"""The stage-1 kernels hot shards ran: numba-compiled, or gezk's numpy reference."""


@dataclass(frozen=True, slots=True)
class Scores:
    """Mean ranking metrics over the evaluated questions."""

    ndcg_at_10: float
    recall_at_10: float
    recall_at_100: float
    mrr_at_10: float


@dataclass(frozen=True, slots=True)
class Latency:
    """Per-query time of one search call: wall clock and process CPU, in milliseconds, once
    every shard is hot."""

    p50_ms: float
    p95_ms: float
    cpu_p50_ms: float
    cpu_p95_ms: float
    kernels: Kernels | None = None
    """The stage-1 kernels the timed searches ran; ``None`` when no vectors were searched."""


@dataclass(frozen=True, slots=True)
class RoutingReport:
    """Routed search against a scan of every shard, for the same mode and questions.

    ``overlap_at_10`` and ``overlap_at_100`` are the mean share of the every-shard top ``k``
    documents that the routed search also returned in its top ``k``.
    """

    shards: int
    budget: int
    every_shard: Scores
    overlap_at_10: float
    overlap_at_100: float


@dataclass(frozen=True, slots=True)
class ModeReport:
    """One ranking's results: a search mode of the catalog, or a baseline."""

    name: str
    kind: Literal["mode", "baseline"]
    scores: Scores
    mean_documents: float
    """Documents returned per question (up to ``k`` were asked for)."""
    short_queries: int
    """Questions that got fewer than ``k`` documents (or than the catalog holds, if fewer)."""
    latency: Latency | None = None
    routing: RoutingReport | None = None
    note: str | None = None
    per_query: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    """Each question's nDCG@10, by question id: what ``eval --compare`` tests pairwise."""


@dataclass(frozen=True, slots=True)
class EvalReport:
    """An evaluation of one catalog against judged questions."""

    catalog: str
    profile: str
    documents: int
    passages: int
    shards: int
    shard_budget: int
    queries: int
    k: int
    judged_missing: int
    """Documents judged relevant that the catalog does not hold (wrong ids, another corpus)."""
    results: tuple[ModeReport, ...]
    split: str | None = None
    catalog_path: str | None = None
    cached: bool | None = None
    dense_check: DenseCheck | None = None
    default_fusion: str | None = None
    """The fusion preset plain ``hybrid`` ran with (the catalogs' default)."""

    def result(self, name: str) -> ModeReport:
        """The result of the named mode or baseline."""
        for r in self.results:
            if r.name == name:
                return r
        raise NotFound(f"the report has no result {name!r}", reason="mode-not-found", subject=name)
