"""gezel-knowledge: Gezel's local knowledge system built on the ``gezk`` format layer.

The names below are the public API. Heavy parts (the compiler, the ONNX runtime, the indexes)
are imported on first use, so ``import gezel_knowledge`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezel_knowledge._version import __version__ as __version__
    from gezel_knowledge.archive import inspect_archive as inspect_archive
    from gezel_knowledge.compiler import BuildOptions as BuildOptions
    from gezel_knowledge.compiler import BuildResult as BuildResult
    from gezel_knowledge.compiler import CatalogMetadata as CatalogMetadata
    from gezel_knowledge.compiler import compile_catalog as compile_catalog
    from gezel_knowledge.embedders import Embedder as Embedder
    from gezel_knowledge.embedders import HashEmbedder as HashEmbedder
    from gezel_knowledge.embedders import default_embedder as default_embedder
    from gezel_knowledge.embedders import load_embedder as load_embedder
    from gezel_knowledge.errors import Cancelled as Cancelled
    from gezel_knowledge.errors import IntegrityFailure as IntegrityFailure
    from gezel_knowledge.errors import InvalidInput as InvalidInput
    from gezel_knowledge.errors import KnowledgeError as KnowledgeError
    from gezel_knowledge.errors import ModelUnavailable as ModelUnavailable
    from gezel_knowledge.errors import NotFound as NotFound
    from gezel_knowledge.errors import Unsupported as Unsupported
    from gezel_knowledge.export import export_parquet as export_parquet
    from gezel_knowledge.hits import Provenance as Provenance
    from gezel_knowledge.hits import SearchHit as SearchHit
    from gezel_knowledge.hits import Signal as Signal
    from gezel_knowledge.indexes import ContentIndex as ContentIndex
    from gezel_knowledge.indexes import MemoryIndex as MemoryIndex
    from gezel_knowledge.indexes import index_workspace as index_workspace
    from gezel_knowledge.install import KnowledgeHome as KnowledgeHome
    from gezel_knowledge.install import install_catalog as install_catalog
    from gezel_knowledge.opening import open_catalog as open_catalog
    from gezel_knowledge.progress import ProgressEvent as ProgressEvent
    from gezel_knowledge.progress import ProgressSink as ProgressSink
    from gezel_knowledge.reader import Catalog as Catalog
    from gezel_knowledge.results import SearchMode as SearchMode
    from gezel_knowledge.results import SearchResult as SearchResult
    from gezel_knowledge.results import SourceReport as SourceReport
    from gezel_knowledge.search import KnowledgeSearch as KnowledgeSearch
    from gezel_knowledge.searchable import Searchable as Searchable
    from gezel_knowledge.validate import ValidationReport as ValidationReport
    from gezel_knowledge.validate import validate_catalog as validate_catalog
    from gezk.errors import ReasonedError as ReasonedError
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezel_knowledge._version": ("__version__",),
            "gezel_knowledge.archive": ("inspect_archive",),
            "gezel_knowledge.compiler": (
                "BuildOptions",
                "BuildResult",
                "CatalogMetadata",
                "compile_catalog",
            ),
            "gezel_knowledge.embedders": (
                "Embedder",
                "HashEmbedder",
                "default_embedder",
                "load_embedder",
            ),
            "gezel_knowledge.errors": (
                "Cancelled",
                "IntegrityFailure",
                "InvalidInput",
                "KnowledgeError",
                "ModelUnavailable",
                "NotFound",
                "Unsupported",
            ),
            "gezel_knowledge.export": ("export_parquet",),
            "gezel_knowledge.hits": (
                "Provenance",
                "SearchHit",
                "Signal",
            ),
            "gezel_knowledge.indexes": (
                "ContentIndex",
                "MemoryIndex",
                "index_workspace",
            ),
            "gezel_knowledge.install": (
                "KnowledgeHome",
                "install_catalog",
            ),
            "gezel_knowledge.opening": ("open_catalog",),
            "gezel_knowledge.progress": (
                "ProgressEvent",
                "ProgressSink",
            ),
            "gezel_knowledge.reader": ("Catalog",),
            "gezel_knowledge.results": (
                "SearchMode",
                "SearchResult",
                "SourceReport",
            ),
            "gezel_knowledge.search": ("KnowledgeSearch",),
            "gezel_knowledge.searchable": ("Searchable",),
            "gezel_knowledge.validate": (
                "ValidationReport",
                "validate_catalog",
            ),
            "gezk.errors": ("ReasonedError",),
        },
    )
