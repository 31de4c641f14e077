"""gezk: the .gezk knowledge-catalog format layer (spec 0.7; reads 0.5 and 0.6).

This package takes bytes, numpy arrays and already-open ``sqlite3.Connection`` objects; it never
opens files, sockets or models.
"""

from __future__ import annotations

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
    "chunking_profile",
    "embedding_profile",
    "generation",
    "same_vector_space",
]
