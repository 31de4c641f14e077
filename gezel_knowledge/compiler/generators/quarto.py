"""Quarto: ``_quarto.yml`` (or ``_quarto.yaml``) in the source folder or in its ``docs/``;
pages in the project's folder.

Pages: the files Quarto renders: ``.qmd``, ``.md``, ``.markdown``, ``.Rmd``, ``.Rmarkdown`` and
``.ipynb`` files of the project, but for those under a name starting with ``_`` or ``.``,
``README`` pages, the engines' environment folders (``venv``, ``env``, ``renv``, ``packrat``,
``rsconnect``) and the ``output-dir``; ``project.render``, when given, lists the targets instead
(globs; a folder stands for its files; ``!pattern`` leaves out). A page whose front matter says
``draft: true`` is not published (``website.draft-mode`` other than ``visible``) and is left
out, silently, with its navigation entries.

Navigation, by ``project.type``:

- ``book``: ``book.chapters`` in file order (a path is a chapter; ``part:`` with ``chapters``
  is a section, named by its text, or led by the page it names), then ``book.appendices`` as
  the section *Appendices*. A book renders only these pages.
- ``website`` (and any other type): the home page (``index``), then each ``website.sidebar``
  (one sidebar's ``contents`` at the root; several, each a section named by its ``title``):
  paths (``href``/``file``, ``text`` its label), ``section`` entries (a title, or a page that
  leads the section, with their ``contents``), and ``auto`` entries (``auto``, a folder or a
  glob: the pages they match, Quarto's way: a folder is a section led by its ``index`` page,
  sorted by ``order`` front matter, then files before folders, then by name, case aside);
  then the navbar's pages (``website.navbar`` ``left``, ``right``, their menus) the sidebars
  do not list; then every other page rendered, by path; the pages a listing page lists
  (front matter ``listing``: ``contents`` globs from its folder, by default every page below
  it; ``sort``, by default newest ``date`` first, then ``title``) that no navigation places
  follow that listing page, in its order. The sidebars may come from the
  ``metadata-files`` the configuration names (a missing one, which a tool such as quartodoc
  writes at render time, is skipped).

Entries naming a URL are no pages. An entry naming a missing file is left out with a warning,
silently when the file lies in a folder the project writes when it renders (quartodoc's
``quartodoc.dir``, ``reference`` by default, or a folder the project's ``.gitignore`` names);
links into those folders are kept as written, silently.

Pages: ``{{< include file >}}`` on a line of its own is replaced by the file (from the page's
folder, or the project's from ``/``; its front matter dropped), expanded in turn, at most
:data:`MAX_INCLUDE_DEPTH` deep and within the page's include budget (:mod:`._budget`).

Metadata: ``website`` or ``book`` ``title``, ``description``, ``site-url``, ``repo-url`` (the
publisher), ``author``; ``lang``. Links: files (``page.qmd``) and the pages' ``.html`` URLs; with
the ``interlinks`` filter (quartodoc's), a target in backticks (``[](`pkg.func`)``) names an API
object the filter resolves, kept as written, silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gezel_knowledge._untrusted import MAX_NESTING
from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._budget import Budget
from gezel_knowledge.compiler.generators._context import SCHEME, Context, normalise
from gezel_knowledge.compiler.generators._glob import Glob
from gezel_knowledge.compiler.generators._toc_entry import place_entry
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import read_text_file
from gezel_knowledge.compiler.text.frontmatter import split_front_matter

__all__ = ["Quarto"]

_CONFIGS = ("_quarto.yml", "_quarto.yaml")
QUARTO_SUFFIXES = (".qmd", ".md", ".markdown", ".rmd", ".rmarkdown", ".ipynb")
"""What Quarto renders (its markdown, knitr and jupyter engines), lowercased."""
_ENGINE_FOLDERS = frozenset({"venv", "env", "renv", "packrat", "rsconnect"})
_README = frozenset({"README.md", "README.qmd", "README.Rmd", "README.rmd"})
_MAX_METADATA_FILES = 16
_APPENDICES = "Appendices"
_QUARTODOC_DIR = "reference"
MAX_LISTINGS = 64
"""Listing pages whose lists are read (each scans every page: a bound on the work)."""
_MAX_LISTING_GLOBS = 16
MAX_INCLUDE_DEPTH = 8
# An include shortcode on a line of its own; `{{{< include x >}}}` is an escaped one (text).
_INCLUDE = re.compile(
    r"^[ \t]*\{\{<[ \t]*include[ \t]+([^<>{}\s]+)[ \t]*>\}\}[ \t]*$", re.MULTILINE
)


def _listing(value: Any) -> list[Any]:
    """A YAML value that may be one item or a list of them, as a list."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` merged into ``base`` as Quarto merges configurations: mappings key by key,
    lists one after the other (``base``'s first), any other value replaced."""
    out = dict(base)
    for key, value in over.items():
        old = out.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            out[key] = _merged(old, value)
        elif isinstance(old, list) and isinstance(value, list):
            out[key] = [*old, *value]
        else:
            out[key] = value
    return out


def _configuration(file: Path, root: Path) -> dict[str, Any]:
    """``_quarto.yml`` with its ``metadata-files`` (inside ``root``; a missing one skipped, as
    render-time tools write them) merged in after it, in order."""
    data = config.read_data(file, root)
    merged = data
    for name in _listing(data.get("metadata-files"))[:_MAX_METADATA_FILES]:
        if not isinstance(name, str) or SCHEME.match(name):
            continue
        target = normalise(file.parent, name, root)
        if target is not None and target.is_file():
            merged = _merged(merged, config.read_data(target, root))
    return merged


def _ignored_folders(root: Path) -> tuple[str, ...]:
    """Folders of the project its ``.gitignore`` names by a plain path (``reference``,
    ``/api/``): what the site's own tools write there exists only once it renders."""
    file = root / ".gitignore"
    if not file.is_file():
        return ()
    found: list[str] = []
    for line in config.read_text(file, root).splitlines():
        entry = line.strip()
        if not entry or entry.startswith(("#", "!")) or any(c in entry for c in "*?[\\"):
            continue
        entry = entry.strip("/")
        if entry and (root / entry).suffix == "" and ".." not in entry.split("/"):
            found.append(entry)
    return tuple(found)


def _authors(value: Any) -> Any:
    """``author`` as names (a string, a list of strings or of ``{name}`` mappings)."""
    names = []
    for item in _listing(value):
        name = item.get("name") if isinstance(item, dict) else item
        if isinstance(name, dict):
            name = name.get("literal") or " ".join(
                str(v) for k, v in name.items() if k in ("given", "family")
            )
        if isinstance(name, str) and name.strip():
            names.append(name.strip())
    return names or None


def _uses_interlinks(data: dict[str, Any]) -> bool:
    """Whether a filter resolves backticked link targets (quartodoc's ``interlinks``)."""
    for entry in _listing(data.get("filters")):
        name = entry.get("path") if isinstance(entry, dict) else entry
        if isinstance(name, str) and "interlinks" in name:
            return True
    return False


class Quarto(Generator):
    """Quarto projects: websites and books."""

    name = "quarto"
    described_as = "a Quarto project"
    marker = "_quarto.yml"
    page_suffixes = QUARTO_SUFFIXES
    # Pandoc reads a page whose YAML block does not parse as Markdown (with a warning).
    lenient_front_matter = True

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        # The project at the source folder, else in its docs/ (a repository's site).
        file = next(
            (f / n for f in (root, root / "docs") for n in _CONFIGS if (f / n).is_file()), None
        )
        if file is None or (file.parent != root and file.parent.is_symlink()):
            return None
        project = file.parent
        data = _configuration(file, root)
        kind = config.string(config.get(data, "project", "type")) or "default"
        section = config.mapping(data.get("book" if kind == "book" else "website"))
        repository = section.get("repo-url")
        generated = [*_ignored_folders(project)]
        quartodoc = config.mapping(data.get("quartodoc"))
        if quartodoc:
            generated.append(config.string(quartodoc.get("dir")) or _QUARTODOC_DIR)
        return Site(
            self,
            file,
            project,
            config.site_metadata(
                section.get("title") or data.get("title"),
                section.get("description") or data.get("description"),
                data.get("lang"),
                config.absolute_url(section.get("site-url"), repository),
                config.publisher(repository, _authors(section.get("author") or data.get("author"))),
            ),
            LinkStyle(
                "html",
                generated=tuple(dict.fromkeys(g.strip("/") for g in generated if g.strip("/"))),
                # interlinks resolves `name` and :role:`name` targets.
                unchecked_globs=("`*`", ":*") if _uses_interlinks(data) else (),
            ),
            outline_file=file,
            # Found in docs/: a generator configured at the source folder itself outranks it.
            tentative=project != root,
        )

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        return _includes(
            body, page.parent, site.content_root, within.resolve(), depth=0, left=Budget(body)
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        assert site.config is not None  # detect always names the configuration
        data = _configuration(site.config, site.content_root)
        return _Project(ctx, site.config, data, site.links.generated).outline()


def _includes(
    body: str, folder: Path, project: Path, within: Path, *, depth: int, left: Budget
) -> str:
    """``body`` with its ``{{< include file >}}`` shortcodes replaced by the files (relative
    to ``folder``, or to the project's folder from ``/``), their front matter dropped,
    expanded in turn, at most :data:`MAX_INCLUDE_DEPTH` deep and within the page's
    :class:`~._budget.Budget`; a file missing or outside ``within`` leaves the shortcode."""
    if "{{<" not in body:
        return body

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        base = project if name.startswith("/") else folder
        file = (base / name.lstrip("/")).resolve()
        if depth >= MAX_INCLUDE_DEPTH or not file.is_relative_to(within) or not file.is_file():
            return match.group(0)
        try:
            text = read_text_file(file, where=file.name, within=within).replace("\r\n", "\n")
            text = split_front_matter(text, path=file.name, lenient=True).body
        except SourceError:
            return match.group(0)
        if not left.take(text):
            return match.group(0)
        return _includes(
            text.rstrip("\n"), file.parent, project, within, depth=depth + 1, left=left
        )

    return _INCLUDE.sub(replace, body)


@dataclass
class _Project:
    """One Quarto project's pages and navigation."""

    ctx: Context
    file: Path
    data: dict[str, Any]
    generated: tuple[str, ...]
    where: str = ""
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Every page Quarto renders (content-relative path -> front matter), by path."""
    placed: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.where = self.ctx.display(self.file)
        self.inputs = self._inputs()

    # ── the pages ─────────────────────────────────────────────────────────────────────────

    def _inputs(self) -> dict[str, dict[str, Any]]:
        project = config.mapping(self.data.get("project"))
        output = (config.string(project.get("output-dir")) or "").strip("/")
        render = [r for r in _listing(project.get("render")) if isinstance(r, str)]
        include = Glob(_anywhere([r for r in render if not r.startswith("!")], self.ctx))
        exclude = Glob(_anywhere([r[1:] for r in render if r.startswith("!")], self.ctx))
        draft_mode = config.string(config.get(self.data, "website", "draft-mode")) or "gone"
        found: dict[str, dict[str, Any]] = {}
        for path in self._walk(self.ctx.content_root):
            rel = self.ctx.rel(path)
            if output and (rel == output or rel.startswith(output + "/")):
                continue
            if render and (not include.match(rel) or exclude.match(rel)):
                continue
            front = self._front(path)
            if front.get("draft") is True and draft_mode != "visible":
                continue  # not published
            found[rel] = front
        return dict(sorted(found.items()))

    def _walk(self, folder: Path) -> list[Path]:
        """The project's page files below ``folder``, leaving out what Quarto never renders."""
        out: list[Path] = []
        # Depth first in name order, with a stack of folders' entries rather than recursion:
        # a tree nested thousands of folders deep is no RecursionError.
        stack = [iter(sorted(folder.iterdir(), key=lambda p: p.name))]
        while stack:
            entry = next(stack[-1], None)
            if entry is None:
                stack.pop()
                continue
            name = entry.name
            if name.startswith(("_", ".")) or self.ctx.excluded(entry):
                continue
            if entry.is_dir():
                if not entry.is_symlink() and name not in _ENGINE_FOLDERS:
                    stack.append(iter(sorted(entry.iterdir(), key=lambda p: p.name)))
            elif entry.is_file() and self.ctx.is_page(entry) and name not in _README:
                out.append(entry)
        return out

    def _front(self, path: Path) -> dict[str, Any]:
        if path.suffix.lower() == ".ipynb":
            return {}
        try:
            text = config.read_text(path, self.ctx.content_root)
            front = split_front_matter(text, path=self.ctx.rel(path), lenient=True)
        except SourceError:
            return {}  # the build reports the page when it reads it
        return front.data

    def _generated(self, rel: str) -> bool:
        return any(rel == g or rel.startswith(g + "/") for g in self.generated)

    def _page(self, target: str, label: str | None, *, quiet: bool = False) -> OutlinePage | None:
        """The page an entry names (from the project's folder), once; ``None`` for a URL, a
        resource, a page placed before, a draft, or a missing file (warned unless generated
        or ``quiet``)."""
        if SCHEME.match(target) or target.startswith("#"):
            return None
        rel_text = target.split("#", 1)[0].split("?", 1)[0].strip()
        path = normalise(self.ctx.content_root, rel_text.lstrip("/"), self.ctx.content_root)
        if path is None:
            raise SourceError(
                f"outline entry {target!r} leaves the content folder",
                reason="unsafe-path",
                path=self.where,
            )
        rel = self.ctx.rel(path) if path != self.ctx.content_root else ""
        if rel.endswith(".html"):
            rel = rel[: -len(".html")]
        candidates = [rel] if PurePosixPath(rel).suffix.lower() in QUARTO_SUFFIXES else []
        candidates += [rel + s for s in (".qmd", ".md", ".ipynb", ".Rmd", ".rmd", ".markdown")]
        candidates += [f"{rel}/index{s}".lstrip("/") for s in (".qmd", ".md", ".ipynb", ".Rmd")]
        found = next((c for c in candidates if c in self.inputs), None)
        if found is None:
            on_disk = next((c for c in candidates if (self.ctx.content_root / c).is_file()), None)
            # A feed, a data file or a download (``index.xml``) is a resource, no page.
            resource = PurePosixPath(rel).suffix.lower() not in ("", *QUARTO_SUFFIXES)
            if on_disk is None and not quiet and not resource and not self._generated(rel):
                self.ctx.warn(
                    "missing-outline-page",
                    f"outline names a missing file {target!r}; left out",
                    self.where,
                )
            return None  # a draft, a page Quarto does not render, or one written at render
        if found in self.placed:
            return None
        self.placed.add(found)
        return OutlinePage(found, label, None, self.where, None)

    # ── the navigation ────────────────────────────────────────────────────────────────────

    def outline(self) -> Outline:
        root = OutlineSection(name="", key=self.where)
        kind = config.string(config.get(self.data, "project", "type")) or "default"
        if kind == "book":
            book = config.mapping(self.data.get("book"))
            self._chapters(book.get("chapters"), root, 0)
            appendices = _listing(book.get("appendices"))
            if appendices:
                section = OutlineSection(
                    _APPENDICES, f"{self.where}:appendices", len(root.children)
                )
                self._chapters(appendices, section, 0)
                if section.children:
                    root.children.append(section)
            return Outline("quarto", root, self.where, interleaved_root=True)
        home = self._page("index", None, quiet=True)  # a website without a home page is fine
        if home is not None:
            _append(root, home)
        website = config.mapping(self.data.get("website"))
        sidebars = [s for s in _listing(website.get("sidebar")) if isinstance(s, dict)]
        for number, sidebar in enumerate(sidebars, 1):
            if len(sidebars) == 1:
                self._items(sidebar.get("contents"), root, 0)
                continue
            title = config.string(sidebar.get("title")) or config.string(sidebar.get("id"))
            section = OutlineSection(
                title or f"Sidebar {number}", f"{self.where}:sidebar{number}", len(root.children)
            )
            self._items(sidebar.get("contents"), section, 0)
            if section.children:
                root.children.append(section)
        navbar = config.mapping(website.get("navbar"))
        self._navbar([*_listing(navbar.get("left")), *_listing(navbar.get("right"))], root, 0)
        listed = self._listings()
        deferred = {rel for pages in listed.values() for rel in pages} - self.placed
        for rel in self.inputs:
            if rel not in self.placed and rel not in deferred:
                self.placed.add(rel)
                _append(root, OutlinePage(rel, None, None, self.where, None))
        _follow_listings(root, listed, self.placed, self.where)
        return Outline("quarto", root, self.where, interleaved_root=True)

    def _listings(self) -> dict[str, list[str]]:
        """The pages each listing page lists (front matter ``listing``), in its sort order:
        ``contents`` globs from the page's folder (default: every page below it), sorted by
        ``sort`` (``date desc``, ``title``, ``false`` for the order of ``contents``; by
        default newest first, then by title)."""
        out: dict[str, list[str]] = {}
        for rel, front in self.inputs.items():
            if len(out) >= MAX_LISTINGS:
                break
            listings = [x for x in _listing(front.get("listing")) if isinstance(x, dict)]
            if front.get("listing") == "default" or front.get("listing") is True:
                listings = [{}]
            folder = PurePosixPath(rel).parent
            pages: list[str] = []
            for listing in listings:
                found = self._listed(rel, folder, listing)
                pages += [p for p in found if p not in pages]
            if pages:
                out[rel] = pages
        return out

    def _listed(self, rel: str, folder: PurePosixPath, listing: dict[str, Any]) -> list[str]:
        prefix = "" if str(folder) == "." else f"{folder}/"
        globs = [g for g in _listing(listing.get("contents")) if isinstance(g, str)]
        globs = globs[:_MAX_LISTING_GLOBS]
        patterns = globs or ["**"]
        found: list[str] = []
        for pattern in patterns:
            text = pattern.removeprefix("./")
            if text.startswith("**") and not text.startswith("**/"):
                text = "**/*" + text[2:]  # `**.qmd`: any page below, at any depth
            target = (self.ctx.content_root / prefix / text).resolve()
            if "*" not in text and target.is_dir():
                text = text.rstrip("/") + "/**"
            matcher = Glob([prefix + text])
            found += [p for p in self.inputs if p != rel and p not in found and matcher.match(p)]
        sort = listing.get("sort", ["date desc", "title"])
        if sort is False:
            return found
        keys = [k for k in _listing(sort) if isinstance(k, str)]
        for key in reversed(keys):  # the last key first: a stable sort keeps its order below
            field_name, _, direction = key.strip().partition(" ")
            descending = direction.strip().lower() == "desc"
            present = [p for p in found if self.inputs[p].get(field_name) is not None]
            absent = [p for p in found if self.inputs[p].get(field_name) is None]
            present.sort(key=lambda p: str(self.inputs[p].get(field_name)), reverse=descending)
            found = present + absent
        return found

    def _chapters(self, entries: Any, into: OutlineSection, depth: int) -> None:
        """``book.chapters`` (or ``appendices``): paths, and ``part`` entries with chapters."""
        _deep(depth, self.where)
        for entry in _listing(entries):
            if isinstance(entry, str):
                page = self._page(entry, None)
                if page is not None:
                    _append(into, page)
            elif isinstance(entry, dict) and ("part" in entry or "chapters" in entry):
                part = config.string(entry.get("part"))
                page = self._part_page(part)
                name = None if page is not None else part
                section = place_entry(
                    into, page, name, key=f"{self.where}:{part or 'part'}", nests=True
                )
                assert section is not None  # nests
                self._chapters(entry.get("chapters"), section, depth + 1)
                if not section.children:
                    into.children.remove(section)
            elif isinstance(entry, dict):
                target = config.string(entry.get("href") or entry.get("file"))
                page = self._page(target, config.string(entry.get("text"))) if target else None
                if page is not None:
                    _append(into, page)

    def _part_page(self, part: str | None) -> OutlinePage | None:
        """The page a ``part`` names (``part: intro.qmd``), or ``None`` for a part title."""
        if part is None or PurePosixPath(part).suffix.lower() not in QUARTO_SUFFIXES:
            return None
        return self._page(part, None)

    def _navbar(self, entries: list[Any], into: OutlineSection, depth: int) -> None:
        """The navbar's pages the sidebars do not list, in its order (menus in place)."""
        _deep(depth, self.where)
        for entry in entries:
            if isinstance(entry, str):
                target: str | None = entry
            elif isinstance(entry, dict):
                self._navbar(_listing(entry.get("menu")), into, depth + 1)
                target = config.string(entry.get("href") or entry.get("file"))
            else:
                continue
            if target and not target.startswith("sidebar:"):
                page = self._page(target, None)
                if page is not None:
                    _append(into, page)

    def _items(self, contents: Any, into: OutlineSection, depth: int) -> None:
        """A sidebar's ``contents``: paths, sections and ``auto`` entries, in order."""
        _deep(depth, self.where)
        for item in _items_of(contents, self.ctx):
            if "auto" in item:
                self._auto(item["auto"], into)
            elif "section" in item or "contents" in item:
                self._section(item, into, depth)
            else:
                target = config.string(item.get("href") or item.get("file"))
                label = config.string(item.get("text"))
                page = self._page(target, label) if target else None
                if page is not None:
                    _append(into, page)

    def _section(self, item: dict[str, Any], into: OutlineSection, depth: int) -> None:
        title = config.string(item.get("section"))
        href = config.string(item.get("href"))
        page = None
        if href is not None:
            page = self._page(href, None)
        elif title is not None and PurePosixPath(title).suffix.lower() in QUARTO_SUFFIXES:
            page, title = self._page(title, None), None
        section = place_entry(into, page, title, key=f"{self.where}:{title}", nests=True)
        assert section is not None  # nests
        self._items(item.get("contents"), section, depth + 1)
        if not section.children:
            into.children.remove(section)

    # ── auto ──────────────────────────────────────────────────────────────────────────────

    def _auto(self, auto: Any, into: OutlineSection) -> None:
        """The pages an ``auto`` entry matches, as Quarto lists them."""
        if auto is True:
            globs = ["*"]
        elif auto is False or auto is None:
            return
        else:
            globs = []
            for glob in _listing(auto):
                if not isinstance(glob, str):
                    continue
                target = normalise(self.ctx.content_root, glob, self.ctx.content_root)
                folder = target is not None and target.is_dir() and glob.strip("/") != ""
                globs.append(glob.strip("/") + "/**" if folder else glob)
        single_folder = (
            isinstance(auto, str)
            and "*" not in auto
            and (self.ctx.content_root / auto.strip("/")).is_dir()
        )
        for glob in globs:
            matched = Glob([glob.lstrip("./")])
            top = not PurePosixPath(glob).parent.parts
            inputs = [
                rel
                for rel in self.inputs
                if (matched.match(rel) or (top and glob == "*"))
                and not (PurePosixPath(rel).parent == PurePosixPath(".") and _is_index(rel))
            ]
            base = glob.split("/*", 1)[0] if "/*" in glob else ""
            if base and not (self.ctx.content_root / base).is_dir():
                base = ""
            if single_folder:
                base = str(PurePosixPath(base).parent).strip(".")
            tree = _Node()
            for rel in inputs:
                inner = rel[len(base) + 1 :] if base and rel.startswith(base + "/") else rel
                tree.add(inner.split("/"), rel)
            for entry in self._entries(tree, base):
                self._place_entry(entry, into)

    def _entries(self, node: _Node, folder: str) -> list[_Entry]:
        entries: list[_Entry] = []
        for name, child in node.children.items():
            if child.file is not None and _is_index(name) and not child.children:
                continue  # the folder's own page, taken by the level above
            if child.children:
                index = next(
                    (c.file for n, c in child.children.items() if _is_index(n) and c.file), None
                )
                sub = f"{folder}/{name}".strip("/")
                entries.append(
                    _Entry(
                        # Quarto names a folder led by its index page after that page: it
                        # sorts as "index" among its siblings.
                        basename="index" if index else name,
                        page=index,
                        title=_title_from_path(name),
                        order=self._order(index) if index else None,
                        children=self._entries(child, sub),
                    )
                )
            elif child.file is not None:
                entries.append(
                    _Entry(
                        basename=PurePosixPath(name).stem,
                        page=child.file,
                        title=None,
                        order=self._order(child.file),
                    )
                )
        return sorted(entries, key=_sort_key)

    def _order(self, rel: str) -> float | None:
        value = self.inputs.get(rel, {}).get("order")
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            return None
        try:
            return float(value)
        except ValueError:
            return None

    def _place_entry(self, entry: _Entry, into: OutlineSection) -> None:
        if entry.children is None:
            page = self._page(entry.page or "", None)
            if page is not None:
                _append(into, page)
            return
        page = self._page(entry.page, None) if entry.page else None
        title = None if page is not None else entry.title
        section = place_entry(into, page, title, key=f"{self.where}:{entry.basename}", nests=True)
        assert section is not None  # nests
        for child in entry.children:
            self._place_entry(child, section)
        if not section.children:
            into.children.remove(section)


def _follow_listings(
    root: OutlineSection, listed: dict[str, list[str]], placed: set[str], where: str
) -> None:
    """Each listing page's pages the navigation does not place, right after it, in order."""

    def visit(section: OutlineSection) -> None:
        children: list[OutlineSection | OutlinePage] = []
        for child in section.children:
            children.append(child)
            if isinstance(child, OutlineSection):
                visit(child)
                continue
            for rel in listed.get(child.path, ()):
                if rel not in placed:
                    placed.add(rel)
                    children.append(OutlinePage(rel, None, None, where, None))
        for position, child in enumerate(children):
            child.order = position
        section.children = children

    visit(root)


@dataclass
class _Node:
    """A folder of an ``auto`` entry's pages."""

    file: str | None = None
    children: dict[str, _Node] = field(default_factory=dict)

    def add(self, parts: list[str], rel: str) -> None:
        node = self
        for part in parts:
            node = node.children.setdefault(part, _Node())
        node.file = rel


@dataclass
class _Entry:
    """An ``auto`` entry: a page, or a folder (``children``) led by its index page."""

    basename: str
    page: str | None
    title: str | None
    order: float | None
    children: list[_Entry] | None = None


def _sort_key(entry: _Entry) -> tuple[int, float, int, str]:
    """Quarto's order for ``auto`` entries: ``order`` first (by value), then files before
    folders, then by name, case aside."""
    name = entry.basename.upper()
    if entry.order is not None:
        return (0, entry.order, 0, name)
    return (1, 0.0, 1 if entry.children is not None else 0, name)


def _is_index(name: str) -> bool:
    return PurePosixPath(name).stem == "index" and "." in name


def _title_from_path(name: str) -> str:
    """A folder's title in an ``auto`` sidebar: its name, dashes and underscores as spaces,
    each word capitalised (a name with spaces as it is)."""
    if " " in name:
        return name
    words = [w for w in name.replace("_", " ").replace("-", " ").split(" ") if w]
    return " ".join(w[:1].upper() + w[1:] for w in words) or name


def _items_of(contents: Any, ctx: Context) -> list[dict[str, Any]]:
    """A sidebar's ``contents`` as mappings: ``auto`` (``contents: auto``, a glob, an existing
    folder) or a path (``{href}``); text-only entries (separators, headings) dropped."""
    out: list[dict[str, Any]] = []
    if isinstance(contents, str):
        return [{"auto": True if contents == "auto" else contents}]
    for item in _listing(contents):
        if isinstance(item, str):
            is_folder = (ctx.content_root / item.strip("/")).is_dir() and ".." not in item
            if item == "auto":
                out.append({"auto": True})
            elif "*" in item or is_folder:
                out.append({"auto": item})
            else:
                out.append({"href": item})
        elif isinstance(item, dict) and any(
            k in item for k in ("auto", "section", "contents", "href", "file")
        ):
            out.append(item)
    return out


def _anywhere(patterns: list[str], ctx: Context) -> list[str]:
    """``project.render`` patterns as globs of content-relative paths: a folder stands for its
    files, a pattern without ``/`` matches at any depth."""
    out: list[str] = []
    for pattern in patterns:
        text = pattern.removeprefix("./").strip("/")
        if not text:
            continue
        if (ctx.content_root / text).is_dir() and ".." not in text.split("/"):
            out.append(f"{text}/**")
        elif "/" not in text:
            out.append(f"**/{text}")
        else:
            out.append(text)
    return out


def _append(into: OutlineSection, page: OutlinePage) -> None:
    page.order = len(into.children)
    into.children.append(page)


def _deep(depth: int, where: str) -> None:
    if depth > MAX_NESTING:
        raise SourceError(
            f"the navigation nests deeper than {MAX_NESTING} levels",
            reason="too-deep",
            path=where,
        )
