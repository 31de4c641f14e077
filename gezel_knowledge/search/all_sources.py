"""One search across every knowledge source of a session (seed "Scope, citations, and model
context").

The model-facing search tool searches the admitted workspace, the project's artifacts, project
memory, the session's gezel's memory, the shared library, and the reference catalogs, and can be
restricted to some sources or some catalog ids. :func:`search_all_sources` asks each source for
its own best hits through the :class:`~gezel_knowledge.searchable.Searchable` call (each ranks by
its own fusion), then merges them with :func:`~gezel_knowledge.hits.merge_hits`: calibrated
relevance times a source-kind priority, so the user's project content ranks above generic
reference knowledge at equal rank. The query is embedded once per embedder across the sources.

A source that fails does not fail the search: its report says why (``failed``), and one whose
semantic half is unavailable (an embedder whose model files are missing, catalogs with no
embedder for their profile) still answers by keywords and says so (``degraded``). Hits keep
their provenance and citations, and their text is untrusted evidence.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, get_args

from gezel_knowledge._untrusted import check_count, check_text
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.hits import SearchHit, SourceKind, merge_hits
from gezel_knowledge.indexes import ContentIndex, MemoryIndex, sqlite_backend
from gezel_knowledge.query import QueryVectors
from gezel_knowledge.results import (
    SearchMode,
    SearchResult,
    SemanticState,
    SourceReport,
    SourceStatus,
)
from gezel_knowledge.search.knowledge_search import KnowledgeSearch
from gezel_knowledge.searchable import Searchable
from gezk.errors import ReasonedError

__all__ = ["ALL_SOURCES", "SourceName", "search_all_sources"]

SourceName = Literal[
    "workspace", "artifacts", "project-memory", "gezel-memory", "library", "catalogs"
]
"""The sources a session's search can use (and a caller can restrict it to)."""

ALL_SOURCES: tuple[SourceName, ...] = get_args(SourceName)

_KINDS: dict[SourceName, SourceKind] = {
    "workspace": "workspace",
    "artifacts": "workspace",
    "project-memory": "memory",
    "gezel-memory": "memory",
    "library": "library",
    "catalogs": "catalog",
}

_FAILURES: tuple[type[BaseException], ...] = (ReasonedError, sqlite3.Error, OSError)


def _failures(source: Searchable) -> tuple[type[BaseException], ...]:
    """What a source may raise: ours, plus an index's SQLite binding's (maybe ``pysqlite3``)."""
    if isinstance(source, KnowledgeSearch):
        return _FAILURES
    # An index is in hand, so its binding is already chosen and cached.
    return (*_FAILURES, sqlite_backend().module.Error)


class _SearchCall(Protocol):
    """A source's search, its session filters (scopes, catalog ids) already applied."""

    def __call__(
        self,
        query: str,
        *,
        k: int = ...,
        mode: SearchMode = ...,
        query_vectors: QueryVectors | None = ...,
    ) -> SearchResult: ...


@dataclass(frozen=True, slots=True)
class _Task:
    """One source of the session and the call that searches it."""

    name: SourceName
    source: Searchable
    search: _SearchCall
    relabel: bool = False


def _failed(name: SourceName, exc: BaseException) -> SourceReport:
    if isinstance(exc, ReasonedError):
        reason, message = exc.reason, exc.message
    else:
        reason, message = type(exc).__name__, str(exc) or type(exc).__name__
    return SourceReport(name, _KINDS[name], "failed", reason=reason, message=message)


def _catalogs_summary(result: SearchResult) -> tuple[SourceStatus, str | None, str | None]:
    """The catalogs' status: degraded when some answered by keywords only, were quarantined, or
    failed for this call."""
    failed = [r for r in result.sources if r.status == "failed"]
    notes = [f"{c} searched by keywords only" for c in result.keyword_only]
    notes += [f"{key} was quarantined ({reason})" for key, reason in result.quarantined]
    notes += [f"{r.source} failed ({r.reason}: {r.message})" for r in failed]
    if not notes:
        return "searched", None, None
    reason: str | None = "keyword-only"
    if not result.keyword_only:
        reason = "quarantined" if result.quarantined else failed[0].reason
    return "degraded", reason, "; ".join(notes)


def _summary(name: SourceName, result: SearchResult) -> SourceReport:
    """The session's report of one source, holding the source's own reports as its parts."""
    parts = result.sources
    signals = tuple(dict.fromkeys(s for r in parts for s in r.signals))
    semantic: SemanticState = "off"
    if name == "catalogs":
        status, reason, message = _catalogs_summary(result)
        states = [r.semantic for r in parts]
        semantic = "used" if "used" in states else next(iter(states), "off")
    else:
        own = parts[0]
        status, semantic = own.status, own.semantic
        reason = message = None
        if own.status != "searched":
            reason, message = own.reason, f"keyword search only: {own.message}"
    return SourceReport(
        name, _KINDS[name], status, semantic, signals, reason=reason, message=message, parts=parts
    )


def _run(
    task: _Task, query: str, k: int, mode: SearchMode, vectors: QueryVectors
) -> tuple[SourceReport, list[SearchHit]]:
    failures = _failures(task.source)
    try:
        try:
            result = task.search(query, k=k, mode=mode, query_vectors=vectors)
            report = _summary(task.name, result)
        except failures as exc:
            if mode == "keyword":
                raise
            # The vector half may be what failed (a model that cannot load): keywords answer.
            result = task.search(query, k=k, mode="keyword")
            note = _failed(task.name, exc)
            report = replace(
                _summary(task.name, result),
                status="degraded",
                reason=note.reason,
                message=f"keyword search only: {note.message}",
            )
    except failures as exc:
        return _failed(task.name, exc), []
    hits = list(result.hits)
    if task.relabel:
        hits = [replace(h, source_kind="library") for h in hits]
    return report, hits


def _tasks(
    *,
    workspace: ContentIndex | None,
    artifacts: ContentIndex | None,
    memory: MemoryIndex | None,
    library: ContentIndex | None,
    catalogs: KnowledgeSearch | None,
    project: str | None,
    gezel: str | None,
    catalog_ids: Sequence[str] | None,
) -> dict[SourceName, _Task | str]:
    """Each source's task, or why it is unavailable."""
    tasks: dict[SourceName, _Task | str] = {
        "workspace": "no workspace index was provided",
        "artifacts": "no artifacts index was provided",
        "project-memory": "no memory index was provided",
        "gezel-memory": "no memory index was provided",
        "library": "no library index was provided",
        "catalogs": "no catalog search",
    }
    if workspace is not None:
        tasks["workspace"] = _Task("workspace", workspace, workspace.search)
    if artifacts is not None:
        tasks["artifacts"] = _Task("artifacts", artifacts, artifacts.search)
    if library is not None:
        tasks["library"] = _Task("library", library, library.search, relabel=True)
    if memory is not None:
        scopes = ["project"] + ([f"project:{project}"] if project else [])
        tasks["project-memory"] = _Task(
            "project-memory", memory, functools.partial(memory.search, scopes=scopes)
        )
        tasks["gezel-memory"] = (
            _Task(
                "gezel-memory", memory, functools.partial(memory.search, scopes=[f"gezel:{gezel}"])
            )
            if gezel
            else "no gezel was named for this session"
        )
    if catalogs is not None:
        tasks["catalogs"] = _Task(
            "catalogs", catalogs, functools.partial(catalogs.search, catalogs=catalog_ids)
        )
    return tasks


def search_all_sources(
    query: str,
    *,
    workspace: ContentIndex | None = None,
    artifacts: ContentIndex | None = None,
    memory: MemoryIndex | None = None,
    library: ContentIndex | None = None,
    catalogs: KnowledgeSearch | None = None,
    project: str | None = None,
    gezel: str | None = None,
    sources: Collection[SourceName] | None = None,
    catalog_ids: Sequence[str] | None = None,
    k: int = 10,
    mode: SearchMode = "hybrid",
) -> SearchResult:
    """Search every provided source (or those in ``sources``) and merge the hits, best first.

    Each source searches with its own query embedder. Project memory is scope ``project`` (and
    ``project:<project>``); the gezel's memory is scope ``gezel:<gezel>``. ``catalog_ids``
    restricts the catalog search (``publisher/catalog`` or unique ids); the catalog policy is
    the ``catalogs`` search's own. The result has one report per requested source, named as in
    :data:`ALL_SOURCES`, holding that source's own reports as its parts.
    """
    check_text(query, "the search query")
    if not query.strip():
        raise InvalidInput("the search query is empty", reason="empty-query")
    check_count(k, "k")
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
    tasks = _tasks(
        workspace=workspace,
        artifacts=artifacts,
        memory=memory,
        library=library,
        catalogs=catalogs,
        project=project,
        gezel=gezel,
        catalog_ids=catalog_ids,
    )
    # Shared by every source: the query is embedded once per embedder, not once per source.
    vectors = QueryVectors(query)
    runs: list[tuple[SourceReport, list[SearchHit]]] = []
    for name in ALL_SOURCES:
        if name not in wanted:
            continue
        task = tasks[name]
        if isinstance(task, str):
            note = SourceReport(
                name, _KINDS[name], "unavailable", reason="not-provided", message=task
            )
            runs.append((note, []))
        else:
            runs.append(_run(task, query, k, mode, vectors))
    origin = {id(h): report.source for report, hits in runs for h in hits}
    merged = merge_hits(*(hits for _, hits in runs), limit=k)
    counts: dict[str, int] = {}
    for hit in merged:
        counts[origin[id(hit)]] = counts.get(origin[id(hit)], 0) + 1
    reports = tuple(replace(r, hits=counts.get(r.source, 0)) for r, _ in runs)
    return SearchResult(query, mode, tuple(merged), reports)
