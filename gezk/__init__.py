"""gezk: the .gezk knowledge-catalog format layer (spec 0.7; reads 0.5 and 0.6).

This package takes bytes, numpy arrays and already-open ``sqlite3.Connection`` objects; it never
opens files, sockets or models.

Names are imported on first use, so importing one module (``gezk.errors``, ``gezk.uri``) does
not pull in the JSON Schema validator, the signing library or numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezk.errors import GezkError as GezkError
    from gezk.errors import InvalidIdentifier as InvalidIdentifier
    from gezk.errors import InvalidLocation as InvalidLocation
    from gezk.errors import InvalidManifest as InvalidManifest
    from gezk.errors import InvalidProfile as InvalidProfile
    from gezk.errors import InvalidReference as InvalidReference
    from gezk.errors import QuantizationError as QuantizationError
    from gezk.errors import ReasonedError as ReasonedError
    from gezk.errors import SchemaViolation as SchemaViolation
    from gezk.errors import SignatureError as SignatureError
    from gezk.errors import UnsupportedVersion as UnsupportedVersion
    from gezk.ids import chunk_uid as chunk_uid
    from gezk.ids import content_hash as content_hash
    from gezk.ids import validate_catalog_id as validate_catalog_id
    from gezk.ids import validate_chunk_uid as validate_chunk_uid
    from gezk.ids import validate_document_id as validate_document_id
    from gezk.ids import validate_location_id as validate_location_id
    from gezk.ids import validate_publisher_id as validate_publisher_id
    from gezk.ids import validate_topic_id as validate_topic_id
    from gezk.ids import validate_version as validate_version
    from gezk.jcs import canonicalize as canonicalize
    from gezk.manifest import CatalogManifest as CatalogManifest
    from gezk.profiles import ChunkingProfile as ChunkingProfile
    from gezk.profiles import EmbeddingProfile as EmbeddingProfile
    from gezk.profiles import chunking_profile as chunking_profile
    from gezk.profiles import embedding_profile as embedding_profile
    from gezk.profiles import same_vector_space as same_vector_space
    from gezk.schemas import SchemaFinding as SchemaFinding
    from gezk.signing import TrustAnchors as TrustAnchors
    from gezk.signing import key_id as key_id
    from gezk.signing import sign_manifest as sign_manifest
    from gezk.signing import verify_manifest as verify_manifest
    from gezk.spatial import Location as Location
    from gezk.spatial import RadiusQuery as RadiusQuery
    from gezk.spatial import SpatialSummary as SpatialSummary
    from gezk.spatial import distance_meters as distance_meters
    from gezk.toc import TocReference as TocReference
    from gezk.toc import Topic as Topic
    from gezk.toc import TopicPlacement as TopicPlacement
    from gezk.uri import KnowledgeUri as KnowledgeUri
    from gezk.versions import SUPPORTED as SUPPORTED
    from gezk.versions import WRITTEN as WRITTEN
    from gezk.versions import Generation as Generation
    from gezk.versions import generation as generation
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezk.errors": (
                "GezkError",
                "InvalidIdentifier",
                "InvalidLocation",
                "InvalidManifest",
                "InvalidProfile",
                "InvalidReference",
                "QuantizationError",
                "ReasonedError",
                "SchemaViolation",
                "SignatureError",
                "UnsupportedVersion",
            ),
            "gezk.ids": (
                "chunk_uid",
                "content_hash",
                "validate_catalog_id",
                "validate_chunk_uid",
                "validate_document_id",
                "validate_location_id",
                "validate_publisher_id",
                "validate_topic_id",
                "validate_version",
            ),
            "gezk.jcs": ("canonicalize",),
            "gezk.manifest": ("CatalogManifest",),
            "gezk.profiles": (
                "ChunkingProfile",
                "EmbeddingProfile",
                "chunking_profile",
                "embedding_profile",
                "same_vector_space",
            ),
            "gezk.schemas": ("SchemaFinding",),
            "gezk.signing": (
                "TrustAnchors",
                "key_id",
                "sign_manifest",
                "verify_manifest",
            ),
            "gezk.spatial": (
                "Location",
                "RadiusQuery",
                "SpatialSummary",
                "distance_meters",
            ),
            "gezk.toc": (
                "TocReference",
                "Topic",
                "TopicPlacement",
            ),
            "gezk.uri": ("KnowledgeUri",),
            "gezk.versions": (
                "SUPPORTED",
                "WRITTEN",
                "Generation",
                "generation",
            ),
        },
    )
