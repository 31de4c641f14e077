"""Mutable local indexes: workspace content search and memory recall (SQLite FTS5 + sqlite-vec).

Both are derived caches of files (workspace files, daily memory files) and can be deleted and
rebuilt from them at any time. Both implement :class:`~gezel_knowledge.searchable.Searchable`:
their search returns a :class:`~gezel_knowledge.results.SearchResult` whose hits merge with
catalog hits through :func:`~gezel_knowledge.hits.merge_hits`.
"""

from gezel_knowledge.indexes._chunker import WORKSPACE_CHUNKER, WorkspaceChunk, chunk_text
from gezel_knowledge.indexes._home import content_db_path, gezel_home, memory_db_path, memory_dir
from gezel_knowledge.indexes._memory_format import MEMORY_KINDS, MemoryEntry, MemoryKind
from gezel_knowledge.indexes._storage import SqliteBackend, connect, sqlite_backend
from gezel_knowledge.indexes._symbols import Symbol
from gezel_knowledge.indexes.content import (
    ContentIndex,
    ContentStatus,
    Describer,
    EnrichmentReport,
    ImageEmbedder,
    IndexOptions,
    IndexReport,
    StructuralReport,
    Summarizer,
    Transcriber,
    index_workspace,
    search_workspace,
)
from gezel_knowledge.indexes.errors import (
    EmbedderDimensionMismatch,
    IndexSchemaUnsupported,
    SqliteExtensionUnavailable,
)
from gezel_knowledge.indexes.memory import (
    STATUS_HALF_LIFE_DAYS,
    MemoryIndex,
    MemorySyncReport,
    decay_weight,
)

__all__ = [
    "MEMORY_KINDS",
    "STATUS_HALF_LIFE_DAYS",
    "WORKSPACE_CHUNKER",
    "ContentIndex",
    "ContentStatus",
    "Describer",
    "EmbedderDimensionMismatch",
    "EnrichmentReport",
    "ImageEmbedder",
    "IndexOptions",
    "IndexReport",
    "IndexSchemaUnsupported",
    "MemoryEntry",
    "MemoryIndex",
    "MemoryKind",
    "MemorySyncReport",
    "SqliteBackend",
    "SqliteExtensionUnavailable",
    "StructuralReport",
    "Summarizer",
    "Symbol",
    "Transcriber",
    "WorkspaceChunk",
    "chunk_text",
    "connect",
    "content_db_path",
    "decay_weight",
    "gezel_home",
    "index_workspace",
    "memory_db_path",
    "memory_dir",
    "search_workspace",
    "sqlite_backend",
]
