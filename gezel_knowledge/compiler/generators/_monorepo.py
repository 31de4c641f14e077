"""mkdocs-monorepo-plugin: ``nav`` entries that merge other MkDocs projects into the site.

``- Title: '!include path/mkdocs.yml'`` (relative to the site's ``mkdocs.yml``) merges that
project's ``docs_dir`` (``docs``, relative to its ``mkdocs.yml``) into the site under its
``site_name`` (as written when it is made of letters, digits, ``_.-/``, else slugified:
``Component A`` is ``component-a``), and puts its ``nav``, each path under that name, in place
of the entry: a section named ``Title``. ``- Title: '*include glob/mkdocs.yml'`` does so for
every ``mkdocs.yml`` the glob matches, in path order, each a section named after its
``site_name`` inside ``Title``. A project without ``nav`` gets one from its docs folder:
folders (by name, named from their name) before files (by name). The merged pages keep their
files where they are: their content path is ``site_name/path`` (what the plugin publishes, so
links from the site's pages to ``site_name/page.md`` resolve). A project that cannot be merged
(outside the source folder, no ``site_name``, no docs folder, an ``!include`` inside an
included nav, which the plugin refuses) is left out with a warning.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import SCHEME, Context, normalise
from gezel_knowledge.compiler.generators.outline import OutlinePage, OutlineSection

__all__ = ["INCLUDE", "Monorepo"]

INCLUDE = "!include "
_WILDCARD = "*include "
_PLAIN_ALIAS = re.compile(r"^[a-zA-Z0-9_.\-/]+$")


def _slug(name: str) -> str:
    """python-slugify's default: ASCII, lowercase, runs of other characters as one ``-``."""
    ascii_text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def _title(name: str) -> str:
    """MkDocs' ``dirname_to_title``: ``-``/``_`` as spaces, first letter capitalised."""
    title = name.replace("-", " ").replace("_", " ")
    return title[:1].upper() + title[1:] if title.lower() == title else title


class Monorepo:
    """The ``!include`` entries of one site's ``nav`` (see the module docstring)."""

    def __init__(self, ctx: Context, config_file: Path, where: str) -> None:
        self.ctx = ctx
        self.base = config_file.parent
        self.where = where
        self.files: dict[str, Path] = {}
        """Merged pages: content path (``site_name/page.md``) -> file."""

    @staticmethod
    def names(target: str) -> bool:
        """Whether a nav target is an include statement."""
        return target.startswith((INCLUDE, _WILDCARD))

    def section(self, title: str, target: str, order: int, line: int) -> OutlineSection | None:
        """The section an include entry titled ``title`` becomes, or ``None`` (warned)."""
        key = f"{self.where}:{line}"
        if target.startswith(INCLUDE):
            section = OutlineSection(name=title, key=key, order=order)
            if not self._merge(target[len(INCLUDE) :].strip(), section, line):
                return None
            # An untitled entry (``- '!include x/mkdocs.yml'``) is named after its first page.
            first = next((c for c in section.children if isinstance(c, OutlinePage)), None)
            section.title_page = first.path if first is not None and not title else None
            return section
        pattern = target[len(_WILDCARD) :].strip()
        if not pattern.endswith((".yml", ".yaml")) or ".." in Path(pattern).parts:
            self._warn(target, "names no mkdocs.yml inside the site", line)
            return None
        section = OutlineSection(name=title, key=key, order=order)
        inside = self.ctx.source_root.resolve()
        for found in sorted(self.base.glob(pattern.removeprefix("./"))):
            if not found.is_file() or not found.resolve().is_relative_to(inside):
                continue
            name = self._site_name(found)
            if name is None:
                self._warn(target, f"{self.ctx.display(found)} has no site_name", line)
                continue
            child = OutlineSection(
                name=name, key=f"{key}:{found.name}", order=len(section.children)
            )
            if self._merge_file(found, child, target, line):
                section.children.append(child)
        return section if section.children else None

    def _warn(self, target: str, why: str, line: int) -> None:
        self.ctx.warn(
            "outline-entry-outside",
            f"nav entry {target!r} (mkdocs-monorepo-plugin) {why}; left out",
            self.where,
            line,
        )

    def _site_name(self, file: Path) -> str | None:
        name = config.read_data(file, self.ctx.source_root).get("site_name")
        return name.strip() if isinstance(name, str) and name.strip() else None

    def _merge(self, path: str, into: OutlineSection, line: int) -> bool:
        target = normalise(self.base, path, self.ctx.source_root)
        if target is None or SCHEME.match(path) or not target.is_file():
            self._warn(INCLUDE + path, "names no mkdocs.yml inside the source folder", line)
            return False
        return self._merge_file(target, into, INCLUDE + path, line)

    def _merge_file(self, file: Path, into: OutlineSection, target: str, line: int) -> bool:
        """Put the project of ``file`` (its nav, under its alias) into ``into``."""
        data = config.read_data(file, self.ctx.source_root)
        name = self._site_name(file)
        if name is None:
            self._warn(target, f"{self.ctx.display(file)} has no site_name", line)
            return False
        alias = name if _PLAIN_ALIAS.match(name) else _slug(name)
        try:
            docs = config.folder(file.parent, config.string(data.get("docs_dir")), "docs")
        except SourceError:
            docs = None
        if docs is None or not docs.is_dir():
            self._warn(target, f"{self.ctx.display(file)} has no docs folder", line)
            return False
        nav = data.get("nav")
        if isinstance(nav, list):
            return self._entries(nav, docs, alias, into, target=target, line=line)
        self._folder(docs, docs, alias, into)
        return True

    def _entries(
        self,
        nav: list[object],
        docs: Path,
        alias: str,
        into: OutlineSection,
        *,
        target: str,
        line: int,
    ) -> bool:
        for entry in nav:
            title: str | None = None
            value: object = entry
            if isinstance(entry, dict) and len(entry) == 1:
                ((key, value),) = entry.items()
                title = str(key) if key is not None else None
            if isinstance(value, list):
                section = OutlineSection(
                    name=title or "",
                    key=f"{into.key}/{len(into.children)}",
                    order=len(into.children),
                )
                self._entries(value, docs, alias, section, target=target, line=line)
                if section.children:
                    into.children.append(section)
            elif isinstance(value, str):
                if self.names(value):
                    self._warn(value, f"is nested in {target!r}, which the plugin refuses", line)
                    return False
                self._page(value, title, docs, alias, into)
        return True

    def _page(
        self, value: str, title: str | None, docs: Path, alias: str, into: OutlineSection
    ) -> None:
        if SCHEME.match(value):
            return  # an external link: no page
        file = normalise(docs, value.split("#", 1)[0], docs)
        if file is None or not file.is_file() or not self.ctx.is_page(file):
            return  # MkDocs warns of a nav entry naming no file; left out as there
        rel = f"{alias}/{file.relative_to(docs).as_posix()}"
        self.files[rel] = file
        into.children.append(OutlinePage(rel, title, len(into.children), self.where, None))

    def _folder(self, folder: Path, docs: Path, alias: str, into: OutlineSection) -> None:
        """The nav the plugin makes of a docs folder: its folders, then its Markdown files."""
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
        for sub in (p for p in entries if p.is_dir()):
            section = OutlineSection(
                name=_title(sub.name), key=f"{into.key}/{sub.name}", order=len(into.children)
            )
            self._folder(sub, docs, alias, section)
            if section.children:
                into.children.append(section)
        for file in (p for p in entries if p.is_file() and p.suffix == ".md"):
            self._page(file.relative_to(docs).as_posix(), None, docs, alias, into)
