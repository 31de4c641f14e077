"""MyST (mystmd, Jupyter Book 2): ``myst.yml``; pages in the project's folder.

Navigation: ``project.toc``, entries in file order: ``file`` (a page; with ``children`` it
leads a section of them), ``title`` with ``children`` (a section), ``pattern`` (the files a
glob matches that no other entry names, index/readme pages first, then in natural order —
``child9`` before ``child10`` — or reversed with ``sort: descending``); ``url`` entries are no
pages and are left out. A ``title`` names the page in the navigation. Pages are Markdown files
and notebooks (``.ipynb``). Without ``toc``, the folder tree (mystmd's implicit table of
contents).

An entry with ``hidden: true`` is built but not in the navigation, and left out.

Metadata: ``project`` (over what the ``extends`` files inside the project say; URLs are never
fetched) ``title``, ``description``, ``authors`` (names or ``{name}``),
``github`` (the publisher and the source URL), ``language`` (else ``en``), ``license`` (an SPDX
id of a common licence, or ``{content: id}``; the notice itself is still the licence file).
The ``toc`` is ``project.toc`` of ``myst.yml``, else of the last ``extends`` file that has one
(``extends: [toc.yml]``), its paths relative to that file. Links: files,
MyST labels (``(label)=``, ``:label:``, headings' implicit ids) and ``#label`` targets of the
whole project (:mod:`~gezel_knowledge.compiler.text.myst`); a link to another file of the
project is a download, kept as written; targets that ``error_rules`` (``rule:
link-resolves``, ``severity: ignore``) lists by ``keys`` are not checked.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import (
    MARKDOWN_SUFFIXES,
    NOTEBOOK,
    SCHEME,
    Context,
    mappings,
    normalise,
    pretty,
    text,
)
from gezel_knowledge.compiler.generators._toc_entry import place_entry
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.metadata.licences import licence_named
from gezel_knowledge.compiler.text.data import YamlNode, load_yaml_nodes
from gezk.manifest import License

__all__ = ["Myst", "natural_key"]

_CONFIGS = ("myst.yml", "myst.yaml")
_DIGITS = re.compile(r"(\d+)")
_INDEX_STEMS = ("index", "readme", "main")


def natural_key(rel: str) -> tuple[tuple[int, object], ...]:
    """A path's sort key in natural order: runs of digits compare by value."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part.lower())
        for part in _DIGITS.split(rel)
        if part
    )


def _authors(value: object) -> list[str]:
    """The author names of ``authors`` (strings, or mappings with a ``name``)."""
    if isinstance(value, str):
        return [value]
    names: list[str] = []
    for item in value if isinstance(value, list) else []:
        name = item.get("name") if isinstance(item, dict) else item
        if isinstance(name, dict):
            name = " ".join(str(v) for k, v in name.items() if k in ("given", "family"))
        if isinstance(name, str) and name.strip():
            names.append(name.strip())
    return names


def _ignored_links(rules: object) -> frozenset[str]:
    """The link targets ``error_rules`` silences (``rule: link-resolves``, ``severity:
    ignore``, ``keys``)."""
    out: set[str] = set()
    for rule in rules if isinstance(rules, list) else []:
        if not isinstance(rule, dict) or rule.get("rule") != "link-resolves":
            continue
        if rule.get("severity") not in ("ignore", "off"):
            continue
        keys = rule.get("keys") or rule.get("key")
        keys = [keys] if isinstance(keys, str) else keys
        out |= {k for k in keys if isinstance(k, str)} if isinstance(keys, list) else set()
    return frozenset(out)


_MAX_EXTENDS = 8


def _licence(value: object) -> License | None:
    """The licence ``project.license`` names: an SPDX id, or ``{content: id, code: id}``
    (the content's licence is the documents')."""
    if isinstance(value, dict):
        value = value.get("content")
    return licence_named(value) if isinstance(value, str) else None


def _toc(file: Path, root: Path, depth: int = 0) -> tuple[YamlNode, Path] | None:
    """``project.toc`` and the file holding it: ``file``'s own, else the last one its
    ``extends`` files inside ``root`` give (mystmd merges them under the file; a URL is never
    read). Its paths are relative to the file holding it."""
    nodes = load_yaml_nodes(config.read_text(file, root), path=file.name)
    data = nodes.value if isinstance(nodes.value, dict) else {}
    project = data.get("project")
    own = project.value.get("toc") if project and isinstance(project.value, dict) else None
    if own is not None:
        return own, file
    extends = data.get("extends")
    bases = (
        [extends.value]
        if extends is not None and isinstance(extends.value, str)
        else [b.value for b in extends.value]
        if extends is not None and isinstance(extends.value, list)
        else []
    )
    found = None
    for base in bases:
        if not isinstance(base, str) or SCHEME.match(base) or depth >= _MAX_EXTENDS:
            continue
        target = normalise(file.parent, base, root)
        if target is not None and target.is_file():
            found = _toc(target, root, depth + 1) or found
    return found


def _project(file: Path, root: Path, depth: int = 0) -> dict[str, Any]:
    """``project`` of a ``myst.yml``, over what the files it ``extends`` inside ``root`` say
    (a URL or a file outside ``root`` is never read)."""
    data = config.read_data(file, root)
    extends = data.get("extends")
    bases = [extends] if isinstance(extends, str) else extends if isinstance(extends, list) else []
    merged: dict[str, Any] = {}
    for base in bases:
        if not isinstance(base, str) or SCHEME.match(base) or depth >= _MAX_EXTENDS:
            continue
        target = normalise(file.parent, base, root)
        if target is not None and target.is_file():
            merged.update(_project(target, root, depth + 1))
    merged.update(config.mapping(data.get("project")))
    return merged


class Myst(Generator):
    """mystmd (Jupyter Book 2)."""

    name = "myst"
    described_as = "a MyST project"
    marker = "myst.yml"
    page_suffixes = (*MARKDOWN_SUFFIXES, NOTEBOOK)

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = next((root / n for n in _CONFIGS if (root / n).is_file()), None)
        if file is None:
            return None
        project = _project(file, root)
        github = config.string(project.get("github"))
        if github and "://" not in github and github.count("/") == 1:
            github = f"https://github.com/{github}"  # mystmd takes ``owner/repo`` too
        toc = _toc(file, root)
        metadata = config.site_metadata(
            project.get("title"),
            project.get("description"),
            project.get("language"),
            config.absolute_url(github),
            config.publisher(github, _authors(project.get("authors")) or None),
        )
        return Site(
            self,
            file,
            root,
            replace(metadata, license=_licence(project.get("license"))),
            LinkStyle(myst_labels="mystmd", ignored=_ignored_links(project.get("error_rules"))),
            outline_file=toc[1] if toc is not None else None,
            nav=toc[0] if toc is not None else None,
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        if site.config is None:
            return None
        project = _project(site.config, site.content_root)
        excluded = project.get("exclude")
        patterns = [excluded] if isinstance(excluded, str) else excluded
        exclude = (
            tuple(p for p in patterns if isinstance(p, str)) if isinstance(patterns, list) else ()
        )
        if site.outline_file is None or site.nav is None:
            return _implicit(ctx, site.config, exclude)
        return _MystToc(ctx, site.outline_file, site.nav, exclude).outline()


def _skipped(ctx: Context, path: Path, exclude: tuple[str, ...]) -> bool:
    """Whether mystmd leaves ``path`` out: hidden, ``_build``, ``node_modules``, or
    ``project.exclude``."""
    rel = ctx.rel(path)
    parts = rel.split("/")
    if any(p.startswith(".") or p in ("_build", "node_modules") for p in parts):
        return True
    return ctx.excluded(path) or any(fnmatch.fnmatchcase(rel, e) for e in exclude)


def _implicit(ctx: Context, file: Path, exclude: tuple[str, ...]) -> Outline:
    """mystmd's implicit table of contents: the root page (``index``, ``README`` or
    ``main``, Markdown before notebooks, else the first page), then in each folder its files
    before its folders, in natural order, case aside; a folder is a section."""
    where = ctx.display(file)
    root = OutlineSection(name="", key=where)
    top = [
        p
        for p in ctx.content_root.iterdir()
        if p.is_file() and ctx.is_page(p) and not _skipped(ctx, p, exclude)
    ]
    first = None
    for suffix in (*MARKDOWN_SUFFIXES, NOTEBOOK):
        named = [p for p in top if p.suffix.lower() == suffix and p.stem.lower() in _INDEX_STEMS]
        first = first or min(named, key=lambda p: _INDEX_STEMS.index(p.stem.lower()), default=None)
    if first is None:
        first = min(
            (p for p in top if p.suffix.lower() in MARKDOWN_SUFFIXES),
            key=lambda p: natural_key(p.name),
            default=None,
        )
    if first is not None:
        root.children.append(OutlinePage(ctx.rel(first), None, 0, where, None))
    _folder(ctx, ctx.content_root, root, exclude, {first} if first else set())
    return Outline("myst", root, where, interleaved_root=True)


def _folder(
    ctx: Context, folder: Path, into: OutlineSection, exclude: tuple[str, ...], done: set[Path]
) -> None:
    entries = sorted(
        (p for p in folder.iterdir() if not _skipped(ctx, p, exclude) and not p.is_symlink()),
        key=lambda p: natural_key(p.name),
    )
    for entry in entries:
        if entry.is_file() and ctx.is_page(entry) and entry not in done:
            where = ctx.display(entry)
            into.children.append(OutlinePage(ctx.rel(entry), None, len(into.children), where, None))
    for entry in entries:
        if entry.is_dir():
            name, _ = pretty(entry.name)
            section = OutlineSection(name=name, key=ctx.rel(entry) + "/", order=len(into.children))
            _folder(ctx, entry, section, exclude, done)
            if section.children:
                into.children.append(section)


class _MystToc:
    """A ``project.toc``: its pages, sections and patterns."""

    def __init__(self, ctx: Context, file: Path, toc: YamlNode, exclude: tuple[str, ...]) -> None:
        self.ctx = ctx
        self.file = file
        self.toc = toc
        self.exclude = exclude
        self.where = ctx.display(file)
        self.listed: set[str] = set()

    def outline(self) -> Outline:
        self.listed = self._named_files(self.toc)
        root = OutlineSection(name="", key=self.where)
        self.entries(self.toc, root)
        return Outline("myst", root, self.where, interleaved_root=True)

    def _named_files(self, node: YamlNode) -> set[str]:
        """Every file an entry names, so a pattern leaves them to their own entries."""
        found: set[str] = set()
        if not isinstance(node.value, list):
            return found
        for item in node.value:
            if not isinstance(item.value, dict):
                continue
            target = text(item.value, "file")
            if target:
                path = self.ctx.content_root / target.lstrip("/")
                if path.is_file():
                    found.add(self.ctx.rel(path))
            children = item.value.get("children")
            if children is not None:
                found |= self._named_files(children)
        return found

    def entries(self, node: YamlNode, into: OutlineSection) -> None:
        for entry, fields in mappings(node, "toc", "toc entry", self.where):
            if (text(fields, "hidden") or "").lower() == "true":
                continue  # built, but not in the navigation
            if "pattern" in fields:
                self.pattern(fields, entry.line, into)
                continue
            if "file" not in fields and "children" not in fields:
                continue  # a url entry: no page
            self.entry(entry.line, fields, into)

    def entry(self, line: int, fields: dict[str, YamlNode], into: OutlineSection) -> None:
        title = text(fields, "title")
        page = None
        if "file" in fields:
            target = fields["file"].text()
            if target is None:
                raise SourceError(
                    "file must be a path",
                    reason="invalid-outline",
                    path=self.where,
                    line=fields["file"].line,
                )
            path = self.ctx.page(
                self.file.parent, target, origin=self.file, line=fields["file"].line
            )
            if path is not None:
                page = OutlinePage(path, title, 0, self.where, fields["file"].line)
        children = fields.get("children")
        key = f"{self.where}:{line}"
        section = place_entry(into, page, title, key=key, nests=children is not None)
        if section is not None and children is not None:
            self.entries(children, section)

    def pattern(self, fields: dict[str, YamlNode], line: int, into: OutlineSection) -> None:
        """The pages a ``pattern`` matches that no entry names, index pages first, in natural
        order (reversed by ``sort: descending``)."""
        glob = (text(fields, "pattern") or "").lstrip("/")
        matches = [
            self.ctx.rel(p)
            for p in self.file.parent.glob(glob)
            if p.is_file() and self.ctx.is_page(p) and not _skipped(self.ctx, p, self.exclude)
        ]
        fresh = [m for m in matches if m not in self.listed]
        descending = (text(fields, "sort") or "").lower() == "descending"
        fresh.sort(key=natural_key, reverse=descending)
        fresh.sort(key=lambda rel: Path(rel).stem.lower() not in _INDEX_STEMS)
        for rel in fresh:
            self.listed.add(rel)
            into.children.append(OutlinePage(rel, None, len(into.children), self.where, line))
