"""The catalog compiler: Markdown trees and document lists to deterministic ``.gezk`` archives.

The catalog values a source and its metadata are made of (``Topic``, ``TocReference``,
``Location``, ``Publisher``, ``License``, ``SourceSnapshot``, ``SmokeQuery``) are the format
layer's (:mod:`gezk.toc`, :mod:`gezk.spatial`, :mod:`gezk.manifest`), re-exported here.

Names are imported on first use: ``keygen`` and ``sign`` need the signing module, not the
build pipeline with its schemas, chunker and outline recognisers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_exports

if TYPE_CHECKING:
    from gezel_knowledge.compiler.build import BuildResult, compile_catalog, load_source
    from gezel_knowledge.compiler.catalog_init import (
        CatalogDraft,
        InitResult,
        draft_catalog_yaml,
        init_catalog,
    )
    from gezel_knowledge.compiler.chunking import Chunk, chunk_markdown, embed_header, unit_counter
    from gezel_knowledge.compiler.document_list import load_document_list
    from gezel_knowledge.compiler.errors import (
        BuildWarning,
        ChunkingDoesNotFit,
        SourceError,
        WarningsAsErrors,
    )
    from gezel_knowledge.compiler.markdown_tree import load_markdown_tree
    from gezel_knowledge.compiler.metadata import (
        CatalogIdentity,
        CatalogMetadata,
        MetadataError,
        MetadataProblem,
        TopicDeclaration,
        load_catalog_yaml,
    )
    from gezel_knowledge.compiler.parquet_document_list import (
        DocumentRowError,
        load_parquet_document_list,
    )
    from gezel_knowledge.compiler.request import MetadataOverrides, build_catalog
    from gezel_knowledge.compiler.source import (
        CatalogSource,
        LinkBase,
        SourceAsset,
        SourceDocument,
    )
    from gezel_knowledge.compiler.vector_cache import default_cache_dir
    from gezel_knowledge.compiler.window import WindowBudget, choose_chunking, window_budget
    from gezk.manifest import License, Publisher, SmokeQuery, SourceSnapshot
    from gezk.spatial import Location
    from gezk.toc import TocReference, Topic

_LAZY: dict[str, str] = {
    "BuildResult": "gezel_knowledge.compiler.build",
    "BuildWarning": "gezel_knowledge.compiler.errors",
    "CatalogDraft": "gezel_knowledge.compiler.catalog_init",
    "CatalogIdentity": "gezel_knowledge.compiler.metadata",
    "CatalogMetadata": "gezel_knowledge.compiler.metadata",
    "CatalogSource": "gezel_knowledge.compiler.source",
    "Chunk": "gezel_knowledge.compiler.chunking",
    "ChunkingDoesNotFit": "gezel_knowledge.compiler.errors",
    "DocumentRowError": "gezel_knowledge.compiler.parquet_document_list",
    "InitResult": "gezel_knowledge.compiler.catalog_init",
    "License": "gezk.manifest",
    "LinkBase": "gezel_knowledge.compiler.source",
    "MetadataError": "gezel_knowledge.compiler.metadata",
    "MetadataProblem": "gezel_knowledge.compiler.metadata",
    "MetadataOverrides": "gezel_knowledge.compiler.request",
    "Location": "gezk.spatial",
    "Publisher": "gezk.manifest",
    "SmokeQuery": "gezk.manifest",
    "SourceAsset": "gezel_knowledge.compiler.source",
    "SourceDocument": "gezel_knowledge.compiler.source",
    "SourceError": "gezel_knowledge.compiler.errors",
    "SourceSnapshot": "gezk.manifest",
    "TocReference": "gezk.toc",
    "Topic": "gezk.toc",
    "TopicDeclaration": "gezel_knowledge.compiler.metadata",
    "WarningsAsErrors": "gezel_knowledge.compiler.errors",
    "WindowBudget": "gezel_knowledge.compiler.window",
    "choose_chunking": "gezel_knowledge.compiler.window",
    "build_catalog": "gezel_knowledge.compiler.request",
    "chunk_markdown": "gezel_knowledge.compiler.chunking",
    "compile_catalog": "gezel_knowledge.compiler.build",
    "default_cache_dir": "gezel_knowledge.compiler.vector_cache",
    "draft_catalog_yaml": "gezel_knowledge.compiler.catalog_init",
    "embed_header": "gezel_knowledge.compiler.chunking",
    "init_catalog": "gezel_knowledge.compiler.catalog_init",
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
    "CatalogDraft",
    "CatalogIdentity",
    "CatalogMetadata",
    "CatalogSource",
    "Chunk",
    "ChunkingDoesNotFit",
    "DocumentRowError",
    "InitResult",
    "License",
    "LinkBase",
    "Location",
    "MetadataError",
    "MetadataOverrides",
    "MetadataProblem",
    "Publisher",
    "SmokeQuery",
    "SourceAsset",
    "SourceDocument",
    "SourceError",
    "SourceSnapshot",
    "TocReference",
    "Topic",
    "TopicDeclaration",
    "WarningsAsErrors",
    "WindowBudget",
    "build_catalog",
    "choose_chunking",
    "chunk_markdown",
    "compile_catalog",
    "default_cache_dir",
    "draft_catalog_yaml",
    "embed_header",
    "init_catalog",
    "load_catalog_yaml",
    "load_document_list",
    "load_markdown_tree",
    "load_parquet_document_list",
    "load_source",
    "unit_counter",
    "window_budget",
]
