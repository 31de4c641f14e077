"""The catalog reader: open, browse, read and search an extracted ``.gezk`` catalog (spec 5, 8.4,
9, 11).

:func:`~gezel_knowledge.opening.open_catalog` (also ``gezel_knowledge.open_catalog``) opens a
``.gezk`` file by path: it verifies and extracts it, then opens it with :func:`open_extracted`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezel_knowledge.reader.catalog import Catalog as Catalog
    from gezel_knowledge.reader.catalog import ShardInfo as ShardInfo
    from gezel_knowledge.reader.floors import COSINE_FLOORS as COSINE_FLOORS
    from gezel_knowledge.reader.floors import PROACTIVE_COSINE_FLOORS as PROACTIVE_COSINE_FLOORS
    from gezel_knowledge.reader.floors import cosine_floor as cosine_floor
    from gezel_knowledge.reader.floors import proactive_floor as proactive_floor
    from gezel_knowledge.reader.models import Document as Document
    from gezel_knowledge.reader.models import DocumentPage as DocumentPage
    from gezel_knowledge.reader.models import DocumentSummary as DocumentSummary
    from gezel_knowledge.reader.models import NearbyPage as NearbyPage
    from gezel_knowledge.reader.models import NearbyResult as NearbyResult
    from gezel_knowledge.reader.models import Passage as Passage
    from gezel_knowledge.reader.models import PassageKind as PassageKind
    from gezel_knowledge.reader.models import Stage1 as Stage1
    from gezel_knowledge.reader.models import TopicListing as TopicListing
    from gezel_knowledge.reader.models import TopicSummary as TopicSummary
    from gezel_knowledge.reader.open import open_extracted as open_extracted
    from gezel_knowledge.reader.open import read_manifest as read_manifest
    from gezel_knowledge.reader.toc_order import TopicOrder as TopicOrder
    from gezel_knowledge.reader.vectors import DEFAULT_BIT_CACHE_BYTES as DEFAULT_BIT_CACHE_BYTES
    from gezel_knowledge.reader.vectors import DEFAULT_FINAL_K as DEFAULT_FINAL_K
    from gezel_knowledge.reader.vectors import EXPLICIT_SHARD_BUDGET as EXPLICIT_SHARD_BUDGET
    from gezel_knowledge.reader.vectors import PROACTIVE_SHARD_BUDGET as PROACTIVE_SHARD_BUDGET
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezel_knowledge.reader.catalog": (
                "Catalog",
                "ShardInfo",
            ),
            "gezel_knowledge.reader.floors": (
                "COSINE_FLOORS",
                "PROACTIVE_COSINE_FLOORS",
                "cosine_floor",
                "proactive_floor",
            ),
            "gezel_knowledge.reader.models": (
                "Document",
                "DocumentPage",
                "DocumentSummary",
                "NearbyPage",
                "NearbyResult",
                "Passage",
                "PassageKind",
                "Stage1",
                "TopicListing",
                "TopicSummary",
            ),
            "gezel_knowledge.reader.open": (
                "open_extracted",
                "read_manifest",
            ),
            "gezel_knowledge.reader.toc_order": ("TopicOrder",),
            "gezel_knowledge.reader.vectors": (
                "DEFAULT_BIT_CACHE_BYTES",
                "DEFAULT_FINAL_K",
                "EXPLICIT_SHARD_BUDGET",
                "PROACTIVE_SHARD_BUDGET",
            ),
        },
    )
