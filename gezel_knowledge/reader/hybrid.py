"""Per-document reciprocal rank fusion of the three ranked lists (seed "Hybrid ranking").

Vector passages, document title/summary/alias matches and chunk keyword matches are each turned
into a ranking of documents (a document's rank is where its first, best item appears) and fused
with ``k = 60`` and weights 1 / 1 / 0.5. A fused document keeps its best passage: the best
vector passage when it has one, else its best keyword passage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gezel_knowledge.fusion import RRF_K, reciprocal_rank_fusion
from gezel_knowledge.hits import Signal

__all__ = [
    "KEYWORD",
    "TITLE",
    "VECTOR",
    "WEIGHTS",
    "ChunkRow",
    "Fused",
    "RankedDocument",
    "RankedPassage",
    "fuse",
]

VECTOR = "vector"
TITLE = "title"
KEYWORD = "keyword"
WEIGHTS: dict[str, float] = {VECTOR: 1.0, TITLE: 1.0, KEYWORD: 0.5}
"""Fusion weight of each ranked list."""


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A passage as stored in a shard."""

    shard_id: int
    chunk_id: int
    chunk_uid: str
    document_id: str
    ordinal: int
    title: str
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int
    text: str


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


@dataclass(frozen=True, slots=True)
class Fused:
    """One fused document: its RRF score, best passage (if any) and per-list signals."""

    document_id: str
    score: float
    passage: ChunkRow | None
    signals: tuple[Signal, ...]


def _documents(items: Sequence[RankedPassage]) -> list[tuple[str, RankedPassage]]:
    seen: dict[str, RankedPassage] = {}
    for item in items:
        seen.setdefault(item.row.document_id, item)
    return list(seen.items())


def fuse(
    lists: Mapping[str, Sequence[RankedPassage] | Sequence[RankedDocument]],
    *,
    weights: dict[str, float] | None = None,
    k: int = RRF_K,
) -> list[Fused]:
    """Fuse ranked lists (each already best first) into documents, best first."""
    w = weights or WEIGHTS
    names = [n for n in (VECTOR, TITLE, KEYWORD) if n in lists]
    per_list: dict[str, list[tuple[str, float, ChunkRow | None]]] = {}
    for name in names:
        items = lists[name]
        entries: list[tuple[str, float, ChunkRow | None]] = []
        if name == TITLE:
            seen: set[str] = set()
            for doc in items:
                assert isinstance(doc, RankedDocument)
                if doc.document_id not in seen:
                    seen.add(doc.document_id)
                    entries.append((doc.document_id, doc.score, None))
        else:
            passages = [p for p in items if isinstance(p, RankedPassage)]
            entries = [(d, p.score, p.row) for d, p in _documents(passages)]
        per_list[name] = entries
    fused = reciprocal_rank_fusion(
        [[e[0] for e in per_list[n]] for n in names], [w[n] for n in names], k=k
    )
    positions = {
        name: {doc: (rank, raw, row) for rank, (doc, raw, row) in enumerate(entries, start=1)}
        for name, entries in per_list.items()
    }
    out: list[Fused] = []
    for document_id, score in fused:
        signals: list[Signal] = []
        passage: ChunkRow | None = None
        # Lists are visited vector first, so a vector passage wins over a keyword passage.
        for name in names:
            hit = positions[name].get(document_id)
            if hit is not None:
                rank, raw, row = hit
                signals.append(Signal(name, rank, raw))
                if passage is None and row is not None:
                    passage = row
        out.append(Fused(document_id, score, passage, tuple(signals)))
    return out
