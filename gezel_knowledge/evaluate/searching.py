"""The one place the evaluation harness calls catalog search.

The search API is the reader's; everything the harness needs from a search call (ranked
document ids, whether semantic search ran, which shards were scanned) passes through
:func:`search_documents`, so a change of that API changes only this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from gezel_knowledge.errors import InvalidInput, ModelUnavailable
from gezel_knowledge.fusion import FusionPreset
from gezel_knowledge.reader import EXPLICIT_SHARD_BUDGET, Catalog
from gezel_knowledge.results import SEARCH_MODES, SearchMode

__all__ = ["HYBRID", "MODES", "ROUTING_BUDGET", "Retrieved", "search_documents"]

MODES: tuple[str, ...] = SEARCH_MODES
"""Every search mode the catalog offers."""

ROUTING_BUDGET = EXPLICIT_SHARD_BUDGET
"""The shard budget an explicit search routes within."""

HYBRID = "hybrid"
"""The mode that fuses lists, and so the one a fusion preset changes."""

SEMANTIC_MODES = frozenset(m for m in MODES if m != "keyword")
"""Modes that use query vectors (and so routing)."""


@dataclass(frozen=True, slots=True)
class Retrieved:
    """One search's ranked document ids, and why vectors did not contribute if they did not."""

    documents: tuple[str, ...]
    semantic_unavailable: str | None = None


def search_documents(
    catalog: Catalog,
    query: str,
    *,
    mode: str,
    k: int,
    every_shard: bool = False,
    fusion: FusionPreset | None = None,
) -> Retrieved:
    """Search ``catalog`` as a user would and return up to ``k`` document ids, best first.

    ``every_shard`` scans every shard instead of routing within the explicit-search budget;
    ``fusion`` replaces the catalog's default fusion preset.
    """
    if mode not in MODES:
        raise InvalidInput(f"unknown search mode {mode!r}", reason="invalid-mode")
    budget = max(len(catalog.shards), ROUTING_BUDGET) if every_shard else ROUTING_BUDGET
    try:
        result = catalog.search(
            query, mode=cast(SearchMode, mode), k=k, shard_budget=budget, fusion=fusion
        )
    except ModelUnavailable as exc:
        # Vector mode without the catalog's query embedder: a judged miss with its reason,
        # as hybrid mode's keyword-only fallback is.
        return Retrieved((), exc.message)
    unavailable = result.semantic_unavailable if mode in SEMANTIC_MODES else None
    return Retrieved(tuple(hit.document_id for hit in result.hits), unavailable)
