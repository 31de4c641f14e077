"""Rspress: ``rspress.config.{ts,js,mjs,mts,cjs,cts}`` in the source folder or in a folder just
below it (``website/``, ``docs/``), or an Rstack ``rstack.config.*`` whose ``define.doc({...})``
holds Rspress' options (Rstack's ``rs doc`` runs Rspress with them). Pages are the ``.md`` and
``.mdx`` files of ``root`` (``docs/`` by default); with ``locales`` (or
``themeConfig.locales``), those of the default language's folder (``docs/en/`` for ``lang:
'en'``, else for ``en`` when the locales list it): the catalog is the default language's site.

The configuration is JavaScript and is never run: its literals are read
(:mod:`._js_config`). Read: ``root``, ``lang``, ``locales``, ``title``, ``description``,
``base``, ``siteOrigin``, ``route.exclude`` (glob patterns relative to ``root``), and
``themeConfig`` (``locales``, ``socialLinks``, ``editLink.docRepoBaseUrl``).

Pages: Rspress' routes: every page file but those ``route.exclude`` names, those in
``public/`` and those whose name (or a folder's) starts with one ``_`` (its
``excludeConvention``, ``**/_[^_]*``: partials). A page is published at its path without
suffix (``index`` at its folder); links name files (``./a.mdx``) or routes
(``/guide/start/quick-start``), relative links from the page's folder; links to another
language's pages (``/zh/...``) are its routes, kept silently.

Navigation (Rspress' auto navigation and sidebar): the home page (``index``) first. When the
content folder has a ``_meta.json``, it is the sidebar; else, with a ``_nav.json``, each
folder is a sidebar group, in the order the navbar links to them (the first segment of each
``link``, nested ``items`` too), then the others by name, each a section named after its
navbar text; else the folder itself is the sidebar. A folder's entries are its
``_meta.json`` array, in order: a name (``"intro"``, ``"intro.mdx"``) or ``{type: "file",
name, label}`` is a page; ``{type: "dir", name, label}`` a section, led by the page named
like the folder beside it (``api.mdx`` and ``api/``), else by its ``index`` page unless the
``_meta.json`` lists that; ``{type: "dir-section-header", name, label}`` a section holding the
folder's entries; ``section-header``, ``divider`` and ``custom-link`` entries place no page.
With no ``_meta.json``, the entries are the folder's files and folders, ``index`` first, then
by name (a file named like a folder beside it left to lead that folder). Pages no sidebar
lists follow, in path order.

Metadata: ``title``, ``description``, ``lang`` (or the default language's ``themeConfig``
locale's description), ``siteOrigin``; the publisher from a GitHub ``socialLinks`` entry or
``editLink.docRepoBaseUrl``. Anchors: GitHub's slugs (``github-slugger``), ``{#id}`` honoured.
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
from gezel_knowledge.compiler.generators._context import MARKDOWN_SUFFIXES, MDX, SCHEME, Context
from gezel_knowledge.compiler.generators._glob import Glob
from gezel_knowledge.compiler.generators._js import read_module
from gezel_knowledge.compiler.generators._js_config import (
    SKIPPED_FOLDERS,
    find_config,
    marked_config,
    read_config,
    score_settings,
)
from gezel_knowledge.compiler.generators._mdx import expand_partials
from gezel_knowledge.compiler.generators.base import (
    Generator,
    LinkStyle,
    LinkTarget,
    PageUrl,
    Site,
)
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection

__all__ = ["Rspress"]

_SUFFIXES = ("ts", "js", "mjs", "mts", "cjs", "cts")
_CONFIGS = tuple(f"rspress.config.{s}" for s in _SUFFIXES)
_RSTACK = tuple(f"rstack.config.{s}" for s in _SUFFIXES)
_DEFINE_DOC = re.compile(r"\bdefine\.doc\s*\(\s*(?=\{)")
_SETTINGS = (
    "root",
    "title",
    "description",
    "lang",
    "locales",
    "base",
    "route",
    "themeConfig",
    "siteOrigin",
    "markdown",
    "plugins",
)
_PAGES = (".md", MDX)
_MAX_DEPTH = 32
_MAX_NESTING = 12
"""Folders nested deeper give their pages to the section above (a catalog nests 16 topics)."""
_MAX_META = 1_000_000


def _config_in(folder: Path) -> Path | None:
    found = next((folder / n for n in _CONFIGS if (folder / n).is_file()), None)
    if found is not None:
        return found
    return marked_config(folder, _RSTACK, lambda head: b"define.doc" in head)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


@dataclass(frozen=True, slots=True)
class _Read:
    """What the configuration says."""

    settings: dict[str, Any]
    docs: Path
    """``root``: the folder of every language's pages."""
    content: Path
    """The default language's pages."""
    langs: tuple[str, ...]
    """The other languages' folders."""
    exclude: Glob

    @property
    def theme(self) -> dict[str, Any]:
        return config.mapping(self.settings.get("themeConfig"))


def _settings(file: Path, root: Path) -> dict[str, Any]:
    files = read_config(file, root)
    if not files:
        return {}
    found = _DEFINE_DOC.search(files[0].text)
    if found is not None:
        literals = read_module(files[0].text[found.end() :], files[0].names).literals
        if literals and isinstance(literals[0], dict):
            return literals[0]
    return score_settings(files[0].values, _SETTINGS)


def _langs(settings: dict[str, Any]) -> list[str]:
    locales = settings.get("locales")
    if not isinstance(locales, list):
        locales = config.get(settings, "themeConfig", "locales")
    out = [_str(x.get("lang")) for x in locales if isinstance(x, dict)] if locales else []
    return [x for x in out if x]


def _read(file: Path, root: Path) -> _Read:
    settings = _settings(file, root)
    project = file.parent
    # `root: path.join(__dirname, 'docs')` is no literal: the default is read then.
    name = _str(settings.get("root"))
    docs = project / "docs"
    if name is not None and not name.startswith("/"):
        docs = config.folder(project, name, "docs")
    langs = _langs(settings)
    lang = _str(settings.get("lang")) or ("en" if "en" in langs else None)
    content = docs / lang if lang and (docs / lang).is_dir() else docs
    others = tuple(x for x in langs if x != lang and content != docs)
    patterns = config.get(settings, "route", "exclude")
    exclude = Glob(
        [p for p in patterns if isinstance(p, str)] if isinstance(patterns, list) else []
    )
    return _Read(settings, docs, content, others, exclude)


def _partial(rel: str) -> bool:
    """Whether a path has a segment Rspress' ``excludeConvention`` (``**/_[^_]*``) leaves out."""
    return any(p.startswith("_") and not p.startswith("__") for p in rel.split("/"))


# ── the sidebar ─────────────────────────────────────────────────────────────────────────


def _meta(folder: Path, root: Path) -> list[Any] | None:
    """A folder's ``_meta.json`` array, or ``None`` when it has none (or it is no array)."""
    file = folder / "_meta.json"
    if not file.is_file():
        return None
    try:
        value = json.loads(config.read_text(file, root)[:_MAX_META])
    except (SourceError, ValueError):
        return None
    return value if isinstance(value, list) else None


@dataclass(slots=True)
class _Builder:
    ctx: Context
    read: _Read
    pages: set[str]
    where: str
    placed: set[str] = field(default_factory=set)
    walked: set[Path] = field(default_factory=set)
    """Folders walked already: a ``_meta.json`` naming one twice (or ``.``) walks it once."""

    def page_file(self, folder: Path, name: str) -> str | None:
        """The page ``name`` names in ``folder`` (with or without its suffix), if one."""
        base = folder / name
        candidates = (
            [base] if base.suffix in _PAGES else [base.with_name(base.name + s) for s in _PAGES]
        )
        for file in candidates:
            if file.is_file():
                rel = self.ctx.rel(file)
                return rel if rel in self.pages else None
        return None

    def page(self, into: OutlineSection, rel: str | None, label: str | None) -> None:
        if rel is None or rel in self.placed:
            return
        self.placed.add(rel)
        into.children.append(OutlinePage(rel, label, len(into.children), self.where))

    def fs_entries(self, folder: Path, top: bool) -> list[Any]:
        """A folder's entries when it has no ``_meta.json`` (Rspress' ``fsDirToMetaItems``)."""
        try:
            names = [p.name for p in folder.iterdir()]
        except OSError:
            return []
        stems = {n.rsplit(".", 1)[0] for n in names if (folder / n).is_dir()}

        def key(name: str) -> tuple[bool, str, str]:
            return name.rsplit(".", 1)[0] != "index", name.casefold(), name

        out: list[Any] = []
        for name in sorted(names, key=key):
            path = folder / name
            if path.is_dir() and not path.is_symlink():
                if not (top and name == "public") and name not in SKIPPED_FOLDERS:
                    out.append({"type": "dir", "name": name})
            elif path.suffix in _PAGES and name.rsplit(".", 1)[0] not in stems:
                out.append(name)
        return out

    def entries(self, folder: Path, top: bool) -> tuple[list[Any], bool]:
        meta = _meta(folder, self.ctx.source_root)
        return (meta, True) if meta is not None else (self.fs_entries(folder, top), False)

    def items(self, into: OutlineSection, entries: list[Any], folder: Path, depth: int) -> None:
        if depth > _MAX_DEPTH:
            return
        for entry in entries:
            if isinstance(entry, str):
                self.page(into, self.page_file(folder, entry), None)
                continue
            if not isinstance(entry, dict):
                continue
            kind, name = entry.get("type"), _str(entry.get("name"))
            label = _str(entry.get("label"))
            if kind == "file" and name is not None:
                self.page(into, self.page_file(folder, name), label)
            elif kind in ("dir", "dir-section-header") and name is not None:
                if name in (".", "..") or "/" in name or "\\" in name:
                    continue  # Rspress' entries name the folder's own children
                sub = folder / name
                if (
                    sub.is_dir()
                    and not sub.is_symlink()
                    and sub.resolve().is_relative_to(self.ctx.content_root.resolve())
                ):
                    self.folder(into, sub, label, header=kind != "dir", depth=depth + 1)

    def folder(
        self, into: OutlineSection, folder: Path, label: str | None, *, header: bool, depth: int
    ) -> None:
        """A folder as a section: Rspress' ``dir`` group (or ``dir-section-header``)."""
        if folder.resolve() in self.walked:
            return
        self.walked.add(folder.resolve())
        entries, has_meta = self.entries(folder, False)
        if depth > _MAX_NESTING:
            # Deeper folders than a catalog's topics may nest: their pages join this one.
            self.items(into, entries, folder, depth)
            return
        section = OutlineSection(
            name=label or "", key=self.ctx.display(folder) + "/", order=len(into.children)
        )
        lead = None if header else self.page_file(folder.parent, folder.name)
        indexed = has_meta and any(
            isinstance(e, str) and e.rsplit(".", 1)[0] == "index" for e in entries
        )
        if lead is None and not header and not indexed:
            lead = self.page_file(folder, "index")
            entries = [
                e
                for e in entries
                if not (isinstance(e, str) and e.rsplit(".", 1)[0] == "index")
                and not (
                    isinstance(e, dict)
                    and e.get("type") == "file"
                    and e.get("name") in ("index", "index.md", "index.mdx")
                )
            ]
        if lead is not None and lead not in self.placed:
            self.page(section, lead, None)
            section.title_page = lead if not label else None
        if not section.name and section.title_page is None:
            section.name = folder.name
        self.items(section, entries, folder, depth)
        if section.children:
            into.children.append(section)


def _nav_folders(nav: Any, content: Path) -> list[tuple[str, str | None]]:
    """The top-level folders the navbar links to, in its order, with their navbar text."""
    out: dict[str, str | None] = {}

    def visit(items: Any, depth: int) -> None:
        for item in items if isinstance(items, list) and depth < _MAX_DEPTH else ():
            if not isinstance(item, dict):
                continue
            link = _str(item.get("link"))
            if link is not None and not SCHEME.match(link):
                first = next((p for p in link.split("#", 1)[0].split("/") if p), None)
                if first is not None and (content / first).is_dir() and first not in out:
                    out[first] = _str(item.get("text"))
            visit(item.get("items"), depth + 1)

    visit(nav, 0)
    return list(out.items())


def _pages(ctx: Context, read: _Read) -> list[str]:
    """Every page of the default language, in path order."""
    found = []
    for folder, dirs, files in os.walk(ctx.content_root):  # never follows linked folders
        base = Path(folder)
        top = base == ctx.content_root
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIPPED_FOLDERS
            and not (top and d == "public")
            and not (top and ctx.content_root == read.docs and d in read.langs)
        )
        for name in files:
            path = base / name
            if path.suffix not in _PAGES or path.is_symlink() or ctx.excluded(path):
                continue
            rel = ctx.rel(path)
            from_docs = path.relative_to(read.docs).as_posix()
            if _partial(rel) or read.exclude.match(from_docs):
                continue
            found.append(rel)
    return sorted(found)


class Rspress(Generator):
    """Rspress (its auto navigation and sidebar from ``_nav.json`` and ``_meta.json``)."""

    name = "rspress"
    described_as = "an Rspress site"
    marker = "rspress.config.ts"
    page_suffixes = (*MARKDOWN_SUFFIXES, MDX)
    found_from_content = True

    def __init__(self, lang: str | None = None) -> None:
        self._lang = lang
        """The default language's folder, when pages are in one (``en``)."""

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = find_config(root, _config_in)
        if file is None:
            return None
        read = _read(file, root)
        if not read.content.is_dir():
            if not forced:
                return None
            raise SourceError(
                "the Rspress root folder is not a folder inside the source folder",
                reason="missing-file",
                path=display_path(file, root),
            )
        settings, theme = read.settings, read.theme
        lang = _str(settings.get("lang")) or (
            read.content.name if read.content != read.docs else None
        )
        locale = next(
            (
                x
                for x in config.get(settings, "themeConfig", "locales") or ()
                if isinstance(x, dict) and x.get("lang") == lang
            ),
            {},
        )
        github = next(
            (
                _str(s.get("content"))
                for s in theme.get("socialLinks") or ()
                if isinstance(s, dict) and s.get("icon") == "github"
            ),
            None,
        )
        edit = _str(config.get(theme, "editLink", "docRepoBaseUrl"))
        base = (_str(settings.get("base")) or "/").strip("/")
        # `/en/guide/a` names the default language's page as `/guide/a` does.
        prefixes = [f"{base}/"] if base else []
        if read.content != read.docs:
            prefixes.append(f"{base}/{read.content.name}/".lstrip("/"))
        excludes = config.get(settings, "markdown", "link", "checkDeadLinks", "excludes")
        unchecked = tuple(
            x.split("#", 1)[0].strip("/")
            for x in (excludes if isinstance(excludes, list) else ())
            if isinstance(x, str) and x.startswith("/") and x.strip("/")
        )
        return Site(
            Rspress(read.content.name if read.content != read.docs else None),
            file,
            read.content,
            config.site_metadata(
                _str(settings.get("title")) or _str(locale.get("title")),
                _str(settings.get("description")) or _str(locale.get("description")),
                lang,
                config.absolute_url(settings.get("siteOrigin")),
                config.publisher(github or edit, None),
            ),
            LinkStyle(
                "html",
                prefixes=tuple(prefixes),
                static_roots=(read.docs / "public",),
                # Other languages' pages, and what `checkDeadLinks.excludes` names.
                routes=tuple(f"{x}/" for x in read.langs) + unchecked,
            ),
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        assert site.config is not None  # an Rspress site always has its configuration
        project = Path(os.path.commonpath([site.config.parent, ctx.source_root]))
        read = _read(site.config, project)
        pages = _pages(ctx, read)
        where = display_path(site.config, project)
        builder = _Builder(ctx, read, set(pages), where)
        root = OutlineSection(name="", key=where)
        content = ctx.content_root
        builder.page(root, builder.page_file(content, "index"), None)  # the home page
        nav_file = content / "_nav.json"
        if (content / "_meta.json").is_file() or not nav_file.is_file():
            entries, _ = builder.entries(content, True)
            builder.items(root, entries, content, 0)
        else:
            try:
                nav = json.loads(config.read_text(nav_file, ctx.source_root)[:_MAX_META])
            except (SourceError, ValueError):
                nav = []
            ordered = _nav_folders(nav, content)
            named = {name for name, _ in ordered}
            rest = sorted(
                p.name
                for p in content.iterdir()
                if p.is_dir()
                and not p.is_symlink()
                and p.name not in named
                and p.name not in ("public", *SKIPPED_FOLDERS)
                and not p.name.startswith(".")
            )
            for name, text in [*ordered, *((n, None) for n in rest)]:
                builder.folder(root, content / name, text, header=True, depth=1)
        for rel in pages:
            builder.page(root, rel, None)
        return Outline(self.name, root, where, interleaved_root=True)

    def page_url(self, rel: str, front: Mapping[str, Any]) -> PageUrl:
        del front
        path = PurePosixPath(rel)
        folders = [p for p in path.parent.parts if p != "."]
        index = path.stem == "index"
        return PageUrl("/".join(folders if index else [*folders, path.stem]), index)

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        # MDX parts a page imports (`import Part from './_part.mdx'`) are put in.
        site_dir = site.config.parent if site.config is not None else within
        return expand_partials(body, folder=page.parent, site=site_dir, within=within.resolve())

    def file_variants(self, rel: str) -> tuple[str, ...]:
        # A link's `.md` or `.mdx` is dropped to find the route: either names the page.
        path = PurePosixPath(rel)
        other = {".md": MDX, MDX: ".md"}.get(path.suffix)
        return (path.with_suffix(other).as_posix(),) if other else ()

    def link_target(self, raw: str) -> LinkTarget | None:
        # `/en/guide/a.mdx`: the default language's page, as `/guide/a.mdx` names it.
        if self._lang is None or not raw.startswith(f"/{self._lang}/"):
            return None
        return LinkTarget(raw[len(self._lang) + 1 :], plain=True)
