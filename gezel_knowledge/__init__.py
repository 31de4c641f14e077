"""gezel-knowledge: Gezel's local knowledge system built on the ``gezk`` format layer.

The names below are the public API. Heavy parts (the compiler, the ONNX runtime, the indexes)
are imported on first use, so ``import gezel_knowledge`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezel_knowledge._version import __version__
from gezel_knowledge.errors import (
    Cancelled,
    IntegrityFailure,
    InvalidInput,
    KnowledgeError,
    ModelUnavailable,
    NotFound,
    Unsupported,
)
from gezel_knowledge.hits import Provenance, SearchHit, Signal, merge_hits
from gezel_knowledge.home import gezel_home
from gezel_knowledge.progress import ProgressEvent, ProgressSink
from gezk._lazy import lazy_exports

if TYPE_CHECKING:
    from gezel_knowledge.archive import extract_archive, inspect_archive
    from gezel_knowledge.compiler import BuildResult, CatalogMetadata, compile_catalog
    from gezel_knowledge.embedders import (
        Embedder,
        HashEmbedder,
        OnnxEmbedder,
        default_embedder,
        load_embedder,
        resolve_query_embedder,
    )
    from gezel_knowledge.export import export_parquet
    from gezel_knowledge.indexes import ContentIndex, MemoryIndex, index_workspace
    from gezel_knowledge.install import KnowledgeHome, install
    from gezel_knowledge.opening import open_catalog
    from gezel_knowledge.reader import Catalog
    from gezel_knowledge.results import SearchMode, SearchResult, SourceReport
    from gezel_knowledge.search import KnowledgeSearch
    from gezel_knowledge.searchable import Searchable
    from gezel_knowledge.validate import ValidationReport, validate_catalog

_LAZY: dict[str, str] = {
    "extract_archive": "gezel_knowledge.archive",
    "inspect_archive": "gezel_knowledge.archive",
    "BuildResult": "gezel_knowledge.compiler",
    "CatalogMetadata": "gezel_knowledge.compiler",
    "compile_catalog": "gezel_knowledge.compiler",
    "Embedder": "gezel_knowledge.embedders",
    "HashEmbedder": "gezel_knowledge.embedders",
    "OnnxEmbedder": "gezel_knowledge.embedders",
    "default_embedder": "gezel_knowledge.embedders",
    "load_embedder": "gezel_knowledge.embedders",
    "resolve_query_embedder": "gezel_knowledge.embedders",
    "export_parquet": "gezel_knowledge.export",
    "ContentIndex": "gezel_knowledge.indexes",
    "MemoryIndex": "gezel_knowledge.indexes",
    "index_workspace": "gezel_knowledge.indexes",
    "KnowledgeHome": "gezel_knowledge.install",
    "install": "gezel_knowledge.install",
    "Catalog": "gezel_knowledge.reader",
    "open_catalog": "gezel_knowledge.opening",
    "SearchMode": "gezel_knowledge.results",
    "SearchResult": "gezel_knowledge.results",
    "SourceReport": "gezel_knowledge.results",
    "KnowledgeSearch": "gezel_knowledge.search",
    "Searchable": "gezel_knowledge.searchable",
    "ValidationReport": "gezel_knowledge.validate",
    "validate_catalog": "gezel_knowledge.validate",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())

__all__ = [
    "BuildResult",
    "Cancelled",
    "Catalog",
    "CatalogMetadata",
    "ContentIndex",
    "Embedder",
    "HashEmbedder",
    "IntegrityFailure",
    "InvalidInput",
    "KnowledgeError",
    "KnowledgeHome",
    "KnowledgeSearch",
    "MemoryIndex",
    "ModelUnavailable",
    "NotFound",
    "OnnxEmbedder",
    "ProgressEvent",
    "ProgressSink",
    "Provenance",
    "SearchHit",
    "SearchMode",
    "SearchResult",
    "Searchable",
    "Signal",
    "SourceReport",
    "Unsupported",
    "ValidationReport",
    "__version__",
    "compile_catalog",
    "default_embedder",
    "export_parquet",
    "extract_archive",
    "gezel_home",
    "index_workspace",
    "inspect_archive",
    "install",
    "load_embedder",
    "merge_hits",
    "open_catalog",
    "resolve_query_embedder",
    "validate_catalog",
]
