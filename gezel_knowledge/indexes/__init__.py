"""Mutable local indexes: workspace content search and memory recall (SQLite FTS5 + sqlite-vec).

Both are derived caches of files (workspace files, daily memory files) and can be deleted and
rebuilt from them at any time. Both implement :class:`~gezel_knowledge.searchable.Searchable`:
their search returns a :class:`~gezel_knowledge.results.SearchResult` whose hits merge with
catalog hits through :func:`~gezel_knowledge.hits.merge_hits`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezel_knowledge.indexes._memory_format import MAX_MEMORY_BYTES as MAX_MEMORY_BYTES
    from gezel_knowledge.indexes._memory_format import MEMORY_KINDS as MEMORY_KINDS
    from gezel_knowledge.indexes._memory_format import MemoryEntry as MemoryEntry
    from gezel_knowledge.indexes._memory_format import MemoryKind as MemoryKind
    from gezel_knowledge.indexes._memory_format import check_memory_text as check_memory_text
    from gezel_knowledge.indexes._storage import SqliteBackend as SqliteBackend
    from gezel_knowledge.indexes._storage import sqlite_backend as sqlite_backend
    from gezel_knowledge.indexes.content import ContentIndex as ContentIndex
    from gezel_knowledge.indexes.content import ContentStatus as ContentStatus
    from gezel_knowledge.indexes.content import Describer as Describer
    from gezel_knowledge.indexes.content import EnrichmentReport as EnrichmentReport
    from gezel_knowledge.indexes.content import ImageEmbedder as ImageEmbedder
    from gezel_knowledge.indexes.content import IndexOptions as IndexOptions
    from gezel_knowledge.indexes.content import IndexReport as IndexReport
    from gezel_knowledge.indexes.content import StructuralReport as StructuralReport
    from gezel_knowledge.indexes.content import Summarizer as Summarizer
    from gezel_knowledge.indexes.content import Transcriber as Transcriber
    from gezel_knowledge.indexes.content import index_workspace as index_workspace
    from gezel_knowledge.indexes.content import search_workspace as search_workspace
    from gezel_knowledge.indexes.errors import (
        EmbedderDimensionMismatch as EmbedderDimensionMismatch,
    )
    from gezel_knowledge.indexes.errors import IndexSchemaUnsupported as IndexSchemaUnsupported
    from gezel_knowledge.indexes.errors import (
        SqliteExtensionUnavailable as SqliteExtensionUnavailable,
    )
    from gezel_knowledge.indexes.memory import STATUS_HALF_LIFE_DAYS as STATUS_HALF_LIFE_DAYS
    from gezel_knowledge.indexes.memory import MemoryIndex as MemoryIndex
    from gezel_knowledge.indexes.memory import MemorySyncReport as MemorySyncReport
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezel_knowledge.indexes._memory_format": (
                "MAX_MEMORY_BYTES",
                "MEMORY_KINDS",
                "MemoryEntry",
                "MemoryKind",
                "check_memory_text",
            ),
            "gezel_knowledge.indexes._storage": (
                "SqliteBackend",
                "sqlite_backend",
            ),
            "gezel_knowledge.indexes.content": (
                "ContentIndex",
                "ContentStatus",
                "Describer",
                "EnrichmentReport",
                "ImageEmbedder",
                "IndexOptions",
                "IndexReport",
                "StructuralReport",
                "Summarizer",
                "Transcriber",
                "index_workspace",
                "search_workspace",
            ),
            "gezel_knowledge.indexes.errors": (
                "EmbedderDimensionMismatch",
                "IndexSchemaUnsupported",
                "SqliteExtensionUnavailable",
            ),
            "gezel_knowledge.indexes.memory": (
                "MemoryIndex",
                "MemorySyncReport",
                "STATUS_HALF_LIFE_DAYS",
            ),
        },
    )
