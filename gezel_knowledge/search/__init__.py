"""Search across the installed catalogs, across every source of a session, and the budgets of
proactive retrieval."""

from gezel_knowledge.search.all_sources import (
    ALL_SOURCES,
    SourceName,
    SourceOutcome,
    SourcesResults,
    SourceStatus,
    search_all_sources,
)
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
    "ALL_SOURCES",
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
    "SourceName",
    "SourceOutcome",
    "SourceStatus",
    "SourcesResults",
    "estimate_tokens",
    "search_all_sources",
    "select_proactive",
]
