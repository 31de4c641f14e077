"""One way to answer: every page is a :class:`Page`, an HTML template and its data, and its JSON
twin is that data (``?format=json`` or the ``.json`` path), camelCase like every ``--json``.

Templates are Jinja2 with autoescaping on: catalog text reaches HTML escaped, except bodies and
READMEs, which arrive already sanitised (:mod:`._markdown`) and are marked safe there alone.
Every string a template prints that holds Unicode bidirectional controls is isolated (between
FSI and PDI), so a name with an unclosed right-to-left override cannot reorder the page text
after it (a breadcrumb, a citation, the next card).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from gezel_knowledge._jsonable import to_jsonable
from gezel_knowledge.browse._security import GuardSettings
from gezk.errors import ReasonedError

__all__ = ["Page", "Renderer", "form_value", "isolate_bidi", "wants_json"]

_BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_STATUS_TITLES = {
    400: "That request cannot be answered",
    404: "Not found",
    405: "Not found",
    503: "Not available",
}
_NEXT_STEPS = {
    "not-installed": "Only the catalogs listed in the Library are served here. Install the catalog "
    "(<code>gezel-knowledge install CATALOG.gezk</code>), or start the browser with it named "
    "(<code>gezel-knowledge browse CATALOG.gezk</code>).",
    "document-not-found": "The catalog has no document with that id: the citation may come from "
    "another version of it. Search the catalog for the passage instead.",
    "chunk-not-found": "The document has no passage with that id: the citation may come from "
    "another version of the catalog. Open the document and look for the passage there.",
    "invalid-reference": "A citation looks like <code>knowledge://PUBLISHER/CATALOG/DOCUMENT"
    "</code>, optionally followed by <code>#line=A-B</code> or <code>#chunk=ID</code>.",
    "topic-not-found": "The catalog's outline lists the topics it has.",
    "not-found": "Start from the Library, or search every catalog.",
    "asset-not-found": "Images are served only from the catalog's own declared assets.",
}
"""What to do next, shown under an error of that reason."""


@dataclass(frozen=True, slots=True)
class Page:
    """A page: its template, its title, the data its JSON twin is, and template-only values."""

    template: str
    title: str
    data: Mapping[str, Any]
    extra: Mapping[str, Any] = field(default_factory=dict)
    status: int = 200


def isolate_bidi(value: Any) -> Any:
    """A string holding bidirectional controls, between FSI and PDI (which close every override
    it opened); everything else (markup the renderer made, numbers) as it is."""
    if isinstance(value, str) and not isinstance(value, Markup) and _BIDI_CONTROLS.search(value):
        return f"\u2068{value}\u2069"
    return value


def form_value(request: Request, name: str) -> str:
    """A query parameter as the user meant it: stripped, and without the isolation marks
    :func:`isolate_bidi` put around a value the page printed (a tag in a filter's options)."""
    value = request.query_params.get(name, "")
    return value.replace("\u2068", "").replace("\u2069", "").strip()


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
            finalize=isolate_bidi,
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
        """A typed error as a page (or JSON) with ``status``: its message and reason, and on
        the page what to do next."""
        data = {
            "error": {"reason": exc.reason, "message": exc.message, "subject": exc.subject},
            "status": status,
        }
        title = _STATUS_TITLES.get(status, "Something went wrong")
        step = _NEXT_STEPS.get(exc.reason)
        extra = {"next_step": None if step is None else Markup(step)}  # our own text, not catalog's
        return self.respond(request, Page("error.html", title, data, extra, status=status))


def dumps(value: Any) -> str:
    """Pretty JSON for a page to show (attribution notices)."""
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)
