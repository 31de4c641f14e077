"""The catalog reader: open, browse, read and search an extracted ``.gezk`` catalog (spec 5, 8.4,
9, 11).

:func:`~gezel_knowledge.opening.open_catalog` (also ``gezel_knowledge.open_catalog``) opens a
``.gezk`` file by path: it verifies and extracts it, then opens it with :func:`open_extracted`.
"""

from __future__ import annotations

from gezel_knowledge.reader.catalog import Catalog, ShardInfo
from gezel_knowledge.reader.floors import (
    COSINE_FLOORS,
    PROACTIVE_COSINE_FLOORS,
    cosine_floor,
    proactive_floor,
)
from gezel_knowledge.reader.models import (
    Document,
    DocumentPage,
    DocumentSummary,
    NearbyPage,
    NearbyResult,
    Passage,
    PassageKind,
    Stage1,
    TopicListing,
    TopicSummary,
)
from gezel_knowledge.reader.open import open_extracted, read_manifest
from gezel_knowledge.reader.vectors import (
    DEFAULT_BIT_CACHE_BYTES,
    DEFAULT_FINAL_K,
    EXPLICIT_SHARD_BUDGET,
    PROACTIVE_SHARD_BUDGET,
    candidate_count,
)
from gezel_knowledge.results import SearchMode, SearchResult

__all__ = [
    "COSINE_FLOORS",
    "DEFAULT_BIT_CACHE_BYTES",
    "DEFAULT_FINAL_K",
    "EXPLICIT_SHARD_BUDGET",
    "PROACTIVE_COSINE_FLOORS",
    "PROACTIVE_SHARD_BUDGET",
    "Catalog",
    "Document",
    "DocumentPage",
    "DocumentSummary",
    "NearbyPage",
    "NearbyResult",
    "Passage",
    "PassageKind",
    "SearchMode",
    "SearchResult",
    "ShardInfo",
    "Stage1",
    "TopicListing",
    "TopicSummary",
    "candidate_count",
    "cosine_floor",
    "open_extracted",
    "proactive_floor",
    "read_manifest",
]
