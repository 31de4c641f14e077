"""Refusing bad compiler input before anything is built (spec sections 2, 5.2, 5.2.1, 5.2.2).

Topics must form a forest of declared ids, depth at most 16, without cycles. Documents need
valid, unique ids, a title, a primary topic path that runs from a root down the forest, signed
32-bit ordinals, TOC references that follow the forest without repeating a leaf topic (the
primary leaf included), at most 256 locations with valid coordinates, roles and unique ids,
``meta`` of at most 16 KiB without reserved ``gezk.`` keys, and string-to-string attribution.
Every refusal is a :class:`SourceError` naming the document and, where known, the file and line.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.sources.source import SourceDocument
from gezel_knowledge.compiler.sources.toc import MAX_TOPIC_DEPTH
from gezel_knowledge.compiler.text.names import document_slug
from gezk.errors import InvalidIdentifier, InvalidLocation
from gezk.ids import validate_document_id, validate_location_id, validate_topic_id
from gezk.jcs import canonicalize
from gezk.spatial import MAX_DOCUMENT_LOCATIONS, Location, validate_coordinate
from gezk.toc import Topic, TopicPlacement

__all__ = [
    "MAX_LOCATIONS",
    "MAX_META_BYTES",
    "MAX_PROVENANCE_BYTES",
    "ValidDocument",
    "dumps_compact",
    "duplicate_document",
    "provenance_json",
    "validate_document",
    "validate_topics",
]

MAX_LOCATIONS = MAX_DOCUMENT_LOCATIONS
MAX_META_BYTES = 16 * 1024
MAX_PROVENANCE_BYTES = 16_384
_INT32 = range(-(2**31), 2**31)


@dataclass(frozen=True, slots=True)
class ValidDocument:
    """A document that passed validation, with its derived router values."""

    source: SourceDocument
    topic_path_key: str
    slug: str
    language: str
    aliases: tuple[str, ...]
    attribution_json: str | None
    meta_json: str | None
    locations: tuple[Location, ...]
    """Checked, longitudes normalised to [-180, 180), in location id order."""
    placements: tuple[TopicPlacement, ...]
    """The primary placement first, then one per TOC reference."""


def validate_topics(topics: Sequence[Topic]) -> dict[str, Topic]:
    """The topics by id, once ids, names, parents, cycles and depth are checked."""
    by_id: dict[str, Topic] = {}
    for topic in topics:
        try:
            validate_topic_id(topic.id)
        except InvalidIdentifier as exc:
            raise SourceError(
                exc.message, reason="invalid-topic-id", path=f"topic {topic.id!r}"
            ) from None
        if topic.id in by_id:
            raise SourceError(f"topic {topic.id!r} is declared twice", reason="duplicate-topic")
        if not topic.name.strip():
            raise SourceError(f"topic {topic.id!r} has no name", reason="invalid-topic")
        by_id[topic.id] = topic
    if not by_id:
        raise SourceError(
            "the catalog has no topics: a table of contents needs at least one", reason="no-topics"
        )
    for topic in by_id.values():
        if topic.parent_id is not None and topic.parent_id not in by_id:
            raise SourceError(
                f"topic {topic.id!r} names an undeclared parent {topic.parent_id!r}",
                reason="unknown-topic",
            )
    for topic in by_id.values():
        seen = [topic.id]
        current = topic
        while current.parent_id is not None:
            if current.parent_id in seen:
                cycle = " -> ".join([*seen, current.parent_id])
                raise SourceError(f"topics form a cycle: {cycle}", reason="topic-cycle")
            seen.append(current.parent_id)
            current = by_id[current.parent_id]
        if len(seen) > MAX_TOPIC_DEPTH:
            raise SourceError(
                f"topic {topic.id!r} is {len(seen)} levels deep (limit {MAX_TOPIC_DEPTH})",
                reason="topic-too-deep",
            )
    return by_id


def _error(doc: SourceDocument, message: str, reason: str) -> SourceError:
    return SourceError(
        message, reason=reason, document=doc.id, path=doc.origin, line=doc.origin_line
    )


def _check_path(
    doc: SourceDocument, path: Sequence[str], topics: Mapping[str, Topic], what: str
) -> None:
    if not path:
        raise _error(doc, f"{what} is empty", "invalid-topic-path")
    parent: str | None = None
    for topic_id in path:
        topic = topics.get(topic_id)
        if topic is None:
            raise _error(doc, f"{what} names an undeclared topic {topic_id!r}", "unknown-topic")
        if topic.parent_id != parent:
            where = "a root" if parent is None else f"a child of {parent!r}"
            raise _error(
                doc,
                f"{what} {'/'.join(path)!r} does not follow the topic tree: "
                f"{topic_id!r} is not {where}",
                "invalid-topic-path",
            )
        parent = topic_id


def _check_ordinal(doc: SourceDocument, value: int | None, what: str) -> None:
    if value is not None and value not in _INT32:
        raise _error(doc, f"{what} {value} is not a signed 32-bit integer", "invalid-ordinal")


def _json_object(doc: SourceDocument, value: Mapping[str, Any], what: str) -> str:
    try:
        return canonicalize(dict(value)).decode("utf-8")
    except Exception as exc:  # rfc8785 raises its own types for non-JSON values
        raise _error(doc, f"{what} is not JSON-serialisable: {exc}", "invalid-json-value") from None


def provenance_json(location: Location) -> str | None:
    """The ``provenance_json`` column of a location: canonical JSON, or ``None``."""
    if location.provenance is None:
        return None
    return canonicalize(dict(location.provenance)).decode("utf-8")


def _locations(doc: SourceDocument) -> tuple[Location, ...]:
    if len(doc.locations) > MAX_LOCATIONS:
        raise _error(
            doc, f"has {len(doc.locations)} locations (limit {MAX_LOCATIONS})", "too-many-locations"
        )
    rows: dict[str, Location] = {}
    for location in doc.locations:
        try:
            validate_location_id(location.id)
        except InvalidIdentifier:
            raise _error(
                doc, f"location id {location.id!r} is invalid", "invalid-location-id"
            ) from None
        if location.id in rows:
            raise _error(doc, f"location id {location.id!r} is repeated", "duplicate-location-id")
        try:
            lat, lon = validate_coordinate(location.latitude, location.longitude)
        except InvalidLocation as exc:
            raise _error(
                doc, f"location {location.id!r}: {exc.message}", "invalid-coordinate"
            ) from None
        if location.role not in ("subject", "associated"):
            raise _error(
                doc,
                f"location {location.id!r}: role {location.role!r} is not subject or associated",
                "invalid-location-role",
            )
        if location.provenance is not None:
            provenance = _json_object(
                doc, location.provenance, f"location {location.id!r} provenance"
            )
            if len(provenance.encode("utf-8")) > MAX_PROVENANCE_BYTES:
                raise _error(
                    doc,
                    f"location {location.id!r}: provenance exceeds {MAX_PROVENANCE_BYTES} bytes",
                    "provenance-too-large",
                )
        rows[location.id] = Location(location.id, lat, lon, location.role, location.provenance)
    return tuple(rows[k] for k in sorted(rows))


def duplicate_document(doc: SourceDocument, origin: str | None, line: int | None) -> SourceError:
    """The error for ``doc`` repeating the id of a document from ``origin`` (and ``line``)."""
    where = f" (also in {origin}{f':{line}' if line else ''})" if origin else ""
    return _error(doc, f"duplicate document id{where}", "duplicate-document-id")


def validate_document(
    doc: SourceDocument,
    topics: Mapping[str, Topic],
    default_language: str,
    *,
    unique: Callable[[SourceDocument], None],
) -> ValidDocument:
    """One document checked: its id, then ``unique(doc)`` (which raises for an id seen before),
    then title, placements, ordinals, meta, attribution, aliases, language and locations."""
    try:
        validate_document_id(doc.id)
    except InvalidIdentifier as exc:
        raise _error(doc, exc.message, "invalid-document-id") from None
    unique(doc)
    if not doc.title.strip():
        raise _error(doc, "has an empty title", "invalid-title")
    _check_path(doc, doc.topic_path, topics, "topicPath")
    _check_ordinal(doc, doc.ordinal, "ordinal")
    placements = _placements(doc, topics)
    meta_json = _meta_json(doc)
    attribution_json = _attribution_json(doc)
    aliases = sorted({unicodedata.normalize("NFC", a.strip()) for a in doc.aliases if a.strip()})
    language = doc.language or default_language
    if len(language) < 2:
        raise _error(doc, f"language {language!r} is not a language tag", "invalid-language")
    return ValidDocument(
        source=doc,
        topic_path_key="/".join(doc.topic_path),
        slug=doc.slug or document_slug(doc.title),
        language=language,
        aliases=tuple(aliases),
        attribution_json=attribution_json,
        meta_json=meta_json,
        locations=_locations(doc),
        placements=placements,
    )


def _placements(doc: SourceDocument, topics: Mapping[str, Topic]) -> tuple[TopicPlacement, ...]:
    leaves = {doc.topic_path[-1]}
    placements = [TopicPlacement(doc.topic_path[-1], doc.ordinal, primary=True)]
    for reference in sorted(
        doc.toc_references, key=lambda r: (r.topic_path, r.ordinal is None, r.ordinal or 0)
    ):
        _check_path(doc, reference.topic_path, topics, "tocReference topicPath")
        _check_ordinal(doc, reference.ordinal, "tocReference ordinal")
        leaf = reference.topic_path[-1]
        if leaf in leaves:
            raise _error(
                doc, f"is placed under topic {leaf!r} more than once", "repeated-placement"
            )
        leaves.add(leaf)
        placements.append(TopicPlacement(leaf, reference.ordinal))
    return tuple(placements)


def _meta_json(doc: SourceDocument) -> str | None:
    if doc.meta is None:
        return None
    reserved = sorted(k for k in doc.meta if str(k).startswith("gezk."))
    if reserved:
        raise _error(doc, f"meta uses reserved keys {reserved}", "reserved-meta-key")
    meta_json = _json_object(doc, doc.meta, "meta")
    if len(meta_json.encode("utf-8")) > MAX_META_BYTES:
        raise _error(doc, f"meta exceeds {MAX_META_BYTES} bytes", "meta-too-large")
    return meta_json


def _attribution_json(doc: SourceDocument) -> str | None:
    if doc.attribution is None:
        return None
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in doc.attribution.items()):
        raise _error(doc, "attribution must map strings to strings", "invalid-attribution")
    return _json_object(doc, doc.attribution, "attribution")


def dumps_compact(value: Any) -> str:
    """Compact JSON (no spaces, non-ASCII kept) for small JSON columns."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
