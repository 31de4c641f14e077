"""Per-document fusion of a catalog's ranked lists (seed "Hybrid ranking").

Vector passages, document title/summary/alias matches and chunk keyword matches are each turned
into a ranking of documents (a document's rank is where its first, best item appears) and fused
by :func:`gezel_knowledge.fusion.fuse` (by default :data:`~gezel_knowledge.fusion.DEFAULT_FUSION`,
``score``: each list's scores divided by its best, vector 0.7, every other list 0.3). A fourth
list, documents whose title the query names (:mod:`gezel_knowledge.reader._titles`), weighs
:data:`NAMED_SHARE` of the title list's weight in any preset. Documents left tied go first by
their standing in score (each list's raw score divided by its best). A fused document keeps its
best passage: the best vector passage when it has one, else its best keyword passage.
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
    Documents the fused ranks leave tied (first in one list and second in another, against
    the other way round) are ordered by their standing in score (:func:`_standing`): the one
    whose list put it further ahead of the rest goes first, rather than the vector list's.
    """
    ordered = {
        name: _by_document(lists[name]) for name in (VECTOR, TITLE, KEYWORD, NAMED) if name in lists
    }
    weights = {**preset.weights, NAMED: preset.weight(TITLE) * NAMED_SHARE}
    fused = fuse(ordered, replace(preset, weights=MappingProxyType(weights)))
    return sorted(fused, key=lambda f: (-round(f.score, TIE_DIGITS), -_standing(f, ordered)))


TIE_DIGITS = 12
"""Fused scores equal to this many decimals are a tie (sums of ``1 / (k + rank)`` taken in
another order may differ in their last bits)."""


def _standing(
    fused: Fused[str, ChunkRow], lists: Mapping[str, Sequence[Ranked[str, ChunkRow]]]
) -> float:
    """How near the head of its lists a document stands by score: the sum over the lists it
    is in of its raw score divided by that list's best (a cosine by the best cosine, a BM25
    score by the best BM25 score, so two scales are never compared)."""
    total = 0.0
    for signal in fused.signals:
        ranked = lists.get(signal.name)
        if ranked and ranked[0].score > 0:
            total += min(1.0, max(0.0, signal.score / ranked[0].score))
    return total
