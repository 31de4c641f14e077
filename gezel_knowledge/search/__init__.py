"""Search across the installed catalogs, across every source of a session, and the budgets of
proactive retrieval."""

from gezel_knowledge.search.all_sources import ALL_SOURCES, SourceName, search_all_sources
from gezel_knowledge.search.knowledge_search import EmbedderResolver, KnowledgeSearch
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
    "Depth",
    "EmbedderResolver",
    "Evidence",
    "KnowledgeSearch",
    "ProactiveBudget",
    "ProactiveSelection",
    "SourceName",
    "estimate_tokens",
    "search_all_sources",
    "select_proactive",
]
