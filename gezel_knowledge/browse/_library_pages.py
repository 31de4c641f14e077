"""The Library page (every catalog served, filtered by text, language and tag) and the POSTs
that enable or disable an installed catalog."""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response

from gezel_knowledge._jsonable import to_jsonable
from gezel_knowledge.browse._context import Browser, catalog_key
from gezel_knowledge.browse._respond import Page, wants_json
from gezel_knowledge.browse._urls import catalog_url

__all__ = ["library_page", "set_enabled"]


def library_page(browser: Browser, request: Request) -> Page:
    """Every served catalog with its facts; the filters narrow the list."""
    text = request.query_params.get("q", "").strip()
    language = request.query_params.get("language", "").strip()
    tag = request.query_params.get("tag", "").strip()
    cards = browser.library.cards()
    shown = [c for c in cards if c.matches(text, language, tag)]
    data = {
        "filters": {"q": text, "language": language, "tag": tag},
        "languages": sorted({c.language for c in cards if c.language}),
        "tags": sorted({t for c in cards for t in c.tags}, key=str.lower),
        "catalogs": shown,
        "total": len(cards),
        "installed": not browser.library.named,
    }
    urls = {c.key: catalog_url(c.key) for c in shown}
    return Page("library.html", "Library", data, {"urls": urls})


async def set_enabled(browser: Browser, request: Request, enabled: bool) -> Response:
    """Enable or disable an installed catalog: a POST with this server's CSRF token."""
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    token = request.headers.get("x-csrf-token") or next(iter(form.get("csrf", [])), None)
    if not browser.settings.check_csrf(token):
        return PlainTextResponse("Missing or wrong CSRF token.", status_code=403)
    card = await run_in_threadpool(browser.library.set_enabled, catalog_key(request), enabled)
    if wants_json(request):
        return JSONResponse(to_jsonable(card))
    return RedirectResponse("/", status_code=303)
