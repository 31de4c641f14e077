"""Per-document fusion of a catalog's three ranked lists (seed "Hybrid ranking").

Vector passages, document title/summary/alias matches and chunk keyword matches are each turned
into a ranking of documents (a document's rank is where its first, best item appears) and fused
by :func:`gezel_knowledge.fusion.fuse` (by default :data:`~gezel_knowledge.fusion.DEFAULT_FUSION`,
``score``: each list's scores divided by its best, vector 0.7, every other list 0.3). A fused document keeps its best passage: the
best vector passage when it has one, else its best keyword passage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gezel_knowledge.fusion import (
    DEFAULT_FUSION,
    KEYWORD,
    TITLE,
    VECTOR,
    Fused,
    FusionPreset,
    Ranked,
    fuse,
)
from gezel_knowledge.reader._rows import ChunkRow

__all__ = ["RankedDocument", "RankedPassage", "fuse_documents"]


@dataclass(frozen=True, slots=True)
class RankedPassage:
    """A passage in a ranked list with that list's raw score (higher is better)."""

    row: ChunkRow
    score: float


@dataclass(frozen=True, slots=True)
class RankedDocument:
    """A document in the title/summary/alias list with its raw score (higher is better)."""

    document_id: str
    score: float


def _by_document(
    items: Sequence[RankedPassage] | Sequence[RankedDocument],
) -> list[Ranked[str, ChunkRow]]:
    """A document ranking: each document at its first (best) item, keeping that passage."""
    out: dict[str, Ranked[str, ChunkRow]] = {}
    for item in items:
        if isinstance(item, RankedPassage):
            out.setdefault(item.row.document_id, Ranked(item.row.document_id, item.score, item.row))
        else:
            out.setdefault(item.document_id, Ranked(item.document_id, item.score))
    return list(out.values())


def fuse_documents(
    lists: Mapping[str, Sequence[RankedPassage] | Sequence[RankedDocument]],
    preset: FusionPreset = DEFAULT_FUSION,
) -> list[Fused[str, ChunkRow]]:
    """Fuse the vector, title and keyword lists (each best first) into documents, best first.

    Lists are fused vector first, so a document's vector passage wins over its keyword passage.
    """
    ordered = {
        name: _by_document(lists[name]) for name in (VECTOR, TITLE, KEYWORD) if name in lists
    }
    return fuse(ordered, preset)
