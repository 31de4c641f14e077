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
from gezk.profiles import (
    ChunkingProfile,
    EmbeddingProfile,
    chunking_profile,
    embedding_profile,
    same_vector_space,
)
from gezk.versions import SUPPORTED, WRITTEN, Generation, generation

__all__ = [
    "APPLICATION_ID",
    "PAGE_SIZE",
    "SUPPORTED",
    "WRITTEN",
    "ChunkingProfile",
    "EmbeddingProfile",
    "Generation",
    "GezkError",
    "InvalidIdentifier",
    "InvalidLocation",
    "InvalidProfile",
    "InvalidReference",
    "QuantizationError",
    "SchemaViolation",
    "SignatureError",
    "UnsupportedVersion",
    "apply_pragmas",
    "check_database",
    "chunking_profile",
    "create_schema",
    "database_ddl",
    "embedding_profile",
    "generation",
    "read_meta",
    "router_ddl",
    "same_vector_space",
    "shard_ddl",
    "write_meta",
]
