"""gezel-knowledge: Gezel's local knowledge system built on the ``gezk`` format layer."""

from __future__ import annotations

from gezel_knowledge.errors import (
    Cancelled,
    IntegrityFailure,
    InvalidInput,
    KnowledgeError,
    ModelUnavailable,
    NotFound,
    Unsupported,
)
from gezel_knowledge.hits import Provenance, SearchHit, Signal, merge_hits
from gezel_knowledge.progress import ProgressEvent, ProgressSink

__version__ = "0.1.0"

__all__ = [
    "Cancelled",
    "IntegrityFailure",
    "InvalidInput",
    "KnowledgeError",
    "ModelUnavailable",
    "NotFound",
    "ProgressEvent",
    "ProgressSink",
    "Provenance",
    "SearchHit",
    "Signal",
    "Unsupported",
    "__version__",
    "merge_hits",
]
