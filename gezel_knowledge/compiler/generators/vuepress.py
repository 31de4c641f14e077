"""VuePress (1 and 2): ``.vuepress/config.{js,ts,mjs,mts,cjs,cts}`` (or
``.vuepress/config/index.*``, or VuePress 1's ``config.yml`` / ``config.toml``, read as data)
in the source folder or in a folder just below it (``docs/`` first); the folder holding
``.vuepress`` is the source directory, whose Markdown files are the pages.

The configuration is JavaScript and is never run: the literals of the configuration file and
of the local files it imports are read (:mod:`._js_config`; ``defineConfig(ctx => ({...}))``
and ``module.exports = {...}`` alike). The settings are the object holding most of ``title``,
``description``, ``locales``, ``themeConfig``, ``theme``, ``base``, ``dest``. The theme's
options are VuePress 1's ``themeConfig``, else the object passed to the theme function of
VuePress 2 (``theme: defaultTheme({...})``, ``hopeTheme({...})``).

Pages: every ``.md`` file of the source directory but hidden ones, ``.vuepress``,
``node_modules`` and the folders of the other locales (``locales`` keys besides ``/``:
``/zh/``): the catalog is the root locale's site. VuePress 2's ``pagePatterns`` (globs
relative to the source directory, ``!`` ones leaving out what they name and what is below it)
narrow the pages when set. A page is published at its path with
``.html`` (``README.md`` and ``index.md`` at their folder, ``/guide/``), or at the
``permalink`` its front matter states; links name files (``./foo.md``) or routes
(``/guide/foo.html``).

Navigation: the root locale's ``sidebar`` of the theme's options (the top-level one, else
``locales['/']``'s): an array of items, or an object of sidebars by path prefix
(``'/guide/': [...]``) walked in file order, each relative to its prefix. An item is a page
path (``'foo'``, ``'/guide/'``, ``'bar.md'``; ``''`` is the prefix's README), VuePress 1's
``['path', 'title']`` pair, or an object: VuePress 1's group ``{title, path, children}``,
VuePress 2's ``{text, link, children, prefix}`` (``prefix`` prepended to its children's
relative paths). A group with children is a section led by its own page. ``'auto'``,
``'heading'`` and ``false`` (each page shows only its own headings) give no order.
vuepress-theme-hope's ``'structure'`` (a sidebar, a prefix's, a group's ``children``; the
default of ``hopeTheme``) lists the pages under its folder as :mod:`._hope_structure` says.
The home
page comes first; pages no sidebar lists follow, in path order (a folder's README first).

Includes: a site whose configuration uses ``markdown-it-include`` has each
``!!!include(docs/a.md)!!!`` replaced by that file's text, its path relative to the folder
VuePress runs in (the package holding the source directory: the nearest ``package.json``
above it), an included file's own includes relative to its folder; bounded as every include
is (:mod:`._budget`, depth :data:`_MAX_INCLUDES`), never read outside the source folder.

Metadata: ``title``, ``description``, ``lang`` (or the root locale's); the URL from the
theme's ``hostname``; the publisher from the theme's ``repo`` (``vuejs/vuepress`` is on GitHub)
or ``docsRepo``. Anchors: VuePress' slugs (those VitePress inherited), ``{#id}`` honoured.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._budget import Budget
from gezel_knowledge.compiler.generators._context import SCHEME, Context, left_out
from gezel_knowledge.compiler.generators._hope_structure import Entry, PageInfo, structure
from gezel_knowledge.compiler.generators._js import SPREAD, UNKNOWN, read_module
from gezel_knowledge.compiler.generators._js_config import (
    SKIPPED_FOLDERS,
    JsFile,
    find_config,
    read_config,
    score_settings,
)
from gezel_knowledge.compiler.generators._page_globs import Glob, compile_glob
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, PageUrl, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import read_data_file, read_text_file
from gezel_knowledge.compiler.text.frontmatter import split_front_matter

__all__ = ["VuePress"]

_SUFFIXES = ("ts", "js", "mts", "mjs", "cts", "cjs")
_CONFIGS = (
    *(f".vuepress/config.{s}" for s in _SUFFIXES),
    *(f".vuepress/config/index.{s}" for s in _SUFFIXES),
    # VuePress 1 reads its configuration from YAML or TOML too, after the JavaScript forms.
    ".vuepress/config.yml",
    ".vuepress/config.toml",
)
_DATA_SUFFIXES = (".yml", ".toml")
_SETTINGS = (
    "title",
    "description",
    "lang",
    "locales",
    "themeConfig",
    "theme",
    "base",
    "dest",
    "pagePatterns",
)
# `theme: defaultTheme({`, `hopeTheme({`: the options object of a VuePress 2 theme.
_THEME_CALL = re.compile(r"\btheme\s*:\s*([A-Za-z_$][\w$]*)\s*\(\s*(?=\{)")
_HOPE = "hopeTheme"
_HOPE_CALL = re.compile(r"\bhopeTheme\s*\(\s*(?=\{)")
_HOPE_SIDEBAR = re.compile(
    r"\b(?:sidebar|arraySidebar|objectSidebar|defineSidebarConfig)\s*\(\s*(?=[{\[])"
)
"""vuepress-theme-hope's theme function: its sidebar is ``'structure'`` unless set."""
_INDEX = ("readme", "index")
_STRUCTURE = "structure"
_NO_ORDER = ("auto", "heading")
_MAX_DEPTH = 32
_MAX_ITEMS = 100_000
_MAX_NESTING = 12
"""Groups nested deeper give their pages to the group above (a catalog nests 16 topics)."""


def _config_in(folder: Path) -> Path | None:
    return next((folder / n for n in _CONFIGS if (folder / n).is_file()), None)


def _project(file: Path) -> Path:
    """The folder holding ``.vuepress`` (the source directory)."""
    return next(p for p in file.parents if p.name == ".vuepress").parent


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


@dataclass(slots=True)
class _Config:
    settings: dict[str, Any]
    theme: dict[str, Any]
    locales: tuple[str, ...]
    """The folders of the other locales (``zh``)."""
    theme_function: str | None = None
    """The VuePress 2 theme function the options are given to (``hopeTheme``)."""

    @property
    def root_locale(self) -> dict[str, Any]:
        return config.mapping(config.get(self.settings, "locales", "/"))

    @property
    def theme_locale(self) -> dict[str, Any]:
        return config.mapping(config.get(self.theme, "locales", "/"))


def _theme_options(
    files: list[JsFile], settings: dict[str, Any]
) -> tuple[dict[str, Any], str | None]:
    """VuePress 1's ``themeConfig``, else the object a VuePress 2 theme function is given,
    and that function's name."""
    theme = config.mapping(settings.get("themeConfig"))
    if theme:
        return theme, None
    for file in files[:1]:
        found = _THEME_CALL.search(file.text)
        if found is not None:
            literals = read_module(file.text[found.end() :], file.names).literals
            if literals and isinstance(literals[0], dict):
                return literals[0], found.group(1)
            return {}, found.group(1)
    if settings.get("theme") is UNKNOWN:
        # `theme` imported from `./theme.ts`, which exports `hopeTheme({...})`.
        for file in files[1:]:
            found = _HOPE_CALL.search(file.text)
            if found is not None:
                literals = read_module(file.text[found.end() :], file.names).literals
                if literals and isinstance(literals[0], dict):
                    return literals[0], _HOPE
    return {}, None


def _read_data(file: Path, root: Path) -> _Config:
    """VuePress 1's ``config.yml`` / ``config.toml``: the settings as data, the theme's
    options its ``themeConfig``."""
    data = read_data_file(file, where=display_path(file, root), within=root)
    settings = {k: v for k, v in data.items() if isinstance(k, str)}
    theme = config.mapping(settings.get("themeConfig"))
    keys = [*config.mapping(settings.get("locales")), *config.mapping(theme.get("locales"))]
    others = tuple(dict.fromkeys(k.strip("/") for k in keys if k.strip("/")))
    return _Config(settings, theme, others)


def _config_files(file: Path, root: Path) -> list[JsFile]:
    """The JavaScript files of the configuration (none for YAML or TOML)."""
    return [] if file.suffix.lower() in _DATA_SUFFIXES else read_config(file, root)


def _hope_sidebar(files: list[JsFile], theme: dict[str, Any]) -> dict[str, Any]:
    """The theme's options with a sidebar built by vuepress-theme-hope's ``sidebar({...})``
    helper (which returns its argument) read as that literal, when the files make one such
    call: the sidebar names what the call returns, which is not followed otherwise."""
    found = []
    for file in files:
        if "vuepress-theme-hope" not in file.text:
            continue
        for match in _HOPE_SIDEBAR.finditer(file.text):
            literals = read_module(file.text[match.end() :], file.names).literals
            if literals and isinstance(literals[0], dict | list):
                found.append(literals[0])
    if len(found) != 1:
        return theme
    theme = dict(theme)
    if theme.get("sidebar") is UNKNOWN:
        theme["sidebar"] = found[0]
    locales = config.mapping(theme.get("locales"))
    if config.mapping(locales.get("/")).get("sidebar") is UNKNOWN:
        root = {**config.mapping(locales.get("/")), "sidebar": found[0]}
        theme["locales"] = {**locales, "/": root}
    return theme


def _read(file: Path, root: Path) -> _Config:
    if file.suffix.lower() in _DATA_SUFFIXES:
        return _read_data(file, root)
    files = read_config(file, root)
    values = files[0].values if files else []
    # A locale's own `{lang, title, description}` may hold more of the keys than the
    # settings do: the settings are the object naming the theme, when one does.
    themed = [v for v in values if isinstance(v, dict) and ("themeConfig" in v or "theme" in v)]
    settings = score_settings(themed or values, _SETTINGS)
    theme, function = _theme_options(files, settings)
    if function == _HOPE:
        theme = _hope_sidebar(files, theme)
    keys = [*config.mapping(settings.get("locales")), *config.mapping(theme.get("locales"))]
    others = tuple(dict.fromkeys(k.strip("/") for k in keys if k.strip("/")))
    return _Config(settings, theme, others, function)


def _sidebar(read: _Config) -> Any:
    """The root locale's sidebar, or ``None`` (``'auto'``, ``false``, none)."""
    for theme in (read.theme_locale, read.theme):
        sidebar = theme.get("sidebar")
        if isinstance(sidebar, list | dict) and sidebar:
            return sidebar
    return None


# ── routes ──────────────────────────────────────────────────────────────────────────────


def _route(rel: str, front: Mapping[str, Any]) -> PageUrl:
    permalink = _str(front.get("permalink"))
    if permalink is not None and not SCHEME.match(permalink):
        url = permalink.split("#", 1)[0].strip()
        folder = url.endswith("/") or not url.strip("/")
        return PageUrl(url.strip("/").removesuffix(".html"), folder)
    path = PurePosixPath(rel)
    folders = [p for p in path.parent.parts if p != "."]
    index = path.stem.lower() in _INDEX
    return PageUrl("/".join(folders if index else [*folders, path.stem]), index)


def _key(link: str, base: str) -> str | None:
    """The route a sidebar path names relative to ``base`` (``guide``, ``guide/foo``), or
    ``None`` for an external link."""
    if SCHEME.match(link):
        return None
    path = link.split("#", 1)[0].split("?", 1)[0].strip()
    if not path.startswith("/"):
        path = posixpath.join(base if base.endswith("/") else base + "/", path)
        path = posixpath.normpath(path) + ("/" if path.endswith("/") or not link else "")
    key = path.strip("/")
    for ending in (".md", ".html"):
        if key.endswith(ending):
            key = key[: -len(ending)]
    stem = key.rsplit("/", 1)[-1]
    if stem.lower() in _INDEX:
        key = key[: -len(stem)]
    return key.strip("/")


@dataclass(slots=True)
class _Builder:
    ctx: Context
    by_route: dict[str, str]
    where: str
    placed: set[str] = field(default_factory=set)
    warned: set[str] = field(default_factory=set)
    unread: bool = False
    """Whether some part of the sidebar is built by code (``fs.readdirSync``), not run."""
    pages: list[str] = field(default_factory=list)
    """The root locale's pages in path order (what a ``'structure'`` sidebar arranges)."""
    infos: dict[str, PageInfo] = field(default_factory=dict)
    visits: int = _MAX_ITEMS
    """Sidebar items left to walk: a literal shared by name may be reached along many paths
    (``b = [a, a]``, ``c = [b, b]``...), so the walk is bounded, not the literal's size."""

    def rel(self, link: str, base: str) -> str | None:
        key = _key(link, base)
        if key is None:
            return None
        found = self.by_route.get(key)
        if found is None and link not in self.warned:
            self.warned.add(link)
            self.ctx.warn(
                "missing-outline-page",
                f"sidebar links {link!r}, which no page is published at; left out",
                self.where,
            )
        return found

    def page(self, into: OutlineSection, rel: str, label: str | None) -> None:
        if rel in self.placed:
            return
        self.placed.add(rel)
        into.children.append(OutlinePage(rel, label, len(into.children), self.where))

    def items(self, into: OutlineSection, items: Any, base: str, depth: int) -> None:
        if depth > _MAX_DEPTH or not isinstance(items, list):
            return
        for item in items:
            self.visits -= 1
            if self.visits < 0:
                return
            if isinstance(item, str):
                self.link(into, item, base, None)
            elif isinstance(item, list) and item and isinstance(item[0], str):
                label = _str(item[1]) if len(item) > 1 else None  # VuePress 1's [path, title]
                self.link(into, item[0], base, label)
            elif isinstance(item, dict):
                self.item(into, item, base, depth)

    def link(self, into: OutlineSection, link: str, base: str, label: str | None) -> None:
        rel = self.rel(link, base)
        if rel is not None:
            self.page(into, rel, label)

    def item(self, into: OutlineSection, item: dict[str, Any], base: str, depth: int) -> None:
        label = _str(item.get("text")) or _str(item.get("title"))
        link = item.get("link") if isinstance(item.get("link"), str) else item.get("path")
        prefix = _str(item.get("prefix"))
        own = base
        if prefix is not None and not SCHEME.match(prefix):
            own = prefix if prefix.startswith("/") else posixpath.join(base, prefix)
        children = item.get("children")
        if children is UNKNOWN:
            self.unread = True
        if children == _STRUCTURE and depth < _MAX_NESTING:
            # vuepress-theme-hope: the group's children are its prefix's structure.
            self.group(into, label, link, base, lambda section: self.structure(section, own))
            return
        if not isinstance(children, list):
            if isinstance(link, str):
                self.link(into, link, base, label)
            return
        if depth >= _MAX_NESTING:
            # Deeper groups than a catalog's topics may nest: their pages join this one.
            if isinstance(link, str):
                self.link(into, link, own, None)
            self.items(into, children, own, depth + 1)
            return
        self.group(
            into, label, link, base, lambda section: self.items(section, children, own, depth + 1)
        )

    def group(
        self,
        into: OutlineSection,
        label: str | None,
        link: Any,
        base: str,
        fill: Callable[[OutlineSection], None],
    ) -> None:
        """A section led by its ``link``'s page, ``fill`` adding its children; left out when
        it has none."""
        section = OutlineSection(
            name=label or "", key=f"{self.where}:{label}", order=len(into.children)
        )
        into.children.append(section)
        if isinstance(link, str):
            # The group's own link is relative to the group above (its `prefix` is for its
            # children), as both VuePress 2's default theme and vuepress-theme-hope read it.
            rel = self.rel(link, base)
            if rel is not None:
                self.page(section, rel, None)
        fill(section)
        if not section.children:
            into.children.remove(section)

    def info(self, rel: str) -> PageInfo:
        """A page's front matter and title (``title``, else its first ``#`` heading)."""
        found = self.infos.get(rel)
        if found is None:
            found = self.infos[rel] = _page_info(self.ctx, rel)
        return found

    def structure(self, into: OutlineSection, scope: str) -> None:
        """vuepress-theme-hope's ``'structure'`` sidebar of the pages under ``scope``."""
        folder = scope.strip("/")
        entries = structure(self.pages, f"{folder}/" if folder else "", self.info)
        self.entries(into, entries, folder, 0)

    def entries(self, into: OutlineSection, entries: list[Entry], key: str, depth: int) -> None:
        for entry in entries:
            if entry.rel is not None:
                self.page(into, entry.rel, None)
            elif depth >= _MAX_NESTING:
                self.entries(into, entry.children, key, depth + 1)
            else:
                own = f"{key}/{entry.name}" if key else entry.name
                section = OutlineSection(
                    name=entry.title, key=f"{self.where}:{own}/", order=len(into.children)
                )
                into.children.append(section)
                self.entries(section, entry.children, own, depth + 1)
                if not section.children:
                    into.children.remove(section)

    def sidebar(self, into: OutlineSection, sidebar: Any) -> None:
        if isinstance(sidebar, list):
            self.items(into, sidebar, "/", 0)
            return
        for path, value in sidebar.items():
            self.unread = self.unread or value is UNKNOWN or path == SPREAD
            if value == _STRUCTURE:
                self.structure(into, path)
            elif isinstance(value, list):
                self.items(into, value, path if path.startswith("/") else "/" + path, 0)


_MAX_PATTERNS = 64
_H1 = re.compile(r"^#[ \t]+([^\n]{1,300})", re.MULTILINE)


def _page_filter(patterns: Any) -> tuple[list[Glob], list[Glob]] | None:
    """VuePress 2's ``pagePatterns`` as (kept, left out) expressions, or ``None`` when the
    site does not set them (every ``.md`` file is a page)."""
    if not isinstance(patterns, list) or not patterns:
        return None
    kept: list[Glob] = []
    dropped: list[Glob] = []
    for pattern in patterns[:_MAX_PATTERNS]:
        if not isinstance(pattern, str) or not pattern.strip("!"):
            continue
        negative = pattern.startswith("!")
        found = compile_glob(pattern[1:] if negative else pattern)
        if found is not None:
            (dropped if negative else kept).append(found)
    return kept, dropped


def _matches(rel: str, patterns: tuple[list[Glob], list[Glob]]) -> bool:
    """Whether a page path is a page by ``pagePatterns``: some pattern names it and no ``!``
    pattern names it or a folder above it (a left-out folder is not walked)."""
    kept, dropped = patterns
    parts = rel.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    if any(d.match(p) for d in dropped for p in prefixes):
        return False
    return any(k.match(rel) for k in kept)


def _page_info(ctx: Context, rel: str) -> PageInfo:
    """A page's front matter and title, as vuepress-theme-hope's sorters read them."""
    where = ctx.display(ctx.content_root / rel)
    text = read_text_file(ctx.content_root / rel, where=where)
    matter = split_front_matter(text, path=where, lenient=True)
    title = _str(matter.data.get("title"))
    if title is None:
        found = _H1.search(matter.body)
        title = found.group(1).strip() if found is not None else ""
    return PageInfo(matter.data, title)


def _pages(ctx: Context, read: _Config) -> list[str]:
    """Every page of the root locale (those ``pagePatterns`` names, when set), in path order,
    a folder's README first."""
    others = tuple(f"{loc}/" for loc in read.locales)
    patterns = _page_filter(read.settings.get("pagePatterns"))
    found = []
    for folder, dirs, files in os.walk(ctx.content_root):  # never follows linked folders
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS)
        for name in files:
            path = base / name
            if name.startswith(".") or not ctx.is_page(path) or path.is_symlink():
                continue
            rel = ctx.rel(path)
            # A README is the folder's page (the home page at the top), not the catalog's
            # description.
            if rel.startswith(others) or left_out(ctx, path):
                continue
            if patterns is None or _matches(rel, patterns):
                found.append(rel)

    def order(rel: str) -> tuple[tuple[str, ...], bool, str]:
        path = PurePosixPath(rel)
        return path.parent.parts, path.stem.lower() not in _INDEX, path.name

    return sorted(found, key=order)


_INCLUDE = re.compile(r"!!!\s*include\s*\(\s*([^()\n]{1,300}?)\s*\)\s*!!!", re.IGNORECASE)
_MAX_INCLUDES = 8


def _include_root(files: list[JsFile], content: Path, root: Path) -> Path | None:
    """Where ``markdown-it-include`` resolves paths (the folder VuePress runs in: the
    nearest package above the source directory, within the source folder), or ``None`` when
    the site does not use it."""
    if not any("markdown-it-include" in f.text for f in files):
        return None
    resolved = root.resolve()
    for folder in (content, *content.parents):
        if not folder.resolve().is_relative_to(resolved):
            break
        if (folder / "package.json").is_file():
            return folder
    return content.parent if content.parent.resolve().is_relative_to(resolved) else content


def _includes(body: str, base: Path, within: Path, depth: int, budget: Budget) -> str:
    """``body`` with each ``!!!include(path)!!!`` (relative to ``base``) replaced by the
    file's text, expanded in turn; a file missing, outside ``within`` or past the budget is
    left as written."""

    def replace(match: re.Match[str]) -> str:
        file = (base / match.group(1)).resolve()
        if depth >= _MAX_INCLUDES or not file.is_relative_to(within) or not file.is_file():
            return match.group(0)
        try:
            text = read_text_file(file, where=display_path(file, within), within=within)
        except SourceError:
            return match.group(0)
        if not budget.take(text):
            return match.group(0)
        return _includes(text, file.parent, within, depth + 1, budget)

    return _INCLUDE.sub(replace, body)


class VuePress(Generator):
    """VuePress 1 and 2 (the default theme's sidebar, and themes that keep its shape)."""

    name = "vuepress"
    described_as = "a VuePress site"
    marker = ".vuepress/config.js"
    page_suffixes = (".md",)
    found_from_content = True

    def __init__(self, include_root: Path | None = None) -> None:
        self._include_root = include_root
        """Where ``!!!include()!!!`` paths start, when the site uses ``markdown-it-include``."""

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = find_config(root, _config_in)
        if file is None:
            return None
        read = _read(file, root)
        content = _project(file)
        settings, theme, locale = read.settings, read.theme, read.root_locale
        repo = _str(theme.get("docsRepo")) or _str(theme.get("repo"))
        if repo is not None and not SCHEME.match(repo):
            repo = f"https://github.com/{repo.strip('/')}"
        base = (_str(settings.get("base")) or "/").strip("/")
        return Site(
            VuePress(_include_root(_config_files(file, root), content, root)),
            file,
            content,
            config.site_metadata(
                _str(settings.get("title")) or _str(locale.get("title")),
                _str(settings.get("description")) or _str(locale.get("description")),
                _str(settings.get("lang")) or _str(locale.get("lang")),
                config.absolute_url(theme.get("hostname"), settings.get("hostname")),
                config.publisher(repo, None),
            ),
            LinkStyle(
                "html",
                slug="vitepress",
                prefixes=(base + "/",) if base else (),
                static_roots=(content / ".vuepress" / "public",),
            ),
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        assert site.config is not None  # a VuePress site always has its configuration
        project = Path(os.path.commonpath([site.config.parent, ctx.source_root]))
        read = _read(site.config, project)
        pages = _pages(ctx, read)
        by_route: dict[str, str] = {}
        for rel in pages:
            by_route.setdefault(_route(rel, {}).path, rel)
        where = display_path(site.config, project)
        builder = _Builder(ctx, by_route, where, pages=pages)
        root = OutlineSection(name="", key=where)
        if "" in by_route:
            builder.page(root, by_route[""], None)  # the home page
        sidebar = _sidebar(read)
        if sidebar is not None:
            builder.sidebar(root, sidebar)
            if builder.unread:
                ctx.warn(
                    "sidebars-not-read",
                    "has sidebar parts built by code (a call or a spread it does not run); "
                    "the pages only they would list follow the others, in path order",
                    where,
                )
        else:
            unread = next(
                (
                    t.get("sidebar")
                    for t in (read.theme_locale, read.theme)
                    if t.get("sidebar") is not None
                ),
                None,
            )
            if unread == _STRUCTURE or (unread is None and read.theme_function == _HOPE):
                builder.structure(root, "")  # vuepress-theme-hope's, its default too
            elif unread is None and not read.theme and read.settings.get("theme") is UNKNOWN:
                ctx.warn(
                    "sidebars-not-read",
                    "has theme options built by code (a call it does not run), so no sidebar "
                    "is read; the pages follow in path order",
                    where,
                )
            elif unread is not None and unread is not False and unread not in _NO_ORDER:
                ctx.warn(
                    "sidebars-not-read",
                    "has a sidebar that needs JavaScript to evaluate (it is not run); the "
                    "pages follow in path order",
                    where,
                )
        for rel in pages:
            builder.page(root, rel, None)
        return Outline(self.name, root, where, interleaved_root=True)

    def page_url(self, rel: str, front: Mapping[str, Any]) -> PageUrl:
        return _route(rel, front)

    def file_variants(self, rel: str) -> tuple[str, ...]:
        # A link to `README.md` names its folder's route, which an `index.md` serves too.
        path = PurePosixPath(rel)
        if path.suffix.lower() != ".md" or path.stem.lower() not in _INDEX:
            return ()
        return tuple(
            (path.parent / f"{stem}.md").as_posix()
            for stem in ("README", "index")
            if stem.lower() != path.stem.lower()
        )

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        if self._include_root is None or "!!!" not in body:
            return body
        return _includes(body, self._include_root, within.resolve(), 0, Budget(body))
