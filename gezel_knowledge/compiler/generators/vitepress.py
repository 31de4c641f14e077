"""VitePress: ``.vitepress/config.{js,ts,mjs,mts,cjs,cts}`` (or ``.vitepress/config/index.*``)
in the source folder or in a folder just below it (``docs/`` first); pages in ``srcDir`` (the
folder holding ``.vitepress``, unless ``srcDir`` names one inside it).

The configuration is JavaScript and is never run: the literals of the configuration file and
of the local files it imports are read (:mod:`._js_config`); whatever needs JavaScript to
evaluate is left out. The settings are the object holding most of ``title``, ``description``,
``lang``, ``base``, ``srcDir``, ``cleanUrls``, ``rewrites``, ``themeConfig``, ``locales``.

Pages: every ``.md`` file below ``srcDir`` but hidden ones, ``node_modules``, ``dist``,
``.vitepress``, the patterns of ``srcExclude`` and the folders of the other locales
(``locales`` keys besides ``root``: ``zh/``): the catalog is the root locale's site.

Routes: a page's path without ``.md`` (``index`` at its folder), moved by ``rewrites``
(static paths, ``:name`` segments standing for one segment, a last ``:rest*`` for the rest
of the path: ``'en/:rest*': ':rest*'``), under ``base``. A link
written with or without ``.md`` or ``.html`` (``./getting-started``) names the page; relative
links resolve from the page's folder.

Navigation: ``themeConfig.sidebar`` of the root locale (the top-level ``themeConfig``, else
``locales.root``'s, else the first sidebar found in an imported file whose links are not under
another locale's folder, else the content folder's own ``config.ts``, VitePress' directory-level
override of every page): an array of items (``{text, link, items, base}``), or an object of
sidebars by path (``'/guide/': [...]`` or ``{base, items}``), each walked in file order, depth
first; an item with ``items`` is a section (led by its own ``link`` page), one with only a
``link`` a page, labelled by ``text``; links prefixed by the nearest ``base`` as written
(``/reference/default-theme-`` and ``config``). The home page
(``index.md``) comes first, and pages no sidebar lists follow the sidebars, in path order.

Metadata: ``title``, ``description``, ``lang`` (else the root locale's), ``sitemap.hostname``;
the publisher from a GitHub ``socialLinks`` entry or the ``editLink`` pattern. Anchors:
VitePress' slugs (:mod:`~gezel_knowledge.compiler.text.anchors`), ``{#id}`` honoured.

Links to what the site publishes besides its pages are kept silently: folders the deploy
writes (``.gitignore``'d, or a sidebar's path such as ``'/api/'`` whose folder the tree lacks,
where typedoc writes an API reference), the paths ``ignoreDeadLinks`` names (a string, or a
regular expression anchored at a literal path: ``/^\\/interactive/``), and links to files of the
types VitePress' dead-link check skips (``.ts``, ``.pdf``, ``.json``...).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._budget import Budget
from gezel_knowledge.compiler.generators._context import SCHEME, Context, left_out, normalise
from gezel_knowledge.compiler.generators._glob import Glob
from gezel_knowledge.compiler.generators._js import SPREAD, UNKNOWN, Regex
from gezel_knowledge.compiler.generators._js_config import (
    SKIPPED_FOLDERS,
    JsFile,
    find_config,
    read_config,
    score_settings,
)
from gezel_knowledge.compiler.generators._js_ignored import (
    ignored_files,
    ignored_folders,
    page_routes,
    routes_below,
)
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, PageUrl, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import read_text_file

__all__ = ["VitePress"]

_SUFFIXES = ("js", "ts", "mjs", "mts", "cjs", "cts")
_CONFIGS = (
    *(f".vitepress/config.{s}" for s in _SUFFIXES),
    *(f".vitepress/config/index.{s}" for s in _SUFFIXES),
)
_SETTINGS = (
    "title",
    "description",
    "lang",
    "base",
    "srcDir",
    "srcExclude",
    "cleanUrls",
    "rewrites",
    "themeConfig",
    "locales",
)
_MAX_DEPTH = 32


def _config_in(folder: Path) -> Path | None:
    return next((folder / n for n in _CONFIGS if (folder / n).is_file()), None)


def _config_file(root: Path) -> Path | None:
    """The configuration at ``root``, else in one folder just below it (``docs/`` first)."""
    return find_config(root, _config_in)


def _project(file: Path) -> Path:
    """The folder holding ``.vitepress``."""
    return next(p for p in file.parents if p.name == ".vitepress").parent


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(slots=True)
class _Config:
    settings: dict[str, Any]
    files: list[JsFile]
    locales: tuple[str, ...] = ()
    """The folders of the other locales (``zh``)."""

    @property
    def theme(self) -> dict[str, Any]:
        return config.mapping(self.settings.get("themeConfig"))

    @property
    def root_locale(self) -> dict[str, Any]:
        return config.mapping(config.get(self.settings, "locales", "root"))


def _read(file: Path, root: Path) -> _Config:
    files = read_config(file, root)
    values = files[0].values if files else []
    # `locales` is a key of the site's settings only: the object holding it is the settings,
    # though a locale's own configuration (`root: { lang, ...enConfig }`) may hold more of
    # the other keys.
    settings = next(
        (v for v in values if isinstance(v, dict) and config.mapping(v.get("locales"))),
        None,
    ) or score_settings(values, _SETTINGS)
    locales = config.mapping(settings.get("locales"))
    others = tuple(k.strip("/") for k in locales if k != "root" and k.strip("/"))
    return _Config(settings, files, others)


def _directory_config(read: _Config, content: Path, root: Path) -> dict[str, Any]:
    """What the content folder's own ``config.{ts,js,mjs,mts}`` (a directory-level override
    of every page) exports, with its imports read."""
    names = (content / f"config.{s}" for s in ("ts", "mts", "js", "mjs"))
    found = next((n for n in names if n.is_file()), None)
    if found is None or any(found.resolve() == f.path.resolve() for f in read.files[:1]):
        return {}
    files = read_config(found, root)
    return score_settings(files[0].values, ("themeConfig", "description", "title", "lang"))


def _first_link(items: Any, depth: int = 0) -> str | None:
    """The first internal link a sidebar names."""
    if depth > _MAX_DEPTH:
        return None
    values = items.values() if isinstance(items, dict) else items
    for item in values if isinstance(values, list) or isinstance(items, dict) else ():
        if isinstance(item, dict):
            link = _str(item.get("link"))
            if link and not SCHEME.match(link):
                return link
        found = _first_link(item, depth + 1) if isinstance(item, dict | list) else None
        if found:
            return found
    return None


def _sidebar(read: _Config, directory: dict[str, Any]) -> Any:
    """The root locale's sidebar (see the module docstring), or ``None``."""
    themes = (read.theme, config.mapping(read.root_locale.get("themeConfig")))
    for theme in (*themes, config.mapping(directory.get("themeConfig"))):
        sidebar = theme.get("sidebar")
        if isinstance(sidebar, list | dict) and sidebar:
            return sidebar
    for file in read.files[1:]:
        for value in file.values:
            sidebar = value.get("sidebar") if isinstance(value, dict) else None
            if not isinstance(sidebar, list | dict) or not sidebar:
                continue
            link = (_first_link(sidebar) or "/").lstrip("/")
            if not any(link.startswith(f"{loc}/") for loc in read.locales):
                return sidebar
    return None


# ── routes ──────────────────────────────────────────────────────────────────────────────


# The file types VitePress' dead-link check skips (treatAsHtml's list): a link to one is left
# as written, whether or not the file exists.
_FILE_TYPE_NAMES = (
    "3g2 3gp aac ai apng au avif bin bmp cer class conf crl css csv dll doc eps epub exe gif gz "
    "ics ief jar jpe jpeg jpg js json jsonld m4a man mid midi mjs mov mp2 mp3 mp4 mpe mpeg mpg "
    "mpp oga ogg ogv ogx opus otf p10 p7c p7m p7s pdf png ps qt roff rtf rtx ser svg t tif tiff "
    "tr ts tsv ttf txt vtt wav weba webm webp woff woff2 xhtml xml yaml yml zip"
)
_FILE_TYPES = frozenset(_FILE_TYPE_NAMES.split())
_LITERAL_PATH = re.compile(r"(?:[A-Za-z0-9_.~-]|\\[/.-])+")


def _ignored_dead_links(value: Any) -> tuple[str, ...]:
    """The routes ``ignoreDeadLinks`` names: a string entry (a link) and a regular
    expression anchored at a literal path (``/^\\/interactive/``: another app on the host);
    ``true`` and other patterns name no route (never compiled, never run)."""
    out: list[str] = []
    for entry in value[:_MAX_IGNORED] if isinstance(value, list) else ():
        if isinstance(entry, str) and entry.startswith("/"):
            text = entry
        elif isinstance(entry, Regex) and entry.source.startswith("^\\/"):
            literal = entry.source[1:]
            if not _LITERAL_PATH.fullmatch(literal):
                continue
            text = re.sub(r"\\(.)", r"\1", literal)
        else:
            continue
        path = text.split("#", 1)[0].split("?", 1)[0].strip("/")
        if path:
            out.extend((path, path + "/"))
    return tuple(out)


_MAX_IGNORED = 1000


def _absent_sidebar_folders(sidebar: Any, content: Path) -> tuple[str, ...]:
    """The paths of a sidebar by path (``'/api/': [...]``) whose folder the tree lacks: the
    build writes the pages there before VitePress runs (typedoc's API reference), so links
    below them are routes of the site."""
    if not isinstance(sidebar, dict):
        return ()
    out = []
    for key in sidebar:
        parts = [p for p in key.split("/") if p] if isinstance(key, str) else []
        absent = parts and ".." not in parts and not content.joinpath(*parts).exists()
        if absent and key.endswith("/"):
            out.append("/".join(parts) + "/")
    return tuple(out)


def _param(segment: str) -> tuple[str, str] | None:
    """A ``:name`` segment's name and the suffix after it (``:pkg.md`` is ``pkg``, ``.md``);
    ``:rest*`` is ``rest*``, standing for the rest of the path."""
    if not segment.startswith(":"):
        return None
    name, dot, suffix = segment[1:].partition(".")
    return name, dot + suffix


def _rewrite(path: str, rules: list[tuple[list[str], list[str]]]) -> str:
    """``path`` (``a/b.md``) moved by the first rewrite rule it matches."""
    parts = path.split("/")
    for source, target in rules:
        rest = _param(source[-1]) if source else None
        if rest is not None and rest[0].endswith("*") and not rest[1]:
            # `en/:rest*`: the leading segments, then whatever follows them.
            if len(parts) < len(source) or parts[: len(source) - 1] != source[:-1]:
                continue
            tail = "/".join(parts[len(source) - 1 :])
            head = target[:-1] if target and target[-1] == source[-1] else None
            if head is not None:
                return "/".join([*head, tail])
            continue
        if len(source) != len(parts):
            continue
        bound: dict[str, str] = {}
        for pattern, part in zip(source, parts, strict=True):
            param = _param(pattern)
            if param is not None and part.endswith(param[1]):
                bound[param[0]] = part[: len(part) - len(param[1])]
            elif pattern != part:
                break
        else:
            out = []
            for segment in target:
                param = _param(segment)
                found = bound.get(param[0]) if param is not None else None
                out.append(segment if param is None or found is None else found + param[1])
            return "/".join(out)
    return path


def _rules(value: Any) -> list[tuple[list[str], list[str]]]:
    rules = []
    for source, target in config.mapping(value).items():
        text = (source + target).replace(":rest*", "")
        if isinstance(target, str) and not any(c in text for c in "()*?[]"):
            rules.append((source.strip("/").split("/"), target.strip("/").split("/")))
    return rules


def _route(rel: str, rules: list[tuple[list[str], list[str]]]) -> PageUrl:
    path = PurePosixPath(_rewrite(rel, rules))
    folders = [p for p in path.parent.parts if p != "."]
    index = path.stem == "index"
    return PageUrl("/".join(folders if index else [*folders, path.stem]), index)


# ── the navigation ──────────────────────────────────────────────────────────────────────


@dataclass(slots=True)
class _Builder:
    ctx: Context
    by_route: dict[str, str]
    where: str
    placed: set[str] = field(default_factory=set)
    generated: tuple[str, ...] = ()
    """Folders the build writes (:func:`_absent_sidebar_folders`): their links are silent."""
    warned: set[str] = field(default_factory=set)

    def rel(self, link: str, base: str) -> str | None:
        """The page a sidebar link names (relative to ``base``), or ``None``."""
        if SCHEME.match(link):
            return None
        path = link.split("#", 1)[0].split("?", 1)[0]
        if not path.startswith("/"):
            path = base + path  # as written: `/reference/default-theme-` + `config`
        key = path.strip("/")
        for ending in (".md", ".html"):
            key = key.removesuffix(ending)
        if key == "index" or key.endswith("/index"):
            key = key[: -len("index")]
        found = self.by_route.get(key.strip("/"))
        # A link to a file served as it is (`/llms.txt` a plugin writes, a PDF in public/)
        # is no page: the sidebar shows it, and the catalog has nothing to place.
        served = PurePosixPath(key).suffix.lower().lstrip(".") in _FILE_TYPES
        missing = found is None and not served and link not in self.warned
        if missing and not (key.strip("/") + "/").startswith(self.generated):
            # Once per link: one sidebar array is often shared by many paths (VueUse's six).
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
            if not isinstance(item, dict):
                continue
            label = _str(item.get("text"))
            link = _str(item.get("link"))
            own_base = _str(item.get("base")) or base
            children = item.get("items")
            if isinstance(children, list):
                section = OutlineSection(
                    name=label or "", key=f"{self.where}:{label}", order=len(into.children)
                )
                into.children.append(section)
                if link:
                    rel = self.rel(link, own_base)
                    if rel is not None:
                        self.page(section, rel, None)
                self.items(section, children, own_base, depth + 1)
                if not section.children:
                    into.children.remove(section)
            elif link:
                rel = self.rel(link, own_base)
                if rel is not None:
                    self.page(into, rel, label)

    def sidebar(self, into: OutlineSection, sidebar: Any) -> None:
        if isinstance(sidebar, list):
            self.items(into, sidebar, "/", 0)
            return
        for path, value in sidebar.items():
            if isinstance(value, dict):
                base = _str(value.get("base")) or path
                self.items(into, value.get("items"), base, 0)
            else:
                self.items(into, value, "/", 0)


def _pages(ctx: Context, read: _Config) -> list[str]:
    """Every page of the root locale, in path order (see the module docstring)."""
    option = read.settings.get("srcExclude")
    exclude = Glob([p for p in option if isinstance(p, str)] if isinstance(option, list) else [])
    others = {f"{loc}/" for loc in read.locales}
    found = []
    for folder, dirs, files in os.walk(ctx.content_root):  # never follows linked folders
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS)
        for name in files:
            path = base / name
            if name.startswith(".") or not ctx.is_page(path) or path.is_symlink():
                continue
            rel = ctx.rel(path)
            if any(rel.startswith(o) for o in others) or exclude.match(rel):
                continue
            # VitePress publishes a README.md as any page (/README) unless srcExclude says
            # otherwise; it is then a page here too, not the catalog's description.
            if not left_out(ctx, path):
                found.append(rel)
    return sorted(found)


class VitePress(Generator):
    """VitePress (its default theme's sidebar)."""

    name = "vitepress"
    described_as = "a VitePress site"
    marker = ".vitepress/config.js"
    page_suffixes = (".md",)
    found_from_content = True

    def __init__(self) -> None:
        self._rules: list[tuple[list[str], list[str]]] = []

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = _config_file(root)
        if file is None:
            return None
        read = _read(file, root)
        project = _project(file)
        src = _str(read.settings.get("srcDir"))
        content = normalise(project, src.strip() or ".", root) if src else project
        if content is None or not content.is_dir():
            if not forced:
                return None
            raise SourceError(
                f"the VitePress srcDir {src!r} is not a folder inside the source folder",
                reason="missing-file",
                path=display_path(file, root),
            )
        settings, theme, locale = read.settings, read.theme, read.root_locale
        github = next(
            (
                _str(s.get("link"))
                for s in theme.get("socialLinks") or ()
                if isinstance(s, dict) and s.get("icon") == "github"
            ),
            None,
        )
        edit = _str(config.get(theme, "editLink", "pattern"))
        base = (_str(settings.get("base")) or "/").strip("/")
        generator = VitePress()
        generator._rules = _rules(settings.get("rewrites"))
        return Site(
            generator,
            file,
            content,
            config.site_metadata(
                _str(settings.get("title")) or _str(locale.get("title")),
                _str(settings.get("description"))
                or _str(locale.get("description"))
                or _str(_directory_config(read, content, root).get("description")),
                _str(settings.get("lang")) or _str(locale.get("lang")),
                config.absolute_url(config.get(settings, "sitemap", "hostname")),
                config.publisher(github or edit, None),
            ),
            LinkStyle(
                "html",
                slug="vitepress",
                unchecked_suffixes=_FILE_TYPES,
                prefixes=(base + "/",) if base else (),
                static_roots=(content / "public",),
                # Pages the deploy writes before VitePress runs (.gitignore'd folders).
                routes=tuple(
                    r
                    for b in (content, content / "public")
                    for r in routes_below(ignored_folders(project, root), b)
                )
                + page_routes(ignored_files(project, root), content)
                + _ignored_dead_links(settings.get("ignoreDeadLinks"))
                + _absent_sidebar_folders(
                    _sidebar(read, _directory_config(read, content, root)), content
                ),
            ),
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        assert site.config is not None  # a VitePress site always has its configuration
        project = Path(os.path.commonpath([site.config.parent, ctx.source_root]))
        read = _read(site.config, project)
        pages = _pages(ctx, read)
        by_route: dict[str, str] = {}
        for rel in pages:
            by_route.setdefault(self.page_url(rel, {}).path, rel)
        where = display_path(site.config, project)
        builder = _Builder(ctx, by_route, where)
        root = OutlineSection(name="", key=where)
        if "" in by_route:
            builder.page(root, by_route[""], None)  # the home page
        sidebar = _sidebar(read, _directory_config(read, ctx.content_root, project))
        builder.generated = _absent_sidebar_folders(sidebar, ctx.content_root)
        if sidebar is not None:
            builder.sidebar(root, sidebar)
        # `...await sidebarsFromFiles()`, `'/api/': apiSidebar()`: built by code, not run.
        unread = isinstance(sidebar, dict) and any(
            k == SPREAD or v is UNKNOWN for k, v in sidebar.items()
        )
        if unread:
            ctx.warn(
                "sidebars-not-read",
                "has sidebars built by code (a spread or a call it does not run); the pages "
                "only they would list follow the others, in path order",
                where,
            )
        elif sidebar is None and read.theme.get("sidebar") is UNKNOWN:
            ctx.warn(
                "sidebars-not-read",
                "has a sidebar that needs JavaScript to evaluate (it is not run); the pages "
                "follow in path order",
                where,
            )
        for rel in pages:
            builder.page(root, rel, None)
        return Outline(self.name, root, where, interleaved_root=True)

    def page_url(self, rel: str, front: Mapping[str, Any]) -> PageUrl:
        del front
        return _route(rel, self._rules)

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        if "@include" not in body:
            return body
        return _includes(
            body, page.parent, site.content_root, within.resolve(), 0, budget=Budget(body)
        )


_INCLUDE = re.compile(r"<!--[ \t]*@include:[ \t]*([^\s{#>]+)(#[\w-]+)?(\{\d*,?\d*\})?[ \t]*-->")
_MAX_INCLUDES = 10


def _includes(
    body: str, folder: Path, content: Path, within: Path, depth: int, *, budget: Budget
) -> str:
    """``body`` with VitePress' ``<!--@include: ./file.md-->`` put in (``@/`` is the content
    folder; ``#region`` a ``<!-- #region name -->`` part, ``{a,b}`` lines a to b), included
    text expanded in turn; a file missing or outside the source folder, or past the page's
    budget of included characters (:mod:`._budget`), is left as written."""

    def replace(match: re.Match[str]) -> str:
        name, region, lines = match.group(1), match.group(2), match.group(3)
        base, name = (content, name[2:]) if name.startswith("@/") else (folder, name)
        file = (base / name).resolve()
        if depth >= _MAX_INCLUDES or not file.is_relative_to(within) or not file.is_file():
            return match.group(0)
        try:
            text = read_text_file(file, where=display_path(file, within), within=within)
        except SourceError:
            return match.group(0)
        chosen = text.replace("\r\n", "\n").removesuffix("\n").split("\n")
        if region:
            marks = [
                i
                for i, line in enumerate(chosen)
                if re.search(rf"#(?:end)?region {re.escape(region[1:])}\b", line)
            ]
            chosen = chosen[marks[0] + 1 : marks[1]] if len(marks) >= 2 else chosen
        if lines:
            first, _, last = lines.strip("{}").partition(",")
            start = int(first) if first else 1
            end = int(last) if last else (len(chosen) if "," in lines else start)
            chosen = chosen[max(start, 1) - 1 : end]
        part = "\n".join(chosen)
        if not budget.take(part):
            return match.group(0)
        return _includes(part, file.parent, content, within, depth + 1, budget=budget)

    return _INCLUDE.sub(replace, body)
