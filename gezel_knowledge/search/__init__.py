"""Search across the installed catalogs, and the budgets of proactive retrieval."""

from gezel_knowledge.search.knowledge_search import (
    CatalogSearchStatus,
    EmbedderResolver,
    KnowledgeResults,
    KnowledgeSearch,
    SemanticState,
)
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
    "CatalogSearchStatus",
    "Depth",
    "EmbedderResolver",
    "Evidence",
    "KnowledgeResults",
    "KnowledgeSearch",
    "ProactiveBudget",
    "ProactiveSelection",
    "SemanticState",
    "estimate_tokens",
    "select_proactive",
]
