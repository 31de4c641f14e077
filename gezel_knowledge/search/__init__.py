"""Search across the installed catalogs, across every source of a session, and the budgets of
proactive retrieval.

Names are imported on first use: searching the installed catalogs (``find``) does not load the
workspace and memory indexes that :func:`search_all_sources` also consults.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_exports

if TYPE_CHECKING:
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

_LAZY: dict[str, str] = {
    "ALL_SOURCES": "gezel_knowledge.search.all_sources",
    "SourceName": "gezel_knowledge.search.all_sources",
    "search_all_sources": "gezel_knowledge.search.all_sources",
    "EmbedderResolver": "gezel_knowledge.search.knowledge_search",
    "KnowledgeSearch": "gezel_knowledge.search.knowledge_search",
    "PROACTIVE_BUDGETS": "gezel_knowledge.search.proactive",
    "Depth": "gezel_knowledge.search.proactive",
    "Evidence": "gezel_knowledge.search.proactive",
    "ProactiveBudget": "gezel_knowledge.search.proactive",
    "ProactiveSelection": "gezel_knowledge.search.proactive",
    "estimate_tokens": "gezel_knowledge.search.proactive",
    "select_proactive": "gezel_knowledge.search.proactive",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())

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
