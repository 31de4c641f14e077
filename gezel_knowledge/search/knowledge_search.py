"""Search across the user's installed catalogs (seed "Two-stage catalog vector search",
"Hybrid ranking and selecting evidence", "Scope, citations, and model context").

For one question, :class:`KnowledgeSearch`:

1. takes the eligible catalogs: installed, enabled, not quarantined, admitted by the policy
   (and by an optional catalog filter), and mounts them; a catalog that fails to mount or
   reports corruption while searched is quarantined and the others carry on;
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
5. fuses per document as the reader does: three ranked lists, vector passages, title matches
   and passage keyword matches, with reciprocal rank fusion (``k = 60``, weights 1 / 1 / 0.5).
   Across catalogs, a vector list of one group is ordered by cosine (comparable within a
   space); lists that are not comparable across catalogs (BM25 from different corpora, cosines
   from different spaces) are merged by each catalog's own rank. With one catalog this is
   exactly the reader's own ranking.

Hits carry provenance (catalog id, version, archive digest) and a ``knowledge://`` citation;
their text is untrusted evidence.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.embedders import EmbedderResolution, resolve_query_embedder
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import IntegrityFailure, KnowledgeError
from gezel_knowledge.fusion import reciprocal_rank_fusion, relevance
from gezel_knowledge.hits import SearchHit, Signal
from gezel_knowledge.install.mount import MountFailed, mount, quarantine_error, read_reference
from gezel_knowledge.install.policy import CatalogPolicy, eligible_catalogs
from gezel_knowledge.install.registry import InstalledCatalog, catalog_key
from gezel_knowledge.install.state import HomeState
from gezel_knowledge.reader import (
    DEFAULT_FINAL_K,
    EXPLICIT_SHARD_BUDGET,
    PROACTIVE_SHARD_BUDGET,
    Catalog,
    Passage,
    SearchMode,
    cosine_floor,
    fts_match_expression,
)
from gezel_knowledge.reader.hybrid import KEYWORD, TITLE, VECTOR, WEIGHTS
from gezel_knowledge.search.proactive import (
    Depth,
    ProactiveSelection,
    estimate_tokens,
    select_proactive,
)
from gezk.profiles import EmbeddingProfile, same_vector_space
from gezk.spatial import RadiusQuery
from gezk.uri import KnowledgeUri

__all__ = [
    "CatalogSearchStatus",
    "EmbedderResolver",
    "KnowledgeResults",
    "KnowledgeSearch",
    "SemanticState",
]

EmbedderResolver = Callable[[EmbeddingProfile], EmbedderResolution]
"""Finds the query embedder of a profile (default: the shared, digest-verified embedders)."""

SemanticState = Literal["used", "not-routed", "unavailable", "off"]
"""``used``: vectors searched; ``not-routed``: the group's shard budget went to other catalogs;
``unavailable``: no embedder for the profile (keyword search only); ``off``: keyword mode or a
query without words."""


@dataclass(frozen=True, slots=True)
class CatalogSearchStatus:
    """How one catalog took part in a search."""

    catalog: str
    version: str
    archive_sha256: str
    profile: str
    semantic: SemanticState
    reason: str | None
    """Why semantic search was unavailable for this catalog, when it was."""
    shards_searched: tuple[int, ...]
    hits: int


@dataclass(frozen=True, slots=True)
class KnowledgeResults:
    """Fused hits across catalogs, how each catalog took part, and what was quarantined."""

    query: str
    mode: SearchMode
    hits: tuple[SearchHit, ...]
    catalogs: tuple[CatalogSearchStatus, ...]
    quarantined: tuple[tuple[str, str], ...] = ()
    """``(catalog, reason)`` of catalogs quarantined while answering this query."""

    @property
    def keyword_only(self) -> tuple[str, ...]:
        """Catalogs searched by keywords only because their profile has no embedder."""
        return tuple(c.catalog for c in self.catalogs if c.semantic == "unavailable")


@dataclass(slots=True)
class _Mounted:
    installed: InstalledCatalog
    catalog: Catalog

    @property
    def key(self) -> str:
        return self.installed.key

    @property
    def sha256(self) -> str:
        return self.installed.active_sha256 or ""


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
    reason: str | None


_SEARCH_FAILURES = (IntegrityFailure, sqlite3.DatabaseError)


class KnowledgeSearch:
    """Search the installed catalogs a policy admits; reuse mounted handles across queries."""

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
        self._lock = threading.RLock()

    # -- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close every mounted catalog."""
        with self._lock:
            for m in self._mounted.values():
                m.catalog.close()
            self._mounted.clear()

    def __enter__(self) -> KnowledgeSearch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- catalogs ----------------------------------------------------------------------------

    def _refresh(
        self, only: Sequence[str] | None, quarantined: list[tuple[str, str]]
    ) -> list[_Mounted]:
        """Mount what is eligible now; drop handles of catalogs that no longer are."""
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
                cause = exc.__cause__ or exc
                quarantined.append((installed.key, quarantine_error(cause)[0]))
                continue
            fresh = _Mounted(installed, catalog)
            self._mounted[installed.key] = fresh
            out.append(fresh)
        return out

    def _resolution(self, profile: EmbeddingProfile) -> EmbedderResolution:
        found = self._resolutions.get(profile)
        if found is None:
            found = self._resolve(profile)
            self._resolutions[profile] = found
        return found

    def _groups(self, mounted: Sequence[_Mounted]) -> tuple[list[_Group], dict[str, str]]:
        """Vector-space groups, and the reason for each catalog left without an embedder."""
        groups: list[_Group] = []
        unavailable: dict[str, str] = {}
        for m in mounted:
            profile = m.catalog.profile
            resolution = self._resolution(profile)
            embedder = resolution.embedder
            if embedder is None:
                unavailable[m.key] = resolution.message or (
                    f"no query embedder for {profile.id} ({resolution.reason})"
                )
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
        catalogs: Sequence[str] | None = None,
        near: RadiusQuery | None = None,
        proactive: bool = False,
        shard_budget: int | None = None,
        final_k: int = DEFAULT_FINAL_K,
        min_cosine: float | None = None,
    ) -> KnowledgeResults:
        """Search every eligible catalog and fuse the results per document, best first.

        ``catalogs`` restricts the search to some installed catalogs (``publisher/catalog``
        or unique ids). ``proactive`` uses the smaller proactive shard budget. ``min_cosine``
        replaces each profile's measured cosine floor for vector passages.
        """
        budget = shard_budget
        if budget is None:
            budget = PROACTIVE_SHARD_BUDGET if proactive else EXPLICIT_SHARD_BUDGET
        # A query without words is text-free radius discovery: no vectors, nothing to fuse.
        has_words = fts_match_expression(query) is not None
        quarantined: list[tuple[str, str]] = []
        with self._lock:
            mounted = self._refresh(catalogs, quarantined)
            semantic = mode != "keyword" and has_words
            plans = self._plan(query, mounted, budget, near, semantic=semantic)
            per_catalog: list[tuple[_Plan, tuple[SearchHit, ...], tuple[int, ...]]] = []
            depth = max(2 * k, 20)
            for plan in plans:
                m = plan.mounted
                try:
                    result = m.catalog.search_with_vector(
                        query,
                        plan.vector,
                        mode=mode,
                        k=depth,
                        near=near,
                        shards=plan.shards,
                        shard_budget=budget,
                        final_k=final_k,
                        min_cosine=min_cosine,
                    )
                except _SEARCH_FAILURES as exc:
                    self._quarantine(m, exc, quarantined)
                    continue
                per_catalog.append((plan, result.hits, result.shards_searched))
        if not has_words:
            hits = _nearest([h for _, catalog_hits, _ in per_catalog for h in catalog_hits], k)
        else:
            hits = _fuse([(p.group, p.mounted.key, h) for p, h, _ in per_catalog], k)
        counts: dict[str, int] = {}
        for hit in hits:
            counts[hit.source] = counts.get(hit.source, 0) + 1
        statuses = tuple(
            CatalogSearchStatus(
                catalog=p.mounted.key,
                version=p.mounted.catalog.version,
                archive_sha256=p.mounted.sha256,
                profile=p.mounted.catalog.profile.id,
                semantic=p.semantic,
                reason=p.reason,
                shards_searched=searched,
                hits=counts.get(p.mounted.key, 0),
            )
            for p, _, searched in per_catalog
        )
        return KnowledgeResults(query, mode, hits, statuses, tuple(quarantined))

    def _quarantine(
        self, m: _Mounted, exc: BaseException, quarantined: list[tuple[str, str]]
    ) -> None:
        reason, message = quarantine_error(exc)
        self.home.quarantine(m.key, m.sha256, reason, message)
        m.catalog.close()
        self._mounted.pop(m.key, None)
        quarantined.append((m.key, reason))

    def _plan(
        self,
        query: str,
        mounted: Sequence[_Mounted],
        budget: int,
        near: RadiusQuery | None,
        *,
        semantic: bool,
    ) -> list[_Plan]:
        if not semantic:
            return [_Plan(m, None, None, None, "off", None) for m in mounted]
        groups, unavailable = self._groups(mounted)
        plans: dict[str, _Plan] = {
            key: _Plan(m, None, None, None, "unavailable", unavailable[key])
            for m in mounted
            if (key := m.key) in unavailable
        }
        for index, group in enumerate(groups):
            try:
                vector = np.asarray(group.embedder.embed_queries([query]), dtype=np.float32)[0]
            except KnowledgeError as exc:
                for m in group.members:
                    plans[m.key] = _Plan(m, None, None, None, "unavailable", exc.message)
                continue
            if near is not None:
                # Spec 5.2.2: eligibility comes first. Each catalog scans the shards holding its
                # documents inside the radius, wherever centroid routing would have gone.
                for m in group.members:
                    plans[m.key] = _Plan(m, index, vector, None, "used", None)
                continue
            chosen = _route(group.members, vector, budget)
            for m in group.members:
                shards = chosen.get(m.key, [])
                if shards:
                    plans[m.key] = _Plan(m, index, vector, shards, "used", None)
                else:
                    plans[m.key] = _Plan(m, index, None, None, "not-routed", None)
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

        A hit qualifies when its vector passage cleared the measured cosine floor of its
        profile, or when title and passage keyword search both found its document. A profile
        without a measured floor contributes no vector-only evidence here.
        """
        results = self.search(query, k=10, catalogs=catalogs, proactive=True)
        floors: dict[str, float | None] = {}
        with self._lock:
            for key, m in self._mounted.items():
                floors[key] = cosine_floor(m.catalog.profile)

        def qualifies(hit: SearchHit) -> bool:
            names = {s.name for s in hit.signals}
            if VECTOR in names and floors.get(hit.source) is not None:
                return True
            return TITLE in names and KEYWORD in names

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
        uri = reference if isinstance(reference, KnowledgeUri) else KnowledgeUri.parse(reference)
        with self._lock:
            m = self._mounted.get(catalog_key(uri.publisher_id, uri.catalog_id))
            if m is not None:
                return m.catalog.read(uri)
        return read_reference(self.home, uri)


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


def _fuse(
    results: Sequence[tuple[int | None, str, tuple[SearchHit, ...]]], k: int
) -> tuple[SearchHit, ...]:
    """Rebuild the three ranked lists across catalogs and fuse them per document."""
    hits: dict[tuple[str, str], SearchHit] = {}
    entries: dict[str, list[tuple[tuple[float | int | str, ...], tuple[str, str]]]] = {
        VECTOR: [],
        TITLE: [],
        KEYWORD: [],
    }
    by_group: dict[int | None, list[tuple[float, str, int, tuple[str, str]]]] = {}
    for group, key, catalog_hits in results:
        for hit in catalog_hits:
            doc = (key, hit.document_id)
            hits[doc] = hit
            for s in hit.signals:
                if s.name == VECTOR:
                    by_group.setdefault(group, []).append((s.score, key, s.rank, doc))
                elif s.name in entries:
                    # BM25 from different corpora is not comparable: merge by catalog rank.
                    entries[s.name].append(((s.rank, -s.score, key, hit.document_id), doc))
    # Cosines compare within one vector space only; interleave groups by position.
    for order, group in enumerate(sorted(by_group, key=lambda g: -1 if g is None else g)):
        ranked = sorted(by_group[group], key=lambda t: (-t[0], t[1], t[2]))
        for position, (score, key, _, doc) in enumerate(ranked):
            entries[VECTOR].append(((position, order, -score, key, doc[1]), doc))
    names = [n for n in (VECTOR, TITLE, KEYWORD) if entries[n]]
    lists = [[doc for _, doc in sorted(entries[n], key=lambda e: e[0])] for n in names]
    fused = reciprocal_rank_fusion(lists, [WEIGHTS[n] for n in names])[:k]
    positions = {
        n: {doc: i for i, doc in enumerate(lst, start=1)}
        for n, lst in zip(names, lists, strict=True)
    }
    out: list[SearchHit] = []
    for rank, (doc, _) in enumerate(fused):
        hit = hits[doc]
        raw = {s.name: s.score for s in hit.signals}
        signals = tuple(Signal(n, positions[n][doc], raw[n]) for n in names if doc in positions[n])
        out.append(replace(hit, rank=rank, relevance=relevance(rank), signals=signals))
    return tuple(out)
