"""MkDocs' folder navigation (no ``nav``), and its ``awesome-pages`` plugin: each folder's
``.pages`` file orders and names it.

Without the plugin, a folder is a section named after it (``-`` and ``_`` read as spaces, a
lowercase name capitalised) holding its index page, its other pages by name and its folders
by name, as MkDocs builds its navigation; files MkDocs excludes (:mod:`._docs_filter`) are
left out.

Read when mkdocs.yml enables the plugin (``filename``, default ``.pages``) and has no
``nav``. A folder is a section in MkDocs' order (its index page, its other pages by name, its
folders by name) unless its ``.pages`` says otherwise: ``title`` names the section, ``hide:
true`` leaves the folder out, ``order: desc`` reverses the order, and ``nav`` (or the older
``arrange``) lists the folder's entries in their order: a file or folder name, ``Title: name``
(a page or a folder with that title), ``Title: [...]`` (a section of entries), a URL (no page)
or ``...``, the entries listed nowhere else (``... | glob=*.md`` or ``... | *.md``: those
whose name matches). Entries a ``nav`` does not list and no ``...`` takes are left out.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

from gezel_knowledge._untrusted import MAX_NESTING
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import SCHEME, Context
from gezel_knowledge.compiler.generators._docs_filter import DocsFilter
from gezel_knowledge.compiler.generators._literate_nav import folder_title, mkdocs_order
from gezel_knowledge.compiler.generators.outline import OutlinePage, OutlineSection

__all__ = ["PagesReader"]

_REST = "..."


class PagesReader:
    """Folders read by the ``awesome-pages`` rules, into outline sections."""

    def __init__(self, ctx: Context, filename: str | None, docs: DocsFilter) -> None:
        self.ctx = ctx
        self.filename = filename
        """The plugin's file name; ``None``: no plugin, MkDocs' own order only."""
        self.docs = docs

    def _settings(self, folder: Path) -> dict[str, object]:
        if self.filename is None:
            return {}
        file = folder / self.filename
        if not file.is_file():
            return {}
        self.ctx.reserved.add(file.resolve())
        return config.read_data(file, self.ctx.source_root)

    def _entries(self, folder: Path) -> list[Path]:
        index = next(
            (folder / n for n in ("index.md", "README.md") if (folder / n).is_file()), None
        )
        return [
            e
            for e in mkdocs_order(folder, index)
            if not self.ctx.excluded(e)
            and not self.docs.excluded(self.ctx.rel(e), folder=e.is_dir())
            and (e.is_dir() or self.ctx.is_page(e))
        ]

    def folder(self, folder: Path, into: OutlineSection, depth: int = 0) -> None:
        """``folder``'s pages and subfolders into ``into``."""
        settings = self._settings(folder)
        entries = self._entries(folder)
        if settings.get("order") == "desc":
            entries.reverse()
        listed = settings.get("nav", settings.get("arrange"))
        if not isinstance(listed, list):
            for entry in entries:
                self.entry(entry, None, into, depth)
            return
        named = {e.name: e for e in entries}
        taken = {named[n] for n in (_name(item) for item in listed) if n is not None and n in named}
        self.items(listed, named, [e for e in entries if e not in taken], into, depth)

    def items(
        self,
        listed: list[object],
        named: dict[str, Path],
        rest: list[Path],
        into: OutlineSection,
        depth: int,
    ) -> None:
        for item in listed:
            if isinstance(item, str) and item.strip().startswith(_REST):
                pattern = item.strip()[len(_REST) :].strip().lstrip("|").strip()
                pattern = pattern.removeprefix("glob=").strip()
                for entry in rest:
                    if not pattern or fnmatch.fnmatchcase(entry.name, pattern):
                        self.entry(entry, None, into, depth)
                continue
            title: str | None = None
            target: object = item
            if isinstance(item, dict) and len(item) == 1:
                ((key, target),) = item.items()
                title = str(key)
            if isinstance(target, list) and title is not None and depth < MAX_NESTING:
                section = OutlineSection(
                    name=title, key=f"{self.filename or ''}:{title}", order=len(into.children)
                )
                self.items(target, named, rest, section, depth + 1)
                if section.children:
                    into.children.append(section)
            elif isinstance(target, str) and not SCHEME.match(target):
                found = named.get(target.strip().rstrip("/"))
                if found is not None:
                    self.entry(found, title, into, depth)

    def entry(self, path: Path, title: str | None, into: OutlineSection, depth: int) -> None:
        """A page, or a folder as a section (left out when hidden or empty)."""
        if path.is_file():
            rel = self.ctx.rel(path)
            where = self.ctx.display(path)
            into.children.append(OutlinePage(rel, title, len(into.children), where, None))
            return
        if depth >= MAX_NESTING:
            return
        settings = self._settings(path)
        if settings.get("hide") is True:
            return
        name = title or config.string(settings.get("title")) or folder_title(path.name)
        section = OutlineSection(name=name, key=self.ctx.display(path), order=len(into.children))
        self.folder(path, section, depth + 1)
        if section.children:
            into.children.append(section)


def _name(item: object) -> str | None:
    """The file or folder name a ``nav`` item lists, if it lists one."""
    if isinstance(item, dict) and len(item) == 1:
        item = next(iter(item.values()))
    if isinstance(item, str) and not item.strip().startswith(_REST) and not SCHEME.match(item):
        return item.strip().rstrip("/")
    return None
