"""Search across the installed catalogs, and the budgets of proactive retrieval."""

from gezel_knowledge.search.proactive import (
    PROACTIVE_BUDGETS,
    Depth,
    Evidence,
    ProactiveBudget,
    ProactiveSelection,
    estimate_tokens,
    select_proactive,
)

__all__ = [
    "PROACTIVE_BUDGETS",
    "Depth",
    "Evidence",
    "ProactiveBudget",
    "ProactiveSelection",
    "estimate_tokens",
    "select_proactive",
]
