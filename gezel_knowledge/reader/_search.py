"""One catalog's search: the ranked lists, their fusion, and the hits (spec section 9; seed
"Hybrid ranking").

:func:`search_catalog` runs a :class:`CatalogQuery`: radius eligibility first (spec 5.2.2),
then the vector list (two-stage passages above the cosine floor), the title list and the passage
keyword list (over the routed shards when vectors routed, otherwise every shard), fused per
document; each fused document becomes a :class:`~gezel_knowledge.hits.SearchHit` with its best
passage, citation and provenance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput, KnowledgeError
from gezel_knowledge.fusion import KEYWORD, TITLE, VECTOR, Fused, FusionPreset, relevance
from gezel_knowledge.hits import SearchHit
from gezel_knowledge.query import QueryVectors, query_terms, terms_match_expression
from gezel_knowledge.reader._keyword import keyword_passages, title_matches
from gezel_knowledge.reader._rows import ChunkRow
from gezel_knowledge.reader._semantic import VectorSearch
from gezel_knowledge.reader._store import CatalogStore
from gezel_knowledge.reader.floors import cosine_floor
from gezel_knowledge.reader.hybrid import RankedDocument, RankedPassage, fuse_documents
from gezel_knowledge.reader.models import Stage1
from gezel_knowledge.reader.spatial import Eligible, eligible_documents
from gezel_knowledge.reader.vectors import DEFAULT_FINAL_K, EXPLICIT_SHARD_BUDGET
from gezel_knowledge.results import (
    SEARCH_MODES,
    SearchMode,
    SearchResult,
    SemanticState,
    SourceReport,
)
from gezk.profiles import EmbeddingProfile, same_vector_space
from gezk.spatial import RadiusQuery

__all__ = ["CatalogQuery", "Semantic", "embed_query", "search_catalog"]


@dataclass(frozen=True, slots=True)
class Semantic:
    """Whether the query has a vector, and why not when it has none."""

    state: SemanticState
    reason: str | None = None
    message: str | None = None


def embed_query(
    embedder: Embedder | None,
    profile: EmbeddingProfile,
    query: str,
    vectors: QueryVectors,
) -> tuple[NDArray[np.float32] | None, Semantic]:
    """The query's vector in the catalog's space, or ``None`` and why semantic search is off."""
    if embedder is None:
        return None, Semantic(
            "unavailable",
            "no-embedder",
            f"no query embedder for the catalog's profile {profile.id} was supplied",
        )
    if not same_vector_space(embedder.profile, profile):
        return None, Semantic(
            "unavailable",
            "other-vector-space",
            f"the embedder produces {embedder.profile.id} vectors; this catalog needs {profile.id}",
        )
    try:
        return vectors.of(embedder), Semantic("used")
    except KnowledgeError as exc:
        return None, Semantic("unavailable", exc.reason, f"the query embedder failed: {exc}")


@dataclass(frozen=True, slots=True)
class CatalogQuery:
    """One search of one catalog, its vector already resolved."""

    text: str
    vector: NDArray[np.float32] | None
    semantic: Semantic
    mode: SearchMode
    k: int
    fusion: FusionPreset
    near: RadiusQuery | None = None
    shards: Sequence[int] | None = None
    shard_budget: int = EXPLICIT_SHARD_BUDGET
    final_k: int = DEFAULT_FINAL_K
    stage1: Stage1 = "lut"
    min_similarity: float | None = None

    def check(self) -> None:
        """Refuse an unknown mode, a query with neither text nor radius, and a limit that
        could only ever give an empty result."""
        if self.mode not in SEARCH_MODES:
            raise InvalidInput(f"unknown search mode {self.mode!r}", reason="invalid-mode")
        if not self.text.strip() and self.near is None:
            raise InvalidInput(
                "the search query is empty: give words to look for, a radius (near), or both",
                reason="empty-query",
            )
        if self.k < 1 or self.final_k < 1:
            raise InvalidInput("k and final_k must be positive", reason="invalid-limit")
        if self.shard_budget < 1 and self.shards is None:
            raise InvalidInput(
                f"the shard budget must be at least 1 (got {self.shard_budget}): no shard "
                "could be searched",
                reason="invalid-limit",
                subject=str(self.shard_budget),
            )

    @property
    def wants_vectors(self) -> bool:
        """Whether the vector list runs."""
        return self.mode != "keyword" and self.vector is not None

    def effective_semantic(self) -> Semantic:
        """The semantic state as reported: keyword mode never asked for vectors."""
        return Semantic("off") if self.mode == "keyword" else self.semantic


Lists = dict[str, list[RankedPassage] | list[RankedDocument]]


class _Run:
    """The state of one search while its lists are gathered."""

    def __init__(self, store: CatalogStore, vectors: VectorSearch, q: CatalogQuery) -> None:
        self.store = store
        self.vectors = vectors
        self.q = q
        self.eligible: list[Eligible] | None = None
        self.searched: list[int] = []

    @property
    def eligible_ids(self) -> list[str] | None:
        return None if self.eligible is None else [e.document_id for e in self.eligible]

    def _vector_list(self) -> list[RankedPassage]:
        q = self.q
        assert q.vector is not None
        passages, self.searched = self.vectors.passages(
            q.vector,
            shards=q.shards,
            shard_budget=q.shard_budget,
            final_k=q.final_k,
            stage1=q.stage1,
            eligible=self.eligible_ids,
        )
        floor = (
            q.min_similarity if q.min_similarity is not None else cosine_floor(self.vectors.profile)
        )
        return passages if floor is None else [p for p in passages if p.score >= floor]

    def lists(self, terms: list[str], match: str | None) -> Lists:
        """The ranked lists the query's mode asks for."""
        q = self.q
        depth = max(q.final_k, 3 * q.k)
        lists: Lists = {}
        if q.wants_vectors:
            lists[VECTOR] = self._vector_list()
        if q.mode != "vector" and match is not None:
            eligible = self.eligible_ids
            lists[TITLE] = title_matches(self.store, match, depth, eligible)
            # Routed shards bound the passage search when vectors routed; otherwise all.
            routed = VECTOR in lists and eligible is None
            shards = (
                [self.store.shard(s) for s in self.searched] if routed else list(self.store.shards)
            )
            lists[KEYWORD] = keyword_passages(self.store, terms, shards, depth, eligible)
            if not self.searched:
                self.searched = [s.id for s in shards]
        return lists

    def hit(self, rank: int, fused: Fused[str, ChunkRow], place: Eligible | None) -> SearchHit:
        """The fused document as a hit: its best passage (else its first), cited."""
        store = self.store
        passage = fused.item or store.first_chunk(fused.key)
        return SearchHit(
            source_kind="catalog",
            source=store.name,
            document_id=fused.key,
            title=store.document_row(fused.key).title,
            text=passage.text if passage else "",
            citation=store.cite(fused.key, chunk_uid=passage.chunk_uid if passage else None),
            rank=rank,
            relevance=relevance(rank),
            heading_path=passage.heading_path if passage else (),
            line_start=passage.line_start if passage else None,
            line_end=passage.line_end if passage else None,
            chunk_uid=passage.chunk_uid if passage else None,
            signals=fused.signals,
            provenance=store.provenance,
            distance_meters=place.distance_meters if place else None,
            matched_location=place.location_id if place else None,
        )

    def result(self, hits: Sequence[SearchHit], signals: Sequence[str] = ()) -> SearchResult:
        """The search result with this catalog's report."""
        q = self.q
        semantic = q.effective_semantic()
        report = SourceReport(
            source=self.store.name,
            kind="catalog",
            status="degraded" if semantic.state == "unavailable" else "searched",
            semantic=semantic.state,
            signals=tuple(signals),
            hits=len(hits),
            reason=semantic.reason,
            message=semantic.message,
            provenance=self.store.provenance,
            profile=self.store.manifest.embedding.id,
            shards_searched=tuple(self.searched),
            eligible_documents=None if self.eligible is None else len(self.eligible),
        )
        return SearchResult(q.text, q.mode, tuple(hits), (report,))


def search_catalog(store: CatalogStore, vectors: VectorSearch, q: CatalogQuery) -> SearchResult:
    """Run ``q`` against one catalog."""
    q.check()
    terms = query_terms(q.text)
    match = terms_match_expression(terms)
    run = _Run(store, vectors, q)
    if q.near is not None:
        run.eligible = eligible_documents(store.router, store.schema, q.near)
    if match is None and not q.wants_vectors:
        # Nothing to rank by: radius discovery when there is a radius, else nothing.
        found = run.eligible or []
        discovered = [
            run.hit(i, Fused(e.document_id, 0.0, None, ()), e) for i, e in enumerate(found[: q.k])
        ]
        return run.result(discovered)
    if run.eligible is not None and not run.eligible:
        return run.result([])
    lists = run.lists(terms, match)
    fused = fuse_documents(lists, q.fusion)[: q.k]
    places = {e.document_id: e for e in run.eligible or []}
    hits = [run.hit(i, f, places.get(f.key)) for i, f in enumerate(fused)]
    return run.result(hits, list(lists))
