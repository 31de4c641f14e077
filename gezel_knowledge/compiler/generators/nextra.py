"""Nextra: a Next.js site whose ``next.config.{js,mjs,ts,cjs,mts}`` uses ``nextra`` (in the
source folder or one folder just below it, ``docs/`` first); pages are the ``.md`` and ``.mdx``
files of its ``content/`` folder (Nextra 4; ``src/content/`` too), else of ``pages/`` (Nextra 2
and 3, ``src/pages/`` too). A site whose pages are only ``app/**/page.mdx`` files is not read
(the folder tree stands in for it).

The configuration is JavaScript and is never run: its literals are read (:mod:`._js_config`).
Nextra's options (the object passed to ``nextra(...)``): ``contentDirBasePath`` (the URL the
content folder is published at); Next.js's: ``basePath``, ``trailingSlash`` and ``i18n``
(``defaultLocale``). With ``i18n``, Nextra 2 reads the default locale's files
(``page.en-US.mdx``, ``_meta.en-US.json``; a page of another locale is no page of the catalog),
and Nextra 4 a ``content/<defaultLocale>/`` folder when there is one.

Pages: the Markdown files of the content folder but those whose name starts with ``_`` (and,
in ``pages/``, its ``api/`` folder of API routes). A page is published at its path without
suffix (and locale), an ``index`` page at its folder; relative links resolve from the page's
folder; the other files of ``pages/`` (``.tsx``, ``.js``), the app's own pages and the
config's redirects (:mod:`._next`) are Next.js routes, which a link may name.

Navigation: each folder's ``_meta`` file (``_meta.json``, or ``_meta.js``/``.jsx``/``.ts``/
``.tsx`` read as literals; ``_meta.global.*`` is not read) orders the folder's entries, keys
as JavaScript keeps them (integer-like keys first, ascending); its value is a title (a string;
a JSX element is read as no title) or an object with ``title``, ``type`` (``page`` puts the
entry in the navbar, which keeps its place in this order), ``display`` (``hidden``: left out
of the navigation, still published and searched; ``children``: the folder's entries in its
place) and ``href`` (a link: no page); a ``*`` entry gives every listed entry its defaults.
Entries no ``_meta`` lists follow, by name; an ``index`` page it does not list comes first.
A folder is a section named by its title (else its name); its ``index`` page, or a page
named like the folder beside it (``blog.mdx`` and ``blog/``), leads it. Hidden pages follow
the navigation, by path.

Metadata: the name a title template states (``titleTemplate: '%s – SWR'``, Nextra 4's
``template``) in ``theme.config.*`` or ``app/layout.*``, else the landing page's title; the
default locale, else the layout's ``<html lang>``; the publisher from the project link or
``docsRepositoryBase`` on GitHub. Anchors are GitHub's slugs (``github-slugger``); a heading
ending in ``[#id]`` is reached at ``#id`` as well.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import MARKDOWN_SUFFIXES, MDX, Context
from gezel_knowledge.compiler.generators._js import read_module
from gezel_knowledge.compiler.generators._js_config import (
    SKIPPED_FOLDERS,
    find_config,
    marked_config,
    read_config,
    score_settings,
)
from gezel_knowledge.compiler.generators._mdx import expand_partials, indented_headings
from gezel_knowledge.compiler.generators._next import next_routes
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, PageUrl, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection

__all__ = ["Nextra", "custom_heading_ids"]

_CONFIGS = tuple(f"next.config.{s}" for s in ("js", "mjs", "ts", "cjs", "mts"))
_USES_NEXTRA = re.compile(rb"""(?:from\s+|require\(\s*)['"]nextra['"]""")
_META_NAMES = ("_meta.json", "_meta.js", "_meta.jsx", "_meta.ts", "_meta.tsx")
_NEXT = ("basePath", "trailingSlash", "i18n", "output", "images", "reactStrictMode")
_TEMPLATE = re.compile(
    r"""\b(?:titleTemplate|template)\s*:\s*['"`]%s\s*[-–—|:·•]\s*([^'"`\n]{1,80})"""
)
# `[^<>]`: a scan stops at the next tag, so many unclosed `<html` are each read once.
_HTML_LANG = re.compile(r"""<html\b[^<>]*\blang\s*=\s*\{?\s*['"]([A-Za-z-]{2,20})['"]""")
_GITHUB = re.compile(
    r"""\b(?:link|projectLink|docsRepositoryBase)\s*[:=]\s*\{?\s*['"`](https://github\.com/[^'"`\s]+)"""
)
_ID = re.compile(r"[\w-]{1,200}")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_MAX_DEPTH = 32


def _config_in(folder: Path) -> Path | None:
    return marked_config(folder, _CONFIGS, lambda head: _USES_NEXTRA.search(head) is not None)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


@dataclass(frozen=True, slots=True)
class _Read:
    """What the configuration says."""

    project: Path
    content: Path
    locale: str | None
    """Nextra 2's locale suffix of the default locale's files (``en-US``)."""
    base: str
    """The URL path the content folder is published at (``docs/``), with ``basePath``."""
    pages_router: bool
    app_router: bool = False
    """Nextra 4 without a content folder: pages are the app's ``page.md``/``page.mdx`` files."""


def _read(file: Path, root: Path) -> _Read | None:
    files = read_config(file, root)
    values = files[0].values if files else []
    text = files[0].text if files else ""
    nextra: dict[str, Any] = {}
    call = re.search(r"\bnextra\s*\(", text)
    if call is not None:
        found = read_module(text[call.end() - 1 :], files[0].names).literals
        nextra = found[0] if found and isinstance(found[0], dict) else {}
    next_options = score_settings(values, _NEXT)
    project = file.parent
    locale = _str(config.get(next_options, "i18n", "defaultLocale"))
    content = next(
        (c for c in (project / "content", project / "src" / "content") if c.is_dir()), None
    )
    pages_router = content is None
    if content is None:
        content = next(
            (c for c in (project / "pages", project / "src" / "pages") if c.is_dir()), None
        )
        if content is None:
            apps = (project / "app", project / "src" / "app")
            app = next((a for a in apps if _has_pages(a)), None)
            if app is None:
                return None
            base = (_str(next_options.get("basePath")) or "").strip("/")
            return _Read(project, app, None, base, pages_router=False, app_router=True)
    elif locale is not None and (content / locale).is_dir():
        content, locale = content / locale, None
    else:
        locale = None
    base = "/".join(
        p
        for p in (
            (_str(next_options.get("basePath")) or "").strip("/"),
            (_str(nextra.get("contentDirBasePath")) or "").strip("/"),
        )
        if p
    )
    return _Read(project, content, locale if pages_router else None, base, pages_router)


def _theme_text(project: Path, root: Path) -> str:
    """The text of the files naming the site: ``theme.config.*`` and ``app/layout.*``."""
    out: list[str] = []
    for folder, stem in ((project, "theme.config"), (project / "app", "layout")):
        for suffix in (".tsx", ".jsx", ".ts", ".js", ".mjs"):
            file = folder / f"{stem}{suffix}"
            if file.is_file():
                try:
                    out.append(config.read_text(file, root))
                except SourceError:
                    continue
    return "\n".join(out)


# ── the pages and their _meta ───────────────────────────────────────────────────────────


def _route_name(name: str, locale: str | None) -> str | None:
    """The route segment a page file gives (``intro.en-US.mdx`` is ``intro`` in the ``en-US``
    locale), ``None`` for another locale's file."""
    stem = name.rsplit(".", 1)[0]
    if locale is None:
        return stem
    if stem.endswith(f".{locale}"):
        return stem[: -len(locale) - 1]
    return None if "." in stem else stem


_APP_PAGES = ("page.mdx", "page.md")
_MAX_WALK = 20_000
"""Folders an app folder's search for pages looks at, at most."""


def _app_page(folder: Path) -> Path | None:
    """The Markdown page of an app-router folder (``page.mdx``), if it has one."""
    return next((f for f in (folder / n for n in _APP_PAGES) if f.is_file()), None)


def _routed(name: str) -> bool:
    """Whether an app folder is part of the routes Nextra shows: not private (``_parts``),
    hidden, dynamic (``[name]``) or a parallel-route slot (``@modal``)."""
    return not name.startswith((".", "_", "[", "@")) and name not in SKIPPED_FOLDERS


def _has_pages(folder: Path) -> bool:
    """Whether an app-router folder holds a ``page.md``/``page.mdx`` at any depth (linked
    folders not followed, at most :data:`_MAX_WALK` folders looked at)."""
    if not folder.is_dir():
        return False
    # Linked folders are never followed.
    for seen, (_here, dirs, files) in enumerate(os.walk(folder), 1):
        if any(n in files for n in _APP_PAGES):
            return True
        if seen >= _MAX_WALK:
            return False
        dirs[:] = sorted(d for d in dirs if _routed(d))
    return False


def _app_route(rel: str) -> str:
    """The route of an app-router page (``(group)/docs/page.mdx`` is ``docs``)."""
    return "/".join(p for p in PurePosixPath(rel).parent.parts if not _route_group(p) and p != ".")


def _subfolders(folder: Path) -> list[Path]:
    try:
        return sorted(c for c in folder.iterdir() if c.is_dir() and not c.is_symlink())
    except OSError:
        return []


def _route_group(name: str) -> bool:
    """A route group (``(framework)``): a folder that is no URL segment."""
    return name.startswith("(") and name.endswith(")")


_META_GLOBAL = tuple(f"_meta.global.{s}" for s in ("js", "jsx", "ts", "tsx", "mjs"))


def _global_meta(content: Path, root: Path) -> dict[str, Any] | None:
    """The content folder's ``_meta.global`` file (every folder's entries in one object,
    a folder's under its ``items``), or ``None`` when there is none."""
    for name in _META_GLOBAL:
        file = content / name
        if not file.is_file():
            continue
        try:
            text = config.read_text(file, root)
        except SourceError:
            return {}
        value = read_module(_without_jsx(text) if "<" in text else text).exported
        return value if isinstance(value, dict) else {}
    return None


def _js_order(value: dict[str, Any]) -> dict[str, Any]:
    """``value``'s keys in the order JavaScript keeps them: integer-like keys first."""
    numbers = sorted((k for k in value if k.isdigit() and str(int(k)) == k), key=int)
    return {k: value[k] for k in [*numbers, *(k for k in value if k not in numbers)]}


def _meta(folder: Path, locale: str | None, root: Path) -> dict[str, Any]:
    """A folder's ``_meta`` entries, in the order JavaScript keeps the keys."""
    names = ((f"_meta.{locale}.json",) if locale else ()) + _META_NAMES
    for name in names:
        file = folder / name
        if not file.is_file():
            continue
        try:
            text = config.read_text(file, root)
        except SourceError:
            return {}
        if name.endswith(".json"):
            try:
                value: Any = json.loads(text)
            except ValueError:
                return {}
        else:
            value = read_module(_without_jsx(text) if "<" in text else text).exported
        return _js_order(value) if isinstance(value, dict) else {}
    return {}


_JSX_START = re.compile(r"[:(,\[]\s*(?=<[A-Za-z>])")
_MAX_JSX = 20_000


def _jsx_end(text: str, start: int) -> int:
    """The end of the JSX element opening at ``start`` (tags paired, ``{...}`` skipped), or
    ``start`` when it does not close within :data:`_MAX_JSX` characters."""
    depth = 0
    i = start
    stop = min(len(text), start + _MAX_JSX)
    while i < stop:
        c = text[i]
        if c == "{":
            braces, i = 1, i + 1
            while i < stop and braces:
                braces += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            continue
        if c == "<":
            close = text.find(">", i, stop)
            if close < 0:
                return start
            tag = text[i : close + 1]
            if tag.startswith("</"):
                depth -= 1
            elif not tag.endswith("/>"):
                depth += 1
            i = close + 1
            if depth == 0:
                return i
            continue
        i += 1
    return start


def _without_jsx(text: str) -> str:
    """A ``_meta`` file's text with each JSX value (``index: <b><Icon /> Home</b>``) written
    ``null``: a title that is an element is no title, and the literal reader does not read
    JSX."""
    out: list[str] = []
    cursor = 0
    scanned = 0
    for match in _JSX_START.finditer(text):
        if match.end() < max(cursor, scanned):
            continue  # inside a value read already, or one that did not close
        end = _jsx_end(text, match.end())
        if end > match.end():
            out += [text[cursor : match.end()], "null"]
            cursor = end
        else:
            # Not closed within the limit: what was scanned is not scanned again, so a
            # hostile file costs time linear in its length.
            scanned = min(len(text), match.end() + _MAX_JSX)
    return "".join(out) + text[cursor:]


@dataclass(slots=True)
class _Builder:
    ctx: Context
    read: _Read
    where: str
    hidden: list[str] = field(default_factory=list)
    placed: set[str] = field(default_factory=set)
    global_meta: dict[str, Any] | None = None

    def meta(self, folder: Path) -> dict[str, Any]:
        """A folder's ``_meta`` entries: its own file's, or the ``items`` the
        ``_meta.global`` file gives it (route groups are no level of it)."""
        if self.global_meta is None:
            return _meta(folder, self.read.locale, self.ctx.source_root)
        here: dict[str, Any] = self.global_meta
        for part in folder.relative_to(self.read.content).parts:
            if _route_group(part):
                continue
            items = config.mapping(config.mapping(here.get(part)).get("items"))
            if not items:
                return {}
            here = items
        return _js_order(here)

    def app_entries(
        self, folder: Path, folders: dict[str, Path], pages: dict[str, Path], depth: int = 0
    ) -> None:
        """An app-router folder's entries: a subfolder holding pages below its own is a
        folder, one with only its ``page.mdx`` a page; a route group's entries are its
        parent's; the folder's own ``page.mdx`` is its ``index``."""
        own = _app_page(folder)
        if own is not None and depth == 0 and not self.ctx.excluded(own):
            pages.setdefault("index", own)
        try:
            children = sorted(c for c in folder.iterdir() if c.is_dir() and not c.is_symlink())
        except OSError:
            return
        for child in children:
            name = child.name
            if not _routed(name) or self.ctx.excluded(child):
                continue
            if _route_group(name):
                if depth < _MAX_DEPTH:
                    self.app_entries(child, folders, pages, depth + 1)
                continue
            below = any(_routed(c.name) and _has_pages(c) for c in _subfolders(child))
            page = _app_page(child)
            if below:
                folders.setdefault(name, child)
            elif page is not None and not self.ctx.excluded(page):
                pages.setdefault(name, page)

    def entries(self, folder: Path) -> tuple[dict[str, Path], dict[str, Path]]:
        """A folder's folders and pages by route name."""
        folders: dict[str, Path] = {}
        pages: dict[str, Path] = {}
        if self.read.app_router:
            self.app_entries(folder, folders, pages)
            return folders, pages
        try:
            children = sorted(folder.iterdir())
        except OSError:
            return {}, {}
        for child in children:
            name = child.name
            if name.startswith((".", "_")) or name in SKIPPED_FOLDERS or self.ctx.excluded(child):
                continue
            if child.is_dir() and not child.is_symlink():
                if not (self.read.pages_router and folder == self.read.content and name == "api"):
                    folders[name] = child
            elif child.is_file() and self.ctx.is_page(child):
                route = _route_name(name, self.read.locale)
                if route is not None:
                    pages.setdefault(route, child)
        return folders, pages

    def page(self, into: OutlineSection, file: Path, label: str | None, hidden: bool) -> None:
        rel = self.ctx.rel(file)
        if rel in self.placed:
            return
        self.placed.add(rel)
        if hidden:
            self.hidden.append(rel)
            return
        into.children.append(OutlinePage(rel, label, len(into.children), self.ctx.display(file)))

    def folder(self, into: OutlineSection, folder: Path, hidden: bool, depth: int) -> None:
        """``folder``'s entries into ``into``, in Nextra's order."""
        if depth > _MAX_DEPTH:
            return
        folders, pages = self.entries(folder)
        meta = self.meta(folder)
        defaults = config.mapping(meta.get("*"))
        listed = [k for k in meta if k != "*" and (k in folders or k in pages)]
        rest = sorted(k for k in {*folders, *pages} if k not in listed)
        if "index" in rest:
            # An `index` the _meta does not name comes first, before the listed entries
            # (Nextra's page-map normalize: sortFolder).
            rest.remove("index")
            listed.insert(0, "index")
        for key in [*listed, *rest]:
            value = meta.get(key)
            item = {**defaults, **value} if isinstance(value, dict) else dict(defaults)
            title = _str(value) if isinstance(value, str) else _str(item.get("title"))
            if _str(item.get("href")) is not None or item.get("type") in ("separator", "menu"):
                continue
            display = item.get("display") if key in listed else None
            is_hidden = hidden or display == "hidden"
            if key in folders:
                self.section(
                    into,
                    named=(key, title),
                    folder=folders[key],
                    twin=pages.get(key),
                    hidden=is_hidden,
                    depth=depth,
                )
                if display == "children":
                    self.flatten(into)
            elif key in pages:
                self.page(into, pages[key], title, is_hidden)

    def section(
        self,
        into: OutlineSection,
        *,
        named: tuple[str, str | None],
        folder: Path,
        twin: Path | None,
        hidden: bool,
        depth: int,
    ) -> None:
        """A folder as a section (``named``: its name and title), led by its twin page."""
        name, title = named
        section = OutlineSection(
            name=title or name, key=self.ctx.display(folder) + "/", order=len(into.children)
        )
        if twin is not None:
            self.page(section, twin, None, hidden)  # `blog.mdx` beside `blog/` leads it
        self.folder(section, folder, hidden, depth + 1)
        if section.children:
            into.children.append(section)

    def flatten(self, into: OutlineSection) -> None:
        """``display: 'children'``: the section just added gives its entries to ``into``."""
        last = into.children[-1] if into.children else None
        if isinstance(last, OutlineSection):
            into.children.pop()
            for child in last.children:
                child.order = len(into.children)
                into.children.append(child)


def _routes(read: _Read) -> tuple[str, ...]:
    """Next.js routes beside the pages: the other files of ``pages/`` (``.tsx``, ``.js``)."""
    if not read.pages_router:
        return ()
    out: list[str] = []
    for folder, dirs, files in os.walk(read.content):  # never follows linked folders
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        rel = Path(folder).relative_to(read.content).as_posix()
        for name in sorted(files):
            stem, suffix = os.path.splitext(name)
            if name.startswith((".", "_")) or suffix not in (".tsx", ".jsx", ".ts", ".js"):
                continue
            path = "/".join(p for p in (rel if rel != "." else "", stem) if p)
            out.append(path.removesuffix("index").rstrip("/") if stem == "index" else path)
            if len(out) >= 10_000:
                return tuple(out)
    return tuple(r for r in out if r)


class Nextra(Generator):
    """Nextra (a Next.js site using ``nextra``)."""

    name = "nextra"
    described_as = "a Nextra site"
    marker = "next.config.js using nextra"
    page_suffixes = (*MARKDOWN_SUFFIXES, MDX)

    def __init__(self, locale: str | None = None, *, app_router: bool = False) -> None:
        self._locale = locale
        """Nextra 2's locale suffix of the default locale's files."""
        self._app_router = app_router
        """Whether pages are the app's ``page.mdx`` files, published at their folder."""

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = find_config(root, _config_in)
        if file is None:
            return None
        read = _read(file, root)
        if read is None:
            return None
        theme = _theme_text(read.project, root)
        files = read_config(file, root)
        next_options = score_settings(files[0].values if files else [], _NEXT)
        template = _TEMPLATE.search(theme)
        lang = _HTML_LANG.search(theme)
        github = _GITHUB.search(theme)
        language = _str(config.get(next_options, "i18n", "defaultLocale")) or (
            lang.group(1) if lang else None
        )
        trailing = next_options.get("trailingSlash") is True
        return Site(
            Nextra(read.locale, app_router=read.app_router),
            file,
            read.content,
            config.site_metadata(
                template.group(1).strip() if template else None,
                None,
                language,
                None,
                config.publisher(github.group(1) if github else None, None),
            ),
            LinkStyle(
                "directory" if trailing else "html",
                prefixes=(read.base + "/",) if read.base else (),
                static_roots=(read.project / "public",),
                routes=_routes(read)
                + next_routes(read.project, file, root, dynamic=read.app_router),
            ),
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        assert site.config is not None  # a Nextra site always has its configuration
        read = _read(site.config, ctx.source_root)
        if read is None:
            return None
        where = display_path(site.config, ctx.source_root)
        builder = _Builder(ctx, read, where)
        builder.global_meta = _global_meta(read.content, ctx.source_root)
        root = OutlineSection(name="", key=where)
        builder.folder(root, ctx.content_root, False, 0)
        for rel in sorted(builder.hidden):
            file = ctx.content_root / rel
            root.children.append(OutlinePage(rel, None, len(root.children), ctx.display(file)))
        return Outline(self.name, root, where, interleaved_root=True)

    def page_url(self, rel: str, front: Mapping[str, Any]) -> PageUrl:
        if self._app_router:
            # `docs/guide/page.mdx` is `/docs/guide`: its links resolve from `/docs/`.
            route = _app_route(rel)
            return PageUrl(route, not route)
        path = PurePosixPath(rel)
        route = _route_name(path.name, self._locale) or path.stem
        segments = [*path.parent.parts] if str(path.parent) != "." else []
        if route != "index":
            segments.append(route)
        return PageUrl("/".join(segments), route == "index")

    def document_id(self, rel: str, front: Mapping[str, Any]) -> str:
        # An app-router page is known by its route (`docs/guide`), the home page as `index`.
        if self._app_router:
            return _app_route(rel) or "index"
        return super().document_id(rel, front)

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        # MDX parts a page imports (`import Part from './part.mdx'`); a heading's `[#id]`
        # (Nextra's custom heading id) written as the `{#id}` the anchors read.
        site_dir = site.config.parent if site.config is not None else within
        body = expand_partials(body, folder=page.parent, site=site_dir, within=within.resolve())
        if page.suffix.lower() == ".mdx":
            body = indented_headings(body)
        return custom_heading_ids(body) if "[#" in body else body


def custom_heading_ids(body: str) -> str:
    """Headings ending in ``[#id]`` with the id written ``{#id}`` (fenced code left alone)."""
    out: list[str] = []
    fence: str | None = None
    for line in body.split("\n"):
        opened = _FENCE.match(line)
        if opened is not None:
            fence = None if fence == opened.group(1) else (fence or opened.group(1))
        elif fence is None and line.startswith("#") and line.rstrip().endswith("]"):
            text, sep, ident = line.rstrip()[:-1].rpartition("[#")
            if sep and text.strip("# \t") and _ID.fullmatch(ident):
                out.append(f"{text.rstrip()} {{#{ident}}}")
                continue
        out.append(line)
    return "\n".join(out)
