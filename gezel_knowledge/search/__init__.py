"""Search across the installed catalogs, across every source of a session, and the budgets of
proactive retrieval.

Names are imported on first use: searching the installed catalogs (``find``) does not load the
workspace and memory indexes that :func:`search_all_sources` also consults.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezel_knowledge.search.all_sources import ALL_SOURCES as ALL_SOURCES
    from gezel_knowledge.search.all_sources import SourceName as SourceName
    from gezel_knowledge.search.all_sources import search_all_sources as search_all_sources
    from gezel_knowledge.search.knowledge_search import EmbedderResolver as EmbedderResolver
    from gezel_knowledge.search.knowledge_search import KnowledgeSearch as KnowledgeSearch
    from gezel_knowledge.search.knowledge_search import ServedCatalog as ServedCatalog
    from gezel_knowledge.search.named import NamedCatalog as NamedCatalog
    from gezel_knowledge.search.named import open_named as open_named
    from gezel_knowledge.search.named import pick_catalog as pick_catalog
    from gezel_knowledge.search.named import resolve_catalog as resolve_catalog
    from gezel_knowledge.search.proactive import PROACTIVE_BUDGETS as PROACTIVE_BUDGETS
    from gezel_knowledge.search.proactive import Depth as Depth
    from gezel_knowledge.search.proactive import Evidence as Evidence
    from gezel_knowledge.search.proactive import ProactiveBudget as ProactiveBudget
    from gezel_knowledge.search.proactive import ProactiveSelection as ProactiveSelection
    from gezel_knowledge.search.proactive import estimate_tokens as estimate_tokens
    from gezel_knowledge.search.proactive import select_proactive as select_proactive
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezel_knowledge.search.all_sources": (
                "ALL_SOURCES",
                "SourceName",
                "search_all_sources",
            ),
            "gezel_knowledge.search.knowledge_search": (
                "EmbedderResolver",
                "KnowledgeSearch",
                "ServedCatalog",
            ),
            "gezel_knowledge.search.named": (
                "NamedCatalog",
                "open_named",
                "pick_catalog",
                "resolve_catalog",
            ),
            "gezel_knowledge.search.proactive": (
                "PROACTIVE_BUDGETS",
                "Depth",
                "Evidence",
                "ProactiveBudget",
                "ProactiveSelection",
                "estimate_tokens",
                "select_proactive",
            ),
        },
    )
