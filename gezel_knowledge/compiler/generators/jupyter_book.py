"""Jupyter Book: ``_toc.yml`` and ``_config.yml``; pages in the book's folder.

Navigation: ``_toc.yml``: ``root``, ``parts`` (captioned parts are topics),
``chapters``/``sections``/``entries``, ``subtrees``, ``file``/``title``/``glob``; ``url``
entries are no pages and are left out. Pages are Markdown files and notebooks (``.ipynb``); a
``file`` naming anything else (reStructuredText) is left out with a warning.

Metadata: ``_config.yml`` ``title``, ``description``, ``language`` (or Sphinx's), ``author``,
``repository.url``, ``html.baseurl``. Anchors: MyST's (GitHub's slugs, ``(label)=`` targets).
"""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import (
    MARKDOWN_SUFFIXES,
    NOTEBOOK,
    Context,
    mappings,
    text,
)
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import YamlNode, load_yaml_nodes, read_text_file

__all__ = ["JupyterBook"]


class JupyterBook(Generator):
    """Jupyter Book 1 (``_toc.yml``)."""

    name = "jupyter-book"
    described_as = "a Jupyter Book"
    marker = "_toc.yml"
    page_suffixes = (*MARKDOWN_SUFFIXES, NOTEBOOK)
    outline_required = "outline file"

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        toc = root / "_toc.yml"
        if not toc.is_file():
            return None
        file = root / "_config.yml"
        data = config.read_data(file, root) if file.is_file() else {}
        repository = config.get(data, "repository", "url")
        return Site(
            self,
            file if file.is_file() else None,
            root,
            config.site_metadata(
                data.get("title"),
                data.get("description"),
                data.get("language") or config.get(data, "sphinx", "config", "language"),
                config.absolute_url(config.get(data, "html", "baseurl"), repository),
                config.publisher(repository, data.get("author")),
            ),
            LinkStyle(),
            outline_file=toc,
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        if site.outline_file is None:
            return None
        return _JupyterBook(ctx, site.outline_file).outline()


class _JupyterBook:
    """A Jupyter Book ``_toc.yml``: its root page, entries, parts and subtrees."""

    def __init__(self, ctx: Context, toc: Path) -> None:
        self.ctx = ctx
        self.toc = toc
        self.where = ctx.display(toc)

    def outline(self) -> Outline:
        data = load_yaml_nodes(read_text_file(self.toc, where=self.where), path=self.where)
        if not isinstance(data.value, dict):
            raise SourceError(
                "_toc.yml must be a mapping", reason="invalid-outline", path=self.where, line=1
            )
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
        return Outline("jupyter-book", root, self.where)

    def page_of(self, node: YamlNode, title: str | None, order: int) -> OutlinePage | None:
        """The page a ``file`` (or ``root``) names; ``None`` when it names none."""
        target = node.text()
        if target is None:
            raise SourceError(
                "file must be a path", reason="invalid-outline", path=self.where, line=node.line
            )
        path = self.ctx.page(self.toc.parent, target, origin=self.toc, line=node.line)
        return None if path is None else OutlinePage(path, title, order, self.where, node.line)

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
        position = len(into.children)
        title = text(fields, "title")
        nested = [fields[k] for k in ("sections", "entries") if k in fields]
        subtrees = fields.get("subtrees") or fields.get("parts")
        page = self.page_of(fields["file"], title, 0) if "file" in fields else None
        if not nested and subtrees is None:
            if page is not None:
                page.order = position
                into.children.append(page)
            return
        section = OutlineSection(
            name=title or ("" if page else f"Section {position + 1}"),
            key=f"{self.where}:{line}",
            order=position,
            title_page=page.path if page else None,
        )
        if page is not None:
            section.children.append(page)
        for child in nested:
            self.entries(child, section)
        if subtrees is not None:
            self.parts(subtrees, section)
        into.children.append(section)

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
