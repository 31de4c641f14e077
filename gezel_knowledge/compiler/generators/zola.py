"""Zola: ``zola.toml`` or ``config.toml`` (holding Zola's ``base_url``) beside ``content/``,
in the source folder or in its ``docs/``.

Sections are the folders holding an ``_index.md``; every other Markdown file is a page of the
section of its folder, and a folder holding an ``index.md`` (no ``_index.md``) is one page with
its assets (a bundle). Navigation, as Zola's library orders it (``components/content``):
a section's ``_index.md``, then its pages by the section's ``sort_by`` -- ``weight``
(ascending), ``date`` and ``update_date`` (newest first), ``title`` and ``slug`` (natural
order: case folded, digit runs by value), ``title_bytes``, ``permalink``; ties by permalink;
the pages ``sort_by`` cannot place (no weight, no date) after them in path order, and
``none`` (the default, which Zola leaves in no set order) in path order -- then its
subsections by their ``weight`` (ties in path order). A ``transparent`` section's pages are
also its parent's and are sorted with them (placed there, once). A page or section with
``draft = true`` is not built (nor is anything below a drafted section); a page with
``render = false`` has no URL and is left out; an ``_index.md`` with ``redirect_to`` or
``render = false`` is no page but its section stays. A folder with no ``_index.md`` is no
section: what it holds follows its parent's subsections in path order. Other languages'
files (``page.fr.md``, ``_index.fr.md`` for a language of ``[languages]``) are
translations, left out of the catalog of the default language. The page's title is its
front matter ``title``; a section is named by its ``title``, else its folder.

URLs: a page is published at its folder's path (not slugified) and its slug: front matter
``slug``, else its file name (a bundle: its folder's name) without a leading date
(``2024-01-02-post.md`` is ``post``, dated), slugified when ``slugify.paths`` is ``on`` (the
default); front matter ``path`` replaces the whole. ``aliases`` are other URLs of a page.
Links: ``@/blog/post.md#anchor`` names a file from the content folder (Zola stops the build
when it names none); other links are URLs from the page's URL. Headings' anchors by the
``slug`` crate Zola uses (``slugify.anchors = "on"``: ASCII letters and digits lowercased,
every other run one ``-``; accented letters lose their accent), or with ``safe``/``off``
the heading's text with whitespace turned into ``_``; a repeated anchor gets ``-1``,
``-2``. Front matter (TOML ``+++`` or YAML ``---``) may follow blank lines. Taxonomy pages
(``/tags/``, ``/tags/rust/``) are routes of the site.

Metadata: ``title``, ``description``, ``default_language``, ``base_url``; the publisher from
a repository URL the theme's ``[extra]`` names, else ``author``.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import Context
from gezel_knowledge.compiler.generators.base import (
    Generator,
    LinkStyle,
    LinkTarget,
    PageUrl,
    Site,
)
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.metadata.catalog_yaml import TopicDeclaration
from gezel_knowledge.compiler.text.anchors import SlugStyle, slugify
from gezel_knowledge.compiler.text.data import read_text_file
from gezel_knowledge.compiler.text.frontmatter import FrontMatter, split_front_matter
from gezel_knowledge.compiler.text.links import normalise_path

__all__ = ["Zola"]

_CONFIG_NAMES = ("zola.toml", "config.toml")
_MAX_DEPTH = 32
# Zola's RFC3339_DATE, anchored at the start of a file name: a date, an optional time, then
# `_` or `-` (a space may come before it) and the slug.
_DATED = re.compile(
    r"(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
    r"(?:T[01]\d:[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-][01]\d:[0-5]\d))?)"
    r"(?:\s?[_-](.+))?\Z"
)
_DIGITS = re.compile(r"(\d+)")
# What `strip_invalid_paths_chars` removes under `slugify.paths = "safe"`.
_UNSAFE_PATH = re.compile(r'[<>:"/\\|?*]')
# Keys themes give the site's repository in `[extra]` (tabi, AdiDoks, Juice, ...).
_REPOSITORY_KEYS = (
    "remote_repository_url",
    "repository",
    "repo_url",
    "docs_repo",
    "repo",
    "github",
    "gitlab",
    "codeberg",
)


def _slug_paths(text: str, strategy: str) -> str:
    if strategy == "off":
        return text
    if strategy == "safe":
        return _UNSAFE_PATH.sub("", text.rstrip(" ."))
    return slugify(text, "zola")


def _timestamp(value: Any) -> float | None:
    """A front matter date (TOML date or datetime, or text) as seconds, UTC when no zone."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = dt.datetime.fromisoformat(text)
        except ValueError:
            try:
                value = dt.date.fromisoformat(text[:10])
            except ValueError:
                return None
    if isinstance(value, dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return moment.timestamp()
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC).timestamp()
    return None


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    """A natural-order key (``lexical_sort``'s natural lexical order, approximately): case and
    accents folded, digit runs compared by value."""
    folded = "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
    ).casefold()
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in _DIGITS.split(folded) if part
    )


def _text(data: Mapping[str, Any], key: str) -> str | None:
    return config.string(data.get(key))


def _weight(data: Mapping[str, Any]) -> int | None:
    value = data.get("weight")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _read_config(folder: Path, root: Path) -> tuple[Path, dict[str, Any]] | None:
    """Zola's configuration file in ``folder`` (inside the source folder ``root``) and its
    data: the first of ``zola.toml`` and ``config.toml`` that is there and sets ``base_url``
    (Zola requires it; Hugo spells it ``baseURL``)."""
    for name in _CONFIG_NAMES:
        file = folder / name
        if file.is_file() and not file.is_symlink():
            data = config.read_data(file, root)
            if isinstance(data.get("base_url"), str):
                return file, data
    return None


def _languages(data: Mapping[str, Any]) -> tuple[str, frozenset[str]]:
    """The default language and the others (``[languages.fr]``; before Zola 0.16 a list of
    ``{code = "fr"}``)."""
    default = config.string(data.get("default_language")) or "en"
    declared = data.get("languages")
    codes: set[str] = set()
    if isinstance(declared, dict):
        codes = {k for k in declared if isinstance(k, str)}
    elif isinstance(declared, list):
        codes = {c for e in declared if isinstance(c := config.get(e, "code"), str)}
    return default, frozenset(codes - {default})


def _taxonomy_routes(data: Mapping[str, Any], others: frozenset[str]) -> tuple[str, ...]:
    """The URL paths of the taxonomies' list and term pages (``tags/`` and below)."""
    names: list[str] = []
    declared = data.get("taxonomies")
    for lang in (None, *sorted(others)):
        table = declared if lang is None else config.get(data, "languages", lang, "taxonomies")
        for entry in table if isinstance(table, list) else []:
            name = config.string(config.get(entry, "name"))
            if name:
                slug = slugify(name, "zola") or name
                names.append(f"{slug}/" if lang is None else f"{lang}/{slug}/")
    return tuple(dict.fromkeys(names))


def _publisher_sources(data: Mapping[str, Any]) -> tuple[Any, Any]:
    extra = config.mapping(data.get("extra"))
    repository = next(
        (extra[k] for k in _REPOSITORY_KEYS if config.absolute_url(extra.get(k))), None
    )
    author = data.get("author") or extra.get("author")
    if isinstance(author, dict):
        author = author.get("name")
    return repository, author


@dataclass(slots=True)
class _Page:
    node: OutlinePage
    data: Mapping[str, Any]
    permalink: str
    slug: str
    date: float | None


@dataclass(slots=True)
class _Walk:
    ctx: Context
    generator: Zola
    others: frozenset[str]
    routes: list[str] = field(default_factory=list)

    def translation(self, entry: Path) -> bool:
        """Whether a file is another language's (``page.fr.md``, ``_index.fr.md``)."""
        parts = entry.name.split(".")
        return len(parts) > 2 and parts[-2] in self.others

    def front(self, path: Path) -> dict[str, Any]:
        where = self.ctx.display(path)
        text = read_text_file(path, where=where)
        return dict(self.generator.split_front_matter(text, path=where).data)


def _page(walk: _Walk, path: Path) -> _Page | None:
    """A page of a section, or ``None`` when Zola does not publish it."""
    data = walk.front(path)
    if data.get("draft") is True or data.get("render") is False:
        return None
    rel = walk.ctx.rel(path)
    url = walk.generator.page_url(rel, data)
    stem = path.parent.name if path.stem == "index" else path.stem
    dated = _DATED.match(stem)
    date = _timestamp(data.get("date"))
    if date is None and dated is not None:
        date = _timestamp(dated[1])
    slug = url.path.rsplit("/", 1)[-1]
    node = OutlinePage(rel, None, None, walk.ctx.display(path), None)
    return _Page(node, data, url.path + "/", slug, date)


def _sort_key(sort_by: str) -> Callable[[_Page], Any] | None:
    """What a section's ``sort_by`` compares (``None``: no order, or not that field)."""
    if sort_by == "weight":
        return lambda p: _weight(p.data)
    if sort_by == "date":
        return lambda p: p.date
    if sort_by == "update_date":
        return lambda p: max(
            (t for t in (p.date, _timestamp(p.data.get("updated"))) if t is not None),
            default=None,
        )
    if sort_by == "title":
        return lambda p: None if _text(p.data, "title") is None else _natural(p.data["title"])
    if sort_by == "title_bytes":
        return lambda p: None if _text(p.data, "title") is None else p.data["title"].encode()
    if sort_by == "slug":
        return lambda p: _natural(p.slug)
    if sort_by == "permalink":
        return lambda p: p.permalink
    return None


def _sorted(pages: list[_Page], sort_by: str) -> list[_Page]:
    """``pages`` (in path order) as a section with this ``sort_by`` lists them."""
    key = _sort_key(sort_by)
    if key is None:
        return pages
    placed = sorted((p for p in pages if key(p) is not None), key=lambda p: p.permalink)
    placed.sort(key=key, reverse=sort_by in ("date", "update_date"))
    return placed + [p for p in pages if key(p) is None]


@dataclass(slots=True)
class _Section:
    node: OutlineSection
    weight: int
    transparent: bool
    pages: list[_Page]
    """Its pages, unsorted: a transparent section's are its parent's."""


def _members(
    walk: _Walk,
    folder: Path,
    depth: int,
    *,
    pages: list[_Page],
    sections: list[_Section],
    loose: list[OutlineSection | OutlinePage],
) -> None:
    """What ``folder`` holds: pages, subsections, and (``loose``) what its folders that are no
    section hold."""
    ctx = walk.ctx
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.startswith(".") or ctx.excluded(entry):
            continue
        if entry.is_dir():
            if entry.is_symlink():
                ctx.warn(
                    "symlink-skipped",
                    "is a symbolic link to a folder; not followed",
                    ctx.display(entry),
                )
            elif depth >= _MAX_DEPTH:
                continue  # deeper than any site nests: not read (bounds a hostile tree)
            elif (entry / "_index.md").is_file():
                section = _section(walk, entry, depth + 1)
                if section is not None and (section.node.children or section.pages):
                    sections.append(section)
            elif (entry / "index.md").is_file():
                page = _page(walk, entry / "index.md")
                if page is not None:
                    pages.append(page)
            else:
                # No section: its pages belong to none (Zola still publishes them).
                more: list[_Page] = []
                subs: list[_Section] = []
                _members(walk, entry, depth + 1, pages=more, sections=subs, loose=loose)
                loose.extend(p.node for p in more)
                loose.extend(s.node for s in subs)
            continue
        name = entry.name
        if (
            entry.is_file()
            and ctx.is_page(entry)
            and name.split(".", 1)[0] not in ("_index", "index")
            and not walk.translation(entry)
        ):
            page = _page(walk, entry)
            if page is not None:
                pages.append(page)


def _section(walk: _Walk, folder: Path, depth: int) -> _Section | None:
    """A section: its ``_index.md`` page, its pages, its subsections."""
    ctx = walk.ctx
    index = folder / "_index.md"
    data = walk.front(index) if index.is_file() else {}
    if data.get("draft") is True:
        return None  # a drafted section: nothing below it is built
    rel = ctx.rel(folder) if folder != ctx.content_root else ""
    node = OutlineSection(
        name=_text(data, "title") or (folder.name[:1].upper() + folder.name[1:]),
        key=(rel + "/") if rel else "(root)/",
        description=_text(data, "description"),
    )
    lead: OutlinePage | None = None
    if index.is_file():
        index_rel = ctx.rel(index)
        if data.get("redirect_to") is not None or data.get("render") is False:
            # Published as a redirect (or not at all): no page, but links to it resolve.
            walk.routes.append(index_rel)
        else:
            lead = OutlinePage(index_rel, None, None, ctx.display(index), None)
    pages: list[_Page] = []
    sections: list[_Section] = []
    loose: list[OutlineSection | OutlinePage] = []
    _members(walk, folder, depth, pages=pages, sections=sections, loose=loose)
    own = list(pages)
    for sub in sections:
        if sub.transparent:
            pages.extend(sub.pages)
    # A sort_by Zola does not know stops Zola's build; here its pages keep path order.
    sort_by = _text(data, "sort_by") or "none"
    ordered = _sorted(pages, sort_by)
    sections.sort(key=lambda s: s.weight)  # stable: ties stay in path order
    children: list[OutlineSection | OutlinePage] = [] if lead is None else [lead]
    children.extend(p.node for p in ordered)
    children.extend(s.node for s in sections)
    children.extend(loose)
    for position, child in enumerate(children):
        child.order = position
    node.children = children
    return _Section(node, _weight(data) or 0, data.get("transparent") is True, own)


class Zola(Generator):
    """Zola; a site's own instance knows its slug rules and languages."""

    name = "zola"
    described_as = "a Zola site"
    marker = "zola.toml or config.toml with base_url"

    def __init__(
        self,
        paths: str = "on",
        language: str = "en",
        others: frozenset[str] = frozenset(),
    ) -> None:
        self.paths = paths
        """``slugify.paths``: ``on``, ``safe`` or ``off``."""
        self.language = language
        self.others = others
        """The site's other languages (their files are translations)."""

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        # The site root, else the repository's docs/ (where Zola's own site and many Rust
        # projects keep theirs).
        for site_root in (root, root / "docs"):
            if site_root.is_symlink() or not (site_root / "content").is_dir():
                continue
            found = _read_config(site_root, root)
            if found is not None:
                return self._site(site_root, *found)
        if not forced:
            return None
        content = root / "content"
        return Site(
            self,
            None,
            content if content.is_dir() else root,
            config.site_metadata(None),
            LinkStyle("directory", "zola"),
        )

    def _site(self, root: Path, file: Path, data: dict[str, Any]) -> Site:
        """The site whose configuration ``file`` (holding ``data``) is in ``root``."""
        content = root / "content"
        language, others = _languages(data)
        slugs = config.mapping(data.get("slugify"))
        paths = config.string(slugs.get("paths")) or "on"
        anchors = config.string(slugs.get("anchors")) or "on"
        slug: SlugStyle = "zola" if anchors == "on" else "zola-unslugified"
        repository, author = _publisher_sources(data)
        return Site(
            Zola(paths if paths in ("on", "safe", "off") else "on", language, others),
            file,
            content,
            config.site_metadata(
                data.get("title"),
                data.get("description"),
                language,
                config.absolute_url(data.get("base_url"), repository),
                config.publisher(repository, author),
            ),
            LinkStyle(
                "directory",
                slug,
                prefixes=config.url_path(data.get("base_url")),
                static_roots=(root / "static",),
                # A bundle's other files are published beside its page, at their paths.
                resource_roots=(content,),
                routes=_taxonomy_routes(data, others),
            ),
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        walk = _Walk(ctx, self, self.others)
        root = _section(walk, ctx.content_root, 0)
        assert root is not None  # the content folder is never a drafted section
        index = ctx.content_root / "_index.md"
        declaration = None
        if index.is_file():
            data = walk.front(index)
            declaration = TopicDeclaration(
                id="", name=_text(data, "title") or "", description=_text(data, "description")
            )
        return Outline(
            self.name,
            root.node,
            None,
            root_declaration=declaration,
            # The home section holds its pages and subsections in one order.
            interleaved_root=True,
            routes=tuple(dict.fromkeys(walk.routes)),
        )

    def page_url(self, rel: str, front: Mapping[str, Any]) -> PageUrl:
        path = PurePosixPath(rel)
        folders = list(path.parent.parts)
        if path.stem.split(".", 1)[0] == "_index":
            return PageUrl("/".join(folders), True)
        own = _text(front, "path")
        if own is not None:
            return PageUrl(own.strip("/"), path.stem == "index")
        bundle = path.stem.split(".", 1)[0] == "index"
        name = folders.pop() if bundle and folders else path.stem
        dated = _DATED.match(name)
        if dated is not None and dated[2]:
            name = dated[2]
        slug = _text(front, "slug")
        segment = _slug_paths(slug if slug is not None else name, self.paths)
        return PageUrl("/".join([*folders, segment]), bundle)

    def split_front_matter(self, text: str, *, path: str, lenient: bool = False) -> FrontMatter:
        # Zola's front matter expressions allow whitespace (blank lines) before the opening
        # `+++` or `---` (getzola.org's theme pages start with a blank line).
        plain = text.removeprefix("\ufeff")
        rest = plain.lstrip()
        if rest == plain or not rest.startswith(("+++", "---")):
            return split_front_matter(text, path=path, lenient=lenient)
        found = split_front_matter(rest, path=path, lenient=lenient)
        if found.body_line == 1:  # no front matter after all (an unclosed `---`)
            return split_front_matter(text, path=path, lenient=lenient)
        skipped = plain[: len(plain) - len(rest)].count("\n")
        return FrontMatter(found.data, found.body, found.body_line + skipped, found.problem)

    def url_aliases(self, rel: str, front: Mapping[str, Any]) -> tuple[str, ...]:
        aliases = front.get("aliases")
        if not isinstance(aliases, list):
            return ()
        out: list[str] = []
        for alias in aliases:
            if isinstance(alias, str) and alias.strip():
                joined = normalise_path(alias.strip().strip("/").split("/"))
                if joined is not None:
                    out.append("/" + joined)
        return tuple(out)

    def link_target(self, raw: str) -> LinkTarget | None:
        # `@/a/b.md#x`: a file from the content folder, Zola's internal link.
        if raw.startswith("@/"):
            return LinkTarget("/" + raw[2:], file_first=False)
        return None
