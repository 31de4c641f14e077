"""The hit every source returns, and the cross-source merge.

Catalog search, workspace content search and memory recall all return :class:`SearchHit` values
(inside a :class:`~gezel_knowledge.results.SearchResult`), so a caller can merge them: calibrated
relevance is multiplied by a source-kind priority in which the user's own project content ranks
above generic reference knowledge.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from gezel_knowledge import display

if TYPE_CHECKING:
    import pandas
    import pyarrow

__all__ = [
    "COSINE_SIGNALS",
    "SOURCE_PRIORITY",
    "Provenance",
    "SearchHit",
    "Signal",
    "SourceKind",
    "merge_hits",
]

SourceKind = Literal["workspace", "memory", "library", "catalog"]

SOURCE_PRIORITY: dict[SourceKind, float] = {
    "workspace": 1.0,
    "memory": 0.95,
    "library": 0.85,
    "catalog": 0.7,
}
"""Multipliers applied to relevance when sources are merged: project content first."""


COSINE_SIGNALS: tuple[str, ...] = ("vector", "keyword-only")
"""The signals whose raw score is the cosine of the hit's passage to the query: the vector list
(its passages are the hit's), and the keyword-only mark (the cosine that fell below the floor)."""


@dataclass(frozen=True, slots=True)
class Signal:
    """One ranked list's opinion of a hit: its list name, 1-based rank and raw score."""

    name: str
    rank: int
    score: float


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a catalog hit came from: the exact installed bytes, not just a name."""

    publisher_id: str
    catalog_id: str
    version: str
    archive_sha256: str | None = None


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One retrieved passage or document with its citation; its text is untrusted evidence.

    :attr:`score` is what a cutoff acts on: the cosine similarity of the hit's passage to the
    query (-1 to 1, higher is closer) in its source's embedding space, or ``None`` where no
    cosine was measured (keyword mode, no query embedder for the source, or a workspace or
    memory hit only the keyword lists found). ``rank`` is the zero-based position in its
    source's fused result list and ``relevance`` the rank-anchored ``11 / (11 + rank)`` (memory
    recall may further weight it by age): a position, not a similarity, kept as metadata. Each
    :class:`Signal` carries the 1-based rank within one ranked list.
    """

    source_kind: SourceKind
    source: str
    document_id: str
    title: str
    text: str
    citation: str
    rank: int
    relevance: float
    heading_path: tuple[str, ...] = ()
    line_start: int | None = None
    line_end: int | None = None
    chunk_uid: str | None = None
    signals: tuple[Signal, ...] = ()
    provenance: Provenance | None = None
    date: str | None = None
    scope: str | None = None
    kind: str | None = None
    distance_meters: float | None = None
    matched_location: str | None = None
    untrusted: bool = True
    score: float | None = field(init=False, default=None)
    """The cosine of the hit's passage to the query, or ``None`` (derived from the signals)."""

    def __post_init__(self) -> None:
        cosine = next((s.score for s in self.signals if s.name in COSINE_SIGNALS), None)
        object.__setattr__(self, "score", None if cosine is None else float(cosine))

    @property
    def priority_score(self) -> float:
        """Relevance weighted by the source-kind priority, for merging sources."""
        return self.relevance * SOURCE_PRIORITY[self.source_kind]

    @property
    def section_path(self) -> tuple[str, ...]:
        """The heading path below the title: a workspace passage's path starts at its file's top
        heading, which is also its title; a catalog passage's path starts below the title."""
        path = self.heading_path
        return path[1:] if path and path[0] == self.title else path

    def signal(self, name: str) -> Signal | None:
        """The named ranked list's signal, if this hit appeared in it."""
        for s in self.signals:
            if s.name == name:
                return s
        return None

    def __repr__(self) -> str:
        return display.hit_repr(self)

    def _repr_html_(self) -> str:
        return display.hit_html(self)

    def to_arrow(self) -> pyarrow.Table:
        """This hit as a one-row ``pyarrow.Table`` (the ``notebook`` extra)."""
        return display.hits_frame([self]).to_arrow()

    def to_pandas(self) -> pandas.DataFrame:
        """This hit as a one-row ``pandas.DataFrame`` (the ``notebook`` extra)."""
        return display.hits_frame([self]).to_pandas()


def merge_hits(*sources: Iterable[SearchHit], limit: int | None = None) -> list[SearchHit]:
    """Merge hits from several sources by :attr:`SearchHit.priority_score`, best first."""
    merged = [hit for source in sources for hit in source]
    merged.sort(key=lambda h: (-h.priority_score, h.source_kind, h.source, h.rank))
    return merged if limit is None else merged[:limit]
