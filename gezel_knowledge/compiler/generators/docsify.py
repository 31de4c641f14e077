"""Docsify: an HTML page whose script sets ``window.$docsify`` (``index.html``, else another
page of the folder such as ``doc.html``; in the source folder, else in its ``docs/``); Docsify
renders the Markdown in the browser, so the pages are the folder's Markdown files as they are.

The configuration is JavaScript and is never run: the literals of the page's inline scripts
(and of the local scripts it loads, when no inline one sets ``$docsify``) are read
(:mod:`._js`); the settings are the object holding most of Docsify's options. ``basePath``
(a folder inside the site) is where the Markdown is; ``relativePath`` (off by default) says
whether a page's links are relative to its own folder rather than to the site root.

Pages: every ``.md`` file below the content folder but hidden ones, ``node_modules``, files
and folders whose names start with ``_`` (Docsify's own files, ``_sidebar.md``,
``_navbar.md``, ``_coverpage.md``, ``_404.md``, and the ``_media`` its sites keep embedded
files in) and the files ``loadSidebar``, ``loadNavbar``, ``coverpage`` and ``notFoundPage``
name. A folder's ``README.md`` is its page (``/guide/``); ``homepage`` (``README.md``) is the
page at ``/``.

Navigation: with ``loadSidebar``, its file (``_sidebar.md``, or the name it gives) in the
content folder: a Markdown list, each item a link (a page) or a text (a group holding the
items nested under it), nesting by indentation; then the sidebars of sub-folders (Docsify
shows the nearest folder's own sidebar; ``alias`` may send them to another file), each a
section of the pages it adds; then the pages no sidebar lists, in path order. The home page
comes first when no sidebar lists it. Without ``loadSidebar`` (Docsify shows the page's own
headings only), the folders in path order, the home page first. Sidebar links are routes
(``/guide``, ``guide.md``, ``guide/``, ``#/guide``, ``?id=`` anchors); a route ``alias``
sends to a URL is published elsewhere and is no page, silently.

Embeds (``[name](file ':include')``) are put in the page as Docsify puts them (:func:`_embed`).
Links: from the site root unless ``relativePath`` is on (a page's file link beside it is
tried first); ``?id=heading`` is an anchor. Headings get Docsify's ids
(:mod:`~gezel_knowledge.compiler.text.anchors`, close to GitHub's).

Metadata: ``name`` (its HTML removed; else the page's ``<title>``), ``<html lang>``; the
publisher from ``repo``.
"""

from __future__ import annotations

import html
import os
import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import SCHEME, Context, left_out, normalise
from gezel_knowledge.compiler.generators._js import object_with_most
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, LinkTarget, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import read_text_file

__all__ = ["Docsify"]

_INDEX = "index.html"
_KEYS = (
    "name",
    "repo",
    "loadSidebar",
    "loadNavbar",
    "subMaxLevel",
    "maxLevel",
    "basePath",
    "homepage",
    "coverpage",
    "alias",
    "auto2top",
    "relativePath",
    "themeColor",
    "notFoundPage",
    "search",
)
# A tag's attributes stop at `<` too, and each script's end is searched once (_script_tags):
# a page of tags never closed is read in linear time.
_SCRIPT_OPEN = re.compile(r"<script\b([^<>]*)>", re.IGNORECASE)
_SCRIPT_CLOSE = re.compile(r"</script\s*>", re.IGNORECASE)
_SRC = re.compile(r"""\bsrc\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
_TITLE = re.compile(r"<title\b[^>]*>([^<]*)</title\s*>", re.IGNORECASE)
_LANG = re.compile(r"""<html\b[^<>]*\blang\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
# Linear: the item's text is taken whole and stripped after (a lazy text before trailing
# blanks backtracks over a long run of them from each of its positions).
_ITEM = re.compile(r"^([ \t]*)[-*+][ \t]+(.*)$")
# `\s*+`: the blanks after `(` are never given back, which a later `\s+` would retry.
_LINK = re.compile(r"\[((?:[^\[\]\\]|\\.)*)\]\(\s*+<?([^)\s>]*)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)")
# A tag ends before another `<`: a `<` never closed is not scanned to the end from each one.
_TAGS = re.compile(r"<[^<>]+>")
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)")
# Any quoted options, `:include` looked for in them after (_INCLUDE): a pattern looking for it
# inside backtracks over every `:include` of a title never closed (quadratic).
_EMBED = re.compile(
    r"(?<!!)\[[^\[\]\n]*\]\(\s*(?P<target>[^\s()]+)\s+([\"'])(?P<options>[^\"'\n]*)\2\s*\)"
)
_INCLUDE = re.compile(r":include\b")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_OPTION_TYPE = re.compile(r":type=([\w-]+)")
_OPTION_FRAGMENT = re.compile(r":fragment=([^\s:]+)")
_IMAGE = re.compile(r"!\[[^\[\]]*\]\([^()]*\)")
_MAX_SCRIPTS = 16
_MAX_DEPTH = 12  # the catalog nests topics 16 deep at most
# A heading's Docsify settings: `:id=name` (its anchor), `{docsify-ignore}` and
# `{docsify-ignore-all}` (left out of the sidebar's table of contents), which Docsify removes
# from the heading's text.
_HEADING = re.compile(r"^( {0,3}#{1,6}[ \t].*)$", re.MULTILINE)
_HEADING_ID = re.compile(r"(?:^|(?<=\s)):id=([\w%-]+)")
# A match starts where a run of blanks does (not inside it): linear over a long run.
_IGNORE = re.compile(
    r"(?<!\s)\s*(?:\{docsify-ignore(?:-all)?\}|<!--\s*\{docsify-ignore(?:-all)?\}\s*-->)"
)
_MAX_ITEMS = 100_000


def _settings(text: str) -> dict[str, Any]:
    """The object of a script's literals that holds most Docsify options."""
    return object_with_most(text, _KEYS)


def _script_tags(page: str) -> list[tuple[str, str]]:
    """Each ``<script>`` element's attributes and text, to the first ``</script>`` after it
    (with none after one, none after a later one either: the search stops)."""
    found: list[tuple[str, str]] = []
    last = 0
    while (opened := _SCRIPT_OPEN.search(page, last)) is not None:
        closed = _SCRIPT_CLOSE.search(page, opened.end())
        if closed is None:
            break
        found.append((opened[1], page[opened.end() : closed.start()]))
        last = closed.end()
    return found


def _scripts(index: Path, root: Path) -> list[str]:
    """The scripts of ``index.html`` that set ``$docsify``: inline ones, else local files."""
    page = config.read_text(index, root)
    inline: list[str] = []
    local: list[str] = []
    for attributes, body in _script_tags(page):
        if "$docsify" in body:
            inline.append(body)
        src = _SRC.search(attributes)
        if src is not None and not SCHEME.match(src[1]) and len(local) < _MAX_SCRIPTS:
            local.append(src[1])
    if inline:
        return inline
    found = []
    for name in local:
        file = normalise(index.parent, name.split("?", 1)[0], root)
        if file is not None and file.is_file():
            text = config.read_text(file, root)
            if "$docsify" in text:
                found.append(text)
    return found


def _other_site(folder: Path) -> bool:
    """Whether a sub-folder is a Docsify site of its own (its ``index.html`` sets
    ``$docsify``): its pages are that site's, not this one's."""
    index = folder / _INDEX
    # A linked index.html is not read: the link may lead out of the source folder.
    if index.is_symlink() or not index.is_file() or index.stat().st_size > 1_000_000:
        return False
    try:
        return "$docsify" in index.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False  # unreadable: no site of its own the build can see


def _walked(here: Path, dirs: list[str]) -> list[str]:
    """The sub-folders of ``here`` whose pages are the site's."""
    return sorted(
        d
        for d in dirs
        if not d.startswith((".", "_"))
        and d != "node_modules"
        and not (here / d).is_symlink()
        and not _other_site(here / d)
    )


def _entry_pages(folder: Path) -> list[Path]:
    """The HTML pages of a folder that may start Docsify: ``index.html``, then the others by
    name (a site whose ``index.html`` is a landing page loads Docsify from ``doc.html``)."""
    pages = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".html" and p.is_file())
    return sorted(pages[:_MAX_SCRIPTS], key=lambda p: p.name != _INDEX)


def _label(text: str) -> str:
    """A sidebar item's text as its label: HTML tags and emphasis markers removed."""
    return _EMPHASIS.sub("", _TAGS.sub("", text)).strip()


def _file_option(value: Any, default: str) -> str | None:
    """A file option (``loadSidebar``: ``true`` or a file name), ``None`` when off."""
    if value is True:
        return default
    if isinstance(value, str) and value.strip():
        return value.strip().lstrip("/")
    return None


# A quantified group holding a quantifier (`(a+)+`, `(\w*x)*`): the shape whose matching time
# grows exponentially with the route, which a site's own alias must not make the build pay.
_NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*(?:[*+]|\{\d)(?:[^()\\]|\\.)*\)(?:[*+]|\{\d)")


def _aliases(value: Any) -> list[tuple[re.Pattern[str], str]]:
    """The site's ``alias`` patterns that Python reads and can match in bounded time."""
    out = []
    for key, target in config.mapping(value).items():
        if not isinstance(target, str) or _NESTED_QUANTIFIER.search(key):
            continue
        try:
            out.append((re.compile(f"^{key}$"), target))
        except (re.error, OverflowError, RecursionError):
            # A pattern Python does not read (Docsify's own regex dialect), or one past its
            # limits (a repetition count too large, groups nested too deep).
            continue
    return out


_LITERAL = re.compile(r"[\w.~/-]*\Z")


def _alias_routes(aliases: list[tuple[re.Pattern[str], str]]) -> tuple[str, ...]:
    """The routes ``alias`` sends to a URL, as :attr:`LinkStyle.routes`: a key that is a
    literal path after an optional leading pattern (``.*?/changelog``: ``changelog``), or a
    literal folder before a last ``(.*)`` (``/zh-cn/(.*)``: everything below ``zh-cn/``)."""
    routes: list[str] = []
    for pattern, target in aliases:
        if not SCHEME.match(target):
            continue
        key = pattern.pattern.removeprefix("^").removesuffix("$")
        for lead in (".*?/", ".*/", "/"):
            key = key.removeprefix(lead)
        below = key.endswith(("(.*)", ".*", "(.*?)", ".*?"))
        stem = re.sub(r"\(?\.\*\??\)?\Z", "", key) if below else key
        if not _LITERAL.match(stem) or not stem.strip("/"):
            continue
        stem = stem.strip("/")
        routes += [stem + "/"] if below else [stem, stem + ".md"]
    return tuple(routes)


def _html_lang(index: Path, root: Path) -> str | None:
    match = _LANG.search(config.read_text(index, root))
    return match[1] if match else None


@dataclass(slots=True)
class _Item:
    label: str
    target: str | None
    line: int
    indent: int
    children: list[_Item] = field(default_factory=list)


@dataclass(slots=True)
class _Walk:
    """One sidebar file's items into an outline section."""

    generator: Docsify
    ctx: Context
    pages: set[str]
    placed: set[str]
    where: str
    base: str

    def items(self, items: list[_Item], into: OutlineSection) -> None:
        where = self.where
        for item in items:
            rel = self.page(item)
            if item.children:
                section = OutlineSection(
                    name=item.label, key=f"{where}:{item.line}", order=len(into.children)
                )
                own = OutlinePage(rel, item.label, 0, where, item.line) if rel else None
                if own is not None and own.path not in self.placed:
                    self.placed.add(own.path)
                    section.children.append(own)
                self.items(item.children, section)
                if own is not None and section.children == [own]:
                    # Only anchors of its own page below it (`help.md#rotate`): a page.
                    own.order = len(into.children)
                    into.children.append(own)
                elif section.children:
                    into.children.append(section)
            elif rel is not None and rel not in self.placed:
                self.placed.add(rel)
                into.children.append(
                    OutlinePage(rel, item.label, len(into.children), where, item.line)
                )

    def page(self, item: _Item) -> str | None:
        """The page an item links to; ``None`` (with a warning when it names no file) for a
        text item, a URL, an anchor or a route aliased to a URL."""
        target = item.target
        if target is None or SCHEME.match(target):
            return None
        route = target.removeprefix("#").split("?", 1)[0].split("#", 1)[0]
        if self.generator.aliased_away(route):
            return None
        rel = self.generator.route_file(target, self.pages, self.base)
        if rel is None and route:
            self.ctx.warn(
                "missing-outline-page",
                f"sidebar names {target!r}, which is no page; left out",
                self.where,
                item.line,
            )
        return rel


def _embed(body: str, folder: Path, content: Path, within: Path) -> str:
    """A page's embeds (``[name](file ':include')``) replaced by what Docsify puts there: a
    Markdown file's text, any other file as a code block in its language (``:type=code``),
    the part between ``### [name]`` or ``/// [name]`` markers for ``:fragment=name``. Media
    embeds (``:type=iframe``, ``video``, ``audio``, ``mermaid``) and files that are missing
    or outside the source folder stay links."""

    def one(match: re.Match[str]) -> str:
        target, options = match["target"], match["options"]
        if _INCLUDE.search(options) is None:
            return match[0]  # a link with a title: no embed
        kind = _OPTION_TYPE.search(options)
        if SCHEME.match(target) or (kind and kind[1] not in ("code", "markdown")):
            return match[0]
        path = target.split("#", 1)[0].split("?", 1)[0]
        base = content if path.startswith("/") else folder
        file = normalise(base, path.lstrip("/"), within) if base.is_relative_to(within) else None
        if file is None or not file.is_file() or not file.resolve().is_relative_to(within):
            return match[0]
        try:
            text = read_text_file(file, where=file.name, within=within)
        except SourceError:
            return match[0]
        fragment = _OPTION_FRAGMENT.search(options)
        if fragment is not None:
            marker = rf"(?:###|///)\s*\[{re.escape(fragment[1])}\]"
            found = re.search(rf"{marker}(.*?){marker}", text, re.DOTALL)
            text = textwrap.dedent(found[1]).strip() if found else ""
        suffix = file.suffix.lower().lstrip(".")
        markdown = (kind is None and suffix in ("md", "markdown")) or (
            kind and kind[1] == "markdown"
        )
        if markdown:
            # Docsify puts the embedded tokens in the page as blocks of their own.
            return f"\n\n{text.strip()}\n\n"
        fence = "~~~~" if "```" in text else "```"
        return f"\n\n{fence}{suffix}\n{text.rstrip()}\n{fence}\n\n"

    # Only outside fenced code blocks: a link in code is text.
    out: list[str] = []
    fence: str | None = None
    for line in body.splitlines(keepends=True):
        opened = _FENCE.match(line)
        if fence is None and opened is not None:
            fence = opened[1][0] * len(opened[1])
        elif (
            fence is not None
            and line.strip().startswith(fence)
            and not line.strip(fence[0]).strip()
        ):
            fence = None
        elif fence is None and ":include" in line:
            out.append(_EMBED.sub(one, line))
            continue
        out.append(line)
    return "".join(out)


class Docsify(Generator):
    """Docsify."""

    name = "docsify"
    described_as = "a Docsify site"
    marker = "index.html setting window.$docsify"

    def __init__(self, settings: Mapping[str, Any] | None = None) -> None:
        self._settings = dict(settings or {})
        self._aliases = _aliases(self._settings.get("alias"))
        self._relative = self._settings.get("relativePath") is True

    # ── detection ─────────────────────────────────────────────────────────────────────────

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        for folder in (root, root / "docs"):
            if not folder.is_dir() or folder.is_symlink():
                continue
            for page in _entry_pages(folder):
                scripts = _scripts(page, root)
                if scripts:
                    return self._site(root, page, scripts)
        if forced:
            raise SourceError(
                "catalog.yaml asks for the docsify outline but there is no index.html "
                "setting window.$docsify",
                reason="missing-outline",
            )
        return None

    def _site(self, root: Path, index: Path, scripts: list[str]) -> Site:
        settings: dict[str, Any] = {}
        for text in scripts:
            found = _settings(text)
            if sum(k in found for k in _KEYS) > sum(k in settings for k in _KEYS):
                settings = found
        content = index.parent
        base = settings.get("basePath")
        if isinstance(base, str) and base.strip() and not SCHEME.match(base.strip()):
            inside = normalise(index.parent, base.strip().strip("/") or ".", root)
            if inside is None or not inside.is_dir():
                raise SourceError(
                    f"basePath {base!r} is not a folder of the site",
                    reason="missing-file",
                    path=display_path(index, root),
                )
            content = inside
        name = settings.get("name")
        name = html.unescape(_TAGS.sub("", name)) if isinstance(name, str) else None
        if not (name and name.strip()):
            # No `name`: the page's own <title>, the name the browser shows for the site.
            title = _TITLE.search(config.read_text(index, root))
            name = html.unescape(title[1]).strip() if title else None
        repo = config.string(settings.get("repo"))
        if repo and not SCHEME.match(repo) and repo.count("/") == 1:
            repo = f"https://github.com/{repo}"
        generator = Docsify(settings)
        return Site(
            generator,
            index,
            content,
            config.site_metadata(
                name,
                None,
                _html_lang(index, root),
                None,
                config.publisher(repo, None),
            ),
            LinkStyle(
                slug="docsify",
                # Docsify fetches whatever file a route names: a link to a file of the site
                # that is no page (an embedded snippet) resolves.
                quiet=frozenset({"content-file"}),
                routes=_alias_routes(generator._aliases),
            ),
        )

    # ── pages ─────────────────────────────────────────────────────────────────────────────

    def _special(self) -> set[str]:
        """Content-relative files that are Docsify's own, not pages."""
        s = self._settings
        names = {
            _file_option(s.get("loadSidebar"), "_sidebar.md"),
            _file_option(s.get("loadNavbar"), "_navbar.md"),
            _file_option(s.get("notFoundPage"), "_404.md"),
        }
        cover = s.get("coverpage")
        if isinstance(cover, dict):
            names.update(v.lstrip("/") for v in cover.values() if isinstance(v, str))
        else:
            names.add(_file_option(cover, "_coverpage.md"))
        return {n for n in names if n}

    def _pages(self, ctx: Context) -> list[str]:
        special = self._special()
        bare = {PurePosixPath(n).name for n in special}
        sidebar = _file_option(self._settings.get("loadSidebar"), "_sidebar.md")
        found = []
        for folder, dirs, files in os.walk(ctx.content_root):  # never follows linked folders
            here = Path(folder)
            dirs[:] = _walked(here, dirs)
            for name in sorted(files):
                path = here / name
                if name.startswith((".", "_")) or not ctx.is_page(path) or path.is_symlink():
                    continue
                rel = ctx.rel(path)
                # A folder's own sidebar (and navbar) has the root one's name.
                if rel in special or (
                    name in bare and sidebar and name == PurePosixPath(sidebar).name
                ):
                    continue
                if not left_out(ctx, path):
                    found.append(rel)
        return sorted(found)

    def _homepage(self) -> str:
        home = self._settings.get("homepage")
        if isinstance(home, str) and home.strip() and not SCHEME.match(home.strip()):
            return home.strip().lstrip("/")
        return "README.md"

    # ── routes ────────────────────────────────────────────────────────────────────────────

    def aliased_away(self, route: str) -> bool:
        """Whether ``alias`` sends a route to a URL (content published elsewhere)."""
        path = "/" + route.lstrip("/")
        for pattern, target in self._aliases:
            if pattern.match(path) or pattern.match(path.removesuffix(".md")):
                return bool(SCHEME.match(target))
        return False

    def route_file(self, target: str, pages: set[str], base: str) -> str | None:
        """The page a route (a sidebar link) names, or ``None``."""
        path = target.removeprefix("#").split("?", 1)[0].split("#", 1)[0].strip()
        if not path.startswith("/") and self._relative and base:
            path = f"{base}/{path}"
        path = path.strip("/")
        candidates = []
        if not path:
            candidates = [self._homepage()]
        elif target.split("?", 1)[0].split("#", 1)[0].endswith("/"):
            candidates = [f"{path}/README.md"]
        else:
            candidates = [path, f"{path}.md", f"{path}/README.md"]
        return next((c for c in candidates if c in pages), None)

    # ── navigation ────────────────────────────────────────────────────────────────────────

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        generator = site.generator
        assert isinstance(generator, Docsify)
        return generator._outline(ctx)

    def _outline(self, ctx: Context) -> Outline:
        pages = self._pages(ctx)
        page_set = set(pages)
        sidebar_name = _file_option(self._settings.get("loadSidebar"), "_sidebar.md")
        root_file = ctx.content_root / sidebar_name if sidebar_name else None
        where = ctx.display(root_file) if root_file is not None else ctx.display(ctx.content_root)
        root = OutlineSection(name="", key=where)
        placed: set[str] = set()
        home = self._homepage()
        if root_file is not None and sidebar_name is not None:
            sidebars = [root_file] if root_file.is_file() else []
            sidebars += self._folder_sidebars(ctx, PurePosixPath(sidebar_name).name, root_file)
            if not sidebars:
                ctx.warn(
                    "missing-outline",
                    f"loadSidebar names {sidebar_name!r}, which does not exist; the folders "
                    "are the outline",
                    ctx.display(ctx.content_root),
                )
            for file in sidebars:
                into = root
                if file != root_file:
                    folder = ctx.rel(file.parent)
                    into = OutlineSection(name=PurePosixPath(folder).name, key=ctx.display(file))
                    readme = f"{folder}/README.md"
                    if readme in page_set:
                        into.title_page = readme
                self._sidebar(ctx, file, into, page_set, placed)
                if into is not root and into.children:
                    into.order = len(root.children)
                    root.children.append(into)
        if home in page_set and home not in placed:
            root.children.insert(0, OutlinePage(home, None, None, where))
            placed.add(home)
        for rel in pages:
            if rel not in placed:
                root.children.append(OutlinePage(rel, None, None, where))
        for i, child in enumerate(root.children):
            child.order = i
        return Outline(self.name, root, where, interleaved_root=True)

    def _folder_sidebars(self, ctx: Context, name: str, root_file: Path) -> list[Path]:
        """The sub-folders' own sidebars Docsify shows (not aliased to another file)."""
        found = []
        for folder, dirs, files in os.walk(ctx.content_root):
            here = Path(folder)
            dirs[:] = _walked(here, dirs)
            if name in files and here / name != root_file:
                route = "/" + ctx.rel(here / name)
                if any(p.match(route) for p, _ in self._aliases):
                    continue  # alias sends this folder's sidebar elsewhere
                found.append(here / name)
        return sorted(found)

    def _sidebar(
        self,
        ctx: Context,
        file: Path,
        into: OutlineSection,
        pages: set[str],
        placed: set[str],
    ) -> None:
        where = ctx.display(file)
        text = config.read_text(file, ctx.source_root)
        items: list[_Item] = []
        stack: list[_Item] = []
        for number, line in enumerate(text.splitlines(), 1):
            match = _ITEM.match(line)
            if match is None:
                continue
            indent = len(match[1].expandtabs(4))
            content = _IMAGE.sub("", match[2].rstrip(" \t"))  # an icon before a label
            link = _LINK.search(content)
            item = _Item(
                label=_label(link[1] if link else content),
                target=link[2] if link else None,
                line=number,
                indent=indent,
            )
            while stack and (stack[-1].indent >= indent or len(stack) >= _MAX_DEPTH):
                stack.pop()  # deeper than a sidebar shows: a sibling at the deepest level
            (stack[-1].children if stack else items).append(item)
            stack.append(item)
            if len(items) > _MAX_ITEMS:
                break
        base = ctx.rel(file.parent) if file.parent != ctx.content_root else ""
        _Walk(self, ctx, pages, placed, where, base).items(items, into)

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        if ":include" in body:
            body = _embed(body, page.parent, site.content_root, within.resolve())
        if ":id=" not in body and "docsify-ignore" not in body:
            return body

        def heading(match: re.Match[str]) -> str:
            line = _IGNORE.sub("", match[1])
            found = _HEADING_ID.search(line)
            if found is None:
                return line
            # Written as the attribute list the anchor reader knows: `## Title {#name}`.
            return f"{_HEADING_ID.sub('', line).rstrip()} {{#{found[1]}}}"

        return _HEADING.sub(heading, body)

    # ── links ─────────────────────────────────────────────────────────────────────────────

    def file_bases(self, rel: str) -> tuple[str, ...]:
        # relativePath off: a link is read from the site root (a file beside the page is
        # tried first, which a link written for GitHub names).
        del rel
        return () if self._relative else ("",)

    def link_target(self, raw: str) -> LinkTarget | None:
        # Docsify's own route syntax (`#/guide`, `guide?id=heading`, `?id=heading`), and with
        # relativePath off a route written from the site root (`guide.md` on any page is
        # /guide.md). A link starting with `.` and one naming another kind of file (an
        # image is read from the page's folder) keep the default reading.
        path, anchor = raw, ""
        if raw.startswith("#/") or "?id=" in raw:
            path, _, query = raw.removeprefix("#").partition("?")
            for part in query.split("&"):
                if part.startswith("id="):
                    anchor = part[3:]
            if not path:
                return LinkTarget("#" + anchor) if anchor else None
        elif raw.startswith(("#", ".", "/")) or self._relative:
            return None
        else:
            path, _, anchor = raw.partition("#")
        suffix = PurePosixPath(path.rstrip("/")).suffix.lower()
        if suffix not in ("", ".md") and not path.endswith("/"):
            return None
        if path.endswith("/"):
            path += "README.md"
        rooted = path if path.startswith("/") or self._relative else "/" + path
        return LinkTarget(rooted + (f"#{anchor}" if anchor else ""))
