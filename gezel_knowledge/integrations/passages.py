"""The one mapping of a search hit to what retrieval frameworks call a document.

Every retriever in :mod:`gezel_knowledge.integrations` maps a
:class:`~gezel_knowledge.hits.SearchHit` the same way:

- **id**: the hit's citation, ``knowledge://publisher/catalog/document#chunk=<uid>`` for a
  catalog passage, so a framework's evaluators (LlamaIndex's ``RetrieverEvaluator`` with
  ``expected_ids``, for one) compare citations;
- **text**: the passage;
- **score**: the hit's :attr:`~gezel_knowledge.hits.SearchHit.score`, the cosine similarity of
  its passage to the query (-1 to 1), which a similarity cutoff can act on; ``None`` where no
  cosine was measured (keyword mode, no query embedder), which a cutoff drops;
- **metadata**: JSON values only (``metadata_keys`` lists them): the citation, document id,
  title, heading path, line range, chunk uid, source, the catalog's publisher, id, version and
  archive digest, the score, rank and rank-based relevance (``11 / (11 + rank)``, a position in
  the list and not a similarity), each ranked list's rank and score (``signals``), and
  ``untrusted: true``, because retrieved text is evidence and never instructions. Memory hits
  add their ``date``, ``scope`` and ``kind``; radius searches ``distance_meters`` and
  ``matched_location``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from gezel_knowledge.hits import SearchHit

__all__ = ["METADATA_KEYS", "RetrievedPassage", "retrieved_passage", "retrieved_passages"]

METADATA_KEYS: tuple[str, ...] = (
    "citation",
    "document_id",
    "title",
    "heading_path",
    "line_start",
    "line_end",
    "chunk_uid",
    "source",
    "source_kind",
    "publisher_id",
    "catalog_id",
    "catalog_version",
    "archive_sha256",
    "score",
    "rank",
    "relevance",
    "signals",
    "untrusted",
)
"""The metadata every retrieved passage carries (values may be ``None`` where a source has no
such thing, such as provenance for memory)."""

_OPTIONAL = ("date", "scope", "kind", "distance_meters", "matched_location")


@dataclass(frozen=True, slots=True)
class RetrievedPassage:
    """A hit as a framework document: id (the citation), text, score and metadata."""

    id: str
    text: str
    score: float | None
    metadata: Mapping[str, Any]

    def metadata_dict(self) -> dict[str, Any]:
        """A fresh, mutable deep copy of :attr:`metadata` for a framework document to own."""
        return copy.deepcopy(dict(self.metadata))


def retrieved_passage(hit: SearchHit) -> RetrievedPassage:
    """The framework-neutral form of one hit."""
    prov = hit.provenance
    metadata: dict[str, Any] = {
        "citation": hit.citation,
        "document_id": hit.document_id,
        "title": hit.title,
        "heading_path": list(hit.heading_path),
        "line_start": hit.line_start,
        "line_end": hit.line_end,
        "chunk_uid": hit.chunk_uid,
        "source": hit.source,
        "source_kind": hit.source_kind,
        "publisher_id": None if prov is None else prov.publisher_id,
        "catalog_id": None if prov is None else prov.catalog_id,
        "catalog_version": None if prov is None else prov.version,
        "archive_sha256": None if prov is None else prov.archive_sha256,
        "score": hit.score,
        "rank": hit.rank,
        "relevance": hit.relevance,
        "signals": {s.name: {"rank": s.rank, "score": s.score} for s in hit.signals},
        "untrusted": True,
    }
    for key in _OPTIONAL:
        value = getattr(hit, key)
        if value is not None:
            metadata[key] = value
    return RetrievedPassage(hit.citation, hit.text, hit.score, MappingProxyType(metadata))


def retrieved_passages(hits: Iterable[SearchHit]) -> list[RetrievedPassage]:
    """The framework-neutral form of hits, in their order (best first)."""
    return [retrieved_passage(h) for h in hits]
