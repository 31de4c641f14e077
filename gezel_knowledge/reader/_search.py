"""One catalog's search: the ranked lists, their fusion, and the hits (spec section 9; seed
"Hybrid ranking").

:func:`search_catalog` runs a :class:`CatalogQuery`: radius eligibility first (spec 5.2.2),
then the vector list (two-stage passages above the cosine floor), the title list, the passage
keyword list (over the routed shards when vectors routed, otherwise every shard) and the list
of documents whose title the query names, fused per document; each fused document becomes a
:class:`~gezel_knowledge.hits.SearchHit` with its best passage, citation and provenance, and an
optional reranker reorders the best of them.

``k`` means k: every list is asked for enough passages to cover ``k`` documents (three passages
a document, then once more as deep when documents with many matching passages used them up), so
each mode returns ``k`` documents whenever that many qualify.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge._untrusted import check_count, check_text
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput, KnowledgeError
from gezel_knowledge.fusion import (
    KEYWORD,
    KEYWORD_ONLY,
    TITLE,
    VECTOR,
    Fused,
    FusionPreset,
    relevance,
)
from gezel_knowledge.hits import SearchHit, Signal
from gezel_knowledge.query import (
    MAX_QUERY_TERMS,
    QueryVectors,
    check_min_similarity,
    query_term_counts,
)
from gezel_knowledge.reader._keyword import HYBRID_IDF, keyword_passages, title_matches
from gezel_knowledge.reader._kwindex import search_idf
from gezel_knowledge.reader._rows import ChunkRow, ShardInfo
from gezel_knowledge.reader._semantic import VectorSearch
from gezel_knowledge.reader._store import CatalogStore
from gezel_knowledge.reader._titles import named_titles
from gezel_knowledge.reader.dated import is_dated
from gezel_knowledge.reader.feedback import feedback_query, rescored
from gezel_knowledge.reader.floors import cosine_floor
from gezel_knowledge.reader.howto import asks_how, is_broad
from gezel_knowledge.reader.hybrid import (
    NAMED,
    RankedDocument,
    RankedPassage,
    copies_last,
    fuse_documents,
    with_cosines,
)
from gezel_knowledge.reader.models import Stage1
from gezel_knowledge.reader.spatial import Eligible, eligible_documents
from gezel_knowledge.reader.vectors import DEFAULT_FINAL_K, EXPLICIT_SHARD_BUDGET
from gezel_knowledge.reader.versions import names_version, older_version_ids
from gezel_knowledge.rerank import Reranker, rerank_depth, rerank_hits
from gezel_knowledge.results import (
    SEARCH_MODES,
    SearchMode,
    SearchResult,
    Semantic,
    SourceReport,
)
from gezk.profiles import EmbeddingProfile, same_vector_space
from gezk.spatial import RadiusQuery

__all__ = ["CatalogQuery", "Semantic", "embed_query", "search_catalog"]


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
    reranker: Reranker | None = None

    def check(self) -> None:
        """Refuse an unknown mode, a query with neither text nor radius, and a limit that
        could only ever give an empty result."""
        check_text(self.text, "the search query")
        if self.mode not in SEARCH_MODES:
            raise InvalidInput(f"unknown search mode {self.mode!r}", reason="invalid-mode")
        if not self.text.strip() and self.near is None:
            raise InvalidInput(
                "the search query is empty: give words to look for, a radius (near), or both",
                reason="empty-query",
            )
        check_count(self.k, "k")
        check_count(self.final_k, "final_k")
        if self.k < 1 or self.final_k < 1:
            raise InvalidInput("k and final_k must be positive", reason="invalid-limit")
        check_min_similarity(self.min_similarity)
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

PASSAGES_PER_DOCUMENT = 3
"""Passages asked of a list per document wanted: a document's passages often rank together."""

MAX_PASSAGE_QUERY_WORDS = 1024
"""Distinct words of a query the passage list looks at, at most (a bound on its work)."""

MAX_LIST_DEPTH = 4096
"""The deepest a passage list goes per shard (the stage-1 shortlist holds at most 4,096)."""


def _deeper(passages: Sequence[RankedPassage], depth: int, k: int) -> bool:
    """Whether a full list covers fewer than ``k`` documents and may go deeper: the documents
    it found have many matching passages each."""
    return depth < MAX_LIST_DEPTH and len({p.row.document_id for p in passages}) < k


class _Run:
    """The state of one search while its lists are gathered."""

    def __init__(self, store: CatalogStore, vectors: VectorSearch, q: CatalogQuery) -> None:
        self.store = store
        self.vectors = vectors
        self.q = q
        self.eligible: list[Eligible] | None = None
        self.searched: list[int] = []
        # Documents to fuse: k, or the pool a reranker chooses from.
        self.wanted = rerank_depth(q.k, q.reranker)

    @property
    def eligible_ids(self) -> list[str] | None:
        return None if self.eligible is None else [e.document_id for e in self.eligible]

    def floor(self) -> float | None:
        """The cosine below which a vector passage is no evidence."""
        q = self.q
        if q.min_similarity is not None:
            return q.min_similarity
        return cosine_floor(self.vectors.profile)

    def _vector_list(self, depth: int) -> list[RankedPassage]:
        q = self.q
        assert q.vector is not None
        floor = self.floor()
        while True:
            found, self.searched = self.vectors.passages(
                q.vector,
                shards=q.shards,
                shard_budget=q.shard_budget,
                final_k=depth,
                stage1=q.stage1,
                eligible=self.eligible_ids,
            )
            passages = found if floor is None else [p for p in found if p.score >= floor]
            # Deeper helps only while some shard filled its list above the floor.
            per_shard = Counter(p.row.shard_id for p in found)
            exhausted = len(passages) < len(found) or max(per_shard.values(), default=0) < depth
            if exhausted or not _deeper(passages, depth, self.wanted):
                return passages
            depth = min(MAX_LIST_DEPTH, 4 * depth)

    def _completed(
        self, vector: list[RankedPassage], keyword: Sequence[RankedPassage]
    ) -> list[RankedPassage]:
        """The vector list with the exact cosine of each keyword-found document it lacks (its
        best keyword passage's), in cosine order: the vector list is a shortlist of quantised
        scores, and a document it missed is not one without meaning. A cosine below the floor
        ranks its document in the fusion, measured against the passages above it, but is no
        vector signal (hybrid.fuse_documents); with no passage above the floor, none is added."""
        q = self.q
        assert q.vector is not None
        have = {p.row.document_id for p in vector}
        if not have:
            # No passage cleared the floor: cosines below it are no evidence by themselves.
            return vector
        lacking: dict[str, ChunkRow] = {}
        for p in keyword:
            if p.row.document_id not in have:
                lacking.setdefault(p.row.document_id, p.row)
        if not lacking:
            return vector
        cosines = self.vectors.passage_cosines(q.vector, list(lacking.values()))
        extra = [
            RankedPassage(row, cosines[(row.shard_id, row.chunk_id)]) for row in lacking.values()
        ]
        return sorted([*vector, *extra], key=lambda p: -p.score)

    def _keyword_list(
        self, terms: list[tuple[str, int]], shards: list[ShardInfo], depth: int
    ) -> list[RankedPassage]:
        while True:
            # Keyword mode weighs common words a little; hybrid leaves them to the vectors.
            idf = search_idf if self.q.mode == "keyword" else HYBRID_IDF
            passages = keyword_passages(
                self.store, terms, shards, depth, self.eligible_ids, idf=idf
            )
            if len(passages) < depth or not _deeper(passages, depth, self.wanted):
                return passages
            depth = min(MAX_LIST_DEPTH, 4 * depth)

    def lists(self, counted: list[tuple[str, int]]) -> Lists:
        """The ranked lists the query's mode asks for, from the query's distinct terms with
        their counts (:func:`~gezel_knowledge.query.query_term_counts`, all of them)."""
        terms = [term for term, _ in counted[:MAX_QUERY_TERMS]]
        q = self.q
        depth = max(q.final_k, PASSAGES_PER_DOCUMENT * self.wanted)
        lists: Lists = {}
        vector: list[RankedPassage] | None = None
        if q.wants_vectors:
            vector = lists[VECTOR] = self._vector_list(depth)
        if q.mode != "vector" and terms:
            eligible = self.eligible_ids
            lists[TITLE] = title_matches(self.store, terms, self.wanted, eligible)
            # Routed shards bound the passage search when vectors routed; otherwise all.
            routed = VECTOR in lists and eligible is None
            shards = (
                [self.store.shard(s) for s in self.searched] if routed else list(self.store.shards)
            )
            # Every distinct term with its count: the passage list keeps the most telling
            # ones itself (by IDF), so a pasted paragraph is not cut at its first words.
            passage_terms = counted[:MAX_PASSAGE_QUERY_WORDS]
            keyword = lists[KEYWORD] = self._keyword_list(passage_terms, shards, depth)
            if vector is not None:
                lists[VECTOR] = self._completed(vector, keyword)
            # Documents whose title the question names (a hint, weighed less: hybrid.py).
            lists[NAMED] = named_titles(self.store, terms, self.wanted, eligible)
            if not self.searched:
                self.searched = [s.id for s in shards]
        return lists

    def openings(
        self, vector: Sequence[RankedPassage], query: NDArray[np.float32] | None = None
    ) -> dict[str, float]:
        """The cosine of the opening passage (ordinal 0) of each document in the vector list
        whose best passage is another (hybrid.OPENING_SHARE), against ``query`` (by default the
        question's vector): one indexed read of their int8 rows per shard."""
        q = self.q
        assert q.vector is not None
        against = q.vector if query is None else query
        wanted: dict[int, dict[str, None]] = {}
        seen: set[str] = set()
        for p in vector:
            document = p.row.document_id
            if document not in seen:
                seen.add(document)
                if p.row.ordinal != 0:
                    wanted.setdefault(p.row.shard_id, {})[document] = None
        out: dict[str, float] = {}
        for shard_id, documents in wanted.items():
            out.update(self.vectors.opening_cosines(against, shard_id, list(documents)))
        return out

    def feedback(
        self, lists: Lists, fused: Sequence[Fused[str, ChunkRow]], preset: FusionPreset
    ) -> tuple[Lists, dict[str, float]] | None:
        """The lists with the vector list re-scored by the question moved towards the first
        fused documents' kept passages (reader.feedback), and the openings against that query;
        ``None`` when no feedback passage has a vector. The pool is the one gathered: one read
        of its int8 vectors, no shard scanned again."""
        q = self.q
        assert q.vector is not None
        vector = [p for p in lists.get(VECTOR, []) if isinstance(p, RankedPassage)]
        vectors = self.vectors.passage_vectors([p.row for p in vector])
        unit = self.vectors.unit_query(q.vector)
        moved = feedback_query(
            unit, fused, vectors, preset.feedback_documents, preset.feedback_share
        )
        if moved is None:
            return None
        again = rescored(vector, vectors, moved)
        return {**lists, VECTOR: again}, self.openings(again, moved.astype(np.float32))

    def marks(self, fused: Sequence[Fused[str, ChunkRow]]) -> dict[str, Signal]:
        """``keyword-only`` marks of the fused documents that the vector list, which ran, did
        not support: each with its passage's cosine (one int8 read per shard)."""
        q = self.q
        if not q.wants_vectors:
            return {}
        assert q.vector is not None
        unsupported = {
            f.key: f.item or self.store.first_chunk(f.key)
            for f in fused
            if not any(s.name == VECTOR for s in f.signals)
        }
        rows = [row for row in unsupported.values() if row is not None]
        cosines = self.vectors.passage_cosines(q.vector, rows)
        return {
            key: Signal(KEYWORD_ONLY, 0, cosines[(row.shard_id, row.chunk_id)] if row else 0.0)
            for key, row in unsupported.items()
        }

    def hit(
        self,
        rank: int,
        fused: Fused[str, ChunkRow],
        place: Eligible | None,
        mark: Signal | None = None,
    ) -> SearchHit:
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
            signals=fused.signals if mark is None else (*fused.signals, mark),
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


def _dated_pages(store: CatalogStore, text: str) -> Callable[[str], bool]:
    """What hybrid search weighs as dated: blog posts and changelogs (reader.dated) and, unless
    the question names a version itself, pages of an older documentation version
    (reader.versions)."""
    older = frozenset() if names_version(text) else older_version_ids(store)
    if not older:
        return is_dated
    return lambda document_id: document_id in older or is_dated(document_id)


def search_catalog(store: CatalogStore, vectors: VectorSearch, q: CatalogQuery) -> SearchResult:
    """Run ``q`` against one catalog."""
    q.check()
    # The question is split into terms once: its lists and its fusion weights use them.
    counted = query_term_counts(q.text, None)
    run = _Run(store, vectors, q)
    if q.near is not None:
        run.eligible = eligible_documents(store.router, store.schema, q.near)
    if not counted and not q.wants_vectors:
        # Nothing to rank by: radius discovery when there is a radius, else nothing.
        found = run.eligible or []
        discovered = [
            run.hit(i, Fused(e.document_id, 0.0, None, ()), e) for i, e in enumerate(found[: q.k])
        ]
        return run.result(discovered)
    if run.eligible is not None and not run.eligible:
        return run.result([])
    lists = run.lists(counted)
    # Hybrid search counts a document's second passage; vector search keeps cosine order.
    evidence = (cosine_floor(vectors.profile) or 0.0) if q.mode == "hybrid" else None
    # Hybrid search puts a documentation page before a dated one that answers as well, and a
    # page that opens near the question before one that touches it deep inside.
    dated = _dated_pages(store, q.text) if q.mode == "hybrid" else None
    vector = lists.get(VECTOR)
    openings = (
        run.openings([p for p in vector if isinstance(p, RankedPassage)])
        if q.mode == "hybrid" and vector
        else None
    )
    # A long question (a pasted paragraph) trusts its keyword lists more (fusion.for_question).
    preset = q.fusion.for_question(len(counted))
    # A how-to question is answered by its task's page before an API reference or a section's
    # landing page (reader.howto).
    broad = is_broad if q.mode == "hybrid" and asks_how(q.text) else None
    fused = fuse_documents(
        lists, preset, run.floor(), evidence, dated, openings=openings, broad=broad
    )
    if q.mode == "hybrid":
        # Copies of a page (another version of it) go after the other pages (hybrid.py).
        fused = copies_last(fused)
        if preset.feedback_documents > 0 and vector:
            # Pseudo-relevance feedback: the first fusion's best documents move the query and
            # the gathered vector list is scored again (reader.feedback); signals keep cosines.
            again = run.feedback(lists, fused, preset)
            if again is not None:
                moved, moved_openings = again
                # No floor here: with_cosines applies it to the true cosines.
                fused = fuse_documents(
                    moved, preset, None, evidence, dated, openings=moved_openings
                )
                first = [p for p in vector if isinstance(p, RankedPassage)]
                fused = copies_last(with_cosines(fused, first, run.floor()))
    fused = fused[: run.wanted]
    places = {e.document_id: e for e in run.eligible or []}
    marks = run.marks(fused)
    hits = [run.hit(i, f, places.get(f.key), marks.get(f.key)) for i, f in enumerate(fused)]
    if q.reranker is not None:
        return run.result(rerank_hits(q.reranker, q.text, hits, q.k), list(lists))
    return run.result(hits, list(lists))
