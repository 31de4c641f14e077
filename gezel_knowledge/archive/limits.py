"""Sanity limits a reader enforces on untrusted catalogs (spec sections 3.3, 3.4 and 5.2).

The defaults are the reference limits of the specification. They are a value type so tests (and
cautious callers) can tighten them without writing gigabytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from gezel_knowledge.archive.assets import (
    MAX_ASSET_BYTES,
    MAX_ASSETS_PER_CATALOG,
    MAX_ASSETS_TOTAL_BYTES,
)
from gezk.spatial import MAX_DOCUMENT_LOCATIONS

__all__ = ["DEFAULT_LIMITS", "ArchiveLimits"]

_MIB = 1024 * 1024
_GIB = 1024 * _MIB


@dataclass(frozen=True, slots=True)
class ArchiveLimits:
    """Upper bounds checked before any byte of an archive is trusted."""

    max_entries: int = 16_384
    max_manifest_bytes: int = 16 * _MIB
    max_entry_bytes: int = 8 * _GIB
    max_total_bytes: int = 32 * _GIB
    max_compression_ratio: float = 400.0
    max_asset_bytes: int = MAX_ASSET_BYTES
    max_assets_total_bytes: int = MAX_ASSETS_TOTAL_BYTES
    max_asset_count: int = MAX_ASSETS_PER_CATALOG
    max_body_bytes: int = 16 * _MIB
    max_meta_json_bytes: int = 16 * 1024
    max_provenance_json_bytes: int = 16_384
    max_locations_per_document: int = MAX_DOCUMENT_LOCATIONS
    max_topic_depth: int = 16


DEFAULT_LIMITS = ArchiveLimits()
"""The reference limits of the specification."""
