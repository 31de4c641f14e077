"""One way to answer: every page is a :class:`Page`, an HTML template and its data, and its JSON
twin is that data (``?format=json`` or the ``.json`` path), camelCase like every ``--json``.

Templates are Jinja2 with autoescaping on: catalog text reaches HTML escaped, except bodies and
READMEs, which arrive already sanitised (:mod:`._markdown`) and are marked safe there alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from gezel_knowledge._jsonable import to_jsonable
from gezel_knowledge.browse._security import GuardSettings
from gezk.errors import ReasonedError

__all__ = ["Page", "Renderer", "wants_json"]


@dataclass(frozen=True, slots=True)
class Page:
    """A page: its template, its title, the data its JSON twin is, and template-only values."""

    template: str
    title: str
    data: Mapping[str, Any]
    extra: Mapping[str, Any] = field(default_factory=dict)
    status: int = 200


def wants_json(request: Request) -> bool:
    """Whether the request asks for the JSON twin."""
    return request.query_params.get("format") == "json" or request.url.path.endswith(".json")


def json_url(request: Request) -> str:
    """The JSON twin of the page at ``request``."""
    query = [(k, v) for k, v in request.query_params.multi_items() if k != "format"]
    query.append(("format", "json"))
    return f"{request.url.path}?{urlencode(query)}"


class Renderer:
    """Turns pages into responses for one server: its templates, settings and memory flag."""

    def __init__(self, settings: GuardSettings, *, memory: bool) -> None:
        self.settings = settings
        self.memory = memory
        self.env = Environment(
            loader=PackageLoader("gezel_knowledge.browse", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )

    def respond(self, request: Request, page: Page) -> Response:
        """The page as HTML, or its data as JSON when the request asks for the twin."""
        if wants_json(request):
            return JSONResponse(to_jsonable(page.data), status_code=page.status)
        template = self.env.get_template(page.template)
        html = template.render(
            title=page.title,
            csrf=self.settings.csrf_token(),
            memory=self.memory,
            json_url=json_url(request),
            request_path=request.url.path,
            **page.data,
            **page.extra,
        )
        return HTMLResponse(html, status_code=page.status)

    def error(self, request: Request, exc: ReasonedError, status: int) -> Response:
        """A typed error as a page (or JSON): its message and reason, nothing more."""
        data = {"error": {"reason": exc.reason, "message": exc.message, "subject": exc.subject}}
        page = Page("error.html", "Not available", data, status=status)
        return self.respond(request, page)


def dumps(value: Any) -> str:
    """Pretty JSON for a page to show (attribution notices)."""
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)
