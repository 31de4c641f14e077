"""Jekyll (GitHub Pages): ``_config.yml`` at the site root (the folder Jekyll builds), with a
sign that Jekyll builds it: a ``theme`` or ``remote_theme``, a ``Gemfile`` naming ``jekyll`` or
``github-pages``, or ``_layouts``/``_includes`` folders; in a folder named ``docs`` (the one
GitHub Pages publishes) it needs none, and a repository's root builds its ``docs/`` site.

Pages (Jekyll's reader): Markdown files (``markdown_ext``, by default ``markdown, mkdown,
mkdn, mkd, md``) with front matter; files and folders whose names start with ``.``, ``_`` or
``#`` or end with ``~`` are not read unless ``include:`` names them; ``exclude:`` patterns
(each a glob or a path prefix, from the site root) and Jekyll's default excludes
(``Gemfile``, ``node_modules``, ``vendor/bundle/``...) are left out; ``published: false``
pages too. A site GitHub Pages builds (no ``Gemfile``, or one naming ``github-pages``, or
``plugins`` naming ``jekyll-optional-front-matter``) runs GitHub Pages' default plugins:
Markdown files without front matter are pages as well (jekyll-optional-front-matter), but for
its meta files (README, LICENSE, CONTRIBUTING, CODE_OF_CONDUCT...), and a folder's README
is its index page when it has no ``index`` (jekyll-readme-index). The documents of
collections with ``output: true`` (``collections:``, in ``collections_dir``) and of
``_posts`` are pages too (with front matter, as Jekyll requires of documents). Front matter
``defaults:`` apply; on GitHub Pages a page with no ``title`` takes the heading it opens with
(jekyll-titles-from-headings), which just-the-docs' navigation then shows.

Navigation: with the just-the-docs theme (``theme``/``remote_theme`` naming it), its main
navigation: pages with a ``title``, top level those with no ``parent``, a page's children
those whose ``parent`` is its title (and whose ``grand_parent``, when set, is its parent);
siblings with a numeric ``nav_order`` first (by number), then a string ``nav_order`` (by
string; ``nav_sort: case_insensitive`` folds case), then those without, by title; a page's
``child_nav_order: desc`` reverses its children; ``nav_exclude: true`` leaves a page (and
its children) out of the navigation. Any other theme's navigation is its own layout's
(minima's ``header_pages``, a site's ``_data`` files read by its own templates): the
outline is then Jekyll's own page order, ``site.pages`` sorted by file name, grouped by
folder (the index page first, sub-folders after the pages). Pages the navigation does not
show follow it in path order, then each collection's documents (posts newest first).

URLs (collection documents by their collection's ``permalink`` pattern, posts by the posts'
or the site's; a page also at its ``redirect_from`` URLs; the site's HTML pages are routes): a
page's ``permalink`` front matter (placeholders ``:path``, ``:basename``,
``:output_ext`` filled in), else ``/path/name.html``, or ``/path/name/`` when the site's
``permalink`` is ``pretty`` or ends with ``/``; an index page at its folder; under
``baseurl``. Links: relative file links (GitHub Pages' jekyll-relative-links), URLs,
``{% link path %}`` (from the site root), ``{% post_url name %}``, and
``{{ site.baseurl }}/x``/``{{ '/x' | relative_url }}`` (the URL path ``/x``). Anchors are
kramdown's ``auto_ids``, close to GitHub's.

Metadata: ``title`` (else ``name``), ``description``, ``lang``, ``url`` + ``baseurl``; the
publisher from ``repository`` (github-metadata) or ``author``.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import SCHEME, Context, left_out
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, PageUrl, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import read_text_file
from gezel_knowledge.compiler.text.frontmatter import split_front_matter

__all__ = ["Jekyll"]

_CONFIG = "_config.yml"
_MARKDOWN_EXT = "markdown,mkdown,mkdn,mkd,md"
_HTML = (".html", ".htm")
_MAX_DEPTH = 12  # the catalog nests topics 16 deep at most
_DEFAULT_EXCLUDE = (
    ".sass-cache",
    ".jekyll-cache",
    "gemfiles",
    "Gemfile",
    "Gemfile.lock",
    "node_modules",
    "vendor/bundle/",
    "vendor/cache/",
    "vendor/gems/",
    "vendor/ruby/",
)
# jekyll-optional-front-matter leaves these meta files static unless `include` names them.
_META_FILES = frozenset(
    {
        "readme",
        "license",
        "licence",
        "copying",
        "code_of_conduct",
        "contributing",
        "issue_template",
        "pull_request_template",
    }
)
_INDEX = "index"
_POST_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})-(.+)\Z")
_INCLUDE = re.compile(r"\{%-?\s*include\s+([\w./-]+)")
# An include that writes an element id (or <a name>) from its parameters makes anchors.
_LIQUID_ID = re.compile(r"""\b(?:id|name)\s*=\s*["']\{\{""")
# Liquid that writes a URL, as Jekyll renders it before Markdown (outside {% raw %}):
# {% link path %} and {% post_url name %} name files; site.baseurl and the url filters
# leave the root-relative path.
_RAW_OPEN = re.compile(r"\{%-?\s*raw\s*-?%\}")
_RAW_CLOSE = re.compile(r"\{%-?\s*endraw\s*-?%\}")
_TITLE_HEADING = re.compile(
    r"\A\s*(?:#{1,3}[ \t]+(.*?)(?:[ \t]+#{1,3})?[ \t]*|(.+)\r?\n[-=]+[ \t]*)$", re.M
)
# Jekyll's built-in permalink styles, as patterns (posts; pages take /:path/:basename).
_STYLES = {
    "date": "/:categories/:year/:month/:day/:title:output_ext",
    "pretty": "/:categories/:year/:month/:day/:title/",
    "ordinal": "/:categories/:year/:y_day/:title:output_ext",
    "none": "/:categories/:title:output_ext",
}
_MAX_TITLE_LINE = 1000  # characters; no heading is longer
_PLACEHOLDER = re.compile(r":([a-z_]+)")
_FOOTNOTE = re.compile(r"^ {0,3}\[\^([^\]\s]+)\]:.*$", re.MULTILINE)
_URL_LIQUID = re.compile(
    r"\{%-?\s*link\s+(?P<link>[^\s%{}]+)\s*-?%\}"
    r"|\{%-?\s*post_url\s+(?P<post>[^\s%{}]+)\s*-?%\}"
    r"|\{\{-?\s*site\.(?:baseurl|url)\s*-?\}\}"
    r"|\{\{-?\s*[\"'](?P<filtered>[^\"'{}]*)[\"']\s*\|\s*"
    r"(?:relative_url|absolute_url|prepend:\s*site\.baseurl)\s*-?\}\}"
)


def _strings(value: Any) -> list[str]:
    """A configuration list of strings (a lone string is a list of one)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, str | int) and str(v)]
    return []


def _gemfile(site_root: Path, root: Path) -> str | None:
    file = site_root / "Gemfile"
    return config.read_text(file, root) if file.is_file() else None


def _theme(data: Mapping[str, Any]) -> str:
    return " ".join(s for s in (config.string(data.get(k)) for k in ("theme", "remote_theme")) if s)


def _just_the_docs(root: Path, data: Mapping[str, Any], gemfile: str | None) -> bool:
    """Whether the site uses the just-the-docs theme: its ``theme``/``remote_theme``, its
    Gemfile, or the theme's own repository (a gemspec of that name)."""
    if "just-the-docs" in _theme(data) or (gemfile is not None and "just-the-docs" in gemfile):
        return True
    return (root / "just-the-docs.gemspec").is_file()


_OTHER_TOOLS = ("_toc.yml", "myst.yml", "conf.py", "mkdocs.yml", "book.toml", "docfx.json")


def _other_tool(folder: Path) -> bool:
    """Whether a folder holds another generator's project file (Jupyter Book and MyST keep
    a ``_config.yml`` too)."""
    return any((folder / name).is_file() for name in _OTHER_TOOLS)


def _is_jekyll(root: Path, data: Mapping[str, Any], gemfile: str | None) -> bool:
    """Whether a ``_config.yml`` is a Jekyll site's (see the module docstring)."""
    if _theme(data):
        return True
    if gemfile is not None and re.search(r"""gem\s+["'](?:jekyll|github-pages)["']""", gemfile):
        return True
    return (root / "_layouts").is_dir() or (root / "_includes").is_dir()


def _github_pages(data: Mapping[str, Any], gemfile: str | None) -> bool:
    """Whether GitHub Pages' default plugins run (see the module docstring)."""
    plugins = _strings(data.get("plugins")) + _strings(data.get("gems"))
    if "jekyll-optional-front-matter" in plugins:
        return True
    return gemfile is None or "github-pages" in gemfile


@dataclass(frozen=True, slots=True)
class _Filter:
    """Jekyll's entry filter: what the reader leaves out (``exclude``/``include``)."""

    exclude: tuple[str, ...]
    include: tuple[str, ...]

    @staticmethod
    def _matches(rel: str, patterns: tuple[str, ...]) -> bool:
        for pattern in patterns:
            bare = pattern.strip("/")
            if not bare:
                continue
            if rel == bare or rel.startswith(bare + "/") or fnmatch.fnmatchcase(rel, bare):
                return True
            if fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], bare) and "/" not in bare:
                return True
        return False

    def included(self, rel: str) -> bool:
        """Whether ``include:`` names the entry."""
        return self._matches(rel, self.include)

    def left_out(self, rel: str, name: str) -> bool:
        """Whether the entry at site-relative ``rel`` (file or folder name ``name``) is not
        read."""
        if self.included(rel):
            return False
        special = name.startswith((".", "_", "#")) or name.endswith("~")
        return special or self._matches(rel, self.exclude)


@dataclass(slots=True)
class _Page:
    rel: str
    front: dict[str, Any]
    collection: str | None = None


@dataclass(slots=True)
class _Pages:
    pages: list[_Page] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)
    routes: list[str] = field(default_factory=list)
    """URL paths of the site's HTML pages (no catalog pages) and their redirects."""


def _front(ctx_root: Path, file: Path) -> tuple[bool, dict[str, Any], str]:
    """Whether a file opens with front matter, that front matter, and the page's body."""
    where = file.relative_to(ctx_root).as_posix()
    text = read_text_file(file, where=where)
    if not text.lstrip("\ufeff").startswith("---"):
        return False, {}, text
    found = split_front_matter(text, path=where, lenient=True)
    return found.body_line > 1, dict(found.data), found.body


def _heading_title(body: str) -> str | None:
    """The title jekyll-titles-from-headings gives a page with none: the heading its body
    opens with (ATX levels 1 to 3, or setext)."""
    # Only the opening line or two, of a heading's length: the pattern backtracks over a
    # line, so a long run of spaces would take quadratic time.
    head = body.lstrip().split("\n", 2)[:2]
    if len(head[0]) > _MAX_TITLE_LINE:
        return None
    match = _TITLE_HEADING.match("\n".join(head))
    if match is None:
        return None
    return (match[1] or match[2] or "").strip() or None


class Jekyll(Generator):
    """Jekyll, as GitHub Pages builds it."""

    name = "jekyll"
    described_as = "a Jekyll site"
    marker = "_config.yml"

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        *,
        github_pages: bool = False,
        just_the_docs: bool = False,
        site_root: Path | None = None,
    ) -> None:
        self._data = dict(data or {})
        self._github_pages = github_pages
        self._just_the_docs = just_the_docs
        self._site_root = site_root
        self._anchoring: dict[str, bool] = {}
        """Includes by name: whether each writes ids from its parameters."""
        permalink = config.string(self._data.get("permalink")) or "date"
        self._pretty = permalink == "pretty" or permalink.endswith("/")
        self._post_pattern = _STYLES.get(permalink, permalink)
        self._readme_index: set[str] = set()
        """Folders whose README is their index page (jekyll-readme-index)."""

    # ── detection ─────────────────────────────────────────────────────────────────────────

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        # The site root, else the repository's docs/ that GitHub Pages publishes.
        for site_root in (root, root / "docs"):
            file = site_root / _CONFIG
            if not file.is_file() or site_root.is_symlink():
                continue
            data = config.read_data(file, root)
            gemfile = _gemfile(site_root, root)
            if site_root != root and _other_tool(site_root):
                continue  # docs/ is another generator's project (Jupyter Book's _config.yml)
            # A _config.yml in a folder named docs is GitHub Pages' source (Settings, Pages,
            # "Deploy from a branch", /docs).
            published = site_root.name == "docs" and not _other_tool(site_root)
            if forced or published or _is_jekyll(site_root, data, gemfile):
                return self._site(root, site_root, file, data, gemfile)
        if forced:
            raise SourceError(
                "catalog.yaml asks for the jekyll outline but there is no _config.yml",
                reason="missing-outline",
            )
        return None

    def _site(
        self, root: Path, site_root: Path, file: Path, data: dict[str, Any], gemfile: str | None
    ) -> Site:
        generator = Jekyll(
            data,
            github_pages=_github_pages(data, gemfile),
            just_the_docs=_just_the_docs(site_root, data, gemfile),
            site_root=site_root,
        )
        url = config.string(data.get("url"))
        base = (config.string(data.get("baseurl")) or "").strip("/")
        absolute = config.absolute_url(f"{url.rstrip('/')}/{base}" if url and base else url)
        repository = config.string(data.get("repository"))
        return Site(
            generator,
            file,
            site_root,
            config.site_metadata(
                data.get("title") or data.get("name"),
                data.get("description"),
                data.get("lang"),
                absolute,
                config.publisher(
                    # github-metadata's `owner/name`, or the repository's URL.
                    repository
                    if repository is None or "://" in repository
                    else f"https://github.com/{repository}",
                    _author(data.get("author")),
                ),
            ),
            LinkStyle(
                "directory" if generator._pretty else "html",
                prefixes=(base + "/",) if base else (),
                # Files Jekyll copies as they are (static files) are published beside the
                # pages: a link to one resolves.
                quiet=frozenset({"content-file"}),
            ),
        )

    # ── pages ─────────────────────────────────────────────────────────────────────────────

    def _extensions(self) -> tuple[str, ...]:
        text = config.string(self._data.get("markdown_ext")) or _MARKDOWN_EXT
        return tuple("." + e.strip().lower() for e in text.split(",") if e.strip())

    def _collections(self) -> list[tuple[str, str, str]]:
        """Output collections: (label, folder relative to the site root, URL pattern),
        ``posts`` first (Jekyll merges its own ``posts`` in front of the configured ones)."""
        found: list[tuple[str, str, str]] = []
        base = (config.string(self._data.get("collections_dir")) or "").strip("/")
        declared = self._data.get("collections")
        items: dict[str, Any] = {}
        if isinstance(declared, dict):
            items = {str(k): v for k, v in declared.items()}
        elif isinstance(declared, list):
            items = {str(k): {} for k in declared if isinstance(k, str)}
        posts = items.pop("posts", {})
        posts = posts if isinstance(posts, dict) else {}
        if posts.get("output", True) is not False:
            pattern = config.string(posts.get("permalink")) or self._post_pattern
            found.append(("posts", "/".join(p for p in (base, "_posts") if p), pattern))
        suffix = "/" if self._pretty else ":output_ext"
        for label, settings in items.items():
            if isinstance(settings, dict) and settings.get("output") is True:
                pattern = config.string(settings.get("permalink")) or f"/:collection/:path{suffix}"
                found.append((label, "/".join(p for p in (base, "_" + label) if p), pattern))
        return found

    def _read(self, ctx: Context) -> _Pages:
        exts = self._extensions()
        filt = _Filter(
            tuple(_strings(self._data.get("exclude"))) + _DEFAULT_EXCLUDE,
            tuple(_strings(self._data.get("include"))),
        )
        out = _Pages()
        root = ctx.content_root
        collections = self._collections()
        folders = {folder: label for label, folder, _ in collections}
        for label, folder, _ in collections:
            if (root / folder).is_dir():
                out.collections.append(label)
        for folder, dirs, files in os.walk(root):  # never follows linked folders
            here = Path(folder)
            rel_dir = "" if here == root else ctx.rel(here)
            collection = next(
                (lbl for f, lbl in folders.items() if rel_dir == f or rel_dir.startswith(f + "/")),
                None,
            )
            kept = []
            for d in sorted(dirs):
                rel = f"{rel_dir}/{d}" if rel_dir else d
                inside = collection is not None or rel in folders
                if d == "node_modules" or d.startswith(".") or (here / d).is_symlink():
                    continue
                if (inside and not d.startswith(".")) or not filt.left_out(rel, d):
                    kept.append(d)
            dirs[:] = kept
            has_index = any(n.lower().startswith(_INDEX + ".") for n in files)
            for name in sorted(files):
                path = here / name
                stem, suffix = os.path.splitext(name)
                if suffix.lower() in _HTML and not filt.left_out(ctx.rel(path), name):
                    out.routes += self._html_routes(root, path, collection)
                if suffix.lower() not in exts or path.is_symlink() or not path.is_file():
                    continue
                rel = ctx.rel(path)
                if filt.left_out(rel, name) or left_out(ctx, path) or not ctx.is_page(path):
                    continue
                has_front, front = self._front(root, path, rel, collection)
                if self._publishes(rel, has_front, front, collection, filt, has_index=has_index):
                    readme = stem.lower() == "readme" and collection is None
                    if self._github_pages and readme and not has_index:
                        self._readme_index.add(rel_dir)
                    out.pages.append(_Page(rel, front, collection))
        return out

    def _html_routes(self, root: Path, path: Path, collection: str | None) -> list[str]:
        """Where an HTML page with front matter is published, and the URLs it redirects
        from (jekyll-redirect-from): links to them resolve in the site, not the catalog."""
        if path.is_symlink() or not path.is_file():
            return []
        try:
            has_front, front, _ = _front(root, path)
        except SourceError:
            # Not UTF-8 or too large to read: a static file, as Jekyll copies legacy pages.
            return []
        if not has_front:
            return []
        rel = path.relative_to(root).as_posix()
        url = self.page_url(rel, front) if collection is None else None
        found = [url.path] if url is not None else []
        found += [a.strip("/") for a in _redirects(front)]
        return [f for f in found if f]

    def _front(
        self, root: Path, path: Path, rel: str, collection: str | None
    ) -> tuple[bool, dict[str, Any]]:
        """Whether a page has front matter, and its front matter as Jekyll sees it: with
        ``defaults:`` and, on GitHub Pages, the title its opening heading gives."""
        has_front, own, body = _front(root, path)
        front = {**self._defaults(rel, collection), **own}
        if self._github_pages and front.get("title") in (None, ""):
            title = _heading_title(body)  # jekyll-titles-from-headings
            if title is not None:
                front["title"] = title
        return has_front, front

    def _defaults(self, rel: str, collection: str | None) -> dict[str, Any]:
        """The front matter ``defaults:`` gives a page (those of a longer ``scope.path``
        win, as Jekyll's more specific scope does)."""
        kind = "pages" if collection is None else collection
        found: list[tuple[int, dict[str, Any]]] = []
        entries = self._data.get("defaults")
        for entry in entries if isinstance(entries, list) else ():
            scope = config.mapping(config.mapping(entry).get("scope"))
            values = config.mapping(config.mapping(entry).get("values"))
            path = str(scope.get("path") or "").strip("/")
            wanted = scope.get("type")
            if wanted not in (None, "", kind):
                continue
            inside = not path or rel == path or rel.startswith(path + "/")
            if inside or fnmatch.fnmatchcase(rel, path):
                found.append((len(path), values))
        merged: dict[str, Any] = {}
        for _, values in sorted(found, key=lambda item: item[0]):
            merged.update(values)
        return merged

    def _publishes(
        self,
        rel: str,
        has_front: bool,
        front: Mapping[str, Any],
        collection: str | None,
        filt: _Filter,
        *,
        has_index: bool,
    ) -> bool:
        """Whether a Markdown file Jekyll reads is a page it publishes."""
        if front.get("published") is False:
            return False
        stem = PurePosixPath(rel).stem
        if collection is not None:
            # A collection's file without front matter is a static file; a post is named
            # by its date.
            return has_front and (collection != "posts" or bool(_POST_NAME.match(stem)))
        if has_front:
            return True
        if not self._github_pages:
            return False  # Jekyll copies a file without front matter as it is
        if stem.lower() not in _META_FILES or filt.included(rel):
            return True
        # jekyll-readme-index: a README is its folder's index page when it has no index.
        return stem.lower() == "readme" and not has_index

    # ── navigation ────────────────────────────────────────────────────────────────────────

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        # The generator instance of the site holds its configuration.
        generator = site.generator
        assert isinstance(generator, Jekyll)
        return generator._outline(site, ctx)

    def _outline(self, site: Site, ctx: Context) -> Outline:
        found = self._read(ctx)
        where = ctx.display(site.config) if site.config is not None else "(root)"
        root = OutlineSection(name="", key=where)
        pages = [p for p in found.pages if p.collection is None]
        placed: set[str] = set()
        sidebars = self._sidebars(ctx)
        if self._just_the_docs or sidebars:
            if self._just_the_docs:
                _JustTheDocs(self._data, pages, placed).fill(root)
            else:
                by_url = {self._url_key(p.rel, p.front): p.rel for p in pages}
                filler = _Sidebar(by_url, placed)
                for items in sidebars:
                    filler.fill(root, items)
                found.routes.extend(filler.routes)
            rest = sorted(p.rel for p in pages if p.rel not in placed)
            for rel in rest:
                root.children.append(OutlinePage(rel, None, len(root.children), where))
        else:
            _by_folders(root, pages, where)
        for label in found.collections:
            docs = [p for p in found.pages if p.collection == label]
            if not docs:
                continue
            docs.sort(key=lambda p: p.rel, reverse=label == "posts")
            section = OutlineSection(name=label.capitalize(), key=f"{where}:{label}")
            section.order = len(root.children)
            for page in docs:
                section.children.append(OutlinePage(page.rel, None, len(section.children), where))
            root.children.append(section)
        return Outline(self.name, root, where, interleaved_root=True, routes=tuple(found.routes))

    def _sidebars(self, ctx: Context) -> list[list[Any]]:
        """The Documentation Theme for Jekyll's sidebars: ``sidebars:`` in ``_config.yml``
        names data files (``_data/sidebars/<name>.yml``), each ``entries`` of ``folders``."""
        if self._site_root is None:
            return []
        found: list[list[Any]] = []
        for name in _strings(self._data.get("sidebars")):
            file = self._site_root / "_data" / "sidebars" / f"{name}.yml"
            if "/" in name or ".." in name or not file.is_file():
                continue
            data = config.read_data(file, ctx.source_root)
            entries = data.get("entries")
            if isinstance(entries, list):
                found.append(entries)
        return found

    def _url_key(self, rel: str, front: Mapping[str, Any]) -> str:
        """A page's URL as a sidebar names it, without ``/``, ``index.html`` or ``.html``."""
        return _url_key(self.page_url(rel, front).path)

    # ── URLs and links ────────────────────────────────────────────────────────────────────

    def page_url(self, rel: str, front: Mapping[str, Any]) -> PageUrl:
        path = PurePosixPath(rel)
        folder = "" if str(path.parent) == "." else str(path.parent)
        permalink = front.get("permalink")
        if isinstance(permalink, str) and permalink.strip():
            text = permalink.strip()
            text = (
                text.replace(":path", folder)
                .replace(":basename", path.stem)
                .replace(":output_ext", ".html")
            )
            return PageUrl(text.strip("/"), text.endswith("/"))
        for label, root, pattern in self._collections():
            if rel.startswith(root + "/"):
                inside = PurePosixPath(rel[len(root) + 1 :]).with_suffix("").as_posix()
                return _document_url(pattern, label, inside, front)
        index = path.stem == _INDEX or (
            path.stem.lower() == "readme" and folder in self._readme_index
        )
        if index:
            return PageUrl(folder, True)
        return PageUrl("/".join(p for p in (folder, path.stem) if p), self._pretty)

    def generates_headings(self, body: str) -> bool:
        # `{% include custom/cli_option_row.html options="--cache" %}`: a site's include that
        # writes `id="{{ ... }}"` or `name="{{ ... }}"` gives the page anchors of its own.
        if self._site_root is None or "{%" not in body:
            return False
        return any(self._writes_ids(name) for name in set(_INCLUDE.findall(body)))

    def _writes_ids(self, name: str) -> bool:
        if name not in self._anchoring:
            folder = self._site_root / "_includes" if self._site_root is not None else None
            file = None if folder is None or ".." in name.split("/") else folder / name
            found = False
            if file is not None and file.is_file() and not file.is_symlink():
                try:
                    text = read_text_file(file, where=name, within=folder)
                except SourceError:
                    text = ""  # too large or unreadable: no anchors assumed
                found = bool(_LIQUID_ID.search(text))
            self._anchoring[name] = found
        return self._anchoring[name]

    def url_aliases(self, rel: str, front: Mapping[str, Any]) -> tuple[str, ...]:
        # jekyll-redirect-from (a GitHub Pages default): the URLs a page redirects from.
        del rel
        return tuple(_redirects(front))

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        del site, page, within
        if "{" not in body:
            return _footnote_anchors(body) if "[^" in body else body
        out: list[str] = []
        last = 0
        # Each {% raw %} to the first {% endraw %} after it; with none after one, none after
        # a later one either (searched once, not from every {% raw %}: linear).
        while (opened := _RAW_OPEN.search(body, last)) is not None:
            closed = _RAW_CLOSE.search(body, opened.end())
            if closed is None:
                break
            out.append(_render_urls(body[last : opened.start()]))
            out.append(body[opened.end() : closed.start()])  # raw text, without its tags
            last = closed.end()
        out.append(_render_urls(body[last:]))
        return _footnote_anchors("".join(out))


def _footnote_anchors(text: str) -> str:
    """Each footnote definition with the anchor kramdown gives it (``fn:name``), so that a
    link to ``#fn:name`` finds it."""
    return _FOOTNOTE.sub(lambda m: f'{m[0]} <a id="fn:{m[1]}"></a>', text)


def _render_urls(text: str) -> str:
    """The Liquid of ``text`` that writes URLs, rendered (see ``_URL_LIQUID``)."""

    def render(match: re.Match[str]) -> str:
        if match["link"] is not None:
            return "/" + match["link"].strip("\"'").lstrip("/")
        if match["post"] is not None:
            return "/_posts/" + match["post"].strip("\"'")
        if match["filtered"] is not None:
            # relative_url and absolute_url put a path under the site root.
            filtered = match["filtered"]
            return (
                "/" + filtered.lstrip("/") if filtered and not SCHEME.match(filtered) else filtered
            )
        return ""  # site.baseurl, site.url: links are read root-relative

    return _URL_LIQUID.sub(render, text)


def _document_url(pattern: str, label: str, path: str, front: Mapping[str, Any]) -> PageUrl:
    """A collection document's URL by its collection's ``permalink`` pattern (Jekyll's
    placeholders; a post's date and title come from its file name)."""
    name = PurePosixPath(path).name
    values = {"collection": label, "path": path, "name": name, "title": name, "slug": name}
    values["output_ext"] = ".html"
    date = _POST_NAME.match(name)
    if date is not None:
        year, month, day, title = date.groups()
        values.update(
            year=year,
            month=month,
            day=day,
            title=title,
            slug=title,
            i_month=str(int(month)),
            i_day=str(int(day)),
            short_year=year[2:],
        )
    categories = front.get("categories", front.get("category"))
    if isinstance(categories, str):
        categories = categories.split()
    if isinstance(categories, list):
        values["categories"] = "/".join(str(c).lower() for c in categories)
    else:
        values["categories"] = ""
    text = _PLACEHOLDER.sub(lambda m: values.get(m[1], m[0]), pattern)
    return PageUrl("/".join(p for p in text.split("/") if p), text.endswith("/"))


def _redirects(front: Mapping[str, Any]) -> list[str]:
    """A page's ``redirect_from`` URLs."""
    value = front.get("redirect_from")
    values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [v.strip() for v in values if isinstance(v, str) and v.strip()]


def _author(value: Any) -> str | None:
    if isinstance(value, dict):
        return config.string(value.get("name"))
    return config.string(value)


def _by_folders(root: OutlineSection, pages: list[_Page], where: str) -> None:
    """Jekyll's page order (``site.pages`` by file name), grouped by folder: a folder's index
    page first, its pages, then its sub-folders by name."""
    sections: dict[str, OutlineSection] = {"": root}

    def section(folder: str) -> OutlineSection:
        if folder in sections:
            return sections[folder]
        parent_name, _, name = folder.rpartition("/")
        parent = section(parent_name)
        made = OutlineSection(
            name=name.replace("-", " ").replace("_", " ").capitalize(), key=folder + "/"
        )
        sections[folder] = made
        parent.children.append(made)
        return made

    def page_key(page: _Page) -> tuple[int, str, str]:
        name = page.rel.rsplit("/", 1)[-1]
        stem = name.rsplit(".", 1)[0].lower()
        return (0 if stem in (_INDEX, "readme") else 1, name, page.rel)

    for page in sorted(pages, key=page_key):
        folder = page.rel.rpartition("/")[0]
        section(folder).children.append(OutlinePage(page.rel, None, None, where))

    def number(sec: OutlineSection) -> None:
        pages_first = [c for c in sec.children if isinstance(c, OutlinePage)]
        folders = sorted(
            (c for c in sec.children if isinstance(c, OutlineSection)), key=lambda s: s.key
        )
        sec.children = [*pages_first, *folders]
        for i, child in enumerate(sec.children):
            child.order = i
            if isinstance(child, OutlineSection):
                number(child)

    number(root)


def _url_key(url: str) -> str:
    """``/a/b.html``, ``a/b``, ``/a/b/`` and ``/a/b/index.html`` alike: ``a/b``."""
    path = url.split("#", 1)[0].split("?", 1)[0].strip("/")
    return path.removesuffix("index.html").removesuffix(".html").strip("/")


@dataclass(slots=True)
class _Sidebar:
    """The Documentation Theme for Jekyll's sidebar (``_data/sidebars/*.yml``): ``entries``,
    each ``folders`` (a titled section, or its items directly when untitled), holding
    ``folderitems`` (a page by ``url``; ``subfolders`` of ``subfolderitems``, then
    ``subsubfolders`` of ``subsubfolderitems``); an entry whose ``output`` does not name
    ``web`` is the PDF's only. A URL no page has is published by the site's own build (its
    rule references): a route, kept as written."""

    by_url: dict[str, str]
    placed: set[str]
    routes: list[str] = field(default_factory=list)

    _LEVELS = (
        ("folders", "folderitems"),
        ("subfolders", "subfolderitems"),
        ("subsubfolders", "subsubfolderitems"),
    )

    def fill(self, root: OutlineSection, entries: list[Any]) -> None:
        for entry in entries:
            if isinstance(entry, dict) and _on_web(entry):
                self._folders(root, entry, 0)

    def _folders(self, into: OutlineSection, holder: Mapping[str, Any], level: int) -> None:
        folders_key, items_key = self._LEVELS[level]
        folders = holder.get(folders_key)
        for folder in folders if isinstance(folders, list) else ():
            if not isinstance(folder, dict) or not _on_web(folder):
                continue
            title = folder.get("title")
            target = into
            if isinstance(title, str) and title.strip():
                target = OutlineSection(
                    name=title.strip(), key=f"sidebar:{title}", order=len(into.children)
                )
                into.children.append(target)
            items = folder.get(items_key)
            for item in items if isinstance(items, list) else ():
                if isinstance(item, dict) and _on_web(item):
                    self._item(target, item, level)

    def _item(self, into: OutlineSection, item: Mapping[str, Any], level: int) -> None:
        url = item.get("url")
        if isinstance(url, str) and url.strip() and not item.get("external_url"):
            rel = self.by_url.get(_url_key(url))
            title = item.get("title")
            label = title.strip() if isinstance(title, str) and title.strip() else None
            if rel is None:
                self.routes.append(_url_key(url))
            elif rel not in self.placed:
                self.placed.add(rel)
                into.children.append(OutlinePage(rel, label, len(into.children)))
        if level + 1 < len(self._LEVELS):
            self._folders(into, item, level + 1)


def _on_web(node: Mapping[str, Any]) -> bool:
    """Whether a sidebar node shows on the web site (its ``output`` names ``web``)."""
    output = node.get("output")
    return output is None or "web" in str(output)


@dataclass(slots=True)
class _JustTheDocs:
    """just-the-docs' main navigation (see the module docstring)."""

    data: Mapping[str, Any]
    pages: list[_Page]
    placed: set[str]

    def _sorted(self, pages: list[_Page]) -> list[_Page]:
        fold = self.data.get("nav_sort") == "case_insensitive"

        def is_number(value: Any) -> bool:
            return isinstance(value, int | float) and not isinstance(value, bool)

        def text(value: Any) -> str:
            return str(value).casefold() if fold else str(value)

        def tie(page: _Page) -> tuple[str, str]:
            # Equal keys keep the order Liquid's sort received: Jekyll's pages by file name.
            return (page.rel.rsplit("/", 1)[-1], page.rel)

        ordered = [p for p in pages if p.front.get("nav_order") is not None]
        titled = [p for p in pages if p.front.get("nav_order") is None]
        groups = (
            sorted(
                (p for p in ordered if is_number(p.front["nav_order"])),
                key=lambda p: (p.front["nav_order"], *tie(p)),
            ),
            sorted(
                (p for p in ordered if not is_number(p.front["nav_order"])),
                key=lambda p: (text(p.front["nav_order"]), *tie(p)),
            ),
            sorted(
                (p for p in titled if is_number(p.front.get("title"))),
                key=lambda p: (p.front["title"], *tie(p)),
            ),
            sorted(
                (p for p in titled if not is_number(p.front.get("title"))),
                key=lambda p: (text(p.front.get("title")), *tie(p)),
            ),
        )
        return [p for group in groups for p in group]

    def fill(self, root: OutlineSection) -> None:
        titled = [p for p in self.pages if p.front.get("title") not in (None, "")]
        by_parent: dict[str, list[_Page]] = {}
        for page in titled:
            parent = page.front.get("parent")
            if parent not in (None, ""):
                by_parent.setdefault(str(parent), []).append(page)
        top = [p for p in titled if p.front.get("parent") in (None, "")]
        self._level(root, top, by_parent, ancestors=())

    def _level(
        self,
        into: OutlineSection,
        nodes: list[_Page],
        by_parent: dict[str, list[_Page]],
        ancestors: tuple[str, ...],
    ) -> None:
        for node in self._sorted(nodes):
            title = str(node.front.get("title"))
            if node.front.get("nav_exclude") is True or title in ancestors:
                continue
            if node.rel in self.placed:
                continue
            self.placed.add(node.rel)
            children = []
            # Deeper than any navigation shows: the rest follow the navigation in path order.
            if node.front.get("has_children") is not False and len(ancestors) < _MAX_DEPTH:
                for child in by_parent.get(title, ()):
                    if child.rel in self.placed:
                        continue
                    grand = child.front.get("grand_parent")
                    if grand not in (None, "") and grand != node.front.get("parent"):
                        continue
                    children.append(child)
            if not children:
                into.children.append(OutlinePage(node.rel, title, len(into.children)))
                continue
            section = OutlineSection(name=title, key=node.rel, order=len(into.children))
            section.children.append(OutlinePage(node.rel, title, 0))
            into.children.append(section)
            order = node.front.get("child_nav_order")
            before = len(section.children)
            self._level(section, children, by_parent, (*ancestors, title))
            if order in ("desc", "reversed"):
                section.children[before:] = section.children[before:][::-1]
                for i, entry in enumerate(section.children):
                    entry.order = i
