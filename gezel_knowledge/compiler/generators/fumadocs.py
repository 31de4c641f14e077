"""Fumadocs: a site whose ``source.config.{ts,mts,js,mjs}`` uses ``fumadocs-mdx`` (in the source
folder, one folder just below it, or a package of a JavaScript monorepo); pages are the ``.md``
and ``.mdx`` files of the first ``defineDocs({ dir })`` folder (``content/docs``).

The configuration is JavaScript and is never run: its literals are read. The URL the pages are
published at is the ``baseUrl`` of the first ``loader({...})`` of ``lib/source.*`` (or
``src/lib/source.*``; names it imports from local files read as their literals); the other
loaders' URLs (a blog), the app's own pages and the Next.js config's redirects (:mod:`._next`)
are routes a link may name, kept as written silently. With ``defineI18n({ defaultLanguage,
languages, parser })`` in a file of ``lib/``: the ``dir`` parser's pages are the default
language's folder; the ``dot`` parser's (the default) are the files without a locale
(``page.mdx``, or ``page.en.mdx`` for the default language), another language's ``page.cn.mdx``
being no page of the catalog (when ``languages`` is not a literal, a second suffix of two
letters, or two and a region, is a locale).

Slugs: a page's path without suffix, ``index`` at its folder, folders in parentheses
(``(guides)/``) left out; relative links resolve from the page's folder.

Navigation: each folder's ``meta.json`` (``meta.<default>.json`` first): ``title`` names it;
without ``pages`` its items are its ``index`` page, then the other pages and folders by name;
with ``pages``, only those listed: a path (``getting-started``, ``./guides/setup``, which may
reach into a subfolder), ``...`` (the items not listed, by name; ``z...a`` in reverse),
``...folder`` (that folder's items in its place), ``!name`` (kept out of ``...``); separators
(``---Label---``) and links (``[Text](url)``) are no pages. A folder's ``index`` page (or its
``pagesIndex``) leads it. Pages the navigation does not show are published and searched too:
they follow it, by path. ``<include>file</include>`` puts that file's text in the page, and a
heading ending in ``[#id]`` is reached at ``#id`` (as Nextra reads it).

Metadata: the name the Fumadocs template's ``appName`` (``lib/shared.ts``) states, else an Open
Graph ``siteName`` or a title template (``'%s | Name'``), else the landing page's title; the
default language, else the layout's ``<html lang>``; the publisher from the layout options'
``githubUrl``, else the template's ``gitConfig`` (``{ user, repo }``). Anchors are GitHub's slugs
(``github-slugger``).
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
from gezel_knowledge.compiler.generators._context import MARKDOWN_SUFFIXES, MDX, Context
from gezel_knowledge.compiler.generators._js import read_module
from gezel_knowledge.compiler.generators._js_config import (
    SKIPPED_FOLDERS,
    find_config,
    marked_config,
    read_config,
)
from gezel_knowledge.compiler.generators._mdx import expand_partials, indented_headings
from gezel_knowledge.compiler.generators._next import next_routes
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, PageUrl, Site
from gezel_knowledge.compiler.generators.nextra import custom_heading_ids
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import MAX_TEXT_FILE_BYTES, read_text_file

__all__ = ["Fumadocs"]

_CONFIGS = tuple(f"source.config.{s}" for s in ("ts", "mts", "js", "mjs"))
_LOCALE = re.compile(r"[a-z]{2}(?:-[A-Za-z]{2,4})?")
_GITHUB = re.compile(r"""githubUrl\s*[:=]\s*\{?\s*['"`](https://github\.com/[^'"`\s]+)""")
# `[^<>]`: a scan stops at the next tag, so many unclosed `<html` are each read once.
_HTML_LANG = re.compile(r"""<html\b[^<>]*\blang\s*=\s*\{?\s*['"]([A-Za-z-]{2,20})['"]""")
_INCLUDE = re.compile(r"<include(?:\s[^<>]*)?>([^<>\n]{1,300})</include>")
_MAX_DEPTH = 32
_NEXT_SUFFIXES = ("ts", "mjs", "js", "mts", "cjs")
_MAX_FILES = 200


def _config_in(folder: Path) -> Path | None:
    return marked_config(folder, _CONFIGS, lambda head: b"fumadocs-mdx" in head)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _call(text: str, name: str, names: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The object literal passed to the first ``name(...)`` call of ``text`` (``names``: the
    values of the names it may use)."""
    found = re.search(rf"\b{name}\s*\(", text)
    if found is None:
        return {}
    values = read_module(text[found.end() - 1 :], names).literals
    return values[0] if values and isinstance(values[0], dict) else {}


def _loader_options(text: str, names: Mapping[str, Any]) -> dict[str, Any]:
    """The options of a ``loader(...)`` call whose arguments ``text`` opens: the first of
    its first two object literals naming ``baseUrl``, else the first."""
    values = [v for v in read_module(text, names).literals[:2] if isinstance(v, dict)]
    return next((v for v in values if "baseUrl" in v), values[0] if values else {})


def _loader_bases(project: Path, root: Path) -> list[str]:
    """The ``baseUrl`` of each ``loader({...})`` of ``lib/source.*`` (else of the first file
    of ``lib/`` calling ``loader``); names it imports from local files, such as the
    template's ``docsRoute``, are read as their literals."""
    candidates: list[Path] = []
    suffixes = (".ts", ".tsx", ".js", ".mjs")
    for folder in (project / "lib", project / "src" / "lib"):
        candidates += [folder / f"source{s}" for s in suffixes]
        # A module folder: `lib/source/index.tsx`.
        candidates += [folder / "source" / f"index{s}" for s in suffixes]
    for folder in (project / "lib", project / "src" / "lib"):
        if folder.is_dir():
            found = (p for p in folder.rglob("*.ts*") if p.suffix in (".ts", ".tsx"))
            candidates += sorted(p for p in found if not p.is_symlink())[:_MAX_FILES]
    for file in candidates:
        if not file.is_file():
            continue
        files = read_config(file, root)
        if not files or "loader(" not in files[0].text:
            continue
        text, names = files[0].text, files[0].names
        out: list[str] = []
        for call in re.finditer(r"\bloader\s*\(", text):
            # `loader({ baseUrl, source })`, or the options after the sources:
            # `loader(docs.toFumadocsSource(), { baseUrl })`, `loader({ docs, blog }, {...})`.
            options = _loader_options(text[call.end() - 1 :], names)
            out.append((_str(options.get("baseUrl")) or "").strip("/"))
            if len(out) >= _MAX_FILES:
                break
        return out
    return []


def _texts(project: Path, root: Path, names: tuple[str, ...]) -> list[str]:
    """The texts of the project's files among ``names`` (relative paths) that exist."""
    out: list[str] = []
    for name in names:
        file = project / name
        if file.is_file():
            try:
                out.append(config.read_text(file, root))
            except SourceError:
                continue
    return out


def _lib_texts(project: Path, root: Path) -> list[str]:
    """The texts of the TypeScript/JavaScript files of ``lib/`` and ``src/lib/``."""
    out: list[str] = []
    for lib in (project / "lib", project / "src" / "lib"):
        if not lib.is_dir():
            continue
        for folder, dirs, files in os.walk(lib):  # never follows linked folders
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if name.endswith((".ts", ".tsx", ".js", ".mjs")) and len(out) < _MAX_FILES:
                    try:
                        out.append(config.read_text(Path(folder) / name, root))
                    except SourceError:
                        continue
    return out


@dataclass(frozen=True, slots=True)
class _Read:
    project: Path
    content: Path
    base: str
    default: str | None
    languages: tuple[str, ...] | None
    """The other languages (``None``: any locale-like suffix is one)."""
    dot: bool
    routes: tuple[str, ...] = ()
    """The other loaders' URLs (``blog/``) and the app's own pages (``community``)."""


def _read(file: Path, root: Path) -> _Read:
    project = file.parent
    docs = _call(config.read_text(file, root), "defineDocs")
    content = config.folder(project, _str(docs.get("dir")), "content/docs")
    lib = _lib_texts(project, root)
    bases = _loader_bases(project, root)
    base = bases[0] if bases else ""
    i18n: dict[str, Any] = {}
    for text in lib:
        if "defineI18n(" in text:
            i18n = _call(text, "defineI18n")
            break
    default = _str(i18n.get("defaultLanguage"))
    listed = i18n.get("languages")
    languages: tuple[str, ...] | None = None
    if isinstance(listed, list) and all(isinstance(x, str) for x in listed):
        languages = tuple(x for x in listed if x != default)
    dot = i18n.get("parser") != "dir"
    if default is not None and not dot and (content / default).is_dir():
        content = content / default
    if not i18n:
        languages = ()
    found: Path | None = None
    for suffix in _NEXT_SUFFIXES:
        if (project / f"next.config.{suffix}").is_file():
            found = project / f"next.config.{suffix}"
            break
    routes = tuple(f"{b}/" for b in bases[1:] if b) + next_routes(project, found, root)
    return _Read(project, content, base, default, languages, dot, routes)


def _locale_of(stem: str, read: _Read) -> str | None:
    """The locale a page's stem ends in (``get-started.cn``), ``None`` for none."""
    if not read.dot or "." not in stem:
        return None
    suffix = stem.rsplit(".", 1)[1]
    if read.languages is None:
        return suffix if _LOCALE.fullmatch(suffix) else None
    return suffix if suffix in read.languages or suffix == read.default else None


# ── the navigation ──────────────────────────────────────────────────────────────────────


@dataclass(slots=True)
class _Builder:
    ctx: Context
    read: _Read
    placed: set[str] = field(default_factory=set)
    walking: set[Path] = field(default_factory=set)
    """The folders being walked: a ``...folder`` naming one of them is not walked again."""

    def entries(self, folder: Path) -> tuple[dict[str, Path], dict[str, Path]]:
        """A folder's subfolders and its default language's pages, by name."""
        folders: dict[str, Path] = {}
        pages: dict[str, Path] = {}
        try:
            children = sorted(folder.iterdir())
        except OSError:
            return {}, {}
        for child in children:
            name = child.name
            if name.startswith(".") or name in SKIPPED_FOLDERS or self.ctx.excluded(child):
                continue
            if child.is_dir() and not child.is_symlink():
                folders[name] = child
            elif child.is_file() and self.ctx.is_page(child):
                stem = child.name.rsplit(".", 1)[0]
                locale = _locale_of(stem, self.read)
                if locale is not None and locale != self.read.default:
                    continue
                pages.setdefault(stem.rsplit(".", 1)[0] if locale else stem, child)
        return folders, pages

    def meta(self, folder: Path) -> dict[str, Any]:
        names = (f"meta.{self.read.default}.json",) if self.read.default else ()
        for name in (*names, "meta.json"):
            file = folder / name
            if file.is_file():
                try:
                    return config.read_data(file, self.ctx.source_root)
                except SourceError:
                    return {}
        return {}

    def page(self, into: OutlineSection, file: Path) -> None:
        rel = self.ctx.rel(file)
        if rel not in self.placed:
            self.placed.add(rel)
            into.children.append(OutlinePage(rel, None, len(into.children), self.ctx.display(file)))

    def folder(self, into: OutlineSection, folder: Path, depth: int) -> None:
        if depth > _MAX_DEPTH or folder.resolve() in self.walking:
            return
        self.walking.add(folder.resolve())
        try:
            self._folder(into, folder, depth)
        finally:
            self.walking.discard(folder.resolve())

    def _folder(self, into: OutlineSection, folder: Path, depth: int) -> None:
        folders, pages = self.entries(folder)
        meta = self.meta(folder)
        index = _str(meta.get("pagesIndex")) or "index"
        if index in pages:
            self.page(into, pages[index])
        listed = meta.get("pages")
        if not isinstance(listed, list):
            for name in sorted({*folders, *pages} - {index}, key=lambda n: (n.casefold(), n)):
                self.item(into, folder, name, depth)
            return
        names = {*folders, *pages} - {index}
        named = {self.key(i) for i in listed if isinstance(i, str)}
        excepted = {i[1:].strip("./") for i in listed if isinstance(i, str) and i.startswith("!")}
        for raw in listed:
            entry = raw.strip() if isinstance(raw, str) else ""
            if (
                not entry
                or entry.startswith(("!", "external:", "["))
                or (entry.startswith("---") and entry.endswith("---"))
            ):
                continue
            if entry in ("...", "z...a"):
                rest = sorted(
                    (n for n in names if n not in named and n not in excepted),
                    key=lambda n: (n.casefold(), n),
                    reverse=entry == "z...a",
                )
                for name in rest:
                    self.item(into, folder, name, depth)
            elif entry.startswith("..."):
                inner = folder / entry[3:].strip("./")
                if inner.is_dir() and inner.resolve().is_relative_to(self.ctx.content_root):
                    self.folder(into, inner, depth + 1)
            else:
                self.item(into, folder, self.key(entry), depth)

    @staticmethod
    def key(entry: str) -> str:
        return entry.strip().removeprefix("./").strip("/")

    def item(self, into: OutlineSection, folder: Path, name: str, depth: int) -> None:
        """A listed name: a page or folder of ``folder``, or a path into a subfolder."""
        parts = [p for p in name.split("/") if p and p != "."]
        if not parts or ".." in parts:
            return
        *above, last = parts
        base = folder.joinpath(*above)
        folders, pages = self.entries(base) if base.is_dir() else ({}, {})
        if last in pages and not (last in folders and not above):
            self.page(into, pages[last])
        elif last in folders:
            meta = self.meta(folders[last])
            title = _str(meta.get("title")) or last
            section = OutlineSection(
                name=title, key=self.ctx.display(folders[last]) + "/", order=len(into.children)
            )
            self.folder(section, folders[last], depth + 1)
            if section.children:
                into.children.append(section)
        elif last in pages:
            self.page(into, pages[last])


_APP_NAME = re.compile(r"""\b(?:appName|siteName)\s*[:=]\s*['"`]([^'"`\n$]{1,80})['"`]""")
_TEMPLATE = re.compile(r"""\btemplate\s*:\s*['"`]%s\s*[-–—|:·•]\s*([^'"`\n]{1,80})""")
_GIT_CONFIG = re.compile(
    r"""\buser\s*:\s*['"]([A-Za-z0-9][\w.-]{0,38})['"]\s*,\s*repo\s*:\s*['"]([\w.-]{1,100})['"]"""
)


def _site_facts(project: Path, root: Path, lib: list[str]) -> tuple[str | None, ...]:
    """The name, GitHub URL and ``<html lang>`` the site's files state: the template's
    ``appName`` (``lib/shared.ts``), else an Open Graph ``siteName``, else a title
    template; ``githubUrl``, else the template's ``gitConfig`` (``{ user, repo }``)."""
    layouts = _texts(
        project,
        root,
        (
            "app/layout.config.tsx",
            "src/app/layout.config.tsx",
            "app/layout.tsx",
            "src/app/layout.tsx",
        ),
    )
    text = "\n".join([*lib, *layouts])
    name = _APP_NAME.search(text) or _TEMPLATE.search(text)
    github = _GITHUB.search(text)
    git = _GIT_CONFIG.search(text)
    url = github.group(1) if github else None
    if url is None and git is not None:
        url = f"https://github.com/{git.group(1)}/{git.group(2)}"
    lang = _HTML_LANG.search(text)
    return (name.group(1).strip() if name else None, url, lang.group(1) if lang else None)


class Fumadocs(Generator):
    """Fumadocs (``fumadocs-mdx``)."""

    name = "fumadocs"
    described_as = "a Fumadocs site"
    marker = "source.config.ts using fumadocs-mdx"
    page_suffixes = (*MARKDOWN_SUFFIXES, MDX)

    def __init__(self, read: _Read | None = None) -> None:
        self._read = read

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = find_config(root, _config_in)
        if file is None:
            return None
        read = _read(file, root)
        if not read.content.is_dir():
            return None
        name, github, lang = _site_facts(read.project, root, _lib_texts(read.project, root))
        return Site(
            Fumadocs(read),
            file,
            read.content,
            config.site_metadata(
                name, None, read.default or lang, None, config.publisher(github, None)
            ),
            LinkStyle(
                "html",
                prefixes=(read.base + "/",) if read.base else (),
                static_roots=(read.project / "public",),
            ),
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        assert site.config is not None  # a Fumadocs site always has its configuration
        read = self._read or _read(site.config, ctx.source_root)
        where = display_path(site.config, ctx.source_root)
        builder = _Builder(ctx, read)
        root = OutlineSection(name="", key=where)
        builder.folder(root, ctx.content_root, 0)
        unlisted: list[Path] = []
        for folder, dirs, files in os.walk(ctx.content_root):  # never follows linked folders
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS)
            for name in sorted(files):
                path = Path(folder) / name
                if not ctx.is_page(path) or name.startswith(".") or ctx.excluded(path):
                    continue
                locale = _locale_of(name.rsplit(".", 1)[0], read)
                if locale is None or locale == read.default:
                    unlisted.append(path)
        for path in sorted(unlisted, key=ctx.rel):
            builder.page(root, path)  # published and searched, not in the tree
        return Outline(self.name, root, where, interleaved_root=True, routes=read.routes)

    def page_url(self, rel: str, front: Mapping[str, Any]) -> PageUrl:
        path = PurePosixPath(rel)
        stem = path.stem
        if self._read is not None and _locale_of(stem, self._read) is not None:
            stem = stem.rsplit(".", 1)[0]
        folders = [p for p in path.parent.parts if not (p.startswith("(") and p.endswith(")"))]
        index = stem == "index"
        return PageUrl("/".join(folders if index else [*folders, stem]), index)

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        site_dir = site.config.parent if site.config is not None else within
        body = expand_partials(body, folder=page.parent, site=site_dir, within=within.resolve())
        if "<include" in body:
            # The text put in is bounded in all, as MDX parts are: a page naming one large
            # file a thousand times must not become a thousand copies of it.
            left = Budget(body)
            body = _INCLUDE.sub(lambda m: _included(m, page, within, left), body)
        if page.suffix.lower() == ".mdx":
            body = indented_headings(body)
        return custom_heading_ids(body) if "[#" in body else body


def _included(match: re.Match[str], page: Path, within: Path, left: Budget) -> str:
    """The text an ``<include>`` names (relative to the page; its front matter dropped), or
    the tag as written when it names no readable file inside ``within`` or more than the
    ``left`` characters the page's includes may still put in."""
    target = match.group(1).strip()
    file = (page.parent / target).resolve()
    if left.left <= 0 or not file.is_relative_to(within.resolve()) or not file.is_file():
        return match.group(0)
    try:
        where = display_path(file, within)
        limit = min(MAX_TEXT_FILE_BYTES, 4 * left.left)  # UTF-8: at most 4 bytes a character
        text = read_text_file(file, where=where, within=within.resolve(), limit=limit)
    except SourceError:
        return match.group(0)
    if text.startswith("---"):
        end = text.find("\n---", 3)
        text = text[end + 4 :] if end >= 0 else text
    text = text.strip("\n")
    return text if left.take(text) else match.group(0)
