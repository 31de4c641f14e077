"""The catalog compiler: Markdown trees and document lists to deterministic ``.gezk`` archives."""

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

__all__ = [
    "BuildResult",
    "BuildWarning",
    "CatalogMetadata",
    "CatalogSource",
    "Chunk",
    "ChunkingDoesNotFit",
    "DocumentLocation",
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
    "load_source",
    "unit_counter",
    "window_budget",
]
