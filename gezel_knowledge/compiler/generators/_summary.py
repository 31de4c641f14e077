"""``SUMMARY.md`` outlines: mdBook's and GitBook's.

Both are Markdown lists of links, read line by line:

- a level-1 heading on the file's first line is its title (``# Summary``) and is skipped;
  every other heading is a part title, a topic holding the list items that follow it (mdBook writes
  ``# Part``, GitBook ``## Part``);
- list items nest by indentation; an item with nested items is a section (a topic) whose own
  link, when it has one, is its first page;
- a link on a line of its own, outside any list, is a prefix chapter (before the first list)
  or a suffix chapter (after it): a page of the root topic, as mdBook shows it, outside every
  part;
- a draft chapter (``[Title]()``, a link to no file) has no page; its nested items, if any,
  still form a section. mdBook shows drafts (an entry without a link), so they are left out
  silently; elsewhere with a ``draft-chapter`` warning;
- a link title (``[Page](page.md "Sidebar title")``) is only GitBook's sidebar wording: the
  link text, the page's main title, is the label;
- an entry naming a file outside the content folder is left out with an
  ``outline-entry-outside`` warning (the build never reads it);
- separators (``---``) are ignored;
- a reference link (``[Plugins][plugins]``, ``[Plugins][]``, ``[Plugins]``) names the target
  of the file's link reference definition of that label (``[plugins]: ./plugins/plugins.md``,
  labels matched case-insensitively), as the Markdown parsers of both read it.

The file is untrusted input: each line is read in time linear in its length (the link and
heading rules below do what a regular expression would, without its backtracking), and list
items nest at most :data:`~gezel_knowledge._untrusted.MAX_NESTING` deep (``too-deep``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from gezel_knowledge._untrusted import MAX_NESTING
from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators._context import SCHEME, Context, normalise
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import read_text_file

__all__ = ["find_link", "summary_outline", "summary_targets"]

_LIST_ITEM = re.compile(r"(\s*)[*+-]\s+(.*)\Z")
_SEPARATOR = re.compile(r" {0,3}([-*_])(?:\s*\1){2,}\s*\Z")
_HEADING_OPEN = re.compile(r" {0,3}(#+)\s")
_TARGET = re.compile(r"\(\s*<?([^)>]*?)>?\s*\)")
# A link reference definition, and a reference link's text and label (one pass each: the
# bracketed parts hold no bracket, only escaped ones).
_DEFINITION = re.compile(r" {0,3}\[((?:[^\[\]\\]|\\.)+)\]:[ \t]*<?([^\s>]+)>?")
_REFERENCE = re.compile(r"\[((?:[^\[\]\\]|\\.)*)\](?:\[((?:[^\[\]\\]|\\.)*)\])?")
# A target followed by a quoted link title: ``page.md "Sidebar title"``.
_TITLED = re.compile(r"(\S+)\s+(?:\"([^\"]*)\"|'([^']*)')\Z")


@dataclass(frozen=True, slots=True)
class _Link:
    """A ``[label](target)`` on a line: the first ``[`` to the last ``](`` that is followed by
    a target, as ``\\[(.*)\\]\\(\\s*<?([^)>]*?)>?\\s*\\)`` would find it."""

    label: str
    target: str


def find_link(line: str) -> tuple[str, str] | None:
    """``(label, target)`` of the first Markdown link of a list line, as SUMMARY.md reads it."""
    found = _find_link(line)
    return None if found is None else (found.label, found.target)


def _find_link(line: str) -> _Link | None:
    """The link of a SUMMARY.md line, in one pass from the right: which ``](`` can start a
    target is known from where the next ``)`` and ``>`` are, so no candidate is scanned twice."""
    opening = line.find("[")
    if opening < 0:
        return None
    # nxt[i]: the first ")" or ">" at or after i; after_gt[i]: whether a ">" at i is followed
    # by blanks and a ")".
    n = len(line)
    nxt = [n] * (n + 1)
    closes_after = [False] * (n + 1)
    for i in range(n - 1, -1, -1):
        ch = line[i]
        nxt[i] = i if ch in ")>" else nxt[i + 1]
        if ch == ")":
            closes_after[i] = True
        elif ch.isspace():
            closes_after[i] = closes_after[i + 1]
    candidate = line.rfind("](", opening + 1)
    while candidate >= 0:
        stop = nxt[candidate + 2]
        if stop < n and (line[stop] == ")" or closes_after[stop + 1]):
            match = _TARGET.match(line, candidate + 1)
            if match is not None:
                return _Link(line[opening + 1 : candidate], match.group(1))
        candidate = line.rfind("](", opening + 1, candidate + 1)
    return None


def _label(text: str) -> str:
    """A reference label as Markdown matches it: case and inner whitespace aside."""
    return " ".join(text.split()).casefold()


def _definitions(text: str) -> dict[str, str]:
    """The link reference definitions of a SUMMARY.md (the first of a label wins)."""
    found: dict[str, str] = {}
    for line in text.split("\n"):
        match = _DEFINITION.match(line)
        if match is not None:
            found.setdefault(_label(match.group(1)), match.group(2))
    return found


def _find_any_link(line: str, definitions: dict[str, str]) -> _Link | None:
    """The line's inline link, else its reference link to a defined label."""
    found = _find_link(line)
    if found is not None or not definitions or _DEFINITION.match(line):
        return found
    for match in _REFERENCE.finditer(line):
        target = definitions.get(_label(match.group(2) or match.group(1)))
        if target is not None:
            return _Link(match.group(1), target)
    return None


def _heading(line: str) -> tuple[str, str] | None:
    """``(hashes, title)`` of a heading line, as ``" {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*\\Z"``
    reads it: the title loses trailing blanks, a closing run of ``#`` and the blanks before
    it (stripped from the right, not retried blank by blank)."""
    opening = _HEADING_OPEN.match(line)
    if opening is None or len(opening.group(1)) > 6:
        return None
    rest = line[opening.end() :]
    return opening.group(1), rest.rstrip().rstrip("#").rstrip().lstrip()


@dataclass(slots=True)
class _Item:
    label: str
    page: OutlinePage | None
    line: int
    children: list[_Item] = field(default_factory=list)
    linked: bool = False
    """Whether it has a link (to a page, a URL, a missing file or no file: a draft)."""


@dataclass(slots=True)
class _Part:
    """Items under one part title (or before any, when ``name`` is empty)."""

    name: str
    line: int
    items: list[_Item] = field(default_factory=list)


class _Summary:
    """One SUMMARY.md read into parts of nested items, and the root's own chapters."""

    def __init__(self, ctx: Context, summary: Path, *, drafts_shown: bool) -> None:
        self.ctx = ctx
        self.summary = summary
        self.drafts_shown = drafts_shown
        self.where = ctx.display(summary)
        self.parts: list[_Part] = [_Part("", 0)]
        self.prefix: list[_Item] = []
        self.suffix: list[_Item] = []
        self.definitions: dict[str, str] = {}

    def link(self, content: str, number: int) -> _Item:
        """A list item's or a chapter line's text as an item (its page, if it names one)."""
        found = _find_any_link(content, self.definitions)
        if found is None:
            return _Item(content, None, number)
        label = found.label.strip()
        target = found.target.strip()
        titled = _TITLED.match(target)
        if titled is not None:
            target = titled.group(1)  # the quoted link title is the sidebar's wording only
        if not target:
            if not self.drafts_shown:
                self.ctx.warn(
                    "draft-chapter",
                    f"draft chapter {label!r} has no file yet; left out",
                    self.where,
                    number,
                )
            return _Item(label, None, number, linked=True)
        if _outside(target, self.summary.parent, self.ctx.content_root):
            self.ctx.warn(
                "outline-entry-outside",
                f"outline entry {target!r} is outside the content folder; left out",
                self.where,
                number,
            )
            return _Item(label, None, number, linked=True)
        path = self.ctx.page(self.summary.parent, target, origin=self.summary, line=number)
        page = None if path is None else OutlinePage(path, label or None, None, self.where, number)
        return _Item(label, page, number, linked=True)

    def read(self) -> None:
        text = read_text_file(self.summary, where=self.where, within=self.ctx.source_root).replace(
            "\r\n", "\n"
        )
        self.definitions = _definitions(text)
        stack: list[tuple[int, _Item]] = []
        first_content = True
        listed = False
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            heading = _heading(line)
            if heading:
                if not (first_content and heading[0] == "#"):
                    self.parts.append(_Part(heading[1], number))
                    stack = []
                first_content = False
                continue
            first_content = False
            if _SEPARATOR.match(line):
                continue
            item = _LIST_ITEM.match(line)
            if item is None:
                if _find_any_link(line, self.definitions) is not None:
                    # A chapter outside any list: a prefix or suffix chapter.
                    (self.suffix if listed else self.prefix).append(self.link(line.strip(), number))
                    stack = []
                continue
            listed = True
            indent = len(item.group(1).expandtabs(4))
            node = self.link(item.group(2).strip(), number)
            while stack and stack[-1][0] >= indent:
                stack.pop()
            if len(stack) >= MAX_NESTING:
                raise SourceError(
                    f"list items nest deeper than {MAX_NESTING} levels",
                    reason="too-deep",
                    path=self.where,
                    line=number,
                )
            (stack[-1][1].children if stack else self.parts[-1].items).append(node)
            stack.append((indent, node))

    def sections(self, items: list[_Item], into: OutlineSection) -> None:
        """Items into ``into``: an item with children is a section led by its own page."""
        for item in items:
            position = len(into.children)
            item.children = [c for c in item.children if _has_pages(c)]
            if item.children:
                section = OutlineSection(
                    name=item.label or (item.page.path if item.page else "Untitled"),
                    key=f"{self.where}:{item.line}",
                    order=position,
                )
                if item.page is not None:
                    item.page.order = 0
                    section.children.append(item.page)
                self.sections(item.children, section)
                into.children.append(section)
            elif item.page is not None:
                item.page.order = position
                into.children.append(item.page)
            elif not item.linked:
                self.ctx.warn(
                    "empty-outline-entry",
                    f"outline entry {item.label!r} has no page and no children",
                    self.where,
                    item.line,
                )

    def outline(self, kind: str, first_page: str | None) -> Outline:
        root = OutlineSection(name="", key=self.where)
        if first_page is not None and not any(_lists(i, first_page) for i in self._items()):
            root.children.append(OutlinePage(first_page, None, 0, self.where, None))
        self.sections(self.prefix, root)
        self.sections(self.parts[0].items, root)
        for part in self.parts[1:]:
            section = OutlineSection(
                name=part.name, key=f"{self.where}:{part.line}", order=len(root.children)
            )
            self.sections(part.items, section)
            root.children.append(section)
        self.sections(self.suffix, root)
        return Outline(kind, root, self.where, interleaved_root=True)

    def _items(self) -> list[_Item]:
        """Every top-level item: prefix chapters, each part's items, suffix chapters."""
        return [*self.prefix, *(i for part in self.parts for i in part.items), *self.suffix]


def _outside(target: str, base: Path, root: Path) -> bool:
    """Whether a file target (not a URL) leaves ``root``."""
    if SCHEME.match(target):
        return False
    path = unquote(target.split("#", 1)[0].split("?", 1)[0]).strip()
    return bool(path) and normalise(base, path, root) is None


def _lists(item: _Item, page: str) -> bool:
    """Whether ``item`` or one nested in it is ``page``."""
    return (item.page is not None and item.page.path == page) or any(
        _lists(c, page) for c in item.children
    )


def _has_pages(item: _Item) -> bool:
    """Whether an item, or one nested in it, is a page (drafts and missing files are not)."""
    return item.page is not None or any(_has_pages(c) for c in item.children)


def summary_targets(text: str) -> list[str]:
    """The file targets a ``SUMMARY.md`` text links to (URLs and drafts left out), in order."""
    targets = []
    definitions = _definitions(text)
    for line in text.split("\n"):
        found = _find_any_link(line, definitions)
        if found is None:
            continue
        target = found.target.strip()
        titled = _TITLED.match(target)
        target = unquote((titled.group(1) if titled else target).split("#", 1)[0]).strip()
        if target and not SCHEME.match(target):
            targets.append(target)
    return targets


def summary_outline(
    ctx: Context,
    summary: Path,
    kind: str,
    *,
    drafts_shown: bool = False,
    first_page: str | None = None,
) -> Outline:
    """The outline a ``SUMMARY.md`` describes (``kind``: ``mdbook`` or ``gitbook``):
    ``drafts_shown`` when the generator shows draft chapters (no warning), ``first_page`` a
    content-relative page put first when the file does not list it (GitBook's readme)."""
    ctx.reserved.add(summary.resolve())
    found = _Summary(ctx, summary, drafts_shown=drafts_shown)
    found.read()
    return found.outline(kind, first_page)
