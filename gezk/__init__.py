"""gezk: the .gezk knowledge-catalog format layer (spec 0.7; reads 0.5 and 0.6).

This package takes bytes, numpy arrays and already-open ``sqlite3.Connection`` objects; it never
opens files, sockets or models.
"""

from __future__ import annotations

from gezk.ddl import (
    APPLICATION_ID,
    PAGE_SIZE,
    apply_pragmas,
    check_database,
    create_schema,
    database_ddl,
    read_meta,
    router_ddl,
    shard_ddl,
    write_meta,
)
from gezk.errors import (
    GezkError,
    InvalidIdentifier,
    InvalidLocation,
    InvalidProfile,
    InvalidReference,
    QuantizationError,
    SchemaViolation,
    SignatureError,
    UnsupportedVersion,
)
from gezk.ids import (
    chunk_uid,
    content_hash,
    sort_key_for_order,
    validate_catalog_id,
    validate_chunk_uid,
    validate_document_id,
    validate_location_id,
    validate_publisher_id,
    validate_topic_id,
    validate_version,
)
from gezk.jcs import canonicalize
from gezk.profiles import (
    ChunkingProfile,
    EmbeddingProfile,
    chunking_profile,
    embedding_profile,
    same_vector_space,
)
from gezk.signing import TrustAnchors, key_id, sign_manifest, verify_manifest
from gezk.spatial import Bounds, Location, RadiusQuery, coverage, distance_meters
from gezk.uri import KnowledgeUri
from gezk.versions import SUPPORTED, WRITTEN, Generation, generation

__all__ = [
    "APPLICATION_ID",
    "PAGE_SIZE",
    "SUPPORTED",
    "WRITTEN",
    "Bounds",
    "ChunkingProfile",
    "EmbeddingProfile",
    "Generation",
    "GezkError",
    "InvalidIdentifier",
    "InvalidLocation",
    "InvalidProfile",
    "InvalidReference",
    "KnowledgeUri",
    "Location",
    "QuantizationError",
    "RadiusQuery",
    "SchemaViolation",
    "SignatureError",
    "TrustAnchors",
    "UnsupportedVersion",
    "apply_pragmas",
    "canonicalize",
    "check_database",
    "chunk_uid",
    "chunking_profile",
    "content_hash",
    "coverage",
    "create_schema",
    "database_ddl",
    "distance_meters",
    "embedding_profile",
    "generation",
    "key_id",
    "read_meta",
    "router_ddl",
    "same_vector_space",
    "shard_ddl",
    "sign_manifest",
    "sort_key_for_order",
    "validate_catalog_id",
    "validate_chunk_uid",
    "validate_document_id",
    "validate_location_id",
    "validate_publisher_id",
    "validate_topic_id",
    "validate_version",
    "verify_manifest",
    "write_meta",
]
