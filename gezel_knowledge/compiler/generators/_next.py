"""What a Next.js site (Nextra, Fumadocs) publishes besides its Markdown pages, read without
running it: the app's own static pages and route handlers (``app/community/page.tsx``,
``app/llms.txt/route.ts``) and the sources of the ``redirects``/``rewrites`` its
``next.config`` returns (``{ source: '/docs', destination: '/docs/introduction' }``).

Folders in parentheses (``(home)``) are no URL segment; a leading dynamic folder (``[lang]``)
is the locale; a route with another dynamic segment (``[[...slug]]``) is the docs' own and is
not listed. A redirect source ending in a parameter (``/dashboard/:path*``) stands for what is
below it. These are routes a link may name, kept as written without a warning.
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path
from typing import Any

from gezel_knowledge.compiler.generators._js import literals, walk_values
from gezel_knowledge.compiler.generators._js_config import read_config

__all__ = ["next_routes"]

_MAX_ROUTES = 2000
_MAX_BODY = 200_000
_MAX_METHODS = 8
"""``redirects()``/``rewrites()`` bodies read (a config has one of each)."""
# `async redirects() {` / `redirects: async () => {`: the body returning the list.
# `redirects: () => [`: an arrow returning the list itself.
_METHOD = re.compile(
    r"\b(?:redirects|rewrites)\s*(?:\(\s*\)|:\s*(?:async\s*)?\(\s*\)\s*=>)\s*(?:\{|(?=\[))"
)
# `:slug(typescript|latex)`: a parameter matching only the words it lists.
_CHOICES = re.compile(r":\w{1,100}\(([\w.-]{1,100}(?:\|[\w.-]{1,100}){0,50})\)")


def _app_routes(project: Path, *, dynamic: bool = False) -> list[str]:
    """The app's routes; with ``dynamic``, a folder below a dynamic segment (``api/[name]``)
    stands for everything below the segments before it (``api/``)."""
    out: list[str] = []
    for app in (project / "app", project / "src" / "app"):
        if not app.is_dir():
            continue
        for folder, dirs, files in os.walk(app):  # never follows linked folders
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
            if not any(f.startswith(("page.", "route.")) for f in files):
                continue
            parts = [p for p in Path(folder).relative_to(app).parts if not p.startswith("(")]
            if parts and parts[0].startswith("["):
                parts = parts[1:]
            if parts and not any(p.startswith("[") for p in parts):
                out.append("/".join(parts))
            elif dynamic and parts:
                static = list(itertools.takewhile(lambda p: not p.startswith("["), parts))
                if static:
                    out.append("/".join(static) + "/")
            if len(out) >= _MAX_ROUTES:
                return out
    return out


def _redirect_sources(config: Path, root: Path) -> list[str]:
    """The sources of the objects the config's ``redirects()`` and ``rewrites()`` return."""
    files = read_config(config, root)
    text = files[0].text if files else ""
    out: list[str] = []
    for method in list(_METHOD.finditer(text))[:_MAX_METHODS]:
        found = literals(text[method.end() : method.end() + _MAX_BODY])
        values: list[Any] = walk_values(found[0]) if found else []
        for value in values:
            if not isinstance(value, dict) or "destination" not in value:
                continue
            source = value.get("source")
            if isinstance(source, str) and source.startswith("/"):
                out += _routes(source)
            if len(out) >= _MAX_ROUTES:
                return out
    return out


def _routes(source: str) -> list[str]:
    """A redirect source as routes: a parameter listing its words (``:slug(a|b)``) is each of
    them; another (``:path*``) stands for what is below."""
    choices = _CHOICES.search(source)
    if choices is None:
        route = _route(source)
        return [route] if route else []
    head, tail = source[: choices.start()], source[choices.end() :]
    found = (_route(head + word + tail) for word in choices.group(1).split("|"))
    return [r for r in found if r]


def _route(source: str) -> str:
    """A redirect source as a route: a parameter (``:path*``) stands for what is below."""
    kept: list[str] = []
    for part in source.strip().strip("/").split("/"):
        if part.startswith(":") or any(c in part for c in "()*?"):
            kept.append("")
            break
        kept.append(part)
    return "/".join(kept) if "/".join(kept).strip("/") else ""


def next_routes(
    project: Path, config: Path | None, root: Path, *, dynamic: bool = False
) -> tuple[str, ...]:
    """The app's pages and route handlers and the config's redirect and rewrite sources
    (``dynamic``: as :func:`_app_routes`)."""
    routes = _app_routes(project, dynamic=dynamic)
    if config is not None and config.is_file():
        routes += _redirect_sources(config, root)
    return tuple(dict.fromkeys(routes))
