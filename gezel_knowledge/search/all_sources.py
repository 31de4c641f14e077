"""One search across every knowledge source of a session (seed "Scope, citations, and model
context").

The model-facing search tool searches the admitted workspace, the project's artifacts, project
memory, the session's gezel's memory, the shared library, and the reference catalogs, and can be
restricted to some sources or some catalog ids. :func:`search_all_sources` asks each source for
its own best hits (each ranks by its own fusion), then merges them with
:func:`~gezel_knowledge.hits.merge_hits`: calibrated relevance times a source-kind priority, so
the user's project content ranks above generic reference knowledge at equal rank.

A source that fails does not fail the search: its outcome says why (``failed``), and one whose
semantic half is unavailable (an embedder whose model files are missing, catalogs with no
embedder for their profile) still answers by keywords and says so (``degraded``). Hits keep
their provenance and citations, and their text is untrusted evidence.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, get_args

from gezel_knowledge.errors import InvalidInput, KnowledgeError
from gezel_knowledge.hits import SearchHit, merge_hits
from gezel_knowledge.indexes import ContentIndex, MemoryIndex, QueryVectors, sqlite_backend
from gezel_knowledge.search.knowledge_search import KnowledgeResults, KnowledgeSearch
from gezk.errors import GezkError

if TYPE_CHECKING:
    from gezel_knowledge.embedders.base import Embedder

__all__ = [
    "ALL_SOURCES",
    "SourceName",
    "SourceOutcome",
    "SourceStatus",
    "SourcesResults",
    "search_all_sources",
]

SourceName = Literal[
    "workspace", "artifacts", "project-memory", "gezel-memory", "library", "catalogs"
]
"""The sources a session's search can use (and a caller can restrict it to)."""

ALL_SOURCES: tuple[SourceName, ...] = get_args(SourceName)

SourceStatus = Literal["searched", "degraded", "failed", "unavailable"]
"""``searched``; ``degraded``: answered by keywords only; ``failed``: raised, nothing from it;
``unavailable``: not provided for this session (no index, no gezel name)."""

_FAILURES: tuple[type[BaseException], ...] = (KnowledgeError, GezkError, sqlite3.Error, OSError)


def _index_failures() -> tuple[type[BaseException], ...]:
    """The failures of a mutable index: ours, plus its SQLite binding's (maybe ``pysqlite3``)."""
    # Only called with an index in hand, so the binding is already chosen and cached.
    return (*_FAILURES, sqlite_backend().module.Error)


@dataclass(frozen=True, slots=True)
class SourceOutcome:
    """How one source took part in a search."""

    source: SourceName
    status: SourceStatus
    hits: int = 0
    """Hits this source contributed to the merged result."""
    reason: str | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class SourcesResults:
    """Merged hits of every searched source, best first, and each source's outcome."""

    query: str
    hits: tuple[SearchHit, ...]
    sources: tuple[SourceOutcome, ...]
    catalogs: KnowledgeResults | None = None
    """The catalog search's own result (per-catalog status, quarantines), when it ran."""

    @property
    def failures(self) -> tuple[SourceOutcome, ...]:
        """Sources that failed or answered by keywords only."""
        return tuple(s for s in self.sources if s.status in ("failed", "degraded"))

    def outcome(self, source: SourceName) -> SourceOutcome | None:
        """The outcome of one source, if it was requested."""
        for s in self.sources:
            if s.source == source:
                return s
        return None


@dataclass(slots=True)
class _Run:
    source: SourceName
    hits: list[SearchHit]
    status: SourceStatus = "searched"
    reason: str | None = None
    message: str | None = None


def _failure(source: SourceName, exc: BaseException) -> _Run:
    if isinstance(exc, KnowledgeError | GezkError):
        return _Run(source, [], "failed", exc.reason, exc.message)
    return _Run(source, [], "failed", type(exc).__name__, str(exc) or type(exc).__name__)


def _degraded(source: SourceName, hits: list[SearchHit], exc: BaseException) -> _Run:
    note = _failure(source, exc)
    return _Run(source, hits, "degraded", note.reason, f"keyword search only: {note.message}")


def _content(
    source: SourceName,
    index: ContentIndex,
    query: str,
    k: int,
    *,
    embedder: Embedder | None,
    vectors: QueryVectors | None,
    relabel: bool,
) -> _Run:
    failures = _index_failures()
    try:
        try:
            hits = index.search(query, k=k, embedder=embedder, query_vectors=vectors)
            run = _Run(source, hits)
        except failures as exc:
            if embedder is None:
                raise
            # The vector half failed (a model that cannot load): keywords still answer.
            run = _degraded(source, index.search(query, k=k), exc)
    except failures as exc:
        return _failure(source, exc)
    if relabel:
        run.hits = [replace(h, source_kind="library") for h in run.hits]
    return run


def _memory(
    source: SourceName,
    index: MemoryIndex,
    query: str,
    k: int,
    scopes: Sequence[str],
    *,
    vectors: QueryVectors | None,
) -> _Run:
    failures = _index_failures()
    try:
        try:
            return _Run(source, index.search(query, k=k, scopes=scopes, query_vectors=vectors))
        except failures as exc:
            if index.embedder is None:
                raise
            # The vector half failed (a model that cannot load): keywords still answer.
            return _degraded(
                source, index.search(query, k=k, scopes=scopes, keyword_only=True), exc
            )
    except failures as exc:
        return _failure(source, exc)


def _catalogs(
    search: KnowledgeSearch, query: str, k: int, catalog_ids: Sequence[str] | None
) -> tuple[_Run, KnowledgeResults | None]:
    try:
        results = search.search(query, k=k, catalogs=catalog_ids)
    except _FAILURES as exc:
        return _failure("catalogs", exc), None
    run = _Run("catalogs", list(results.hits))
    notes = [f"{c} searched by keywords only" for c in results.keyword_only]
    notes += [f"{key} was quarantined ({reason})" for key, reason in results.quarantined]
    if notes:
        run.status = "degraded"
        run.reason = "keyword-only" if results.keyword_only else "quarantined"
        run.message = "; ".join(notes)
    return run, results


def search_all_sources(
    query: str,
    *,
    workspace: ContentIndex | None = None,
    artifacts: ContentIndex | None = None,
    memory: MemoryIndex | None = None,
    library: ContentIndex | None = None,
    catalogs: KnowledgeSearch | None = None,
    embedder: Embedder | None = None,
    project: str | None = None,
    gezel: str | None = None,
    sources: Collection[SourceName] | None = None,
    catalog_ids: Sequence[str] | None = None,
    k: int = 10,
) -> SourcesResults:
    """Search every provided source (or those in ``sources``) and merge the hits, best first.

    ``embedder`` is the text embedder of the content indexes (workspace, artifacts, library);
    memory uses its own. Project memory is scope ``project`` (and ``project:<project>``); the
    gezel's memory is scope ``gezel:<gezel>``. ``catalog_ids`` restricts the catalog search
    (``publisher/catalog`` or unique ids); the catalog policy is the ``catalogs`` search's own.
    """
    if not query.strip():
        raise InvalidInput("the search query is empty", reason="empty-query")
    if k <= 0:
        raise InvalidInput("k must be positive", reason="invalid-limit")
    wanted = ALL_SOURCES if sources is None else tuple(sources)
    unknown = sorted(set(wanted) - set(ALL_SOURCES))
    if unknown:
        raise InvalidInput(
            f"unknown source(s) {', '.join(unknown)}; sources are {', '.join(ALL_SOURCES)}",
            reason="invalid-source",
            subject=unknown[0],
        )
    project_scopes = ["project"] + ([f"project:{project}"] if project else [])
    # Shared by the indexes: the query is embedded once per embedder, not once per index.
    indexes = (workspace, artifacts, memory, library)
    vectors = QueryVectors(query) if any(i is not None for i in indexes) else None

    def content(name: SourceName, index: ContentIndex, relabel: bool) -> Callable[[], _Run]:
        return lambda: _content(
            name, index, query, k, embedder=embedder, vectors=vectors, relabel=relabel
        )

    tasks: dict[SourceName, Callable[[], _Run] | str] = {
        "workspace": "no workspace index was provided"
        if workspace is None
        else content("workspace", workspace, relabel=False),
        "artifacts": "no artifacts index was provided"
        if artifacts is None
        else content("artifacts", artifacts, relabel=False),
        "project-memory": "no memory index was provided"
        if memory is None
        else lambda: _memory("project-memory", memory, query, k, project_scopes, vectors=vectors),
        "gezel-memory": "no memory index was provided"
        if memory is None
        else "no gezel was named for this session"
        if not gezel
        else lambda: _memory("gezel-memory", memory, query, k, [f"gezel:{gezel}"], vectors=vectors),
        "library": "no library index was provided"
        if library is None
        else content("library", library, relabel=True),
    }
    runs: list[_Run] = []
    catalog_results: KnowledgeResults | None = None
    for name in ALL_SOURCES:
        if name not in wanted:
            continue
        if name == "catalogs":
            if catalogs is None:
                runs.append(_Run(name, [], "unavailable", "not-provided", "no catalog search"))
            else:
                run, catalog_results = _catalogs(catalogs, query, k, catalog_ids)
                runs.append(run)
            continue
        task = tasks[name]
        if isinstance(task, str):
            runs.append(_Run(name, [], "unavailable", "not-provided", task))
        else:
            runs.append(task())
    origin = {id(h): r.source for r in runs for h in r.hits}
    merged = merge_hits(*(r.hits for r in runs), limit=k)
    counts: dict[SourceName, int] = {}
    for hit in merged:
        counts[origin[id(hit)]] = counts.get(origin[id(hit)], 0) + 1
    outcomes = tuple(
        SourceOutcome(r.source, r.status, counts.get(r.source, 0), r.reason, r.message)
        for r in runs
    )
    return SourcesResults(query, tuple(merged), outcomes, catalog_results)
