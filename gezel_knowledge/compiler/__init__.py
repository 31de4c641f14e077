"""The catalog compiler: Markdown trees and document lists to deterministic ``.gezk`` archives.

The catalog values a source and its metadata are made of (``Topic``, ``TocReference``,
``Location``, ``Publisher``, ``License``, ``SourceSnapshot``, ``SmokeQuery``) are the format
layer's (:mod:`gezk.toc`, :mod:`gezk.spatial`, :mod:`gezk.manifest`), re-exported here.

Names are imported on first use: ``keygen`` and ``sign`` need the signing module, not the
build pipeline with its schemas, chunker and outline recognisers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezel_knowledge.compiler.build import BuildResult as BuildResult
    from gezel_knowledge.compiler.build import compile_catalog as compile_catalog
    from gezel_knowledge.compiler.build import load_source as load_source
    from gezel_knowledge.compiler.catalog_init import CatalogDraft as CatalogDraft
    from gezel_knowledge.compiler.catalog_init import InitResult as InitResult
    from gezel_knowledge.compiler.catalog_init import draft_catalog_yaml as draft_catalog_yaml
    from gezel_knowledge.compiler.catalog_init import init_catalog as init_catalog
    from gezel_knowledge.compiler.errors import BuildWarning as BuildWarning
    from gezel_knowledge.compiler.errors import ChunkingDoesNotFit as ChunkingDoesNotFit
    from gezel_knowledge.compiler.errors import SourceError as SourceError
    from gezel_knowledge.compiler.errors import WarningsAsErrors as WarningsAsErrors
    from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogIdentity as CatalogIdentity
    from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogMetadata as CatalogMetadata
    from gezel_knowledge.compiler.metadata.catalog_yaml import MetadataError as MetadataError
    from gezel_knowledge.compiler.metadata.catalog_yaml import MetadataProblem as MetadataProblem
    from gezel_knowledge.compiler.metadata.catalog_yaml import TopicDeclaration as TopicDeclaration
    from gezel_knowledge.compiler.metadata.catalog_yaml import (
        load_catalog_yaml as load_catalog_yaml,
    )
    from gezel_knowledge.compiler.metadata.overrides import MetadataOverrides as MetadataOverrides
    from gezel_knowledge.compiler.options import DEFAULT_SHARD_MAX as DEFAULT_SHARD_MAX
    from gezel_knowledge.compiler.options import DEFAULT_SHARD_TARGET as DEFAULT_SHARD_TARGET
    from gezel_knowledge.compiler.options import SHARD_FILLS as SHARD_FILLS
    from gezel_knowledge.compiler.options import BuildOptions as BuildOptions
    from gezel_knowledge.compiler.passes.sharding import ShardFill as ShardFill
    from gezel_knowledge.compiler.passes.vector_cache import default_cache_dir as default_cache_dir
    from gezel_knowledge.compiler.sources.parquet_document_list import (
        DocumentRowError as DocumentRowError,
    )
    from gezel_knowledge.compiler.sources.source import CatalogSource as CatalogSource
    from gezel_knowledge.compiler.sources.source import LinkBase as LinkBase
    from gezel_knowledge.compiler.sources.source import SourceAsset as SourceAsset
    from gezel_knowledge.compiler.sources.source import SourceDocument as SourceDocument
    from gezel_knowledge.compiler.writing.signing import KeyPair as KeyPair
    from gezel_knowledge.compiler.writing.signing import SignResult as SignResult
    from gezel_knowledge.compiler.writing.signing import generate_key_files as generate_key_files
    from gezel_knowledge.compiler.writing.signing import load_private_key as load_private_key
    from gezel_knowledge.compiler.writing.signing import sign_catalog as sign_catalog
    from gezk.manifest import License as License
    from gezk.manifest import Publisher as Publisher
    from gezk.manifest import SmokeQuery as SmokeQuery
    from gezk.manifest import SourceSnapshot as SourceSnapshot
    from gezk.spatial import Location as Location
    from gezk.toc import TocReference as TocReference
    from gezk.toc import Topic as Topic
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezel_knowledge.compiler.build": (
                "BuildResult",
                "compile_catalog",
                "load_source",
            ),
            "gezel_knowledge.compiler.catalog_init": (
                "CatalogDraft",
                "InitResult",
                "draft_catalog_yaml",
                "init_catalog",
            ),
            "gezel_knowledge.compiler.errors": (
                "BuildWarning",
                "ChunkingDoesNotFit",
                "SourceError",
                "WarningsAsErrors",
            ),
            "gezel_knowledge.compiler.metadata.catalog_yaml": (
                "CatalogIdentity",
                "CatalogMetadata",
                "MetadataError",
                "MetadataProblem",
                "TopicDeclaration",
                "load_catalog_yaml",
            ),
            "gezel_knowledge.compiler.sources.parquet_document_list": ("DocumentRowError",),
            "gezel_knowledge.compiler.metadata.overrides": ("MetadataOverrides",),
            "gezel_knowledge.compiler.options": (
                "BuildOptions",
                "DEFAULT_SHARD_MAX",
                "DEFAULT_SHARD_TARGET",
                "SHARD_FILLS",
            ),
            "gezel_knowledge.compiler.passes.sharding": ("ShardFill",),
            "gezel_knowledge.compiler.passes.vector_cache": ("default_cache_dir",),
            "gezel_knowledge.compiler.sources.source": (
                "CatalogSource",
                "LinkBase",
                "SourceAsset",
                "SourceDocument",
            ),
            "gezel_knowledge.compiler.writing.signing": (
                "KeyPair",
                "SignResult",
                "generate_key_files",
                "load_private_key",
                "sign_catalog",
            ),
            "gezk.manifest": (
                "License",
                "Publisher",
                "SmokeQuery",
                "SourceSnapshot",
            ),
            "gezk.spatial": ("Location",),
            "gezk.toc": (
                "TocReference",
                "Topic",
            ),
        },
    )
