"""Search across the user's installed catalogs (seed "Two-stage catalog vector search",
"Hybrid ranking and selecting evidence", "Scope, citations, and model context").

For one question, :class:`KnowledgeSearch`:

1. takes the eligible catalogs: installed, enabled, not quarantined, admitted by the policy
   (and by an optional catalog filter), and mounts them; a catalog that fails to mount or
   reports corruption while searched is quarantined and the others carry on (a transient SQLite
   error while searched, such as an I/O error or an interrupt, fails it for this call only);
2. groups them by vector space: catalogs whose profiles describe the same space (spec 6.1,
   :func:`gezk.profiles.same_vector_space`) and resolve to the same loaded, digest-verified
   query embedder form one group, and the query is embedded once per group. A catalog whose
   profile has no available embedder is searched by keywords only, and the result says why;
3. spends a vector shard budget per group (six for explicit search, three for proactive):
   every shard of the group is scored by its best routing centroid and the best shards across
   the group's catalogs are scanned (all of them when they fit). A radius-filtered search
   (``near``) spends no budget: eligibility comes first (spec 5.2.2), so each catalog scans the
   shards that hold its documents inside the radius, and a catalog without subject locations
   (or a 0.5/0.6 catalog, which has none) contributes nothing and is not an error;
4. always runs keyword search (titles/summaries/aliases and passages) on every catalog;
5. fuses per document as the reader does: four ranked lists, vector passages, title matches,
   passage keyword matches and named titles (a quarter of the title list's weight), with
   :func:`~gezel_knowledge.fusion.fuse` (by default
   :data:`~gezel_knowledge.fusion.DEFAULT_FUSION`; in hybrid search a dated page weighs
   :data:`~gezel_knowledge.reader.dated.DATED_WEIGHT`), then lets an optional
   :class:`~gezel_knowledge.rerank.Reranker` reorder the best fused hits.
   Across catalogs, a vector list of one group is ordered by cosine (comparable within a
   space); lists that are not comparable across catalogs (BM25 from different corpora, cosines
   from different spaces) are merged by each catalog's own rank. When one catalog answers, its
   hits keep the reader's own ranking as they come (a rebuild from hits cannot see a
   document's second passage, which the reader's vector list counts).

Hits carry provenance (catalog id, version, archive digest) and a ``knowledge://`` citation;
their text is untrusted evidence. The result reports each catalog (how semantic search took
part, the shards searched, its hits) and each catalog quarantined on the way.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge._untrusted import check_count, check_text
from gezel_knowledge.embedders import EmbedderResolution, resolve_query_embedder
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import (
    IntegrityFailure,
    InvalidInput,
    KnowledgeError,
    ModelUnavailable,
    NotFound,
)
from gezel_knowledge.fusion import (
    DEFAULT_FUSION,
    KEYWORD,
    KEYWORD_ONLY,
    TITLE,
    VECTOR,
    FusionPreset,
    Ranked,
    fuse,
    relevance,
)
from gezel_knowledge.hits import Provenance, SearchHit, Signal
from gezel_knowledge.install.mount import MountFailed, mount, quarantine_error, read_reference
from gezel_knowledge.install.policy import CatalogPolicy, eligible_catalogs
from gezel_knowledge.install.registry import InstalledCatalog, catalog_key
from gezel_knowledge.install.state import HomeState
from gezel_knowledge.query import (
    QueryVectors,
    check_min_similarity,
    query_term_counts,
    query_vectors_for,
)
from gezel_knowledge.reader import (
    DEFAULT_FINAL_K,
    EXPLICIT_SHARD_BUDGET,
    PROACTIVE_SHARD_BUDGET,
    Catalog,
    Passage,
    proactive_floor,
)
from gezel_knowledge.reader.dated import DATED_WEIGHT, is_dated
from gezel_knowledge.reader.howto import HOWTO_WEIGHT, asks_how, is_broad
from gezel_knowledge.reader.hybrid import NAMED, NAMED_SHARE
from gezel_knowledge.rerank import Reranker, rerank_depth, rerank_hits
from gezel_knowledge.results import SearchMode, SearchResult, SemanticState, SourceReport
from gezel_knowledge.search.named import pick_catalog
from gezel_knowledge.search.proactive import (
    Depth,
    ProactiveSelection,
    estimate_tokens,
    select_proactive,
)
from gezk.profiles import EmbeddingProfile, same_vector_space
from gezk.spatial import RadiusQuery
from gezk.uri import KnowledgeUri

__all__ = ["EmbedderResolver", "KnowledgeSearch", "ServedCatalog"]

EmbedderResolver = Callable[[EmbeddingProfile], EmbedderResolution]
"""Finds the query embedder of a profile (default: the shared, digest-verified embedders)."""


@dataclass(frozen=True, slots=True)
class ServedCatalog:
    """A catalog a search covers: its coordinate, version, name, digest and profile."""

    key: str
    version: str
    name: str
    archive_sha256: str | None
    profile: str


@dataclass(slots=True)
class _Mounted:
    key: str
    sha256: str
    catalog: Catalog
    installed: InstalledCatalog | None = None
    """The registry entry; ``None`` for a catalog the caller opened (by path)."""

    @classmethod
    def of(cls, installed: InstalledCatalog, catalog: Catalog) -> _Mounted:
        return cls(installed.key, installed.active_sha256 or "", catalog, installed)


@dataclass(slots=True)
class _Group:
    profile: EmbeddingProfile
    embedder: Embedder
    members: list[_Mounted]


@dataclass(slots=True)
class _Plan:
    mounted: _Mounted
    group: int | None
    vector: NDArray[np.float32] | None
    shards: list[int] | None
    semantic: SemanticState
    reason: str | None = None
    message: str | None = None


_SEARCH_FAILURES = (IntegrityFailure, sqlite3.DatabaseError)


def _quarantined(key: str, reason: str, message: str) -> SourceReport:
    return SourceReport(key, "catalog", "quarantined", reason=reason, message=message)


def _failed(key: str, cause: BaseException) -> SourceReport:
    reason, message = quarantine_error(cause)
    return SourceReport(key, "catalog", "failed", reason=reason, message=message)


def _transient(exc: BaseException) -> sqlite3.OperationalError | None:
    """The SQLite ``OperationalError`` behind a search failure, if there is one.

    SQLite raises it for what goes wrong around a database rather than in it (an I/O error, an
    interrupt, a lock, no memory or disk): a failure of this call, not a damaged catalog, so it
    never quarantines. Corruption is a ``DatabaseError`` of another kind, or an integrity
    failure the reader found itself. A reader that types SQLite errors keeps them as the cause.
    """
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, sqlite3.OperationalError):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__
    return None


class KnowledgeSearch:
    """Search the installed catalogs a policy admits; reuse mounted handles across queries.

    :meth:`over` makes the same search over catalogs the caller opened (by path): they are
    grouped, routed and fused exactly as installed catalogs are, so the same catalogs give the
    same ranking however they were named.
    """

    def __init__(
        self,
        home: HomeState | None = None,
        *,
        policy: CatalogPolicy | None = None,
        resolve_embedder: EmbedderResolver | None = None,
    ) -> None:
        self.home = home or HomeState()
        self.policy = policy or CatalogPolicy.inherit()
        self._resolve = resolve_embedder or resolve_query_embedder
        self._resolutions: dict[EmbeddingProfile, EmbedderResolution] = {}
        self._mounted: dict[str, _Mounted] = {}
        self._fixed: tuple[_Mounted, ...] | None = None
        self._owns_fixed = False
        self._lock = threading.RLock()

    @classmethod
    def over(cls, catalogs: Sequence[Catalog], *, close: bool = True) -> KnowledgeSearch:
        """A search over catalogs opened by the caller, each with the query embedder it was
        opened with (``open_catalog(..., embedder=...)``; ``"auto"`` finds its profile's shared
        one). ``close``: :meth:`close` closes them too. Nothing of the Gezel home is read."""
        search = cls()
        fixed: dict[str, _Mounted] = {}
        for catalog in catalogs:
            key = catalog_key(catalog.publisher_id, catalog.id)
            if key in fixed:
                raise InvalidInput(
                    f"catalog {key} is named twice", reason="duplicate-catalog", subject=key
                )
            fixed[key] = _Mounted(key, catalog.archive_sha256 or "", catalog)
        search._fixed = tuple(fixed.values())
        search._owns_fixed = close
        return search

    @property
    def served(self) -> tuple[str, ...]:
        """``publisher/catalog`` of the catalogs opened by the caller (:meth:`over`); empty for
        a search of the installed catalogs."""
        return () if self._fixed is None else tuple(m.key for m in self._fixed)

    def catalogs_served(self) -> tuple[Catalog, ...]:
        """The catalogs opened by the caller (:meth:`over`); empty for installed catalogs."""
        return () if self._fixed is None else tuple(m.catalog for m in self._fixed)

    # -- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close every mounted catalog (and the caller's, when :meth:`over` was told so)."""
        with self._lock:
            for m in self._mounted.values():
                m.catalog.close()
            self._mounted.clear()
            if self._fixed is not None and self._owns_fixed:
                for m in self._fixed:
                    m.catalog.close()

    def __enter__(self) -> KnowledgeSearch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- catalogs ----------------------------------------------------------------------------

    def listing(self) -> tuple[ServedCatalog, ...]:
        """The catalogs a search without a filter covers now, by coordinate: the caller's
        (:meth:`over`), or the installed, enabled, unquarantined ones the policy admits."""
        if self._fixed is not None:
            return tuple(
                ServedCatalog(
                    m.key,
                    m.catalog.version,
                    m.catalog.manifest.name,
                    m.catalog.archive_sha256,
                    m.catalog.profile.id,
                )
                for m in self._fixed
            )
        served: list[ServedCatalog] = []
        for installed in eligible_catalogs(self.home.snapshot(), self.policy):
            active = installed.active
            if active is not None:
                served.append(
                    ServedCatalog(
                        installed.key,
                        active.version,
                        active.name,
                        active.archive_sha256,
                        active.embedding_profile,
                    )
                )
        return tuple(served)

    def provenance(self, key: str) -> Provenance | None:
        """The exact version and archive digest of the catalog ``publisher/catalog``, when it is
        served here."""
        if self._fixed is not None:
            found = next((m for m in self._fixed if m.key == key), None)
            return None if found is None else found.catalog.provenance()
        try:
            active = self.home.catalog(key).active
        except NotFound:
            return None
        if active is None:
            return None
        publisher, _, catalog = key.partition("/")
        return Provenance(publisher, catalog, active.version, active.archive_sha256)

    def _chosen_fixed(
        self, fixed: Sequence[_Mounted], only: Sequence[str] | None
    ) -> list[_Mounted]:
        if only is None:
            return list(fixed)
        wanted: set[str] = set()
        for ref in only:
            wanted.add(pick_catalog(ref, [m.catalog for m in fixed]))
        return [m for m in fixed if m.key in wanted]

    def _refresh(
        self, only: Sequence[str] | None, quarantined: list[SourceReport]
    ) -> list[_Mounted]:
        """Mount what is eligible now; drop handles of catalogs that no longer are."""
        if self._fixed is not None:
            return self._chosen_fixed(self._fixed, only)
        snapshot = self.home.snapshot()
        eligible = eligible_catalogs(snapshot, self.policy)
        if only is not None:
            wanted = {snapshot.find(ref).key for ref in only}
            eligible = [c for c in eligible if c.key in wanted]
        keep = {c.key: c for c in eligible}
        for key in list(self._mounted):
            m = self._mounted[key]
            current = keep.get(key)
            if current is None or current.active_sha256 != m.sha256:
                m.catalog.close()
                del self._mounted[key]
        out: list[_Mounted] = []
        for installed in eligible:
            existing = self._mounted.get(installed.key)
            if existing is not None:
                existing.installed = installed
                out.append(existing)
                continue
            try:
                catalog = mount(self.home, installed)
            except MountFailed as exc:
                reason, message = quarantine_error(exc.__cause__ or exc)
                quarantined.append(_quarantined(installed.key, reason, message))
                continue
            fresh = _Mounted.of(installed, catalog)
            self._mounted[installed.key] = fresh
            out.append(fresh)
        return out

    def _resolution(self, profile: EmbeddingProfile) -> EmbedderResolution:
        found = self._resolutions.get(profile)
        if found is None:
            found = self._resolve(profile)
            self._resolutions[profile] = found
        return found

    def _embedder(self, m: _Mounted) -> tuple[Embedder | None, str | None, str | None]:
        """The query embedder of a catalog: the one a caller's catalog was opened with, else the
        shared one of its profile; or ``None`` and why."""
        if m.installed is None:
            return m.catalog.query_embedder()
        resolution = self._resolution(m.catalog.profile)
        if resolution.embedder is not None:
            return resolution.embedder, None, None
        message = resolution.message or (
            f"no query embedder for {m.catalog.profile.id} ({resolution.reason})"
        )
        return None, resolution.reason, message

    def _groups(
        self, mounted: Sequence[_Mounted]
    ) -> tuple[list[_Group], dict[str, tuple[str | None, str]]]:
        """Vector-space groups, and ``(reason, message)`` for each catalog left without an
        embedder."""
        groups: list[_Group] = []
        unavailable: dict[str, tuple[str | None, str]] = {}
        for m in mounted:
            profile = m.catalog.profile
            embedder, reason, message = self._embedder(m)
            if embedder is None:
                unavailable[m.key] = (reason, message or f"no query embedder for {profile.id}")
                continue
            for group in groups:
                if group.embedder is embedder and same_vector_space(group.profile, profile):
                    group.members.append(m)
                    break
            else:
                groups.append(_Group(profile, embedder, [m]))
        return groups, unavailable

    # -- search ------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
        fusion: FusionPreset | None = None,
        query_vectors: QueryVectors | None = None,
        reranker: Reranker | None = None,
        catalogs: Sequence[str] | None = None,
        near: RadiusQuery | None = None,
        proactive: bool = False,
        shard_budget: int | None = None,
        final_k: int = DEFAULT_FINAL_K,
    ) -> SearchResult:
        """Search every eligible catalog and fuse the results per document, best first.

        ``catalogs`` restricts the search to some installed catalogs (``publisher/catalog``
        or unique ids). ``proactive`` uses the smaller proactive shard budget.
        ``min_similarity`` replaces each profile's measured cosine floor for vector passages;
        ``reranker`` reorders the best fused hits across catalogs. The result has one report
        per catalog searched or quarantined.
        """
        budget = _checked_budget(query, k, near, shard_budget, min_similarity, proactive=proactive)
        counted = query_term_counts(query, None)
        # The weights this question fuses with, chosen once by its distinct terms (a long
        # question trusts keywords more): each catalog fuses its lists with them, and so
        # does the fusion across catalogs (FusionPreset.for_question keeps a chosen preset).
        preset = (fusion or DEFAULT_FUSION).for_question(len(counted))
        wanted = rerank_depth(k, reranker)
        vectors = query_vectors_for(query, query_vectors)
        # A query without words is text-free radius discovery: no vectors, nothing to fuse.
        has_words = bool(counted)
        quarantined: list[SourceReport] = []
        failed: list[SourceReport] = []
        with self._lock:
            mounted = self._refresh(catalogs, quarantined)
            semantic = mode != "keyword" and has_words
            plans = self._plan(vectors, mounted, budget, near, semantic=semantic)
            if mode == "vector" and semantic and plans and all(p.vector is None for p in plans):
                # Vector mode has nothing else to answer with: an empty result would hide why.
                raise ModelUnavailable(
                    f"vector search is unavailable: {plans[0].message or plans[0].reason}",
                    reason="vector-search-unavailable",
                )
            answered: list[tuple[_Plan, SearchResult]] = []
            for plan in plans:
                try:
                    result = plan.mounted.catalog.search_with_vector(
                        query,
                        plan.vector,
                        mode=mode,
                        # Alone, a catalog's own top `wanted` is the answer (`k` means `k`).
                        k=wanted if len(plans) == 1 else max(2 * wanted, 20),
                        min_similarity=min_similarity,
                        fusion=preset,
                        near=near,
                        shards=plan.shards,
                        shard_budget=budget,
                        final_k=final_k,
                    )
                except _SEARCH_FAILURES as exc:
                    transient = _transient(exc)
                    if transient is None:
                        quarantined.append(self._quarantine(plan.mounted, exc))
                    else:
                        failed.append(_failed(plan.mounted.key, transient))
                    continue
                answered.append((plan, result))
        if has_words:
            hits = _fuse(
                [(p.group, p.mounted.key, r.hits) for p, r in answered],
                wanted,
                preset,
                dated=mode == "hybrid",
                howto=mode == "hybrid" and asks_how(query),
            )
            if reranker is not None:
                hits = rerank_hits(reranker, query, hits, k)
        else:
            hits = _nearest([h for _, r in answered for h in r.hits], k)
        counts: dict[str, int] = {}
        for hit in hits:
            counts[hit.source] = counts.get(hit.source, 0) + 1
        reports = [_report(p, r, counts.get(p.mounted.key, 0)) for p, r in answered]
        return SearchResult(query, mode, hits, (*reports, *failed, *quarantined))

    async def asearch(
        self,
        query: str,
        *,
        k: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
        fusion: FusionPreset | None = None,
        query_vectors: QueryVectors | None = None,
        reranker: Reranker | None = None,
        catalogs: Sequence[str] | None = None,
        near: RadiusQuery | None = None,
        proactive: bool = False,
        shard_budget: int | None = None,
        final_k: int = DEFAULT_FINAL_K,
    ) -> SearchResult:
        """:meth:`search` on a worker thread, so the caller's event loop never waits on the
        catalogs' SQLite work (seed: catalog work runs off the main loop). Concurrent calls are
        safe; they take turns on the mounted catalogs."""
        return await asyncio.to_thread(
            self.search,
            query,
            k=k,
            mode=mode,
            min_similarity=min_similarity,
            fusion=fusion,
            query_vectors=query_vectors,
            reranker=reranker,
            catalogs=catalogs,
            near=near,
            proactive=proactive,
            shard_budget=shard_budget,
            final_k=final_k,
        )

    def _quarantine(self, m: _Mounted, exc: BaseException) -> SourceReport:
        if m.installed is None:
            # A catalog the caller opened is not the home's to quarantine: it failed this call.
            return _failed(m.key, exc)
        reason, message = quarantine_error(exc)
        self.home.quarantine(m.key, m.sha256, reason, message)
        m.catalog.close()
        self._mounted.pop(m.key, None)
        return _quarantined(m.key, reason, message)

    def _plan(
        self,
        vectors: QueryVectors,
        mounted: Sequence[_Mounted],
        budget: int,
        near: RadiusQuery | None,
        *,
        semantic: bool,
    ) -> list[_Plan]:
        if not semantic:
            return [_Plan(m, None, None, None, "off") for m in mounted]
        groups, unavailable = self._groups(mounted)
        plans: dict[str, _Plan] = {
            m.key: _Plan(m, None, None, None, "unavailable", *unavailable[m.key])
            for m in mounted
            if m.key in unavailable
        }
        for index, group in enumerate(groups):
            try:
                vector = vectors.of(group.embedder)
            except KnowledgeError as exc:
                for m in group.members:
                    plans[m.key] = _Plan(
                        m, None, None, None, "unavailable", exc.reason, exc.message
                    )
                continue
            if near is not None:
                # Spec 5.2.2: eligibility comes first. Each catalog scans the shards holding its
                # documents inside the radius, wherever centroid routing would have gone.
                for m in group.members:
                    plans[m.key] = _Plan(m, index, vector, None, "used")
                continue
            chosen = _route(group.members, vector, budget)
            for m in group.members:
                shards = chosen.get(m.key, [])
                if shards:
                    plans[m.key] = _Plan(m, index, vector, shards, "used")
                else:
                    plans[m.key] = _Plan(m, index, None, None, "not-routed")
        return [plans[m.key] for m in mounted]

    # -- proactive ---------------------------------------------------------------------------

    def proactive(
        self,
        query: str,
        *,
        depth: Depth = "balanced",
        token_budget: int,
        count_tokens: Callable[[str], int] = estimate_tokens,
        catalogs: Sequence[str] | None = None,
    ) -> ProactiveSelection:
        """Catalog evidence for an unsolicited turn, within the depth's ceilings.

        Admission is stricter than explicit search (seed: "stricter admission rules for
        unsolicited catalog excerpts"). Where semantic search ran for a catalog, a hit
        qualifies only by a vector passage at or above its profile's proactive floor
        (:func:`~gezel_knowledge.reader.proactive_floor`), so an off-topic question sharing a
        few words with a catalog brings nothing. Where it could not run, a hit qualifies when
        its title, summary and aliases hold every query term and a passage matched too.
        """
        results = self.search(query, k=10, catalogs=catalogs, proactive=True)
        floors: dict[str, float | None] = {}
        with self._lock:
            for m in self._fixed if self._fixed is not None else self._mounted.values():
                floors[m.key] = proactive_floor(m.catalog.profile)
        semantic = {r.source: r.semantic == "used" for r in results.sources}

        def qualifies(hit: SearchHit) -> bool:
            vector = hit.signal(VECTOR)
            if semantic.get(hit.source, False):
                floor = floors.get(hit.source)
                return vector is not None and floor is not None and vector.score >= floor
            return hit.signal(TITLE) is not None and hit.signal(KEYWORD) is not None

        return select_proactive(
            results.hits,
            depth=depth,
            token_budget=token_budget,
            qualifies=qualifies,
            count_tokens=count_tokens,
        )

    # -- read --------------------------------------------------------------------------------

    def read(self, reference: str | KnowledgeUri) -> Passage:
        """Resolve a ``knowledge://`` reference through the installed catalogs."""
        if isinstance(reference, str):
            check_text(reference, "the reference")
        uri = reference if isinstance(reference, KnowledgeUri) else KnowledgeUri.parse(reference)
        key = catalog_key(uri.publisher_id, uri.catalog_id)
        if self._fixed is not None:
            found = next((m for m in self._fixed if m.key == key), None)
            if found is None:
                raise NotFound(
                    f"catalog {key} is not served here (served: {', '.join(self.served)})",
                    reason="catalog-not-found",
                    subject=key,
                )
            return found.catalog.read(uri)
        with self._lock:
            m = self._mounted.get(key)
            if m is not None:
                return m.catalog.read(uri)
        return read_reference(self.home, uri)

    async def aread(self, reference: str | KnowledgeUri) -> Passage:
        """:meth:`read` on a worker thread."""
        return await asyncio.to_thread(self.read, reference)


def _route(
    members: Sequence[_Mounted], vector: NDArray[np.float32], budget: int
) -> dict[str, list[int]]:
    """Spend ``budget`` shards across a group: all when they fit, else the best centroids."""
    populated = {m.key: [s.id for s in m.catalog.shards if s.chunk_count > 0] for m in members}
    if sum(len(v) for v in populated.values()) <= budget:
        return populated
    scored: list[tuple[float, str, int]] = []
    for m in members:
        scored += [(score, m.key, sid) for sid, score in m.catalog.score_shards(vector)]
    scored.sort(key=lambda t: (-t[0], t[1], t[2]))
    chosen: dict[str, list[int]] = {}
    for _, key, sid in scored[: max(0, budget)]:
        chosen.setdefault(key, []).append(sid)
    return chosen


def _nearest(hits: Sequence[SearchHit], k: int) -> tuple[SearchHit, ...]:
    """Discovery hits of several catalogs ordered by distance, then catalog and document, one
    per document."""
    unique = {(h.source, h.document_id): h for h in hits}
    ordered = sorted(
        unique.values(),
        key=lambda h: (
            h.distance_meters if h.distance_meters is not None else float("inf"),
            h.source,
            h.document_id,
        ),
    )[:k]
    return tuple(replace(h, rank=rank, relevance=relevance(rank)) for rank, h in enumerate(ordered))


def _report(plan: _Plan, result: SearchResult, hits: int) -> SourceReport:
    """The catalog's own report, with how this search's plan let vectors take part."""
    own = result.sources[0]
    return replace(
        own,
        status="degraded" if plan.semantic == "unavailable" else "searched",
        semantic=plan.semantic,
        reason=plan.reason,
        message=plan.message,
        hits=hits,
    )


def _checked_budget(
    query: str,
    k: int,
    near: RadiusQuery | None,
    shard_budget: int | None,
    min_similarity: float | None,
    *,
    proactive: bool,
) -> int:
    """The shard budget of a search, after refusing a search that could find nothing."""
    check_text(query, "the search query")
    if not query.strip() and near is None:
        raise InvalidInput(
            "the search query is empty: give words to look for, a radius (near), or both",
            reason="empty-query",
        )
    check_count(k, "k")
    if k < 1:
        raise InvalidInput(f"k must be positive (got {k})", reason="invalid-limit")
    check_min_similarity(min_similarity)
    budget = shard_budget
    if budget is None:
        budget = PROACTIVE_SHARD_BUDGET if proactive else EXPLICIT_SHARD_BUDGET
    if budget < 1:
        raise InvalidInput(
            f"the shard budget must be at least 1 (got {budget}): no shard could be searched",
            reason="invalid-limit",
            subject=str(budget),
        )
    return budget


def _fuse(
    results: Sequence[tuple[int | None, str, Sequence[SearchHit]]],
    k: int,
    preset: FusionPreset,
    *,
    dated: bool = False,
    howto: bool = False,
) -> tuple[SearchHit, ...]:
    """Rebuild the ranked lists across catalogs and fuse them per document (a dated page's
    fused score weighed by :data:`~gezel_knowledge.reader.dated.DATED_WEIGHT` when ``dated``,
    an API reference's or a landing page's by :data:`~gezel_knowledge.reader.howto.HOWTO_WEIGHT`
    when ``howto``: the question asks how to do something); with hits from one catalog only,
    that catalog's own order."""
    answering = [hits for _, _, hits in results if hits]
    if len(answering) == 1:
        # The catalog fused its lists with what a rebuild from hits cannot see (a document's
        # second passage, the named-title weight, dated pages): its order stands as it is.
        return tuple(
            replace(hit, rank=rank, relevance=relevance(rank))
            for rank, hit in enumerate(answering[0][:k])
        )
    Entry = tuple[tuple[float | int | str, ...], Ranked[tuple[str, str], SearchHit]]
    entries: dict[str, list[Entry]] = {VECTOR: [], TITLE: [], KEYWORD: [], NAMED: []}
    by_group: dict[int | None, list[tuple[float, str, int, SearchHit]]] = {}
    for group, key, catalog_hits in results:
        for hit in catalog_hits:
            for s in hit.signals:
                if s.name == VECTOR:
                    by_group.setdefault(group, []).append((s.score, key, s.rank, hit))
                elif s.name in entries:
                    # BM25 from different corpora is not comparable: merge by catalog rank.
                    ranked = Ranked((key, hit.document_id), s.score, hit)
                    entries[s.name].append(((s.rank, -s.score, key, hit.document_id), ranked))
    # Cosines compare within one vector space only; interleave groups by position.
    for order, group in enumerate(sorted(by_group, key=lambda g: -1 if g is None else g)):
        in_group = sorted(by_group[group], key=lambda t: (-t[0], t[1], t[2]))
        for position, (score, key, _, hit) in enumerate(in_group):
            ranked = Ranked((key, hit.document_id), score, hit)
            entries[VECTOR].append(((position, order, -score, key, hit.document_id), ranked))
    lists = {
        name: [r for _, r in sorted(found, key=lambda e: e[0])] for name, found in entries.items()
    }
    # The named-title list weighs a share of the title list's, as in each catalog (hybrid.py).
    weights = {**preset.weights, NAMED: preset.weight(TITLE) * NAMED_SHARE}
    fused = fuse(lists, replace(preset, weights=MappingProxyType(weights)))
    if dated:
        fused = [
            replace(f, score=f.score * DATED_WEIGHT) if is_dated(f.key[1]) else f for f in fused
        ]
    if howto:
        fused = [
            replace(f, score=f.score * HOWTO_WEIGHT) if is_broad(f.key[1]) else f for f in fused
        ]
    if dated or howto:
        fused.sort(key=lambda f: -f.score)
    fused = fused[:k]
    return tuple(
        replace(f.item, rank=rank, relevance=relevance(rank), signals=_marked(f.signals, f.item))
        for rank, f in enumerate(fused)
        if f.item is not None
    )


def _marked(signals: tuple[Signal, ...], hit: SearchHit) -> tuple[Signal, ...]:
    """The fused signals, keeping the catalog's ``keyword-only`` mark."""
    mark = hit.signal(KEYWORD_ONLY)
    return signals if mark is None else (*signals, mark)
