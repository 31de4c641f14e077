"""Values the catalog reader returns: topics, listings, documents, passages, radius pages.

They mirror the router tables of spec section 5.2 (with 5.2.2 locations), the retrieval of
section 9 and the references of section 11.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gezk.spatial import LocationRole, RadiusQuery

__all__ = [
    "Document",
    "DocumentLocation",
    "DocumentPage",
    "DocumentSummary",
    "NearbyPage",
    "NearbyResult",
    "Passage",
    "PassageKind",
    "Placement",
    "Stage1",
    "Topic",
]

Stage1 = Literal["lut", "hamming"]
"""The stage-1 scan: asymmetric float-query LUT scan (default) or the spec's Hamming baseline."""

PassageKind = Literal["document", "lines", "chunk"]
"""What a reference resolved to: a whole body, a line slice, or one chunk."""


@dataclass(frozen=True, slots=True)
class Topic:
    """A table-of-contents topic with its direct placements and distinct subtree documents."""

    id: str
    name: str
    parent_id: str | None
    sort_key: str
    depth: int
    direct_count: int
    subtree_count: int
    description: str | None = None


@dataclass(frozen=True, slots=True)
class Placement:
    """One placement of a document in the table of contents (0.7 shares documents by these)."""

    topic_id: str
    ordinal: int | None
    primary: bool


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


@dataclass(frozen=True, slots=True)
class DocumentLocation:
    """A document point: ``subject`` (what it is about) or ``associated`` (a related place).

    ``provenance`` is untrusted producer data.
    """

    id: str
    latitude: float
    longitude: float
    role: LocationRole
    provenance: Mapping[str, Any] | None = None


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
    placements: tuple[Placement, ...] = ()
    locations: tuple[DocumentLocation, ...] = ()


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


@dataclass(frozen=True, slots=True)
class NearbyResult:
    """A document within a radius, by its nearest matching subject point."""

    document: DocumentSummary
    distance_meters: float
    location: DocumentLocation
    citation: str


@dataclass(frozen=True, slots=True)
class NearbyPage:
    """A page of radius discovery, ordered by distance then document id."""

    results: tuple[NearbyResult, ...]
    total: int
    offset: int
    limit: int
    query: RadiusQuery
