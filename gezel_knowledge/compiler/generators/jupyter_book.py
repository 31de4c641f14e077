"""Jupyter Book: ``_toc.yml`` and ``_config.yml``; pages in the book's folder.

Navigation: ``_toc.yml``: ``root``, ``parts`` (captioned parts are topics),
``chapters``/``sections``/``entries``, ``subtrees``, ``file``/``title``/``glob``; ``url``
entries are no pages and are left out. Pages are Markdown files and notebooks (``.ipynb``); a
``file`` naming a page Jupyter Book builds but the catalog cannot read (reStructuredText,
jupytext's ``.Rmd``) is left out silently, one naming nothing with a warning; the entries
nested under it are in no navigation (Sphinx makes them a toctree of that page) but are built,
so they follow the navigation, in ``_toc.yml`` order.

Metadata: ``_config.yml`` ``title`` (when empty, the root page's title, which the site shows as
its home), ``description``, ``language`` (or Sphinx's), ``author``, ``repository.url``,
``html.baseurl``; a ``_toc.yml`` beside a ``conf.py`` and no ``_config.yml`` is Sphinx with
sphinx-external-toc, whose metadata and link rules are then ``conf.py``'s, as for Sphinx. Links:
files, and MyST labels of the whole book (:mod:`~gezel_knowledge.compiler.text.myst`); a label
Sphinx may find in another project's inventory (``sphinx.config.intersphinx_mapping``) is left
as written, silently. Anchors: GitHub's slugs and MyST targets.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import (
    MARKDOWN_SUFFIXES,
    NOTEBOOK,
    SCHEME,
    Context,
    mappings,
    text,
)
from gezel_knowledge.compiler.generators._toc_entry import place_entry
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.generators.sphinx import (
    assigned_names,
    read_conf,
    sphinx_generated_folders,
    sphinx_site,
)
from gezel_knowledge.compiler.text.blocks import headings, normalize_body, parse_blocks
from gezel_knowledge.compiler.text.data import YamlNode, load_yaml_nodes, read_text_file
from gezel_knowledge.compiler.text.frontmatter import split_front_matter
from gezel_knowledge.compiler.text.myst import toctrees

__all__ = ["JupyterBook", "page_title"]

_BUILT_ELSEWHERE = (".rst", ".Rmd", ".rmd")
"""Page suffixes Jupyter Book builds (Sphinx, jupytext) that the catalog cannot read."""


def page_title(file: Path, root: Path) -> str | None:
    """A Markdown page's ``title`` front matter, else its first heading (no notebooks)."""
    if file.suffix.lower() not in MARKDOWN_SUFFIXES or not file.is_file():
        return None
    front = split_front_matter(config.read_text(file, root), path=file.name)
    title = front.data.get("title")
    if isinstance(title, str) and title.strip():
        return title
    found = headings(parse_blocks(normalize_body(front.body)))
    return found[0].text if found else None


_OUTSIDE_PAGES = ("intersphinx", "autodoc", "autosummary", "autodoc2", "autoapi")


def _labels_outside_pages(data: dict[str, object]) -> bool:
    """Whether Sphinx may find a label in no page of the book: ``intersphinx_mapping``, or an
    extension in ``sphinx.extra_extensions`` that documents code or reads inventories."""
    if config.get(data, "sphinx", "config", "intersphinx_mapping"):
        return True
    extra = config.get(data, "sphinx", "extra_extensions")
    names = [e for e in extra if isinstance(e, str)] if isinstance(extra, list) else []
    return any(part in name for name in names for part in _OUTSIDE_PAGES)


class JupyterBook(Generator):
    """Jupyter Book 1 (``_toc.yml``)."""

    name = "jupyter-book"
    described_as = "a Jupyter Book"
    marker = "_toc.yml"
    # Its pages are read by myst-parser, which warns about front matter that is not YAML and
    # builds the page without it.
    lenient_front_matter = True
    page_suffixes = (*MARKDOWN_SUFFIXES, NOTEBOOK)
    outline_required = "outline file"

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        toc = root / "_toc.yml"
        if not toc.is_file():
            return None
        file = root / "_config.yml"
        if not file.is_file() and (root / "conf.py").is_file():
            return self._external_toc(root, toc)
        data = config.read_data(file, root) if file.is_file() else {}
        repository = config.get(data, "repository", "url")
        title = config.string(data.get("title"))
        if title is None:
            title = self._root_title(root, toc)
        return Site(
            self,
            file if file.is_file() else None,
            root,
            config.site_metadata(
                title,
                data.get("description"),
                data.get("language") or config.get(data, "sphinx", "config", "language"),
                config.absolute_url(config.get(data, "html", "baseurl"), repository),
                config.publisher(repository, data.get("author")),
            ),
            LinkStyle(myst_labels="sphinx", inventories=_labels_outside_pages(data)),
            outline_file=toc,
        )

    def _external_toc(self, root: Path, toc: Path) -> Site:
        """A Sphinx site whose navigation is ``_toc.yml`` (sphinx-external-toc, the reader of
        Jupyter Book 1's): metadata and link rules from its ``conf.py``, as Sphinx's."""
        file = root / "conf.py"
        conf_text = config.read_text(file, root)
        conf = read_conf(conf_text)
        title = None if conf.get("project") else self._root_title(root, toc)
        return sphinx_site(self, file, root, conf, conf_text, outline_file=toc, title=title)

    @staticmethod
    def _root_title(root: Path, toc: Path) -> str | None:
        """The title of the ``_toc.yml`` root page, if it is a Markdown page."""
        data = config.read_data(toc, root)
        target = config.string(data.get("root"))
        if target is None:
            return None
        parts = [p for p in target.split("/") if p not in ("", ".")]
        if ".." in parts or not parts:
            return None
        base = root.joinpath(*parts)
        candidates = [base, *(base.with_name(base.name + s) for s in MARKDOWN_SUFFIXES)]
        file = next((c for c in candidates if c.is_file()), None)
        return page_title(file, root) if file is not None else None

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        if site.outline_file is None:
            return None
        generated: list[str] = []
        if site.config is not None and site.config.name == "conf.py":
            conf_text = config.read_text(site.config, site.content_root)
            generated = sphinx_generated_folders(read_conf(conf_text), assigned_names(conf_text))
        return _JupyterBook(ctx, site.outline_file, generated).outline()


def _stem(path: str) -> str:
    """A page path without its suffix, as ``_toc.yml`` and toctrees name pages."""
    base, dot, suffix = path.rpartition(".")
    return base if dot and "/" not in suffix and suffix.lower() in _PAGE_SUFFIXES else path


_PAGE_SUFFIXES = frozenset({"md", "markdown", "ipynb", "rst", "rmd", "myst"})


def _listed(data: YamlNode) -> frozenset[str]:
    """Every page ``_toc.yml`` names (``root`` and ``file`` values), without suffix."""
    found: set[str] = set()
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node.value, dict):
            for key, child in node.value.items():
                if key in ("root", "file") and isinstance(child.value, str):
                    found.add(_stem(posixpath.normpath(child.value.strip().lstrip("/"))))
                else:
                    stack.append(child)
        elif isinstance(node.value, list):
            stack.extend(node.value)
    return frozenset(found)


def _pages(section: OutlineSection) -> list[OutlinePage]:
    """The pages a section holds at any depth, in order (a section's leading page first)."""
    out: list[OutlinePage] = []
    for child in section.children:
        out += _pages(child) if isinstance(child, OutlineSection) else [child]
    return out


class _JupyterBook:
    """A Jupyter Book ``_toc.yml``: its root page, entries, parts and subtrees."""

    def __init__(self, ctx: Context, toc: Path, generated: list[str] | None = None) -> None:
        self.ctx = ctx
        self.toc = toc
        self.generated = tuple(generated or ())
        """Folders a Sphinx extension writes pages into when it builds (``_tags/``)."""
        self.where = ctx.display(toc)
        self.listed: frozenset[str] = frozenset()
        """Every page ``_toc.yml`` names, without suffix."""
        self.unlisted: list[OutlinePage] = []
        """Pages nested under a missing file: built, in no toctree (after the navigation)."""

    def outline(self) -> Outline:
        data = load_yaml_nodes(read_text_file(self.toc, where=self.where), path=self.where)
        if not isinstance(data.value, dict):
            raise SourceError(
                "_toc.yml must be a mapping", reason="invalid-outline", path=self.where, line=1
            )
        self.listed = _listed(data)
        root = OutlineSection(name="", key=self.where)
        fields = data.value
        if "root" in fields:
            first = self.page_of(fields["root"], None, 0)
            if first is not None:
                root.children.append(first)
        for key in ("chapters", "sections", "entries"):
            if key in fields:
                self.entries(fields[key], root)
        for key in ("parts", "subtrees"):
            if key in fields:
                self.parts(fields[key], root)
        for page in self.unlisted:
            page.order = len(root.children)
            root.children.append(page)
        return Outline("jupyter-book", root, self.where, interleaved_root=True)

    def page_of(self, node: YamlNode, title: str | None, order: int) -> OutlinePage | None:
        """The page a ``file`` (or ``root``) names; ``None`` when it names none."""
        target = node.text()
        if target is None:
            raise SourceError(
                "file must be a path", reason="invalid-outline", path=self.where, line=node.line
            )
        if self.built_elsewhere(target):
            return None
        path = self.ctx.page(self.toc.parent, target, origin=self.toc, line=node.line)
        return None if path is None else OutlinePage(path, title, order, self.where, node.line)

    def built_elsewhere(self, target: str) -> bool:
        """Whether ``target`` names a page Jupyter Book builds that the catalog cannot read
        (and no page it can)."""
        parts = [p for p in target.split("#", 1)[0].split("/") if p not in ("", ".")]
        if not parts or ".." in parts:
            return False
        base = self.toc.parent.joinpath(*parts)
        readable = [base.with_name(base.name + s) for s in self.ctx.suffixes]
        if (base.is_file() and self.ctx.is_page(base)) or any(p.is_file() for p in readable):
            return False
        others = [base, *(base.with_name(base.name + s) for s in _BUILT_ELSEWHERE)]
        return any(p.is_file() and p.suffix in _BUILT_ELSEWHERE for p in others)

    def absent(self, fields: dict[str, YamlNode]) -> bool:
        """Whether an entry's ``file`` names nothing at all: no file by that name, with or
        without a suffix (a URL is no file but is not absent)."""
        target = fields["file"].text() or ""
        parts = [p for p in target.split("#", 1)[0].split("/") if p not in ("", ".")]
        if not parts or ".." in parts or "://" in target:
            return False
        base = self.toc.parent.joinpath(*parts)
        if base.exists():
            return False
        folder = base.parent
        return not folder.is_dir() or not any(p.stem == base.name for p in folder.iterdir())

    def entries(self, node: YamlNode, into: OutlineSection) -> None:
        """Chapters, sections or entries: pages, globs, and sections holding more."""
        for entry, fields in mappings(node, "entries", "entry", self.where):
            if "glob" in fields:
                self.glob(fields["glob"], entry.line, into)
            elif "file" in fields or "url" not in fields:
                self.entry(entry.line, fields, into)

    def glob(self, pattern: YamlNode, line: int, into: OutlineSection) -> None:
        """Every Markdown file or notebook a ``glob`` entry matches, in name order."""
        matches = sorted(
            p
            for p in self.toc.parent.glob(pattern.text() or "")
            if p.is_file() and self.ctx.is_page(p)
        )
        for match in matches:
            into.children.append(
                OutlinePage(self.ctx.rel(match), None, len(into.children), self.where, line)
            )

    def entry(self, line: int, fields: dict[str, YamlNode], into: OutlineSection) -> None:
        """A page entry, or a section when the entry nests entries, sections or subtrees."""
        title = text(fields, "title")
        nested = [fields[k] for k in ("sections", "entries") if k in fields]
        subtrees = fields.get("subtrees") or fields.get("parts")
        page = self.page_of(fields["file"], title, 0) if "file" in fields else None
        if page is None and "file" in fields and (nested or subtrees) and self.absent(fields):
            # Sphinx makes the nested entries a toctree of their page: with no page there
            # is no toctree, and they are in no navigation.
            self.ctx.warn(
                "missing-outline-page",
                f"the entries nested under the missing file {fields['file'].text()!r} are in "
                "no toctree; built outside the navigation, they follow it",
                self.where,
                line,
            )
            holder = OutlineSection(name="", key=f"{self.where}:{line}")
            for child in nested:
                self.entries(child, holder)
            if subtrees is not None:
                self.parts(subtrees, holder)
            self.unlisted += _pages(holder)
            return
        key = f"{self.where}:{line}"
        own = self.own_toctrees(page) if page is not None else []
        nests = bool(nested) or bool(subtrees) or bool(own)
        section = place_entry(into, page, title, key=key, nests=nests)
        if section is None:
            return
        for child in nested:
            self.entries(child, section)
        if subtrees is not None:
            self.parts(subtrees, section)
        for found in own:
            found.order = len(section.children)
            section.children.append(found)

    def own_toctrees(self, page: OutlinePage) -> list[OutlinePage]:
        """The pages a Markdown page's own ``{toctree}`` directives list that ``_toc.yml``
        does not: Sphinx follows them too, after the page's ``_toc.yml`` entries."""
        file = self.ctx.content_root / page.path
        if file.suffix.lower() not in MARKDOWN_SUFFIXES:
            return []
        where = self.ctx.display(file)
        out: list[OutlinePage] = []
        # Inside the source folder only: a page may be a link out of it.
        text = read_text_file(file, where=where, within=self.ctx.source_root)
        for tree in toctrees(text):
            if "glob" in tree.options:
                continue  # patterns: not read here
            for entry in tree.entries:
                target = entry.target
                if target == "self" or SCHEME.match(target) or self.built_elsewhere(target):
                    continue
                key = posixpath.normpath(posixpath.join(posixpath.dirname(page.path), target))
                if _stem(key) in self.listed or key.startswith(self.generated):
                    continue  # placed by _toc.yml, or written when Sphinx builds
                path = self.ctx.page(file.parent, target, origin=file, line=entry.line)
                if path is not None and path not in {p.path for p in out}:
                    out.append(OutlinePage(path, entry.title, len(out), where, entry.line))
        return out

    def parts(self, node: YamlNode, into: OutlineSection) -> None:
        """Parts or subtrees: a captioned part is a section, an uncaptioned one is inlined."""
        for part, fields in mappings(node, "parts", "part", self.where):
            caption = text(fields, "caption")
            target = into
            if caption:
                target = OutlineSection(
                    name=caption, key=f"{self.where}:{part.line}", order=len(into.children)
                )
                into.children.append(target)
            for key in ("chapters", "entries", "sections"):
                if key in fields:
                    self.entries(fields[key], target)
