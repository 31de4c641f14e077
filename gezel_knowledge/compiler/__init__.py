"""The catalog compiler: Markdown trees and document lists to deterministic ``.gezk`` archives.

Names are imported on first use: ``keygen`` and ``sign`` need the signing module, not the
build pipeline with its schemas, chunker and outline recognisers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_exports

if TYPE_CHECKING:
    from gezel_knowledge.compiler.build import BuildResult, compile_catalog, load_source
    from gezel_knowledge.compiler.chunking import Chunk, chunk_markdown, embed_header, unit_counter
    from gezel_knowledge.compiler.document_list import load_document_list
    from gezel_knowledge.compiler.errors import BuildWarning, ChunkingDoesNotFit, SourceError
    from gezel_knowledge.compiler.markdown_tree import load_markdown_tree
    from gezel_knowledge.compiler.metadata import (
        CatalogMetadata,
        LicenseInfo,
        PublisherInfo,
        SmokeQuery,
        SourceSnapshot,
        TopicDeclaration,
        load_catalog_yaml,
    )
    from gezel_knowledge.compiler.parquet_document_list import (
        DocumentRowError,
        load_parquet_document_list,
    )
    from gezel_knowledge.compiler.source import (
        CatalogSource,
        DocumentLocation,
        LinkBase,
        SourceAsset,
        SourceDocument,
        TocReference,
        Topic,
    )
    from gezel_knowledge.compiler.vector_cache import default_cache_dir
    from gezel_knowledge.compiler.window import WindowBudget, choose_chunking, window_budget

_LAZY: dict[str, str] = {
    "BuildResult": "gezel_knowledge.compiler.build",
    "BuildWarning": "gezel_knowledge.compiler.errors",
    "CatalogMetadata": "gezel_knowledge.compiler.metadata",
    "CatalogSource": "gezel_knowledge.compiler.source",
    "Chunk": "gezel_knowledge.compiler.chunking",
    "ChunkingDoesNotFit": "gezel_knowledge.compiler.errors",
    "DocumentRowError": "gezel_knowledge.compiler.parquet_document_list",
    "DocumentLocation": "gezel_knowledge.compiler.source",
    "LicenseInfo": "gezel_knowledge.compiler.metadata",
    "LinkBase": "gezel_knowledge.compiler.source",
    "PublisherInfo": "gezel_knowledge.compiler.metadata",
    "SmokeQuery": "gezel_knowledge.compiler.metadata",
    "SourceAsset": "gezel_knowledge.compiler.source",
    "SourceDocument": "gezel_knowledge.compiler.source",
    "SourceError": "gezel_knowledge.compiler.errors",
    "SourceSnapshot": "gezel_knowledge.compiler.metadata",
    "TocReference": "gezel_knowledge.compiler.source",
    "Topic": "gezel_knowledge.compiler.source",
    "TopicDeclaration": "gezel_knowledge.compiler.metadata",
    "WindowBudget": "gezel_knowledge.compiler.window",
    "choose_chunking": "gezel_knowledge.compiler.window",
    "chunk_markdown": "gezel_knowledge.compiler.chunking",
    "compile_catalog": "gezel_knowledge.compiler.build",
    "default_cache_dir": "gezel_knowledge.compiler.vector_cache",
    "embed_header": "gezel_knowledge.compiler.chunking",
    "load_catalog_yaml": "gezel_knowledge.compiler.metadata",
    "load_document_list": "gezel_knowledge.compiler.document_list",
    "load_markdown_tree": "gezel_knowledge.compiler.markdown_tree",
    "load_parquet_document_list": "gezel_knowledge.compiler.parquet_document_list",
    "load_source": "gezel_knowledge.compiler.build",
    "unit_counter": "gezel_knowledge.compiler.chunking",
    "window_budget": "gezel_knowledge.compiler.window",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())

__all__ = [
    "BuildResult",
    "BuildWarning",
    "CatalogMetadata",
    "CatalogSource",
    "Chunk",
    "ChunkingDoesNotFit",
    "DocumentLocation",
    "DocumentRowError",
    "LicenseInfo",
    "LinkBase",
    "PublisherInfo",
    "SmokeQuery",
    "SourceAsset",
    "SourceDocument",
    "SourceError",
    "SourceSnapshot",
    "TocReference",
    "Topic",
    "TopicDeclaration",
    "WindowBudget",
    "choose_chunking",
    "chunk_markdown",
    "compile_catalog",
    "default_cache_dir",
    "embed_header",
    "load_catalog_yaml",
    "load_document_list",
    "load_markdown_tree",
    "load_parquet_document_list",
    "load_source",
    "unit_counter",
    "window_budget",
]
