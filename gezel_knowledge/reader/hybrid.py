"""Per-document fusion of a catalog's ranked lists (seed "Hybrid ranking").

Vector passages, document title/summary/alias matches and chunk keyword matches are each turned
into a ranking of documents (a document's rank is where its first, best item appears) and fused
by :func:`gezel_knowledge.fusion.fuse` (by default :data:`~gezel_knowledge.fusion.DEFAULT_FUSION`,
``rrf10``: ``k = 10``, every list weighing 1). A fourth list, documents whose title the query
names (:mod:`gezel_knowledge.reader._titles`), weighs :data:`NAMED_SHARE` of the title list's
weight in any preset. A fused document keeps its best passage: the best vector passage when it
has one, else its best keyword passage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

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

__all__ = ["NAMED", "NAMED_SHARE", "RankedDocument", "RankedPassage", "fuse_documents"]

NAMED = "named-title"
"""The ranked list of documents whose title the query names (raw score: negated BM25)."""

NAMED_SHARE = 0.25
"""The weight of the named-title list, as a share of the title list's weight.

A title the question names is a hint, not a verdict: a one-word title ("Options",
"Responses") is named by many questions it does not answer. At a quarter of the title list's
weight it settles the documents the passage lists leave tied or a rank apart, and cannot
outvote a document that both passage lists put first. On the 25 trees of
``benchmarks/realdocs.py``, a half let generic titles win eight questions more than a quarter
did (docs/quality.md)."""


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
    """Fuse the vector, title, keyword and named-title lists (each best first) into
    documents, best first.

    Lists are fused vector first, so a document's vector passage wins over its keyword passage.
    """
    ordered = {
        name: _by_document(lists[name]) for name in (VECTOR, TITLE, KEYWORD, NAMED) if name in lists
    }
    weights = {**preset.weights, NAMED: preset.weight(TITLE) * NAMED_SHARE}
    return fuse(ordered, replace(preset, weights=MappingProxyType(weights)))
