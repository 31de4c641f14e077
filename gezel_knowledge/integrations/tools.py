"""What the agent tools do, as plain methods returning text for a model.

Gezel gives its model ``search``, ``read_document``, ``knowledge_nearby`` and memory tools;
:class:`KnowledgeTools` implements them over catalogs (a
:class:`~gezel_knowledge.search.KnowledgeSearch` of the installed ones, or of catalogs named by
path, searched the same way) and a
:class:`~gezel_knowledge.indexes.MemoryIndex`. :mod:`gezel_knowledge.integrations.mcp` serves
them over MCP; they need no MCP library and are tested as they are.

Every answer is text framed as untrusted evidence with provenance, within a token budget
(:mod:`~gezel_knowledge.integrations.evidence`). Calls may arrive on several threads at once: the
catalog searches serialise their own SQLite work, and the memory index, one SQLite connection,
is used under a lock here.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.hits import Provenance, SourceKind, merge_hits
from gezel_knowledge.indexes import MEMORY_KINDS, MemoryEntry, MemoryIndex, check_memory_text
from gezel_knowledge.install.state import HomeState
from gezel_knowledge.integrations.evidence import (
    DEFAULT_MAX_TOKENS,
    Budget,
    render_memories,
    render_passage,
    render_result,
)
from gezel_knowledge.integrations.sources import check_query, text_problem
from gezel_knowledge.reader import Catalog, Passage
from gezel_knowledge.results import SearchMode, SearchResult, SourceReport
from gezel_knowledge.search import ALL_SOURCES, KnowledgeSearch, SourceName, search_all_sources
from gezel_knowledge.search.named import open_named, resolve_catalog
from gezk.spatial import RadiusQuery
from gezk.uri import KnowledgeUri

__all__ = ["KnowledgeTools", "Radius", "open_tools"]

_DAY_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")


@dataclass(frozen=True, slots=True)
class Radius:
    """A circle on the earth: centre latitude and longitude in degrees, radius in metres."""

    latitude: float
    longitude: float
    meters: float

    def query(self) -> RadiusQuery:
        """The reader's radius query (validated: coordinates in range, radius finite)."""
        return RadiusQuery(self.latitude, self.longitude, self.meters).validate()


def _check_results(max_results: int) -> int:
    if isinstance(max_results, bool) or not 1 <= max_results <= 100:
        raise InvalidInput(
            f"maxResults must be 1 to 100, got {max_results}", reason="invalid-limit"
        )
    return max_results


class KnowledgeTools:
    """Gezel's knowledge tools over catalogs and memory; each returns framed, budgeted text."""

    def __init__(
        self,
        catalogs: KnowledgeSearch,
        memory: MemoryIndex | None = None,
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        self.catalogs = catalogs
        self.memory = memory
        self.budget = Budget(max_tokens)
        self._memory_lock = threading.Lock()

    def close(self) -> None:
        """Close the catalogs and the memory index."""
        self.catalogs.close()
        if self.memory is not None:
            self.memory.close()

    @property
    def served_sources(self) -> tuple[SourceName, ...]:
        """What a search without ``sources`` covers: project memory (when memory is served)
        and the catalogs."""
        if self.memory is None:
            return ("catalogs",)
        return ("project-memory", "catalogs")

    def _budget(self, max_tokens: int | None) -> Budget:
        return self.budget if max_tokens is None else Budget(max_tokens, self.budget.count)

    # -- catalogs ----------------------------------------------------------------------------

    def search_result(
        self,
        query: str,
        *,
        sources: Sequence[str] | None = None,
        catalogs: Sequence[str] | None = None,
        max_results: int = 10,
        radius: Radius | None = None,
        mode: SearchMode = "hybrid",
    ) -> SearchResult:
        """The result :meth:`search` renders: memory and catalogs merged by source priority.

        Without ``sources``, the served ones (:attr:`served_sources`); a named source this
        server does not have (a workspace, the library) is reported unavailable.
        """
        query = check_query(query)
        k = _check_results(max_results)
        wanted = self.served_sources if sources is None else self._sources(sources)
        near = None if radius is None else radius.query()
        if not query.strip() and near is None:
            raise InvalidInput("the search query is empty", reason="empty-query")
        parts: list[SearchResult] = []
        others = [name for name in wanted if name != "catalogs"]
        if others and near is None:
            with self._memory_lock:
                if self.memory is not None:
                    self.memory.sync()
                parts.append(
                    search_all_sources(query, memory=self.memory, sources=others, k=k, mode=mode)
                )
        elif others:
            parts.append(_unserved(query, mode, others, "a radius search covers catalogs only"))
        if "catalogs" in wanted:
            found = self.catalogs.search(query, k=k, mode=mode, catalogs=catalogs, near=near)
            parts.append(_as_catalogs_source(found))
        hits = tuple(merge_hits(*(p.hits for p in parts), limit=k))
        reports = {r.source: r for p in parts for r in p.sources}
        ordered = tuple(reports[name] for name in ALL_SOURCES if name in reports)
        return SearchResult(query, mode, hits, ordered)

    def search(
        self,
        query: str,
        *,
        sources: Sequence[str] | None = None,
        catalogs: Sequence[str] | None = None,
        max_results: int = 10,
        radius: Radius | None = None,
        max_tokens: int | None = None,
    ) -> str:
        """Search the catalogs and memory (or ``sources``), optionally within a radius."""
        budget = self._budget(max_tokens)
        result = self.search_result(
            query, sources=sources, catalogs=catalogs, max_results=max_results, radius=radius
        )
        wanted = self.served_sources if sources is None else self._sources(sources)
        return render_result(result, budget, empty=self._why_empty(wanted))

    def _why_empty(self, wanted: Sequence[str]) -> str | None:
        """Why a search found nothing when it is because nothing is there to search."""
        if "catalogs" not in wanted or self.catalogs.listing():
            return None
        none = "No catalogs are installed, so no catalog was searched"
        if self.memory is not None and len(wanted) > 1:
            none += " (memory was, and has nothing on this)"
        return none + ". " + _INSTALL_HINT

    def list_catalogs(self) -> str:
        """The catalogs a search covers, one line each (or that there are none)."""
        served = self.catalogs.listing()
        if not served:
            return "No catalogs are installed. " + _INSTALL_HINT
        lines = [f"{len(served)} catalog(s) searched by this server:"]
        for c in served:
            digest = f", archive sha256 {c.archive_sha256}" if c.archive_sha256 else ""
            lines.append(f"- {c.key} version {c.version}: {c.name} ({c.profile}{digest})")
        return self.budget.within(lines)

    def _sources(self, sources: Sequence[str]) -> tuple[SourceName, ...]:
        """``sources`` in order, each one this server serves; else ``invalid-source``."""
        served = self.served_sources
        unknown = sorted(set(sources) - set(served))
        if unknown:
            raise InvalidInput(
                f"unknown source(s) {', '.join(unknown)}; this server serves {', '.join(served)}",
                reason="invalid-source",
                subject=unknown[0],
            )
        return tuple(name for name in served if name in sources)

    def knowledge_nearby(
        self,
        latitude: float,
        longitude: float,
        radius_meters: float,
        *,
        catalogs: Sequence[str] | None = None,
        max_results: int = 10,
        max_tokens: int | None = None,
    ) -> str:
        """Catalog documents about places within the radius, nearest first."""
        budget = self._budget(max_tokens)
        near = Radius(latitude, longitude, radius_meters).query()
        found = self.catalogs.search(
            "", k=_check_results(max_results), mode="keyword", catalogs=catalogs, near=near
        )
        subject = f" near ({near.latitude}, {near.longitude}) within {near.radius_meters:g} m"
        return render_result(found, budget, subject=subject, empty=self._why_empty(["catalogs"]))

    def read_passage(self, uri: str) -> Passage:
        """The passage, lines or document a ``knowledge://`` reference names."""
        problem = text_problem(uri, "the uri")
        if problem is not None:
            raise InvalidInput(problem, reason="invalid-reference")
        return self.catalogs.read(KnowledgeUri.parse(uri))

    def read_document(self, uri: str, *, max_tokens: int | None = None) -> str:
        """Read a ``knowledge://`` reference (``#line=a-b`` or ``#chunk=<uid>``)."""
        budget = self._budget(max_tokens)
        passage = self.read_passage(uri)
        return render_passage(passage, budget, provenance=self._origin(uri))

    def _origin(self, uri: str) -> Provenance | None:
        ref = KnowledgeUri.parse(uri)
        return self.catalogs.provenance(f"{ref.publisher_id}/{ref.catalog_id}")

    # -- memory ------------------------------------------------------------------------------

    def _memory(self) -> MemoryIndex:
        if self.memory is None:
            raise InvalidInput("memory is not served here", reason="memory-unavailable")
        return self.memory

    def search_memory(
        self,
        query: str,
        *,
        max_results: int = 10,
        scopes: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
        max_tokens: int | None = None,
    ) -> str:
        """Recall memory notes (facts, decisions, preferences, status) about ``query``."""
        query = check_query(query)
        budget = self._budget(max_tokens)
        memory = self._memory()
        with self._memory_lock:
            memory.sync()
            result = memory.search(query, k=_check_results(max_results), scopes=scopes, kinds=kinds)
        return render_result(result, budget)

    def save_memory(self, text: str, *, kind: str = "fact", scope: str = "project") -> str:
        """Append a note to today's memory file; say where it went. The note reads back
        exactly as given (at most 64 KiB of UTF-8)."""
        check_memory_text(text)
        memory = self._memory()
        with self._memory_lock:
            entry = memory.add(text, kind=kind, scope=scope)
        where = f"memory/{entry.date}.md#line={entry.line_start}-{entry.line_end}"
        return f"Remembered ({entry.kind}, scope {entry.scope}) at {where}."

    def list_memories(
        self,
        *,
        days: int = 7,
        scope: str | None = None,
        kind: str | None = None,
        max_results: int = 50,
        max_tokens: int | None = None,
    ) -> str:
        """The newest memory notes of the last ``days`` daily files, newest first."""
        if isinstance(days, bool) or not 1 <= days <= 366:
            raise InvalidInput(f"days must be 1 to 366, got {days}", reason="invalid-days")
        if kind is not None and kind not in MEMORY_KINDS:
            raise InvalidInput(
                f"kind must be one of {', '.join(MEMORY_KINDS)}, got {kind!r}",
                reason="invalid-kind",
            )
        memory = self._memory()
        with self._memory_lock:
            names = sorted(
                (p.name for p in memory.folder.glob("*.md") if _DAY_FILE.match(p.name)),
                reverse=True,
            )[:days]
            found: list[tuple[str, MemoryEntry]] = []
            for name in names:
                entries = memory.entries(date.fromisoformat(name[:-3]))
                found += [(name, e) for e in reversed(entries)]
        found = [
            (name, e)
            for name, e in found
            if (scope is None or e.scope == scope) and (kind is None or e.kind == kind)
        ]
        limit = _check_results(max_results)
        return render_memories(found[:limit], self._budget(max_tokens), total=len(found[:limit]))

    # -- resources ---------------------------------------------------------------------------

    def document_text(self, uri: str) -> str:
        """A whole document's Markdown, as a resource (not budgeted, not framed)."""
        reference = KnowledgeUri.parse(uri)
        if reference.chunk is not None or reference.line_start is not None:
            raise InvalidInput(
                "a document resource names a whole document", reason="invalid-reference"
            )
        return self.read_passage(uri).text


def open_tools(
    catalog_paths: Sequence[str | os.PathLike[str]] = (),
    *,
    home: Path | str | None = None,
    memory: bool = True,
    memory_embedder: Embedder | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> KnowledgeTools:
    """The tools over the installed catalogs of the Gezel home, or over the catalogs named by
    ``catalog_paths`` (each opened with its profile's shared query embedder and searched as
    installed catalogs are), and the home's memory."""
    catalogs: KnowledgeSearch
    if catalog_paths:
        opened: list[Catalog] = []
        try:
            for path in catalog_paths:
                opened.append(open_named(resolve_catalog(path, home=home), embedder="auto"))
            catalogs = KnowledgeSearch.over(opened)
        except BaseException:
            for catalog in opened:
                catalog.close()
            raise
    else:
        catalogs = KnowledgeSearch(HomeState(home))
    index = MemoryIndex(home, embedder=memory_embedder) if memory else None
    return KnowledgeTools(catalogs, index, max_tokens=max_tokens)


_INSTALL_HINT = (
    "The user can add one with 'gezel-knowledge install CATALOG.gezk' (or serve files with "
    "'gezel-knowledge mcp --catalog PATH')."
)


_KINDS: dict[str, SourceKind] = {"library": "library", "workspace": "workspace"}


def _unserved(query: str, mode: SearchMode, names: Sequence[str], why: str) -> SearchResult:
    reports = tuple(
        SourceReport(
            name,
            _KINDS.get(name, "memory" if name.endswith("memory") else "workspace"),
            "unavailable",
            reason="not-searched",
            message=why,
        )
        for name in names
    )
    return SearchResult(query, mode, (), reports)


def _as_catalogs_source(result: SearchResult) -> SearchResult:
    """The catalogs' result as one ``catalogs`` source holding each catalog's report."""
    degraded = result.keyword_only or result.quarantined
    states = [r.semantic for r in result.sources]
    report = SourceReport(
        "catalogs",
        "catalog",
        "degraded" if degraded else "searched",
        "used" if "used" in states else next(iter(states), "off"),
        result.signals,
        hits=len(result.hits),
        reason=("keyword-only" if result.keyword_only else "quarantined") if degraded else None,
        message=result.semantic_unavailable if result.keyword_only else None,
        parts=result.sources,
    )
    return replace(result, sources=(report,))
