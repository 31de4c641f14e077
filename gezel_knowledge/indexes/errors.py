"""Typed errors of the mutable indexes, each naming what the caller can do about it."""

from __future__ import annotations

from gezel_knowledge.errors import KnowledgeError, Unsupported

__all__ = ["EmbedderDimensionMismatch", "IndexSchemaUnsupported", "SqliteExtensionUnavailable"]


class SqliteExtensionUnavailable(KnowledgeError):
    """No available SQLite binding can load the sqlite-vec extension (install one that can)."""

    default_reason = "sqlite-extension-unavailable"
    category = "unavailable"


class EmbedderDimensionMismatch(KnowledgeError, ValueError):
    """The embedder's dimensions differ from the index's vector table and
    ``GEZEL_EMBED_DIM`` does not confirm the change."""

    default_reason = "embed-dimension-mismatch"
    category = "input"


class IndexSchemaUnsupported(Unsupported):
    """The index database was written by a newer version of this library."""

    default_reason = "index-schema-unsupported"
