"""Reading a catalog: documents, bodies, references and radius discovery (spec 5.2, 5.2.2, 11).

Every function takes the catalog's :class:`~._store.CatalogStore`; the ``Catalog`` handle holds
its lock around each call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from gezel_knowledge._rows import fetch_all
from gezel_knowledge._untrusted import check_text
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.reader import browse
from gezel_knowledge.reader._store import CatalogStore
from gezel_knowledge.reader.body import decode_body, slice_lines
from gezel_knowledge.reader.models import (
    Document,
    DocumentSummary,
    NearbyPage,
    NearbyResult,
    Passage,
)
from gezel_knowledge.reader.spatial import eligible_documents
from gezk.spatial import Location, RadiusQuery
from gezk.uri import KnowledgeUri, parse_fragment

__all__ = ["Reference", "body", "document", "nearby", "parse_reference", "read"]


def _frozen(value: dict[str, Any] | None) -> Mapping[str, Any] | None:
    return None if value is None else MappingProxyType(value)


def _locations(store: CatalogStore, document_id: str) -> tuple[Location, ...]:
    if store.schema < 4:
        return ()
    rows = fetch_all(
        store.router,
        "SELECT location_id, latitude, longitude, role, provenance_json"
        " FROM document_locations WHERE document_id = ? ORDER BY location_id",
        (document_id,),
    )
    return tuple(
        Location(
            r["location_id"],
            float(r["latitude"]),
            float(r["longitude"]),
            r["role"],
            _frozen(browse.parse_json_object(r["provenance_json"])),
        )
        for r in rows
    )


def document(store: CatalogStore, document_id: str) -> Document:
    """A document's primary metadata, placements, locations and citation."""
    r = store.document_row(document_id)
    conn = store.router
    return Document(
        id=r.id,
        title=r.title,
        slug=r.slug,
        summary=r.summary,
        language=r.language,
        topic_id=r.topic_id,
        topic_path=browse.topic_path(conn, r.topic_id),
        ordinal=r.ordinal,
        shard_id=r.shard_id,
        chunk_count=r.chunk_count,
        source_url=r.source_url,
        source_revision=r.source_revision,
        source_updated_at=r.source_updated_at,
        attribution=_frozen(browse.parse_json_object(r.attribution_json)),
        meta=_frozen(browse.parse_json_object(r.meta_json)),
        placements=browse.placements(conn, store.schema, r.id, r.topic_id, r.ordinal),
        locations=_locations(store, document_id),
        citation=store.cite(r.id),
    )


def body(store: CatalogStore, document_id: str, max_body_bytes: int) -> str:
    """The document's normalized Markdown body, decompression capped at ``max_body_bytes``."""
    codec, blob = store.body_blob(document_id)
    return decode_body(document_id, codec, blob, max_body_bytes)


@dataclass(frozen=True, slots=True)
class Reference:
    """A parsed reference: a document, optionally one chunk or a line range."""

    document_id: str
    chunk: str | None = None
    line_start: int | None = None
    line_end: int | None = None


def parse_reference(store: CatalogStore, reference: str | KnowledgeUri) -> Reference:
    """A ``knowledge://`` URI of this catalog, or a document id with an optional fragment."""
    if isinstance(reference, str):
        # Before any lookup: a reference that is not Unicode is the caller's, not the catalog's.
        check_text(reference, "the reference")
    if isinstance(reference, str) and reference.startswith("knowledge://"):
        reference = KnowledgeUri.parse(reference)
    if isinstance(reference, KnowledgeUri):
        m = store.manifest
        if (reference.publisher_id, reference.catalog_id) != (m.publisher.id, m.id):
            raise NotFound(
                f"{reference} cites catalog {reference.catalog_ref}, not {store.name}",
                reason="other-catalog",
                subject=str(reference),
            )
        return Reference(
            reference.document_id, reference.chunk, reference.line_start, reference.line_end
        )
    text = str(reference)
    if "#" not in text or store.has_document(text):
        return Reference(text)
    document_id, _, fragment = text.rpartition("#")
    parsed = parse_fragment(fragment)
    if parsed is None:
        raise InvalidInput(
            f"unknown fragment {fragment!r} (expected chunk=<32 hex> or line=<n>[-<m>])",
            reason="invalid-reference",
            subject=text,
        )
    chunk, start, end = parsed
    if start is not None and end is not None and end < start:
        raise InvalidInput(
            f"line range {start}-{end} ends before it starts",
            reason="invalid-reference",
            subject=text,
        )
    return Reference(document_id, chunk, start, end)


def _read_chunk(store: CatalogStore, document_id: str, uid: str) -> Passage:
    title = store.document_row(document_id).title
    c = store.chunk(document_id, uid)
    return Passage(
        store.cite(document_id, chunk_uid=uid),
        "chunk",
        document_id,
        title,
        c.text,
        line_start=c.line_start,
        line_end=c.line_end,
        chunk_uid=uid,
        heading_path=c.heading_path,
    )


def read(store: CatalogStore, reference: str | KnowledgeUri, max_body_bytes: int) -> Passage:
    """Resolve a reference to the whole body, a line slice, or a chunk with its lines."""
    ref = parse_reference(store, reference)
    if ref.chunk is not None:
        return _read_chunk(store, ref.document_id, ref.chunk)
    text = body(store, ref.document_id, max_body_bytes)
    title = store.document_row(ref.document_id).title
    start, end = ref.line_start, ref.line_end
    if start is None:
        return Passage(store.cite(ref.document_id), "document", ref.document_id, title, text)
    if start < 1:
        raise InvalidInput(
            "line numbers start at 1", reason="line-out-of-range", subject=str(start)
        )
    return Passage(
        store.cite(ref.document_id, lines=(start, end)),
        "lines",
        ref.document_id,
        title,
        slice_lines(text, start, end),
        line_start=start,
        line_end=start if end is None else end,
    )


def nearby(store: CatalogStore, query: RadiusQuery, limit: int, offset: int) -> NearbyPage:
    """Documents with a subject point within the radius: nearest first, then by id."""
    found = eligible_documents(store.router, store.schema, query)
    results = []
    for e in found[offset : offset + limit]:
        r = store.document_row(e.document_id)
        results.append(
            NearbyResult(
                document=DocumentSummary(r.id, r.title, r.slug, r.topic_id, r.ordinal, r.summary),
                distance_meters=e.distance_meters,
                location=Location(e.location_id, e.latitude, e.longitude, "subject"),
                citation=store.cite(e.document_id),
            )
        )
    return NearbyPage(tuple(results), len(found), offset, limit, query.validate())
