"""The browser's ASGI application: the routes, each a stable URL with its JSON twin, behind the
guard (:mod:`._security`)."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from importlib.resources import files

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from gezel_knowledge.browse._catalog_pages import (
    asset_response,
    catalog_page,
    document_page,
    nearby_page,
    topic_page,
)
from gezel_knowledge.browse._context import Browser
from gezel_knowledge.browse._library import Library
from gezel_knowledge.browse._library_pages import library_page, set_enabled
from gezel_knowledge.browse._respond import Page, Renderer
from gezel_knowledge.browse._search_pages import cite_response, memory_page, search_page
from gezel_knowledge.browse._security import Guard, GuardSettings
from gezel_knowledge.embedders.base import Embedder
from gezk.errors import ReasonedError

__all__ = ["create_app"]

Handler = Callable[[Browser, Request], "Page | Response"]
_STATUS = {"input": 400, "not-found": 404, "unavailable": 503}


def _page_route(browser: Browser, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            answer = await run_in_threadpool(handler, browser, request)
        except ReasonedError as exc:
            status = _STATUS.get(getattr(exc, "category", ""), 500)
            return browser.renderer.error(request, exc, status)
        if isinstance(answer, Page):
            return browser.renderer.respond(request, answer)
        return answer

    return endpoint


def _toggle(browser: Browser, enabled: bool) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            return await set_enabled(browser, request, enabled)
        except ReasonedError as exc:
            status = _STATUS.get(getattr(exc, "category", ""), 500)
            return browser.renderer.error(request, exc, status)

    return endpoint


async def _favicon(request: Request) -> Response:
    """The icon a browser asks for by itself on a page without one (a plain-text refusal)."""
    icon = (files("gezel_knowledge.browse") / "static" / "favicon.svg").read_bytes()
    return Response(icon, media_type="image/svg+xml")


def _routes(browser: Browser) -> list[BaseRoute]:
    def page(path: str, handler: Handler) -> Route:
        return Route(path, _page_route(browser, handler), methods=["GET", "HEAD"])

    catalog = "/c/{publisher}/{catalog}"
    static = StaticFiles(directory=str(files("gezel_knowledge.browse") / "static"))
    return [
        page("/", library_page),
        page("/library.json", library_page),
        Route("/library", lambda _: RedirectResponse("/", status_code=308)),
        page("/search", search_page),
        page("/search.json", search_page),
        page("/cite", cite_response),
        page("/cite.json", cite_response),
        page("/memory", memory_page),
        page("/memory.json", memory_page),
        page(catalog, catalog_page),
        page(catalog + "/t/{topic}", topic_page),
        page(catalog + "/d/{document:path}", document_page),
        page(catalog + "/nearby/{document:path}", nearby_page),
        page(catalog + "/assets/{path:path}", asset_response),
        Route(catalog + "/enable", _toggle(browser, True), methods=["POST"]),
        Route(catalog + "/disable", _toggle(browser, False), methods=["POST"]),
        Route("/favicon.ico", _favicon),
        Mount("/static", app=static, name="static"),
    ]


def create_app(
    library: Library,
    settings: GuardSettings,
    *,
    memory_embedder: Embedder | None = None,
    warm: bool = False,
) -> Guard:
    """The browser for ``library``, guarded by ``settings`` (host, port, token); with ``warm``,
    a background thread reads the catalogs' outlines at once (see :meth:`Browser.warm`)."""
    renderer = Renderer(settings, memory=library.has_memory())
    browser = Browser(library, renderer, settings, memory_embedder)
    if warm:
        threading.Thread(target=browser.warm, name="browse-warm", daemon=True).start()
    app = Starlette(routes=_routes(browser))
    return Guard(app, settings)
