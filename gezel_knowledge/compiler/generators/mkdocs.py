"""MkDocs: ``mkdocs.yml`` (or ``mkdocs.yaml``), pages in ``docs_dir`` (``docs``).

Navigation: ``nav``: pages (``- page.md`` or ``- Title: page.md``) and sections
(``- Section: [...]``), paths relative to ``docs_dir``. A section's pages keep their nav
order, so a section whose first entry is its ``index.md`` (Material's section index pages) is
led by it. External links (``- Blog: https://...``) are no pages and are left out, as are
entries naming files that do not exist (with a warning, as MkDocs gives one), unless a
``.gitignore`` of the site names the file by its path: a script writes it before MkDocs
builds, so MkDocs finds it (left out silently, links to it kept as written). An untitled
section (``- "":``) is named after its first page. An old site's ``pages`` is its ``nav``, as
MkDocs 0.17 to 1.2 read it. Without ``nav``, the ``docs_dir`` tree, as
MkDocs builds its navigation then. With the ``literate-nav`` plugin, folders' Markdown nav files
(:mod:`._literate_nav`); with ``awesome-pages`` and no ``nav``, folders' ``.pages`` files
(:mod:`._awesome_pages`). With mkdocs-static-i18n, the other languages' pages are left out
(:mod:`._mkdocs_i18n`).

Pages: ``pymdownx.snippets`` includes are put in (:mod:`._snippets`); a page with ``:::``
autodoc blocks has headings MkDocs generates.

Metadata: ``site_name``, ``site_description``, ``theme.language``, ``site_author``,
``repo_url``, ``site_url``. Links: URLs with ``use_directory_urls`` (``page.md`` is published
at ``page/``) or without (``page.html``); anchors by Python-Markdown's ``toc`` slugs, or the
``slugify`` the site configures (:mod:`._toc_slugs`). A link is reported only when MkDocs
itself would warn about it under the site's ``validation`` settings. Material's blog posts,
which ``nav`` never lists, follow the blog's index page (:mod:`._material_blog`);
mkdocs-monorepo-plugin's ``!include`` entries merge other projects' navigation and pages
(:mod:`._monorepo`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._awesome_pages import PagesReader
from gezel_knowledge.compiler.generators._context import SCHEME, Context, items, normalise
from gezel_knowledge.compiler.generators._docs_filter import DocsFilter
from gezel_knowledge.compiler.generators._include_markdown import expand_include_markdown
from gezel_knowledge.compiler.generators._js_ignored import ignored_files, ignored_folders
from gezel_knowledge.compiler.generators._literate_nav import (
    LiterateReader,
    literate_nav,
    plugin_options,
)
from gezel_knowledge.compiler.generators._material_blog import place_posts, post_urls
from gezel_knowledge.compiler.generators._mkdocs_i18n import (
    default_language_nav,
    other_language_patterns,
)
from gezel_knowledge.compiler.generators._monorepo import Monorepo
from gezel_knowledge.compiler.generators._snippets import expand_snippets
from gezel_knowledge.compiler.generators._toc_slugs import toc_slug_rule
from gezel_knowledge.compiler.generators._zensical import settings, settings_nodes
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, PageUrl, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import YamlNode, load_toml, load_yaml_nodes

__all__ = ["MkDocs"]

# Zensical reads zensical.toml before mkdocs.yml, ProperDocs (a fork of MkDocs 1.6)
# properdocs.yml before it: a site keeping both builds with the newer tool's file.
_CONFIGS = ("zensical.toml", "properdocs.yml", "properdocs.yaml", "mkdocs.yml", "mkdocs.yaml")
_MAX_INHERIT = 8
_AUTODOC = re.compile(r"^:::[ \t]+\S", re.MULTILINE)
_TAGS_MARKERS = ("<!-- material/tags", "[TAGS]")
_INCLUDE = re.compile(r"[!*]include\s")


class MkDocs(Generator):
    """MkDocs (and Material for MkDocs)."""

    name = "mkdocs"
    described_as = "an MkDocs site"
    marker = "mkdocs.yml"
    # MkDocs reads a page whose meta-data block is not YAML as a page without meta-data.
    lenient_front_matter = True
    found_from_content = True
    outline_required = "mkdocs.yml with nav"

    def __init__(self, post_urls: Mapping[str, str] | None = None) -> None:
        self._post_urls = dict(post_urls or {})
        """Material blog posts' URL paths (``blog/2024/01/31/slug``) by content path."""

    def page_url(self, rel: str, front: Mapping[str, Any]) -> PageUrl:
        post = self._post_urls.get(rel)
        return PageUrl(post) if post is not None else super().page_url(rel, front)

    def document_id(self, rel: str, front: Mapping[str, Any]) -> str:
        # A blog post's id is its URL path, as every other page's is (``a/b.md`` is ``a/b/``).
        return self._post_urls.get(rel) or super().document_id(rel, front)

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = next((root / n for n in _CONFIGS if (root / n).is_file()), None)
        if file is None:
            return None
        data, nav, nav_file = _read_config(file, root)
        content = config.folder(root, config.string(data.get("docs_dir")), "docs")
        if not content.is_dir():
            raise SourceError(
                f"mkdocs docs_dir {display_path(content, root)!r} does not exist",
                reason="missing-file",
                path=file.name,
            )
        theme = data.get("theme")
        language = (
            config.get(theme, "language") or config.get(theme, "locale")
            if isinstance(theme, dict)
            else None
        )
        directory_urls = data.get("use_directory_urls", True) is not False
        repository = data.get("repo_url")
        blog = _blog_options(data)
        posts = (
            post_urls(content, blog, _plugin_node(file, root, blog_name), root)
            if blog is not None and (blog_name := _blog_name(data)) is not None
            else {}
        )
        return Site(
            MkDocs(posts) if posts else self,
            file,
            content,
            config.site_metadata(
                data.get("site_name"),
                data.get("site_description"),
                language,
                config.absolute_url(data.get("site_url"), repository),
                config.publisher(repository, data.get("site_author")),
            ),
            LinkStyle(
                "directory" if directory_urls else "html",
                toc_slug_rule(_extensions(file, root)),
                prefixes=config.url_path(data.get("site_url")),
                routes=_published_besides_pages(theme),
                quiet=_unreported(data.get("validation")),
                generated=(
                    _generated_entries(nav, content)
                    if plugin_options(data.get("plugins"), "gen-files") is not None
                    else ()
                )
                + _git_ignored(content, root),
            ),
            # The navigation: nav, a literate-nav file, .pages files, else the docs folder.
            outline_file=nav_file,
            nav=nav,
        )

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        if site.config is None:
            return body
        # mkdocs-include-markdown-plugin runs on the page's Markdown, before the Markdown
        # extensions (pymdownx.snippets) read it.
        tags = _include_markdown_tags(site.config)
        if tags is not None and tags[0] in body:
            body = expand_include_markdown(
                body, page=page.resolve(), within=within.resolve(), opening=tags[0], closing=tags[1]
            )
        if "8<-" not in body:  # pymdownx.snippets' scissors, ``--8<--`` or ``---8<--``
            return body
        bases = _snippet_bases(site.config)
        if not bases:
            return body
        return expand_snippets(body, bases=bases, within=within.resolve())

    def generates_headings(self, body: str) -> bool:
        # mkdocstrings' and mkdocs-click's "::: identifier" blocks become headings, and so
        # does Material's tags index marker (a heading per tag).
        return bool(_AUTODOC.search(body)) or any(m in body for m in _TAGS_MARKERS)

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        if site.outline_file is None or site.config is None:
            return None
        # Read where detect() found it: the configuration may sit above a docs/ source.
        data, _, _ = _read_config(site.config, site.config.parent)
        settings = literate_nav(data.get("plugins"))
        docs = DocsFilter(
            data.get("exclude_docs"),
            data.get("draft_docs"),
            other_language_patterns(data.get("plugins")),
        )
        reader = LiterateReader(ctx, settings, docs) if settings is not None else None
        if site.nav is None:
            where = ctx.display(site.outline_file)
            root = OutlineSection(name="", key=where)
            nav_file = ctx.content_root / settings.nav_file if settings is not None else None
            if reader is not None and nav_file is not None and nav_file.is_file():
                reader.folder(ctx.content_root, root)
            else:
                awesome = plugin_options(data.get("plugins"), "awesome-pages")
                filename = None
                if awesome is not None:
                    filename = config.string(awesome.get("filename")) or ".pages"
                PagesReader(ctx, filename, docs).folder(ctx.content_root, root)
            return Outline("mkdocs", root, where, interleaved_root=True)
        generated = site.links.generated
        outline = _nav_outline(ctx, site.outline_file, site.nav, reader, generated)
        blog = _blog_options(data)
        if blog is not None:
            place_posts(ctx, blog, outline.root)
        not_in_nav = data.get("not_in_nav")
        if not_in_nav:
            _place_not_in_nav(ctx, DocsFilter(not_in_nav, defaults=False), docs, outline.root)
        return outline


_BLOG_NAMES = ("blog", "material/blog")


def _blog_name(data: dict[str, Any]) -> str | None:
    """How ``plugins`` names Material's blog plugin, if it enables it."""
    plugins = data.get("plugins")
    return next((n for n in _BLOG_NAMES if plugin_options(plugins, n) is not None), None)


def _blog_options(data: dict[str, Any]) -> dict[str, object] | None:
    """The options of Material's blog plugin (``blog`` or ``material/blog``), if enabled."""
    name = _blog_name(data)
    return plugin_options(data.get("plugins"), name) if name is not None else None


def _plugin_node(file: Path, root: Path, name: str) -> YamlNode | None:
    """The options node mkdocs.yml's ``plugins`` gives plugin ``name`` (for its YAML tags)."""
    _, nodes = _load(file, root)
    plugins = nodes.value.get("plugins") if isinstance(nodes.value, dict) else None
    entries: list[tuple[str, YamlNode]] = []
    if plugins is not None and isinstance(plugins.value, dict):
        entries = list(plugins.value.items())
    elif plugins is not None and isinstance(plugins.value, list):
        for item in plugins.value:
            if isinstance(item.value, dict) and len(item.value) == 1:
                entries += list(item.value.items())
    return next((node for key, node in entries if key == name), None)


def _listed(section: OutlineSection) -> set[str]:
    """The pages an outline section holds, at any depth."""
    found: set[str] = set()
    for child in section.children:
        found |= _listed(child) if isinstance(child, OutlineSection) else {child.path}
    return found


def _place_not_in_nav(
    ctx: Context, not_in_nav: DocsFilter, docs: DocsFilter, root: OutlineSection
) -> None:
    """The pages ``not_in_nav`` names that ``nav`` does not list, after the navigation in
    MkDocs' file order (each folder's files, ``index``/``README`` first, before its folders):
    MkDocs builds and publishes them; ``not_in_nav`` says they are meant to be outside it."""
    listed = _listed(root)

    def walk(folder: Path) -> None:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
        files = sorted(
            (p for p in entries if p.is_file() and ctx.is_page(p)),
            key=lambda p: (p.stem not in ("index", "README"), p.name),
        )
        for file in files:
            rel = ctx.rel(file)
            if rel in listed or ctx.excluded(file) or docs.excluded(rel, folder=False):
                continue
            if not_in_nav.excluded(rel, folder=False):
                root.children.append(OutlinePage(rel, None, len(root.children), None, None))
        for sub in entries:
            if (
                sub.is_dir()
                and not sub.is_symlink()
                and not docs.excluded(ctx.rel(sub), folder=True)
            ):
                walk(sub)

    walk(ctx.content_root)


def _load(file: Path, root: Path) -> tuple[dict[str, Any], YamlNode]:
    """A configuration's settings and the same as :class:`YamlNode` values (with lines):
    ``mkdocs.yml``/``properdocs.yml`` as YAML, ``zensical.toml``'s ``project`` table in
    MkDocs' shapes (:mod:`._zensical`)."""
    text = config.read_text(file, root)
    if file.suffix.lower() == ".toml":
        data = settings(load_toml(text, path=file.name))
        return data, settings_nodes(data, text)
    return config.read_data(file, root), load_yaml_nodes(text, path=file.name)


def _chain(file: Path, root: Path) -> list[Path]:
    """``file`` and the configurations it names in ``INHERIT``, the nearest first (each
    relative to the one naming it, inside ``root``)."""
    chain: list[Path] = []
    current: Path | None = file
    while current is not None and len(chain) < _MAX_INHERIT and current not in chain:
        chain.append(current)
        parent = config.string(_load(current, root)[0].get("INHERIT"))
        following = normalise(current.parent, parent, root) if parent else None
        current = following if following is not None and following.is_file() else None
    return chain


def _read_config(file: Path, root: Path) -> tuple[dict[str, Any], YamlNode | None, Path]:
    """mkdocs.yml's settings, its ``nav`` and the file holding it, following ``INHERIT``
    (a parent configuration, relative to the file, inside ``root``; mappings merged key by
    key, any other value the child's), as MkDocs reads it."""
    data: dict[str, Any] = {}
    nav: YamlNode | None = None
    nav_file = file
    for each in reversed(_chain(file, root)):  # the furthest ancestor first, each child over it
        own_data, nodes = _load(each, root)
        data = _merged(data, own_data)
        own = nodes.value.get("nav") if isinstance(nodes.value, dict) else None
        if own is None and isinstance(nodes.value, dict):
            # MkDocs 0.17 to 1.2 read the deprecated ``pages`` as ``nav`` (1.3 refuses it):
            # a site that still has it was built with it as its navigation.
            own = nodes.value.get("pages")
        if isinstance(nodes.value, dict):
            # mkdocs-static-i18n builds the default language with its own nav, if it has one.
            own = default_language_nav(nodes.value.get("plugins")) or own
        if own is not None:
            nav, nav_file = own, each
    data.pop("INHERIT", None)
    return data, nav, nav_file


def _extensions(file: Path, root: Path) -> YamlNode | None:
    """The ``markdown_extensions`` node in force: the nearest configuration's that states
    one (a list is the child's, never merged with its parent's)."""
    for each in _chain(file, root):
        _, nodes = _load(each, root)
        found = nodes.value.get("markdown_extensions") if isinstance(nodes.value, dict) else None
        if found is not None:
            return found
    return None


def _merged(base: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """``child`` over ``base``: mappings merged key by key, anything else replaced."""
    out = dict(base)
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


_Delimiters = tuple[str, str]
"""An opening and a closing tag (named: a bare ``tuple[str, str]`` reads as a reason pair)."""


def _include_markdown_tags(file: Path) -> _Delimiters | None:
    """The delimiters of mkdocs-include-markdown-plugin's directives (``opening_tag``,
    ``closing_tag``: ``{%`` and ``%}``), when ``plugins`` enables it."""
    data, _, _ = _read_config(file, file.parent)
    options = plugin_options(data.get("plugins"), "include-markdown")
    if options is None:
        return None
    opening = options.get("opening_tag")
    closing = options.get("closing_tag")
    return (
        opening if isinstance(opening, str) and opening else "{%",
        closing if isinstance(closing, str) and closing else "%}",
    )


def _snippet_bases(file: Path) -> tuple[Path, ...]:
    """The folders ``pymdownx.snippets`` looks in, when mkdocs.yml enables it (relative to
    the folder MkDocs runs in, the configuration's)."""
    data, _, _ = _read_config(file, file.parent)
    extensions = data.get("markdown_extensions")
    found: object = None
    enabled = False
    for entry in extensions if isinstance(extensions, list) else []:
        name, options = (entry, None) if isinstance(entry, str) else (None, None)
        if isinstance(entry, dict) and len(entry) == 1:
            ((name, options),) = entry.items()
        if name == "pymdownx.snippets":
            enabled, found = True, config.get(options, "base_path")
    if not enabled:
        return ()
    paths = found if isinstance(found, list) else [found] if isinstance(found, str) else ["."]
    root = file.parent.resolve()
    return tuple((root / p).resolve() for p in paths if isinstance(p, str))


def _name_untitled(section: OutlineSection) -> None:
    """An untitled section (``- "":``) is named after its first page, never after where the
    configuration is."""
    if not section.name:
        first = next((c for c in section.children if isinstance(c, OutlinePage)), None)
        section.title_page = first.path if first is not None else None


def _left_out(ctx: Context, target: str, where: str, line: int, generated: tuple[str, ...]) -> bool:
    """Whether a nav entry names no page to read: a path the ``gen-files`` plugin or a script
    (a ``.gitignore``'d path) writes before MkDocs builds (left out silently: MkDocs finds it),
    or a folder."""
    if target.strip("/") in generated:
        return True
    if target.endswith("/") and not SCHEME.match(target):
        # A folder is no page (literate-nav reads the folders it handles before this).
        ctx.warn("missing-outline-page", f"nav names no file {target!r}; left out", where, line)
        return True
    return False


def _git_ignored(docs: Path, root: Path) -> tuple[str, ...]:
    """The files and folders of ``docs`` its repository's ``.gitignore`` files (from the site's
    folder down to ``docs``) keep out of git by an anchored path (``/docs/reference/cli.md``):
    what a script writes before MkDocs builds, so MkDocs finds it (content-relative)."""
    found = (*ignored_files(docs, root), *ignored_folders(docs, root))
    return tuple(
        sorted(
            {p.relative_to(docs).as_posix() for p in found if p != docs and p.is_relative_to(docs)}
        )
    )


def _generated_entries(nav: YamlNode | None, docs: Path) -> tuple[str, ...]:
    """The nav targets no file or folder of ``docs`` answers (``reference/``,
    ``api.md``): with the ``gen-files`` plugin, what its scripts write when MkDocs builds."""
    found: list[str] = []

    def walk(node: YamlNode) -> None:
        if isinstance(node.value, list):
            for item in node.value:
                walk(item)
        elif isinstance(node.value, dict):
            for value in node.value.values():
                walk(value)
        elif isinstance(node.value, str):
            target = node.value.strip()
            if SCHEME.match(target) or _INCLUDE.match(target):
                return
            path = normalise(docs, target.split("#", 1)[0], docs)
            as_page = None if target.endswith("/") else path.with_suffix(".md") if path else None
            if path is not None and not path.exists() and not (as_page and as_page.exists()):
                found.append(path.relative_to(docs).as_posix())

    if nav is not None:
        walk(nav)
    return tuple(dict.fromkeys(found))


def _nav_outline(
    ctx: Context,
    config: Path,
    nav: YamlNode,
    reader: LiterateReader | None,
    generated: tuple[str, ...] = (),
) -> Outline:
    """The outline ``nav`` of ``config`` (mkdocs.yml) describes (a folder entry read by
    ``literate-nav`` when the site uses it)."""
    where = ctx.display(config)
    root = OutlineSection(name="", key=where)
    monorepo = Monorepo(ctx, config, where)

    def folder(target: str) -> Path | None:
        """The folder a nav entry names, when ``literate-nav`` reads it."""
        if reader is None or not target.endswith("/") or SCHEME.match(target):
            return None
        path = normalise(ctx.content_root, target, ctx.content_root)
        return path if path is not None and path.is_dir() else None

    def page(
        target: str, title: str | None, position: int, line: int
    ) -> OutlinePage | OutlineSection | None:
        if monorepo.names(target):
            # mkdocs-monorepo-plugin: another project's navigation, a section in its place.
            return monorepo.section(str(title or "").strip(), target, position, line)
        skipped = _left_out(ctx, target, where, line, generated)
        path = None if skipped else ctx.page(ctx.content_root, target, origin=config, line=line)
        if path is not None and reader is not None:
            reader.seen.add(path)
        return None if path is None else OutlinePage(path, title, position, where, line)

    def place(target: str, title: str | None, line: int, into: OutlineSection) -> None:
        """A nav entry's folder (read by ``literate-nav``) or page, put in ``into``."""
        listed = folder(target)
        if listed is not None and reader is not None:
            reader.subfolder(listed, title, into)
            return
        found = page(target, title, len(into.children), line)
        if found is not None:
            into.children.append(found)

    def entries(node: YamlNode, into: OutlineSection) -> None:
        for entry in items(node, "nav", where):
            position = len(into.children)
            if isinstance(entry.value, str):
                place(entry.value, None, entry.line, into)
                continue
            if not isinstance(entry.value, dict) or len(entry.value) != 1:
                raise SourceError(
                    "each nav entry must be a path or a single 'Title: target' pair",
                    reason="invalid-outline",
                    path=where,
                    line=entry.line,
                )
            ((title, target),) = entry.value.items()
            if isinstance(target.value, list):
                section = OutlineSection(
                    name=str(title or "").strip(), key=f"{where}:{entry.line}", order=position
                )
                entries(target, section)
                _name_untitled(section)
                into.children.append(section)
            elif isinstance(target.value, str):
                place(target.value, title, target.line, into)
            else:
                raise SourceError(
                    f"nav entry {title!r} has no target",
                    reason="invalid-outline",
                    path=where,
                    line=entry.line,
                )

    entries(nav, root)
    return Outline("mkdocs", root, where, interleaved_root=True, files=monorepo.files)


# What MkDocs publishes beside the pages, which a page may link to: every build's sitemap and
# 404 page, and the static files of its built-in themes and of Material (``img/favicon.ico``).
_ALWAYS_PUBLISHED = ("sitemap.xml", "sitemap.xml.gz", "404.html")
_THEME_FILES: dict[str, tuple[str, ...]] = {
    "mkdocs": ("img/", "css/", "js/", "webfonts/"),
    "readthedocs": ("img/", "css/", "js/", "fonts/"),
    "material": ("assets/",),
}


def _published_besides_pages(theme: object) -> tuple[str, ...]:
    """The routes of :attr:`LinkStyle.routes` for a site with ``theme`` (a name or a mapping
    with ``name``; MkDocs' default is its own ``mkdocs`` theme)."""
    name = theme.get("name") if isinstance(theme, dict) else theme
    key = name.lower() if isinstance(name, str) else "mkdocs"
    return _ALWAYS_PUBLISHED + _THEME_FILES.get(key, ())


# MkDocs' validation of links (``validation.links``), by our kind of unresolved link: its
# setting and its default level. Only ``warn`` is a warning; ``info`` and ``ignore`` are not.
_LINK_CHECKS = {
    "anchor": ("anchors", "info"),
    "absolute": ("absolute_links", "info"),
    "extensionless": ("unrecognized_links", "info"),
    "not-found": ("not_found", "warn"),
}


def _unreported(validation: object) -> frozenset[str]:
    """The kinds of :attr:`LinkStyle.quiet` MkDocs does not warn about under ``validation``
    (``links.<check>``, or the shorthand ``<check>`` for nav and links alike): a file of
    ``docs_dir`` (MkDocs copies every one) and raw HTML (never checked) always; the rest when
    their level is not ``warn``. ``absolute_links: relative_to_docs`` resolves them from
    ``docs_dir`` and reports a missing one as not found."""
    shorthand = validation if isinstance(validation, dict) else {}
    links = config.mapping(shorthand.get("links"))
    quiet = {"content-file", "html"}
    for kind, (key, default) in _LINK_CHECKS.items():
        level = links.get(key, shorthand.get(key, default))
        if kind == "absolute" and level == "relative_to_docs":
            continue
        if str(level).lower() != "warn":
            quiet.add(kind)
    return frozenset(quiet)
