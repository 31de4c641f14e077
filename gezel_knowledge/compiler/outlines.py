"""Outline recognisers: the table of contents an author already wrote, in the format they use.

Tried in this order, the first found wins (or the one ``catalog.yaml`` names with ``outline``):

1. **GitBook** ``SUMMARY.md`` (``.gitbook.yaml`` may move the root or rename the summary):
   ``##`` headings are parts, nested list items nest, an item with children is a section whose
   own link is its first page.
2. **MkDocs** ``mkdocs.yml`` ``nav`` (paths relative to ``docs_dir``). Without ``nav``, MkDocs'
   ``docs_dir`` becomes the content root for the recognisers below.
3. **Jupyter Book** ``_toc.yml``: ``root``, ``parts``/``chapters``/``sections``, ``subtrees``
   with ``entries``, ``file``/``title``/``glob``; ``url`` entries are skipped.
4. **DocFX** ``toc.yml``: ``name``/``href``/``topicHref``/``items``, nested ``toc.yml`` files.
5. **Hugo**: folders are sections, ``_index.md`` front matter names and orders them
   (``title``, ``description``, ``weight``), pages are ordered by ``weight``.
6. **Per-folder** ``_topic.yaml`` (``id``, ``name``, ``description``, ``order``).
7. **The folder tree** itself: folders are sections; a numeric prefix (``02-guide``) orders and
   is dropped from the display name; ``index.md``/``README.md`` lead their folder.

Pages are Markdown files (``.md``, ``.markdown``; Jupyter Book also ``.ipynb``). Hidden files
and folders, folders starting with ``_`` and ``node_modules`` are never walked, nor are the
catalog's own input files (README, licence notice, catalog.yaml). An outline that names a file
that does not exist is an error naming the outline file and line.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from gezel_knowledge.compiler.errors import BuildWarning, SourceError, display_path
from gezel_knowledge.compiler.frontmatter import (
    YamlNode,
    load_yaml,
    load_yaml_nodes,
    split_front_matter,
)
from gezel_knowledge.compiler.metadata import TopicDeclaration
from gezel_knowledge.compiler.topics import Outline, OutlinePage, OutlineSection

__all__ = ["MARKDOWN_SUFFIXES", "Recognised", "recognise_outline"]

MARKDOWN_SUFFIXES = (".md", ".markdown")
_NOTEBOOK = ".ipynb"
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|//")
_NUMBER_PREFIX = re.compile(r"(\d+)[-_. ]+(.+)\Z")
_HUGO_CONFIGS = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml", "config.yaml")
_INT32 = range(-(2**31), 2**31)


@dataclass(frozen=True, slots=True)
class Recognised:
    """A recognised outline, the folder its page paths are relative to, and root-topic hints."""

    outline: Outline
    content_root: Path
    root_topic: TopicDeclaration | None = None
    warnings: tuple[BuildWarning, ...] = ()


class _Context:
    def __init__(
        self, source_root: Path, content_root: Path, exclude: Sequence[str], reserved: set[Path]
    ) -> None:
        self.source_root = source_root
        self.content_root = content_root
        self.exclude = tuple(exclude)
        self.reserved = reserved
        self.warnings: list[BuildWarning] = []

    def rel(self, path: Path) -> str:
        return path.relative_to(self.content_root).as_posix()

    def display(self, path: Path) -> str:
        return display_path(path, self.source_root)

    def excluded(self, path: Path) -> bool:
        rel = self.rel(path)
        return path.resolve() in self.reserved or any(
            fnmatch.fnmatchcase(rel, pattern) for pattern in self.exclude
        )

    def page(
        self, base: Path, target: str, *, origin: Path, line: int, notebooks: bool = False
    ) -> str | None:
        """The content-relative path an outline entry names, or ``None`` for a URL."""
        if _SCHEME.match(target):
            return None
        path_text = unquote(target.split("#", 1)[0].split("?", 1)[0]).strip()
        where = self.display(origin)
        if not path_text:
            raise SourceError(
                f"outline entry {target!r} names no file",
                reason="missing-file",
                path=where,
                line=line,
            )
        resolved = _normalise(base, path_text, self.content_root)
        if resolved is None:
            raise SourceError(
                f"outline entry {target!r} leaves the content folder",
                reason="unsafe-path",
                path=where,
                line=line,
            )
        candidates = [resolved]
        if not resolved.suffix:
            candidates += [resolved.with_name(resolved.name + s) for s in MARKDOWN_SUFFIXES]
            if notebooks:
                candidates.append(resolved.with_name(resolved.name + _NOTEBOOK))
        for candidate in candidates:
            if candidate.is_file():
                suffixes = MARKDOWN_SUFFIXES + ((_NOTEBOOK,) if notebooks else ())
                if candidate.suffix.lower() not in suffixes:
                    raise SourceError(
                        f"outline entry {target!r} is not a Markdown file",
                        reason="unsupported-page",
                        path=where,
                        line=line,
                    )
                return self.rel(candidate)
        raise SourceError(
            f"outline names a missing file {target!r}", reason="missing-file", path=where, line=line
        )


def _normalise(base: Path, target: str, root: Path) -> Path | None:
    joined = PurePosixPath(target)
    start = root if target.startswith("/") else base
    parts: list[str] = list(start.relative_to(root).parts) if start != root else []
    for part in joined.parts:
        if part in ("/", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
            continue
        parts.append(part)
    return root.joinpath(*parts)


def _items(node: YamlNode, what: str, where: str) -> list[YamlNode]:
    """The entries of a YAML list node; :class:`SourceError` at its line when it is no list."""
    if not isinstance(node.value, list):
        raise SourceError(
            f"{what} must be a list", reason="invalid-outline", path=where, line=node.line
        )
    return node.value


def _mappings(
    node: YamlNode, what: str, each: str, where: str
) -> Iterator[tuple[YamlNode, dict[str, YamlNode]]]:
    """Each entry of a YAML list node with its fields; every entry must be a mapping."""
    for item in _items(node, what, where):
        if not isinstance(item.value, dict):
            raise SourceError(
                f"each {each} must be a mapping",
                reason="invalid-outline",
                path=where,
                line=item.line,
            )
        yield item, item.value


def _text(fields: dict[str, YamlNode], key: str) -> str | None:
    """A mapping's scalar field as a string, ``None`` when absent or not a scalar."""
    node = fields.get(key)
    return None if node is None else node.text()


def _is_markdown(path: Path) -> bool:
    return path.suffix.lower() in MARKDOWN_SUFFIXES


def _pretty(name: str) -> tuple[str, int | None]:
    """A folder or file stem as a display name, and the order its numeric prefix gives."""
    order = None
    match = _NUMBER_PREFIX.match(name)
    if match and int(match.group(1)) in _INT32:
        order = int(match.group(1))
        name = match.group(2)
    text = re.sub(r"[-_]+", " ", name).strip() or name
    return text[:1].upper() + text[1:], order


# ── GitBook ──────────────────────────────────────────────────────────────────────────────────

_LIST_ITEM = re.compile(r"(\s*)[*+-]\s+(.*)\Z")
_ITEM_LINK = re.compile(r"\[(.*)\]\(\s*<?([^)>]*?)>?\s*\)")
_HEADING = re.compile(r"#{1,6}\s+(.*?)\s*#*\s*\Z")


@dataclass(slots=True)
class _Item:
    label: str
    page: OutlinePage | None
    line: int
    children: list[_Item]


@dataclass(slots=True)
class _SummaryItems:
    """A ``SUMMARY.md`` as nested items: those before any part heading, then each part's."""

    top: list[_Item]
    parts: list[tuple[str, int, list[_Item]]]


def _summary_items(ctx: _Context, summary: Path) -> _SummaryItems:
    where = ctx.display(summary)
    found = _SummaryItems([], [])
    current = found.top
    stack: list[tuple[int, _Item]] = []
    seen_item = False
    text = summary.read_text(encoding="utf-8").replace("\r\n", "\n")
    for number, line in enumerate(text.split("\n"), start=1):
        heading = _HEADING.match(line)
        if heading:
            if not seen_item and not found.parts and line.startswith("# "):
                continue  # the summary's own title ("# Summary")
            current = []
            found.parts.append((heading.group(1), number, current))
            stack = []
            continue
        item = _LIST_ITEM.match(line)
        if not item:
            continue
        seen_item = True
        indent = len(item.group(1).expandtabs(4))
        content = item.group(2).strip()
        link = _ITEM_LINK.search(content)
        page = None
        label = content
        if link:
            label = link.group(1).strip()
            path = ctx.page(summary.parent, link.group(2).strip(), origin=summary, line=number)
            if path is not None:
                page = OutlinePage(path, label or None, None, where, number)
        node = _Item(label, page, number, [])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        (stack[-1][1].children if stack else current).append(node)
        stack.append((indent, node))
    return found


def _summary_sections(ctx: _Context, where: str, items: list[_Item], into: OutlineSection) -> None:
    """Items into ``into``: an item with children is a section led by its own page."""
    for item in items:
        position = len(into.children)
        if item.children:
            section = OutlineSection(
                name=item.label or (item.page.path if item.page else "Untitled"),
                key=f"{where}:{item.line}",
                order=position,
            )
            if item.page is not None:
                item.page.order = 0
                section.children.append(item.page)
            _summary_sections(ctx, where, item.children, section)
            into.children.append(section)
        elif item.page is not None:
            item.page.order = position
            into.children.append(item.page)
        else:
            ctx.warnings.append(
                BuildWarning(
                    "empty-outline-entry",
                    f"outline entry {item.label!r} has no page and no children",
                    path=where,
                    line=item.line,
                )
            )


def _gitbook(ctx: _Context, summary: Path) -> Outline:
    where = ctx.display(summary)
    root = OutlineSection(name="", key=where)
    found = _summary_items(ctx, summary)
    _summary_sections(ctx, where, found.top, root)
    for name, number, items in found.parts:
        section = OutlineSection(name=name, key=f"{where}:{number}", order=len(root.children))
        _summary_sections(ctx, where, items, section)
        root.children.append(section)
    return Outline("gitbook", root, where)


# ── MkDocs ───────────────────────────────────────────────────────────────────────────────────


def _mkdocs(ctx: _Context, config: Path, nav: YamlNode) -> Outline:
    where = ctx.display(config)
    root = OutlineSection(name="", key=where)

    def entries(node: YamlNode, into: OutlineSection) -> None:
        for entry in _items(node, "nav", where):
            position = len(into.children)
            if isinstance(entry.value, str):
                path = ctx.page(ctx.content_root, entry.value, origin=config, line=entry.line)
                if path is not None:
                    into.children.append(OutlinePage(path, None, position, where, entry.line))
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
                section = OutlineSection(name=title, key=f"{where}:{entry.line}", order=position)
                entries(target, section)
                into.children.append(section)
            elif isinstance(target.value, str):
                path = ctx.page(ctx.content_root, target.value, origin=config, line=target.line)
                if path is not None:
                    into.children.append(OutlinePage(path, title, position, where, target.line))
            else:
                raise SourceError(
                    f"nav entry {title!r} has no target",
                    reason="invalid-outline",
                    path=where,
                    line=entry.line,
                )

    entries(nav, root)
    return Outline("mkdocs", root, where)


# ── Jupyter Book ─────────────────────────────────────────────────────────────────────────────


class _JupyterBook:
    """A Jupyter Book ``_toc.yml``: its root page, entries, parts and subtrees."""

    def __init__(self, ctx: _Context, toc: Path) -> None:
        self.ctx = ctx
        self.toc = toc
        self.where = ctx.display(toc)

    def outline(self) -> Outline:
        data = load_yaml_nodes(self.toc.read_text(encoding="utf-8"), path=self.where)
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
        """The page a ``file`` (or ``root``) names; ``None`` for a URL."""
        target = node.text()
        if target is None:
            raise SourceError(
                "file must be a path", reason="invalid-outline", path=self.where, line=node.line
            )
        path = self.ctx.page(
            self.toc.parent, target, origin=self.toc, line=node.line, notebooks=True
        )
        return None if path is None else OutlinePage(path, title, order, self.where, node.line)

    def entries(self, node: YamlNode, into: OutlineSection) -> None:
        """Chapters, sections or entries: pages, globs, and sections holding more."""
        for entry, fields in _mappings(node, "entries", "entry", self.where):
            if "glob" in fields:
                self.glob(fields["glob"], entry.line, into)
            elif "file" in fields or "url" not in fields:
                self.entry(entry.line, fields, into)

    def glob(self, pattern: YamlNode, line: int, into: OutlineSection) -> None:
        """Every Markdown file or notebook a ``glob`` entry matches, in name order."""
        matches = sorted(
            p
            for p in self.toc.parent.glob(pattern.text() or "")
            if p.is_file() and (_is_markdown(p) or p.suffix == _NOTEBOOK)
        )
        for match in matches:
            into.children.append(
                OutlinePage(self.ctx.rel(match), None, len(into.children), self.where, line)
            )

    def entry(self, line: int, fields: dict[str, YamlNode], into: OutlineSection) -> None:
        """A page entry, or a section when the entry nests entries, sections or subtrees."""
        position = len(into.children)
        title = _text(fields, "title")
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
        for part, fields in _mappings(node, "parts", "part", self.where):
            caption = _text(fields, "caption")
            target = into
            if caption:
                target = OutlineSection(
                    name=caption, key=f"{self.where}:{part.line}", order=len(into.children)
                )
                into.children.append(target)
            for key in ("chapters", "entries", "sections"):
                if key in fields:
                    self.entries(fields[key], target)


def _jupyter_book(ctx: _Context, toc: Path) -> Outline:
    return _JupyterBook(ctx, toc).outline()


# ── DocFX ────────────────────────────────────────────────────────────────────────────────────


class _DocFx:
    """A DocFX ``toc.yml`` and the ``toc.yml`` files it includes (``seen`` refuses a cycle)."""

    def __init__(self, ctx: _Context, toc: Path, seen: set[Path]) -> None:
        self.ctx = ctx
        self.toc = toc
        self.seen = seen
        self.where = ctx.display(toc)
        seen.add(toc.resolve())

    def outline(self) -> Outline:
        data = load_yaml_nodes(self.toc.read_text(encoding="utf-8"), path=self.where)
        root = OutlineSection(name="", key=self.where)
        items = data.value.get("items") if isinstance(data.value, dict) else data
        if items is None or not isinstance(items.value, list):
            raise SourceError(
                "toc.yml must be a list of items", reason="invalid-outline", path=self.where, line=1
            )
        self.walk(items, root)
        return Outline("docfx", root, self.where)

    def fail(self, message: str, reason: str, line: int) -> SourceError:
        return SourceError(message, reason=reason, path=self.where, line=line)

    def nested_toc(self, href: str, line: int) -> Path | None:
        """The ``toc.yml`` an ``href`` includes (a folder's, or one named), else ``None``."""
        path_text = unquote(href.split("#", 1)[0])
        candidate = _normalise(self.toc.parent, path_text, self.ctx.content_root)
        if candidate is None:
            raise self.fail(f"toc entry {href!r} leaves the content folder", "unsafe-path", line)
        if href.endswith("/") or candidate.is_dir():
            for name in ("toc.yml", "toc.yaml"):
                if (candidate / name).is_file():
                    return candidate / name
            raise self.fail(
                f"toc entry {href!r} names a folder without toc.yml", "missing-file", line
            )
        if candidate.name.lower() in ("toc.yml", "toc.yaml"):
            if not candidate.is_file():
                raise self.fail(f"outline names a missing file {href!r}", "missing-file", line)
            return candidate
        return None

    def walk(self, node: YamlNode, into: OutlineSection) -> None:
        """Items: a page, or a section when it has items or includes a ``toc.yml``."""
        for item, fields in _mappings(node, "items", "toc item", self.where):
            name = _text(fields, "name") or ""
            href = _text(fields, "href")
            child_toc = None
            if href and not _SCHEME.match(href):
                child_toc = self.nested_toc(href, fields["href"].line)
            if child_toc is not None or "items" in fields:
                into.children.append(self.section(item.line, fields, child_toc, len(into.children)))
            elif href:
                line = fields["href"].line
                path = self.ctx.page(self.toc.parent, href, origin=self.toc, line=line)
                if path is not None:
                    into.children.append(
                        OutlinePage(path, name or None, len(into.children), self.where, line)
                    )

    def section(
        self, line: int, fields: dict[str, YamlNode], child_toc: Path | None, position: int
    ) -> OutlineSection:
        """An item with items or an included ``toc.yml``, led by its own page if it names one."""
        name = _text(fields, "name") or ""
        section = OutlineSection(
            name=name or "Untitled", key=f"{self.where}:{line}", order=position
        )
        page_target = _text(fields, "topicHref") or (
            _text(fields, "href") if child_toc is None else None
        )
        if page_target:
            page_line = (fields.get("topicHref") or fields["href"]).line
            path = self.ctx.page(self.toc.parent, page_target, origin=self.toc, line=page_line)
            if path is not None:
                section.children.append(OutlinePage(path, name or None, 0, self.where, page_line))
        if "items" in fields:
            self.walk(fields["items"], section)
        if child_toc is not None:
            self.include(child_toc, line, section)
        return section

    def include(self, child_toc: Path, line: int, section: OutlineSection) -> None:
        """Append an included ``toc.yml``'s entries to ``section``, refusing a cycle."""
        if child_toc.resolve() in self.seen:
            raise self.fail(
                f"toc {self.ctx.display(child_toc)} includes itself", "outline-cycle", line
            )
        for child in _DocFx(self.ctx, child_toc, self.seen).outline().root.children:
            if isinstance(child, OutlineSection | OutlinePage):
                child.order = len(section.children)
            section.children.append(child)


def _docfx(ctx: _Context, toc: Path) -> Outline:
    return _DocFx(ctx, toc, set()).outline()


# ── Folder trees: plain, per-folder _topic.yaml, Hugo ────────────────────────────────────────


def _folder_meta_topic_yaml(ctx: _Context, folder: Path) -> TopicDeclaration | None:
    meta = folder / "_topic.yaml"
    if not meta.is_file():
        return None
    where = ctx.display(meta)
    data = load_yaml(meta.read_text(encoding="utf-8"), path=where) or {}
    if not isinstance(data, dict):
        raise SourceError("_topic.yaml must be a mapping", reason="invalid-topic-yaml", path=where)
    order = data.get("order")
    if order is not None and (isinstance(order, bool) or not isinstance(order, int)):
        raise SourceError("order must be an integer", reason="invalid-topic-yaml", path=where)
    for key in ("id", "name", "description"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise SourceError(f"{key} must be a string", reason="invalid-topic-yaml", path=where)
    return TopicDeclaration(
        id=data.get("id") or "",
        name=data.get("name") or "",
        description=data.get("description"),
        order=order,
    )


def _folder_meta_hugo(ctx: _Context, folder: Path) -> tuple[TopicDeclaration | None, bool]:
    index = folder / "_index.md"
    if not index.is_file():
        return None, False
    where = ctx.display(index)
    front = split_front_matter(index.read_text(encoding="utf-8"), path=where)
    data = front.data
    weight = data.get("weight")
    if weight is not None and (isinstance(weight, bool) or not isinstance(weight, int)):
        raise SourceError(
            "weight must be an integer", reason="invalid-front-matter", path=where, line=1
        )
    title = data.get("title")
    description = data.get("description") or data.get("summary")
    declaration = TopicDeclaration(
        id=str(data.get("topicId") or ""),
        name=str(title) if title else "",
        description=str(description) if description else None,
        order=weight,
    )
    return declaration, bool(front.body.strip())


def _folders(ctx: _Context, kind: str) -> tuple[OutlineSection, TopicDeclaration | None]:
    """The content folder as a section tree; ``kind`` says where folder metadata comes from."""
    return _folder_section(ctx, kind, ctx.content_root, "(root)/")


def _folder_section(
    ctx: _Context, kind: str, folder: Path, key: str
) -> tuple[OutlineSection, TopicDeclaration | None]:
    pretty, order = _pretty(folder.name)
    section = OutlineSection(name=pretty, key=key, order=order)
    declaration: TopicDeclaration | None = None
    has_index_page = False
    if kind == "topic-yaml":
        declaration = _folder_meta_topic_yaml(ctx, folder)
    elif kind == "hugo":
        declaration, has_index_page = _folder_meta_hugo(ctx, folder)
    if declaration is not None:
        section.name = declaration.name or section.name
        section.description = declaration.description
        section.explicit_id = declaration.id or None
        if declaration.order is not None:
            section.order = declaration.order
    if has_index_page:
        index = folder / "_index.md"
        section.children.append(
            OutlinePage(ctx.rel(index), None, -(2**31), ctx.display(index), None)
        )
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        child = _folder_child(ctx, kind, entry)
        if child is not None:
            section.children.append(child)
    return section, declaration


def _folder_child(ctx: _Context, kind: str, entry: Path) -> OutlineSection | OutlinePage | None:
    """A folder entry as a section (a folder with pages) or a page; ``None`` to skip it."""
    name = entry.name
    if name.startswith(".") or ctx.excluded(entry):
        return None
    if entry.is_dir():
        if name.startswith("_") or name == "node_modules":
            return None
        if entry.is_symlink():
            # Following linked folders could leave the tree or loop forever.
            ctx.warnings.append(
                BuildWarning(
                    "symlink-skipped",
                    "is a symbolic link to a folder; not followed",
                    path=ctx.display(entry),
                )
            )
            return None
        child, _ = _folder_section(ctx, kind, entry, ctx.rel(entry) + "/")
        return child if _has_pages(child) else None
    if entry.is_file() and _is_markdown(entry) and not name.startswith("_"):
        _, order = _pretty(entry.stem)
        if order is None and entry.stem.lower() in ("index", "readme"):
            order = 0
        return OutlinePage(ctx.rel(entry), None, order, ctx.display(entry), None)
    return None


def _has_pages(section: OutlineSection) -> bool:
    return any(
        isinstance(c, OutlinePage) or (isinstance(c, OutlineSection) and _has_pages(c))
        for c in section.children
    )


def _any_file(root: Path, name: str) -> bool:
    for _, dirs, files in os.walk(root):  # never follows symbolic links to folders
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
        if name in files:
            return True
    return False


# ── Entry point ──────────────────────────────────────────────────────────────────────────────


def recognise_outline(
    source_root: Path,
    *,
    kind: str = "auto",
    exclude: Sequence[str] = (),
    reserved: set[Path] | None = None,
) -> Recognised:
    """Find the outline of a Markdown tree (see the module docstring for the order)."""
    reserved = reserved or set()
    content_root, summary_name = _gitbook_config(source_root, kind)
    mkdocs, nav, content_root = _mkdocs_config(source_root, content_root, kind)
    ctx = _Context(source_root, content_root, exclude, reserved)
    outline = _outline_file(ctx, kind, summary_name, mkdocs, nav)
    if outline is not None:
        return Recognised(outline, ctx.content_root, None, tuple(ctx.warnings))
    return _folder_outline(ctx, kind)


def _gitbook_config(source_root: Path, kind: str) -> tuple[Path, str]:
    """The content root and summary file name ``.gitbook.yaml`` sets (defaults otherwise)."""
    gitbook = source_root / ".gitbook.yaml"
    if not (gitbook.is_file() and kind in ("auto", "gitbook")):
        return source_root, "SUMMARY.md"
    content_root = source_root
    summary_name = "SUMMARY.md"
    data = load_yaml(gitbook.read_text(encoding="utf-8"), path=".gitbook.yaml") or {}
    if isinstance(data, dict):
        if isinstance(data.get("root"), str):
            content_root = _normalise(source_root, data["root"], source_root) or source_root
        structure = data.get("structure")
        if isinstance(structure, dict) and isinstance(structure.get("summary"), str):
            summary_name = structure["summary"]
    return content_root, summary_name


def _mkdocs_config(
    source_root: Path, content_root: Path, kind: str
) -> tuple[Path | None, YamlNode | None, Path]:
    """``mkdocs.yml`` if there is one, its ``nav``, and the content root its ``docs_dir`` sets."""
    mkdocs = next(
        (source_root / n for n in ("mkdocs.yml", "mkdocs.yaml") if (source_root / n).is_file()),
        None,
    )
    if mkdocs is None or kind not in ("auto", "mkdocs"):
        return mkdocs, None, content_root
    nav: YamlNode | None = None
    config = load_yaml_nodes(mkdocs.read_text(encoding="utf-8"), path=mkdocs.name)
    if isinstance(config.value, dict):
        docs_dir = config.value.get("docs_dir")
        folder = docs_dir.text() if docs_dir is not None else None
        content_root = _normalise(source_root, folder or "docs", source_root) or source_root
        nav = config.value.get("nav")
    if not content_root.is_dir():
        raise SourceError(
            f"mkdocs docs_dir {display_path(content_root, source_root)!r} does not exist",
            reason="missing-file",
            path=mkdocs.name,
        )
    return mkdocs, nav, content_root


def _outline_file(
    ctx: _Context, kind: str, summary_name: str, mkdocs: Path | None, nav: YamlNode | None
) -> Outline | None:
    """The first outline file found (GitBook, MkDocs, Jupyter Book, DocFX), or the one asked
    for; ``None`` when the folders are the outline."""
    root = ctx.content_root
    summary = root / summary_name
    if kind in ("auto", "gitbook") and summary.is_file():
        ctx.reserved.add(summary.resolve())
        return _gitbook(ctx, summary)
    if kind == "gitbook":
        raise _missing_outline("gitbook", summary_name)
    if mkdocs is not None and nav is not None and kind in ("auto", "mkdocs"):
        return _mkdocs(ctx, mkdocs, nav)
    if kind == "mkdocs":
        raise _missing_outline("mkdocs", "mkdocs.yml with nav")
    toc = root / "_toc.yml"
    if kind in ("auto", "jupyter-book") and toc.is_file():
        return _jupyter_book(ctx, toc)
    if kind == "jupyter-book":
        raise _missing_outline("jupyter-book", "_toc.yml")
    docfx = next((root / n for n in ("toc.yml", "toc.yaml") if (root / n).is_file()), None)
    if kind in ("auto", "docfx") and docfx is not None:
        return _docfx(ctx, docfx)
    if kind == "docfx":
        raise _missing_outline("docfx", "toc.yml")
    return None


def _folder_outline(ctx: _Context, kind: str) -> Recognised:
    """The folder tree as the outline: Hugo sections, ``_topic.yaml`` folders, or plain."""
    hugo_content = ctx.content_root / "content"
    if (
        kind in ("auto", "hugo")
        and hugo_content.is_dir()
        and any((ctx.content_root / c).is_file() for c in _HUGO_CONFIGS)
    ):
        ctx = _Context(ctx.source_root, hugo_content, ctx.exclude, ctx.reserved)
        kind = "hugo"
    for folder_kind, marker in (("hugo", "_index.md"), ("topic-yaml", "_topic.yaml")):
        if kind == folder_kind or (kind == "auto" and _any_file(ctx.content_root, marker)):
            root, declaration = _folders(ctx, folder_kind)
            outline = Outline(folder_kind, root, None, ordered=False)
            return Recognised(outline, ctx.content_root, declaration, tuple(ctx.warnings))
    root, _ = _folders(ctx, "folders")
    outline = Outline("folders", root, None, ordered=False)
    return Recognised(outline, ctx.content_root, None, tuple(ctx.warnings))


def _missing_outline(kind: str, what: str) -> SourceError:
    return SourceError(
        f"catalog.yaml asks for the {kind} outline but there is no {what}",
        reason="missing-outline",
    )
