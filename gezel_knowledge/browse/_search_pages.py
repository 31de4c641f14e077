"""The Search page, ``/cite`` (a ``knowledge://`` reference opened at its passage) and the
Memory page.

Search is the library's own: every served catalog through ``KnowledgeSearch`` (installed, or
``KnowledgeSearch.over`` for catalogs named by path), one catalog through its own ``search``. A
page of results is the first ``page * 10`` hits of that search, the last ten shown; nothing is
re-ranked here.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from gezel_knowledge.browse._context import Browser
from gezel_knowledge.browse._respond import Page, form_value, wants_json
from gezel_knowledge.browse._snippets import marked_snippet
from gezel_knowledge.browse._urls import document_url, search_url
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.fusion import KEYWORD, KEYWORD_ONLY, TITLE, VECTOR
from gezel_knowledge.hits import SearchHit
from gezel_knowledge.indexes import MemoryIndex
from gezel_knowledge.reader.hybrid import NAMED
from gezel_knowledge.results import SEARCH_MODES, SearchMode

__all__ = ["cite_response", "memory_page", "search_page"]

PER_PAGE = 10
MAX_PAGES = 20
MODES: dict[str, str] = {"hybrid": "hybrid", "vector": "meaning", "keyword": "words"}
"""Each search mode and the name the page gives it."""
_LABELS = {VECTOR: "meaning", TITLE: "title", KEYWORD: "keywords", NAMED: "title named"}


def found_by(hit: SearchHit) -> list[str]:
    """How a hit was found, in words: ``meaning #1 (cosine 0.66)``, ``keywords #3``."""
    out: list[str] = []
    for signal in hit.signals:
        if signal.name == KEYWORD_ONLY:
            out.append(f"words only (cosine {signal.score:.2f}, below the floor)")
            continue
        label = f"{_LABELS.get(signal.name, signal.name)} #{signal.rank}"
        if signal.name == VECTOR:
            label += f" (cosine {signal.score:.2f})"
        out.append(label)
    return out


def _hit_row(hit: SearchHit, query: str, position: int) -> dict[str, Any]:
    lines = None
    if hit.line_start is not None:
        lines = (hit.line_start, hit.line_end or hit.line_start)
    url = None
    if hit.source_kind == "catalog":
        url = document_url(hit.source, hit.document_id, lines)
    return {
        "position": position,
        "title": hit.title,
        "source": hit.source,
        "section": list(hit.section_path),
        "snippet": marked_snippet(hit.text, query),
        "foundBy": found_by(hit),
        "citation": hit.citation,
        "lineStart": hit.line_start,
        "lineEnd": hit.line_end,
        "url": url,
        "date": hit.date,
        "kind": hit.kind,
        "scope": hit.scope,
    }


def _mode(value: str) -> SearchMode:
    for mode in SEARCH_MODES:
        if value == mode:
            return mode
    raise InvalidInput(f"mode must be one of {', '.join(SEARCH_MODES)}", reason="invalid-mode")


def search_page(browser: Browser, request: Request) -> Page:
    """A query's hits, a page at a time; without a query, what to type and where."""
    params = request.query_params
    query = form_value(request, "q")
    mode = _mode(params.get("mode", "hybrid"))
    catalog = form_value(request, "catalog")
    page = min(max(_page(params.get("page")), 1), MAX_PAGES)
    served = browser.library.keys()
    data: dict[str, Any] = {
        "query": query,
        "mode": mode,
        "catalog": catalog,
        "page": page,
        "hits": [],
        "sources": [],
        "more": False,
        "note": None,
        "catalogs": served,
        "disabled": [] if catalog else browser.library.disabled_keys(),
    }
    if query and served:
        result = browser.library.search(
            query, mode=mode, k=page * PER_PAGE, catalog=catalog or None
        )
        shown = result.hits[(page - 1) * PER_PAGE : page * PER_PAGE]
        data["hits"] = [
            _hit_row(h, query, (page - 1) * PER_PAGE + i + 1) for i, h in enumerate(shown)
        ]
        data["sources"] = result.sources
        data["more"] = len(result.hits) >= page * PER_PAGE and page < MAX_PAGES
        data["note"] = result.semantic_unavailable
    extra = {
        "modes": MODES,
        "next_url": search_url(query, mode=mode, catalog=catalog, page=page + 1),
        "previous_url": search_url(query, mode=mode, catalog=catalog, page=page - 1),
        "nothing_served": not served,
    }
    title = f"Search: {query}" if query else "Search"
    return Page("search.html", title, data, extra)


def _page(value: str | None) -> int:
    if value is None:
        return 1
    if not value.isdigit() or len(value) > 4:
        raise InvalidInput("page must be a whole number", reason="invalid-page")
    return int(value)


def cite_response(browser: Browser, request: Request) -> Response | Page:
    """Open a ``knowledge://`` reference at its passage (a redirect), or describe it as JSON."""
    reference = request.query_params.get("ref", "").strip()
    if not reference:
        raise InvalidInput("give a knowledge:// reference as ?ref=", reason="invalid-reference")
    key, passage = browser.library.read(reference)
    lines = None
    if passage.kind != "document" and passage.line_start is not None:
        lines = (passage.line_start, passage.line_end or passage.line_start)
    url = document_url(key, passage.document_id, lines)
    if not wants_json(request):
        return RedirectResponse(url, status_code=303)
    return Page(
        "error.html", passage.title, {"reference": reference, "passage": passage, "url": url}
    )


def memory_page(browser: Browser, request: Request) -> Page:
    """The memory index, read-only: the newest days' entries, or a search of them."""
    library = browser.library
    query = request.query_params.get("q", "").strip()
    wanted = request.query_params.get("day", "").strip()
    days = library.memory_days()
    data: dict[str, Any] = {"exists": library.has_memory(), "query": query, "days": days}
    if not data["exists"]:
        return Page("memory.html", "Memory", {**data, "entries": [], "hits": []})
    with MemoryIndex(library.home_dir, embedder=browser.memory_embedder) as index:
        if query:
            result = index.search(query, k=20)
            data["hits"] = [_hit_row(h, query, i + 1) for i, h in enumerate(result.hits)]
            data["note"] = result.semantic_unavailable
            data["entries"] = []
        else:
            shown = [wanted] if wanted in days else days[:7]
            data["entries"] = [
                {"day": day, "entries": index.entries(date.fromisoformat(day))} for day in shown
            ]
            data["hits"] = []
    return Page("memory.html", "Memory", data)
