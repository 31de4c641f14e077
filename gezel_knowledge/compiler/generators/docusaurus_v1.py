"""Docusaurus 1: ``website/siteConfig.js`` and ``website/sidebars.json`` (the site's folder,
``website/``, beside the docs), pages in ``../docs`` (``customDocsPath`` names another folder
beside ``website/``).

Docusaurus 2 and later replaced this layout with ``docusaurus.config.js``; a source folder
holding that is :mod:`.docusaurus`'s, and only a site without one is read here. The
configuration is JavaScript and is never run: the literals of ``siteConfig.js`` are read
(:mod:`._js`); the settings are the object holding most of ``title``, ``tagline``, ``url``,
``baseUrl``, ``organizationName``, ``projectName``, ``headerLinks``.

Pages: every ``.md`` and ``.markdown`` file below the docs folder. Front matter is what
Docusaurus 1 reads, not YAML: each line up to the closing ``---`` is a key, a colon and a value
(``title: Styling: Tailwind CSS`` is the title ``Styling: Tailwind CSS``), a value written as
JSON read as JSON. A page's doc id is its front matter ``id`` (else its file name without
suffix), after its folder below the docs folder (``extension/integrated_gradients``).

Routes: a doc is published at ``<docsUrl>/<id>`` (``docsUrl`` defaults to ``docs``), with
``.html`` unless ``cleanUrl`` is set, under ``baseUrl``; with ``languages.js`` (translations)
also at ``<docsUrl>/en/<id>``. A relative link resolves from the doc's folder URL; a
Markdown file link beside the page, then from the docs folder. The site's own pages
(``website/pages/**/*.js``, ``pages/en/x.js`` also at ``x``), its blog and its ``static/``
files are routes a link may name; an image under ``baseUrl`` is a ``static/`` file.

Navigation: ``sidebars.json`` holds sidebars by name, each a mapping of category labels to
doc ids, where ``{type: 'subcategory', label, ids}`` is a subcategory; walked in file order
(sidebars, their categories, their items), each doc placed once. Docs no sidebar lists
follow, in path order. Translations (``translated_docs/``) and older versions
(``versioned_docs/``) are other sites: the catalog is the English docs of the docs folder.

Metadata: ``title``, ``tagline``, ``url``; the publisher is ``organizationName``; the language
is English, the language of the docs folder in Docusaurus 1.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import MARKDOWN_SUFFIXES, Context, normalise
from gezel_knowledge.compiler.generators._js import object_with_most
from gezel_knowledge.compiler.generators._js_ignored import (
    ignored_files,
    ignored_folders,
    page_routes,
    routes_below,
)
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, PageUrl, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import load_json, read_text_file
from gezel_knowledge.compiler.text.frontmatter import FrontMatter
from gezel_knowledge.compiler.text.names import derive_topic_id
from gezk.manifest import Publisher

__all__ = ["DocusaurusV1", "detect_v1", "split_v1_front_matter"]

_SITE = "website"
_CONFIG = "siteConfig.js"
_SIDEBARS = "sidebars.json"
_KEYS = ("title", "tagline", "url", "baseUrl", "organizationName", "projectName", "headerLinks")
_PAGE_SOURCES = (".js", ".html")
_MAX_ROUTES = 10_000
_MAX_ITEMS = 100_000


def split_v1_front_matter(text: str, *, path: str) -> FrontMatter:
    """Front matter as Docusaurus 1 reads it (see the module docstring); never an error."""
    del path
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != "---":
        return FrontMatter({}, text, 1)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r") == "---"), None)
    if end is None:
        return FrontMatter({}, text, 1)  # unclosed: a thematic break, as the default reads it
    data: dict[str, Any] = {}
    for line in lines[1:end]:
        key, _, value = line.rstrip("\r").partition(":")
        key, value = key.strip(), value.strip()
        if key:
            data[key] = _json_or_text(value)
    return FrontMatter(data, "\n".join(lines[end + 1 :]), end + 2)


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)  # JSON.parse knows no NaN or Infinity


def _json_or_text(value: str) -> Any:
    """``value`` parsed as JSON (``"a"``, ``3``, ``true``), else the text itself."""
    try:
        return json.loads(value, parse_constant=_refuse_constant)
    except ValueError:
        return value


def _string(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def v1_doc_id(rel: str, data: Mapping[str, Any]) -> str:
    """The Docusaurus 1 doc id of the page at ``rel`` (relative to the docs folder)."""
    path = PurePosixPath(rel)
    own = data.get("id")
    name = str(own).strip() if isinstance(own, str | int) and str(own).strip() else path.stem
    folders = [p for p in path.parent.parts if p != "."]
    return "/".join([*folders, name])


def _config_file(root: Path) -> Path | None:
    """``website/siteConfig.js`` of a Docusaurus 1 site whose folder is ``root``."""
    found = root / _SITE / _CONFIG
    return found if found.is_file() and not (root / _SITE).is_symlink() else None


def _settings(text: str) -> dict[str, Any]:
    """The object of ``siteConfig.js`` that holds most Docusaurus 1 settings."""
    return object_with_most(text, _KEYS)


def _routes(site_dir: Path) -> tuple[str, ...]:
    """The site's own pages (``pages/en/*.js``), its blog and ``static/``: URL paths a link may
    name besides the docs (see :attr:`LinkStyle.routes`)."""
    routes: list[str] = []
    pages = site_dir / "pages"
    if pages.is_dir():
        for folder, dirs, files in os.walk(pages):  # never follows linked folders
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            base = list(Path(folder).relative_to(pages).parts)
            for name in sorted(files):
                stem, suffix = os.path.splitext(name)
                if name.startswith(".") or suffix not in _PAGE_SOURCES:
                    continue
                parts = base if stem == "index" else [*base, stem]
                # pages/en/users.js is /en/users and /users; pages/help.js is /help.
                paths = ["/".join(parts)] + (["/".join(parts[1:])] if base[:1] == ["en"] else [])
                routes.extend(r for p in paths for r in (p, f"{p}.html") if p)
                if len(routes) >= _MAX_ROUTES:
                    return tuple(routes)
    if (site_dir / "blog").is_dir():
        routes.append("blog/")
    return tuple(routes)


def _ignored_routes(site_dir: Path, content: Path, root: Path) -> tuple[str, ...]:
    """Routes the deploy writes before Docusaurus runs: ``.gitignore``'d folders of the docs,
    of ``static/`` and of ``pages/`` (``pages/en/x/`` also at ``x/``)."""
    ignored = ignored_folders(site_dir, root)
    pages = routes_below(ignored, site_dir / "pages")
    in_english = tuple(r.removeprefix("en/") for r in pages if r.startswith("en/"))
    docs = routes_below(ignored, content) + page_routes(ignored_files(site_dir, root), content)
    return pages + in_english + docs + routes_below(ignored, site_dir / "static")


def detect_v1(root: Path, *, forced: bool) -> Site | None:
    """The Docusaurus 1 site at ``root`` (``website/siteConfig.js``), or ``None``."""
    file = _config_file(root)
    if file is None:
        return None
    site_dir = file.parent
    settings = _settings(config.read_text(file, root))
    docs_path = _string(settings.get("customDocsPath")) or "docs"
    # The docs folder is beside website/ (`path.join(CWD, '../', customDocsPath)`).
    content = normalise(root, docs_path, root)
    if content is None or not content.is_dir():
        if not forced:
            return None
        raise SourceError(
            f"the Docusaurus docs folder {docs_path!r} is not a folder beside website/",
            reason="missing-file",
            path=display_path(file, root),
        )
    base = (_string(settings.get("baseUrl")) or "/").strip("/")
    docs_url = settings.get("docsUrl")
    docs_url = docs_url.strip("/") if isinstance(docs_url, str) else "docs"
    organization = _string(settings.get("organizationName"))
    generator = DocusaurusV1(
        docs_url=docs_url,
        languages=(site_dir / "languages.js").is_file(),
    )
    return Site(
        generator,
        file,
        content,
        config.site_metadata(
            _string(settings.get("title")),
            _string(settings.get("tagline")),
            "en",
            config.absolute_url(_string(settings.get("url"))),
            Publisher(derive_topic_id(organization), organization) if organization else None,
        ),
        LinkStyle(
            "html",
            prefixes=(base + "/",) if base else (),
            static_roots=(site_dir / "static",),
            routes=_routes(site_dir) + _ignored_routes(site_dir, content, root),
        ),
    )


@dataclass(slots=True)
class _Builder:
    ctx: Context
    by_id: dict[str, str]
    where: str
    placed: set[str] = field(default_factory=set)
    count: int = 0

    def page(self, into: OutlineSection, ident: Any, label: str | None) -> None:
        self.count += 1
        if not isinstance(ident, str) or self.count > _MAX_ITEMS:
            return
        rel = self.by_id.get(ident)
        if rel is None:
            self.ctx.warn(
                "missing-outline-page",
                f"sidebar names doc id {ident!r}, which no page has; left out",
                self.where,
            )
            return
        if rel in self.placed:
            return
        self.placed.add(rel)
        into.children.append(OutlinePage(rel, label, len(into.children), self.where))

    def section(self, into: OutlineSection, label: str, key: str) -> OutlineSection:
        section = OutlineSection(name=label, key=key, order=len(into.children))
        into.children.append(section)
        return section

    def category(self, into: OutlineSection, label: str, items: Any, key: str) -> None:
        section = self.section(into, label, key)
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and item.get("type") == "subcategory":
                name = _string(item.get("label")) or ""
                sub = self.section(section, name, f"{key}:{name}")
                for ident in item.get("ids") or ():
                    self.page(sub, ident, None)
                if not sub.children:
                    section.children.remove(sub)
            else:
                self.page(section, item, None)
        if not section.children:
            into.children.remove(section)


class DocusaurusV1(Generator):
    """Docusaurus 1 (``website/siteConfig.js``)."""

    name = "docusaurus"
    described_as = "a Docusaurus site"
    marker = "website/siteConfig.js and docs folder"
    page_suffixes = MARKDOWN_SUFFIXES

    def __init__(self, docs_url: str = "docs", *, languages: bool = False) -> None:
        self._docs_url = docs_url
        self._languages = languages

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        return detect_v1(root, forced=forced)

    def split_front_matter(self, text: str, *, path: str, lenient: bool = False) -> FrontMatter:
        del lenient  # Docusaurus 1 pages are read strictly (lenient_front_matter is off)
        return split_v1_front_matter(text, path=path)

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        assert site.config is not None  # a Docusaurus 1 site always has its configuration
        project = Path(os.path.commonpath([site.config.parent, ctx.source_root]))
        ids: dict[str, str] = {}
        for rel in self._pages(ctx):
            where = ctx.display(ctx.content_root / rel)
            text = read_text_file(ctx.content_root / rel, where=where)
            ids[rel] = v1_doc_id(rel, split_v1_front_matter(text, path=where).data)
        by_id: dict[str, str] = {}
        for rel, ident in ids.items():
            by_id.setdefault(ident, rel)
        sidebars_file = site.config.parent / _SIDEBARS
        where = display_path(sidebars_file if sidebars_file.is_file() else site.config, project)
        builder = _Builder(ctx, by_id, where)
        root = OutlineSection(name="", key=where)
        if sidebars_file.is_file():
            text = config.read_text(sidebars_file, project)
            sidebars = load_json(text, path=where, reason="invalid-outline")
            for name, categories in config.mapping(sidebars).items():
                for label, items in config.mapping(categories).items():
                    builder.category(root, label, items, f"{where}:{name}:{label}")
        # Docs no sidebar lists are still published: after the sidebars, in path order.
        for rel, ident in ids.items():
            if by_id[ident] == rel:
                builder.page(root, ident, None)
        return Outline(self.name, root, where, interleaved_root=True)

    @staticmethod
    def _pages(ctx: Context) -> list[str]:
        found = []
        for folder, dirs, files in os.walk(ctx.content_root):  # never follows linked folders
            base = Path(folder)
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
            for name in files:
                path = base / name
                if name.startswith(".") or not ctx.is_page(path) or path.is_symlink():
                    continue
                if not ctx.excluded(path):
                    found.append(ctx.rel(path))
        return sorted(found)

    def document_id(self, rel: str, front: Mapping[str, Any]) -> str:
        return v1_doc_id(rel, front)

    def file_bases(self, rel: str) -> tuple[str, ...]:
        # A Markdown file link is looked up beside the page, then from the docs folder.
        del rel
        return ("",)

    def page_url(self, rel: str, front: Mapping[str, Any]) -> PageUrl:
        ident = v1_doc_id(rel, front)
        # Published as <docsUrl>/<id>.html (or without .html under `cleanUrl`): LinkStyle
        # "html" takes links written either way.
        return PageUrl("/".join(p for p in (self._docs_url, ident) if p), False)

    def url_aliases(self, rel: str, front: Mapping[str, Any]) -> tuple[str, ...]:
        if not self._languages:
            return ()
        ident = v1_doc_id(rel, front)
        return ("/".join(p for p in (self._docs_url, "en", ident) if p),)
