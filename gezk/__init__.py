"""gezk: the .gezk knowledge-catalog format layer (spec 0.7; reads 0.5 and 0.6).

This package takes bytes, numpy arrays and already-open ``sqlite3.Connection`` objects; it never
opens files, sockets or models.

Names are imported on first use, so importing one module (``gezk.errors``, ``gezk.uri``) does
not pull in the JSON Schema validator, the signing library or numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
        ReasonedError,
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
    from gezk.quantize import (
        INT8_SCALE,
        PackedBits,
        QueryTables,
        Shortlist,
        dequantize_int8,
        hamming_distances,
        hamming_topk,
        lut_scores,
        lut_topk,
        pack_sign_bits,
        quantize_int8,
        rerank_int8,
        unpack_sign_bits,
    )
    from gezk.schemas import (
        SchemaFinding,
        load_schema,
        manifest_errors,
        validate_document,
        validate_manifest,
        validate_registry,
        validate_source_notices,
    )
    from gezk.signing import TrustAnchors, key_id, sign_manifest, verify_manifest
    from gezk.spatial import Bounds, Location, RadiusQuery, coverage, distance_meters
    from gezk.uri import KnowledgeUri
    from gezk.versions import SUPPORTED, WRITTEN, Generation, generation

_LAZY: dict[str, str] = {
    "APPLICATION_ID": "gezk.ddl",
    "PAGE_SIZE": "gezk.ddl",
    "apply_pragmas": "gezk.ddl",
    "check_database": "gezk.ddl",
    "create_schema": "gezk.ddl",
    "database_ddl": "gezk.ddl",
    "read_meta": "gezk.ddl",
    "router_ddl": "gezk.ddl",
    "shard_ddl": "gezk.ddl",
    "write_meta": "gezk.ddl",
    "GezkError": "gezk.errors",
    "InvalidIdentifier": "gezk.errors",
    "InvalidLocation": "gezk.errors",
    "InvalidProfile": "gezk.errors",
    "InvalidReference": "gezk.errors",
    "QuantizationError": "gezk.errors",
    "ReasonedError": "gezk.errors",
    "SchemaViolation": "gezk.errors",
    "SignatureError": "gezk.errors",
    "UnsupportedVersion": "gezk.errors",
    "chunk_uid": "gezk.ids",
    "content_hash": "gezk.ids",
    "sort_key_for_order": "gezk.ids",
    "validate_catalog_id": "gezk.ids",
    "validate_chunk_uid": "gezk.ids",
    "validate_document_id": "gezk.ids",
    "validate_location_id": "gezk.ids",
    "validate_publisher_id": "gezk.ids",
    "validate_topic_id": "gezk.ids",
    "validate_version": "gezk.ids",
    "canonicalize": "gezk.jcs",
    "ChunkingProfile": "gezk.profiles",
    "EmbeddingProfile": "gezk.profiles",
    "chunking_profile": "gezk.profiles",
    "embedding_profile": "gezk.profiles",
    "same_vector_space": "gezk.profiles",
    "INT8_SCALE": "gezk.quantize",
    "PackedBits": "gezk.quantize",
    "QueryTables": "gezk.quantize",
    "Shortlist": "gezk.quantize",
    "dequantize_int8": "gezk.quantize",
    "hamming_distances": "gezk.quantize",
    "hamming_topk": "gezk.quantize",
    "lut_scores": "gezk.quantize",
    "lut_topk": "gezk.quantize",
    "pack_sign_bits": "gezk.quantize",
    "quantize_int8": "gezk.quantize",
    "rerank_int8": "gezk.quantize",
    "unpack_sign_bits": "gezk.quantize",
    "SchemaFinding": "gezk.schemas",
    "load_schema": "gezk.schemas",
    "manifest_errors": "gezk.schemas",
    "validate_document": "gezk.schemas",
    "validate_manifest": "gezk.schemas",
    "validate_registry": "gezk.schemas",
    "validate_source_notices": "gezk.schemas",
    "TrustAnchors": "gezk.signing",
    "key_id": "gezk.signing",
    "sign_manifest": "gezk.signing",
    "verify_manifest": "gezk.signing",
    "Bounds": "gezk.spatial",
    "Location": "gezk.spatial",
    "RadiusQuery": "gezk.spatial",
    "coverage": "gezk.spatial",
    "distance_meters": "gezk.spatial",
    "KnowledgeUri": "gezk.uri",
    "Generation": "gezk.versions",
    "SUPPORTED": "gezk.versions",
    "WRITTEN": "gezk.versions",
    "generation": "gezk.versions",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gezk' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "APPLICATION_ID",
    "INT8_SCALE",
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
    "PackedBits",
    "QuantizationError",
    "QueryTables",
    "RadiusQuery",
    "ReasonedError",
    "SchemaFinding",
    "SchemaViolation",
    "Shortlist",
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
    "dequantize_int8",
    "distance_meters",
    "embedding_profile",
    "generation",
    "hamming_distances",
    "hamming_topk",
    "key_id",
    "load_schema",
    "lut_scores",
    "lut_topk",
    "manifest_errors",
    "pack_sign_bits",
    "quantize_int8",
    "read_meta",
    "rerank_int8",
    "router_ddl",
    "same_vector_space",
    "shard_ddl",
    "sign_manifest",
    "sort_key_for_order",
    "unpack_sign_bits",
    "validate_catalog_id",
    "validate_chunk_uid",
    "validate_document",
    "validate_document_id",
    "validate_location_id",
    "validate_manifest",
    "validate_publisher_id",
    "validate_registry",
    "validate_source_notices",
    "validate_topic_id",
    "validate_version",
    "verify_manifest",
    "write_meta",
]
