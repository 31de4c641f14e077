"""MkDocs' ``literate-nav`` plugin: navigation written as Markdown lists in the docs.

The plugin (``plugins: [literate-nav: {nav_file, implicit_index}]``) reads a folder's
navigation from its ``nav_file`` (``SUMMARY.md``): the first list after a ``<!--nav-->``
line, else the file's last list. Each item is a page (``[Title](page.md)``), a section (a
label, or a link, holding a nested list: the link is its first page), a folder
(``[Title](folder/)``: that folder's own navigation) or a wildcard (``*.md``: the folder's
files not listed elsewhere, by name). Targets are relative to the folder. A folder without a
``nav_file`` lists its pages and subfolders by name, its index page first. With
``implicit_index``, a folder's index page (``index.md``, else ``README.md``) leads its section
even when the list does not name it. A ``nav`` entry of mkdocs.yml naming a folder
(``User guide: user-guide/``) is that folder's navigation; without ``nav``, the docs
folder's ``nav_file`` is the whole navigation.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path

from gezel_knowledge._untrusted import MAX_NESTING
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import SCHEME, Context, normalise
from gezel_knowledge.compiler.generators._docs_filter import DocsFilter
from gezel_knowledge.compiler.generators._summary import find_link
from gezel_knowledge.compiler.generators.outline import OutlinePage, OutlineSection

__all__ = [
    "LiterateNav",
    "LiterateReader",
    "folder_title",
    "literate_nav",
    "mkdocs_order",
    "plugin_options",
]

_ITEM = re.compile(r"( *)(?:[*+-]|\d{1,9}[.)])[ \t]+(.*)\Z")
_CONTINUED = re.compile(r"[ \t]")
_MARKER = "<!--nav-->"


@dataclass(frozen=True, slots=True)
class LiterateNav:
    """The plugin's settings."""

    nav_file: str = "SUMMARY.md"
    implicit_index: bool = False


def plugin_options(plugins: object, name: str) -> dict[str, object] | None:
    """The options mkdocs.yml's ``plugins`` gives plugin ``name`` (``{}`` when it gives none),
    ``None`` when the plugin is not enabled."""
    entries: list[tuple[object, object]] = []
    if isinstance(plugins, dict):
        entries = list(plugins.items())
    elif isinstance(plugins, list):
        for entry in plugins:
            if isinstance(entry, str):
                entries.append((entry, {}))
            elif isinstance(entry, dict) and len(entry) == 1:
                entries.extend(entry.items())
    for key, options in entries:
        if str(key).removeprefix("mkdocs-") == name:
            return config.mapping(options)
    return None


def literate_nav(plugins: object) -> LiterateNav | None:
    """The ``literate-nav`` settings of mkdocs.yml's ``plugins``, ``None`` when not enabled."""
    settings = plugin_options(plugins, "literate-nav")
    if settings is None:
        return None
    return LiterateNav(
        config.string(settings.get("nav_file")) or "SUMMARY.md",
        settings.get("implicit_index") is True,
    )


@dataclass(slots=True)
class _Item:
    text: str
    line: int
    children: list[_Item] = field(default_factory=list)


def _last_list(text: str) -> list[_Item]:
    """The items of the list the plugin reads (see the module docstring), nested."""
    lines = text.replace("\r\n", "\n").split("\n")
    start = 0
    markers = [i for i, line in enumerate(lines) if line.strip() == _MARKER]
    if markers:
        start = markers[-1] + 1
    lists: list[list[tuple[int, int, str]]] = []
    current: list[tuple[int, int, str]] | None = None
    fenced = False
    for number, line in enumerate(lines[start:], start=start + 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            current = None
            continue
        if fenced:
            continue
        item = _ITEM.match(line)
        if item is not None and (current is not None or not item.group(1)):
            if current is None:
                current = []
                lists.append(current)
                if markers and len(lists) > 1:
                    break
            current.append((len(item.group(1)), number, item.group(2).strip()))
        elif line.strip() and not _CONTINUED.match(line):
            current = None
    chosen = lists[0] if markers and lists else lists[-1] if lists else []
    roots: list[_Item] = []
    stack: list[tuple[int, _Item]] = []
    for indent, number, content in chosen:
        node = _Item(content, number)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if len(stack) < MAX_NESTING:
            (stack[-1][1].children if stack else roots).append(node)
            stack.append((indent, node))
    return roots


def folder_title(name: str) -> str:
    """A folder's section name as MkDocs derives it: ``-`` and ``_`` as spaces, a lowercase
    name capitalised (``user-guide``: *User guide*; ``API`` stays)."""
    title = name.replace("-", " ").replace("_", " ")
    return title.capitalize() if title.lower() == title else title


def mkdocs_order(folder: Path, index: Path | None) -> list[Path]:
    """A folder's entries as MkDocs orders files: the index page, the other files by name,
    then the folders by name (hidden names and links to folders left out)."""
    entries = sorted(folder.iterdir(), key=lambda p: (p.is_dir(), p != index, p.name))
    # A symbolic link to a folder is not followed (it could loop, or lead out of the source).
    return [
        e for e in entries if not e.name.startswith(".") and not (e.is_symlink() and e.is_dir())
    ]


class LiterateReader:
    """Folders' navigation as the plugin reads it, into outline sections."""

    def __init__(self, ctx: Context, settings: LiterateNav, docs: DocsFilter) -> None:
        self.ctx = ctx
        self.settings = settings
        self.docs = docs
        self.seen: set[str] = set()
        self.reading: list[Path] = []

    def index(self, folder: Path) -> Path | None:
        """The folder's index page, as MkDocs finds it."""
        for name in ("index.md", "README.md"):
            if (folder / name).is_file():
                return folder / name
        return None

    def folder(self, folder: Path, into: OutlineSection) -> None:
        """``folder``'s navigation into ``into``."""
        if folder in self.reading or len(self.reading) >= MAX_NESTING:
            return  # the plugin refuses recursion too
        self.reading.append(folder)
        try:
            nav_file = folder / self.settings.nav_file
            if nav_file.is_file():
                index = self.index(folder) if self.settings.implicit_index else None
                if index is not None:
                    self.add_page(index, None, into, nav_file, None)
                if index != nav_file:
                    self.seen.add(self.ctx.rel(nav_file))  # the list, not a page of it
                text = config.read_text(nav_file, self.ctx.source_root)
                self.items(_last_list(text), folder, into, nav_file)
            else:
                self.inferred(folder, into)
        finally:
            self.reading.pop()

    def add_page(
        self, path: Path, label: str | None, into: OutlineSection, origin: Path, line: int | None
    ) -> None:
        rel = self.ctx.rel(path)
        if rel in self.seen:
            return
        self.seen.add(rel)
        where = self.ctx.display(origin)
        into.children.append(OutlinePage(rel, label, len(into.children), where, line))

    def inferred(self, folder: Path, into: OutlineSection) -> None:
        """A folder without a nav file, in MkDocs' order: its index page, its other pages by
        name, then its folders by name."""
        for entry in mkdocs_order(folder, self.index(folder)):
            if self.ctx.excluded(entry) or self.docs.excluded(
                self.ctx.rel(entry), folder=entry.is_dir()
            ):
                continue
            if entry.is_dir():
                self.subfolder(entry, None, into)
            elif self.ctx.is_page(entry):
                self.add_page(entry, None, into, folder, None)

    def subfolder(self, folder: Path, label: str | None, into: OutlineSection) -> None:
        name = label or folder_title(folder.name)
        section = OutlineSection(name=name, key=self.ctx.display(folder), order=len(into.children))
        self.folder(folder, section)
        if section.children:
            into.children.append(section)

    def items(self, items: list[_Item], folder: Path, into: OutlineSection, origin: Path) -> None:
        where = self.ctx.display(origin)
        for item in items:
            link = find_link(item.text)
            label = (link[0] if link else item.text).strip()
            target = link[1].strip() if link else ""
            if link is None and "*" in label and not item.children:
                self.wildcard(folder, label, into, origin)
                continue
            if target and SCHEME.match(target):
                continue  # an external link is no page
            if target.endswith("/"):
                path = normalise(folder, target, self.ctx.content_root)
                if path is not None and path.is_dir():
                    self.subfolder(path, label or None, into)
                    continue
            if item.children:
                section = OutlineSection(
                    name=label, key=f"{where}:{item.line}", order=len(into.children)
                )
                if target:
                    self.page(
                        target,
                        label=None,
                        folder=folder,
                        into=section,
                        origin=origin,
                        line=item.line,
                    )
                self.items(item.children, folder, section, origin)
                into.children.append(section)
            elif target:
                self.page(
                    target,
                    label=label or None,
                    folder=folder,
                    into=into,
                    origin=origin,
                    line=item.line,
                )

    def page(
        self,
        target: str,
        *,
        label: str | None,
        folder: Path,
        into: OutlineSection,
        origin: Path,
        line: int,
    ) -> None:
        rel = self.ctx.page(folder, target, origin=origin, line=line)
        if rel is not None:
            self.add_page(self.ctx.content_root / rel, label, into, origin, line)

    def wildcard(self, folder: Path, pattern: str, into: OutlineSection, origin: Path) -> None:
        for entry in sorted(folder.iterdir(), key=lambda p: p.name):
            if not fnmatch.fnmatchcase(entry.name, pattern) or self.ctx.excluded(entry):
                continue
            if self.docs.excluded(self.ctx.rel(entry), folder=entry.is_dir()):
                continue
            if entry.is_dir():
                self.subfolder(entry, None, into)
            elif self.ctx.is_page(entry):
                self.add_page(entry, None, into, origin, None)
