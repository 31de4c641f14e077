"""Values the catalog reader returns: topics, listings, documents, passages, radius pages.

They mirror the router tables of spec section 5.2 (with 5.2.2 locations), the retrieval of
section 9 and the references of section 11. Topics, placements and locations are the format
layer's values (:mod:`gezk.toc`, :mod:`gezk.spatial`); a listed topic adds the reader's counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from gezel_knowledge import display
from gezk.spatial import Location, RadiusQuery
from gezk.toc import Topic, TopicPlacement

if TYPE_CHECKING:
    import pandas
    import pyarrow

__all__ = [
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
]

Stage1 = Literal["lut", "hamming"]
"""The stage-1 scan: asymmetric float-query LUT scan (default) or the spec's Hamming baseline."""

PassageKind = Literal["document", "lines", "chunk"]
"""What a reference resolved to: a whole body, a line slice, or one chunk."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TopicSummary(Topic):
    """A listed topic: its depth, its direct placements and its distinct subtree documents."""

    depth: int
    direct_count: int
    subtree_count: int


class TopicListing(tuple[TopicSummary, ...]):
    """The table of contents in tree order, as ``Catalog.topics()`` returns it: a tuple of
    topics that shows itself in a notebook and becomes a table."""

    __slots__ = ()

    def __repr__(self) -> str:
        return display.topics_repr(self)

    def _repr_html_(self) -> str:
        return display.topics_html(self)

    def to_arrow(self) -> pyarrow.Table:
        """One row per topic as a ``pyarrow.Table`` (the ``notebook`` extra)."""
        return display.topics_frame(self).to_arrow()

    def to_pandas(self) -> pandas.DataFrame:
        """One row per topic as a ``pandas.DataFrame`` (the ``notebook`` extra)."""
        return display.topics_frame(self).to_pandas()


@dataclass(frozen=True, slots=True)
class DocumentSummary:
    """One listing row: scoped listings report the chosen placement's topic and ordinal."""

    id: str
    title: str
    slug: str
    topic_id: str
    ordinal: int | None
    summary: str | None = None


@dataclass(frozen=True, slots=True)
class DocumentPage:
    """A page of a listing; ``total`` counts distinct documents in scope."""

    documents: tuple[DocumentSummary, ...]
    total: int
    offset: int
    limit: int
    topic_id: str | None = None
    descendants: bool = True

    def __repr__(self) -> str:
        return display.page_repr(self)

    def _repr_html_(self) -> str:
        return display.page_html(self)

    def to_arrow(self) -> pyarrow.Table:
        """One row per listed document as a ``pyarrow.Table`` (the ``notebook`` extra)."""
        return display.page_frame(self).to_arrow()

    def to_pandas(self) -> pandas.DataFrame:
        """One row per listed document as a ``pandas.DataFrame`` (the ``notebook`` extra)."""
        return display.page_frame(self).to_pandas()


@dataclass(frozen=True, slots=True)
class Document:
    """A document's primary metadata, its placements and locations, and its citation."""

    id: str
    title: str
    slug: str
    language: str
    topic_id: str
    topic_path: tuple[str, ...]
    ordinal: int | None
    shard_id: int
    chunk_count: int
    citation: str
    summary: str | None = None
    source_url: str | None = None
    source_revision: str | None = None
    source_updated_at: str | None = None
    attribution: Mapping[str, Any] | None = None
    meta: Mapping[str, Any] | None = None
    placements: tuple[TopicPlacement, ...] = ()
    locations: tuple[Location, ...] = ()
    """The document's points; a location's ``provenance`` is untrusted producer data."""


@dataclass(frozen=True, slots=True)
class Passage:
    """What a reference resolves to: a whole body, a line slice, or a chunk with its lines.

    The text is untrusted evidence; ``citation`` is the canonical ``knowledge://`` reference.
    """

    citation: str
    kind: PassageKind
    document_id: str
    title: str
    text: str
    line_start: int | None = None
    line_end: int | None = None
    chunk_uid: str | None = None
    heading_path: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return display.passage_repr(self)

    def _repr_html_(self) -> str:
        return display.passage_html(self)


@dataclass(frozen=True, slots=True)
class NearbyResult:
    """A document within a radius, by its nearest matching subject point."""

    document: DocumentSummary
    distance_meters: float
    location: Location
    citation: str


@dataclass(frozen=True, slots=True)
class NearbyPage:
    """A page of radius discovery, ordered by distance then document id."""

    results: tuple[NearbyResult, ...]
    total: int
    offset: int
    limit: int
    query: RadiusQuery

    def __repr__(self) -> str:
        return display.nearby_repr(self)

    def _repr_html_(self) -> str:
        return display.nearby_html(self)

    def to_arrow(self) -> pyarrow.Table:
        """One row per document, nearest first, as a ``pyarrow.Table`` (the ``notebook``
        extra)."""
        return display.nearby_frame(self).to_arrow()

    def to_pandas(self) -> pandas.DataFrame:
        """One row per document, nearest first, as a ``pandas.DataFrame`` (the ``notebook``
        extra)."""
        return display.nearby_frame(self).to_pandas()
