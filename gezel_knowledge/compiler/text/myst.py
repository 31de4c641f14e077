"""MyST Markdown as Sphinx (myst-parser), Jupyter Book and mystmd read it: the targets a page
defines and the ``toctree`` directives it holds.

Targets (labels) a link may name from any page of the project:

- ``(label)=`` on a line of its own (above a heading, a paragraph or a directive);
- a directive's ``:name:`` or ``:label:`` option (figures, tables, code, admonitions...);
- a heading's ``{#label}`` attribute;
- a labelled display equation (``$$ ... $$ (label)``, or ``\\label{name}`` in its math);
- the object a domain directive describes (```` ```{py:class} pkg.Class ````), and each term
  of a ``{glossary}``;
- mystmd's: a page's front matter ``label`` (the whole page), a block's ``+++ {"label": ...}``,
  a notebook cell's ``#| label: name``, and each heading's implicit id (its text lowercased,
  every character other than ``a-z``, ``0-9`` and ``-`` turned into ``-``, runs of ``-``
  folded, ``-`` trimmed, ``id-`` before a leading digit).

Each target names the lines of what it labels: the directive it sits in (or the line itself).
Targets are found in directives too (fenced or colon-fenced), but never in a code block,
whose text is shown, not read.

A ``{toctree}`` directive (```` ``` ````, ``~~~`` or ``:::`` fenced; ``.. toctree::`` in
reStructuredText) gives its options (``:glob:``, ``:caption:``, ``:hidden:``...) and its
entries: ``path``, ``Title <path>``, ``self``, or a URL.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gezel_knowledge.compiler.text.anchors import heading_text

__all__ = ["TocEntry", "Toctree", "directive_lines", "myst_targets", "mystmd_id", "toctrees"]

# Every pattern here runs in time linear in the line: no lazy group is followed by an optional
# run (which would rescan the run from each of its characters); values are taken greedily and
# stripped in code.
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,}|:{3,})(.*)\Z")
_DIRECTIVE = re.compile(r"\{([^{}\s]+)\}[ \t]*(.*)\Z")
_TARGET = re.compile(r" {0,3}\(([^()\s]+)\)=[ \t]*\Z")
_OPTION = re.compile(r"[ \t]*:(name|label):[ \t]+(\S.*)\Z")
_HEADING_START = re.compile(r" {0,3}#{1,6}(?:[ \t]|\Z)")
_ATTRIBUTE_ID = re.compile(r"(?:^|[ \t])#([\w:./-]+)")
_EQUATION = re.compile(r"\$\$[ \t]*\(([^()\s]+)\)\Z")
_LATEX_LABEL = re.compile(r"\\label\{([^{}\s]+)\}")
_DOMAIN = re.compile(
    r"(?:[a-z]+:)?(?:class|function|method|attribute|module|data|exception|"
    r"object|property|decorator|confval|option|envvar|directive|role)\Z"
)
_CODE = frozenset(
    {
        "code",
        "code-block",
        "sourcecode",
        "code-cell",
        "literalinclude",
        "math",
        "raw",
        "eval-rst",
        "mermaid",
        "csv-table",
        "graphviz",
        "plantuml",
    }
)
_RST_TOCTREE = re.compile(r"([ \t]*)\.\.[ \t]+toctree::[ \t]*\Z")
_YAML_OPTION = re.compile(r"[ \t]*(name|label):[ \t]+(\S.*)\Z")
_ANY_OPTION = re.compile(r"[ \t]*:[\w-]+:(?:[ \t]|\Z)")
_CELL_LABEL = re.compile(r"[ \t]*#\|[ \t]*label:[ \t]*(\S+)[ \t]*\Z")
_BLOCK_LABEL = re.compile(r"\"label\"[ \t]*:[ \t]*\"([^\"\n]+)\"")
_RST_OPTION = re.compile(r"[ \t]*:([\w-]+):(?:[ \t](.*))?\Z")


@dataclass(slots=True)
class _Open:
    marker: str
    directive: str | None
    argument: str
    start: int
    labels: list[str] = field(default_factory=list)
    glossary: list[str] = field(default_factory=list)
    options: bool = False
    """Whether the directive's leading ``:key: value`` options are still being read."""
    yaml: bool = False
    """Whether they are inside a ``---`` YAML block."""


def _closes(line: str, fence: _Open) -> bool:
    """Whether ``line`` closes ``fence`` (at any indentation: directives nest in list items
    and in other directives)."""
    stripped = line.strip()
    return len(stripped) >= len(fence.marker) and set(stripped) == {fence.marker[0]}


def _opening(line: str, number: int) -> _Open | None:
    """The fence ``line`` opens: a directive (```` ```{name} argument ````), a code block
    (```` ```python ````), or ``None`` (a colon fence opens directives only)."""
    match = _FENCE.match(line)
    if match is None:
        return None
    marker, info = match.group(1), match.group(2).strip(" \t")
    directive = _DIRECTIVE.match(info)
    if directive is not None:
        return _Open(marker, directive.group(1), directive.group(2).strip(), number)
    if marker[0] == ":" or (marker[0] == "`" and "`" in info):
        return None
    return _Open(marker, None, info, number)


def mystmd_id(text: str) -> str:
    """The id mystmd gives a heading with this rendered text (its implicit target)."""
    label = re.sub(r"[\t\n\r ]+", " ", text)
    label = re.sub(r"['‘’\"“”]+", "", label).strip().lower()
    slug = re.sub(r"[^a-z0-9-]", "-", label)
    slug = re.sub(r"^([0-9-])", r"id-\1", slug)
    return re.sub(r"-{2,}", "-", slug).strip("-")


def _close(fence: _Open, number: int, found: dict[str, tuple[int, int]]) -> None:
    """Record the targets a closed directive defines: they name the whole directive."""
    span = (fence.start, number)
    names = list(fence.labels)
    if _DOMAIN.match(fence.directive or "") and fence.argument:
        names.append(fence.argument.split("(")[0].strip())
    for name in [*names, *fence.glossary]:
        found.setdefault(name, span)


def _option(fence: _Open, line: str) -> bool:
    """Read ``line`` as one of the directive's leading options; whether it was one."""
    if line.strip() == "---":  # a YAML block of options
        fence.yaml = not fence.yaml
        return True
    option = (_YAML_OPTION if fence.yaml else _OPTION).match(line)
    if option is not None:
        fence.labels.append(option.group(2).strip(" \t"))
        return True
    fence.options = fence.yaml or _ANY_OPTION.match(line) is not None
    return False


def _heading(line: str) -> str | None:
    """An ATX heading's text without its closing ``#`` sequence, or ``None``."""
    start = _HEADING_START.match(line)
    if start is None:
        return None
    text = line[start.end() :].strip(" \t")
    bare = text.rstrip("#")
    if bare != text and (not bare or bare[-1] in " \t"):
        text = bare.rstrip(" \t")
    return text


def _line_targets(line: str, number: int, found: dict[str, tuple[int, int]]) -> None:
    """The targets one line defines: ``(label)=``, a heading's ``{#id}``, a labelled
    equation, a ``+++`` block label, ``\\label{name}``."""
    names: list[str] = []
    target = _TARGET.match(line)
    if target is not None:
        names.append(target.group(1))
    stripped = line.rstrip(" \t")
    heading = _heading(stripped) if stripped.endswith("}") else None
    if heading is not None and "{" in heading:
        names += _ATTRIBUTE_ID.findall(heading[heading.rfind("{") + 1 : -1])
    if "$$" in line:
        names += _EQUATION.findall(stripped[stripped.rfind("$$") :])
    if line.lstrip(" ").startswith("+++"):
        names += _BLOCK_LABEL.findall(line)
    if "\\label{" in line:
        names += _LATEX_LABEL.findall(line)
    for name in names:
        found.setdefault(name, (number, number))


def myst_targets(
    body: str, *, front: Mapping[str, Any] | None = None, implicit: bool = False
) -> dict[str, tuple[int, int]]:
    """Every target ``body`` defines and the 1-based lines (inclusive) it names; ``front``:
    the page's front matter, whose ``label`` names the whole page; ``implicit``: headings are
    targets by their mystmd ids too (after every explicit target)."""
    lines = body.split("\n")
    found: dict[str, tuple[int, int]] = {}
    page_label = (front or {}).get("label")
    if isinstance(page_label, str) and page_label.strip():
        found[page_label.strip()] = (1, max(len(lines), 1))
    headings: list[tuple[str, int]] = []
    stack: list[_Open] = []
    for number, line in enumerate(lines, start=1):
        inner = stack[-1] if stack else None
        if inner is not None and _closes(line, inner):
            _close(stack.pop(), number, found)
            continue
        if inner is not None and inner.options and _option(inner, line):
            continue
        if inner is not None and (inner.directive is None or inner.directive in _CODE):
            cell = _CELL_LABEL.match(line)  # a notebook cell's ``#| label: name`` option
            if cell is not None:
                inner.labels.append(cell.group(1))
            continue  # a code block's text is shown, never read (its options are read above)
        opening = _opening(line, number)
        if opening is not None:
            opening.options = opening.directive is not None
            stack.append(opening)
            continue
        if inner is not None and inner.directive == "glossary" and line[:1].strip():
            inner.glossary.append(line.strip())  # a term: definitions are indented
        _line_targets(line, number, found)
        heading = _heading(line) if implicit else None
        if heading:
            headings.append((heading_text(heading), number))
    for text, number in headings:
        ident = mystmd_id(text)
        if ident:
            found.setdefault(ident, (number, number))
    return found


def directive_lines(body: str) -> set[int]:
    """The 1-based lines of ``body`` that are MyST content inside a fenced directive
    (```` ```{note} ````): read as Markdown, though a plain renderer shows a code block.
    Fence lines, leading options and code blocks (``{code-block}``, ```` ```python ````) are
    not."""
    out: set[int] = set()
    stack: list[_Open] = []
    for number, line in enumerate(body.split("\n"), start=1):
        inner = stack[-1] if stack else None
        if inner is not None and _closes(line, inner):
            stack.pop()
            continue
        if inner is not None and inner.options and _option(inner, line):
            continue
        if inner is not None and (inner.directive is None or inner.directive in _CODE):
            continue
        opening = _opening(line, number)
        if opening is not None:
            opening.options = opening.directive is not None
            stack.append(opening)
            continue
        if inner is not None:
            out.add(number)
    return out


@dataclass(frozen=True, slots=True)
class TocEntry:
    """One ``toctree`` entry: its explicit title (if any), target and 1-based line."""

    title: str | None
    target: str
    line: int


@dataclass(frozen=True, slots=True)
class Toctree:
    """One ``toctree`` directive: its options and entries, in order."""

    line: int
    options: dict[str, str]
    entries: tuple[TocEntry, ...]


def _entry(text: str, line: int) -> TocEntry:
    # ``Title <target>``: the last ``<`` opens the target, as Sphinx reads it
    opening = text.rfind("<")
    if text.endswith(">") and opening > 0 and text[:opening].strip():
        return TocEntry(text[:opening].strip(), text[opening + 1 : -1].strip(), line)
    return TocEntry(None, text, line)


def _read_toctree(start: int, content: list[tuple[int, str]]) -> Toctree:
    options: dict[str, str] = {}
    entries: list[TocEntry] = []
    rows = list(content)
    if rows and rows[0][1].strip() == "---":  # a YAML options block
        end = next((i for i, (_, t) in enumerate(rows[1:], 1) if t.strip() == "---"), None)
        if end is not None:
            for _, text in rows[1:end]:
                key, sep, value = text.partition(":")
                if sep:
                    options[key.strip()] = value.strip()
            rows = rows[end + 1 :]
    in_options = True
    for number, text in rows:
        stripped = text.strip()
        if not stripped:
            in_options = False
            continue
        option = _RST_OPTION.match(text) if in_options else None
        if option is not None:
            options[option.group(1)] = (option.group(2) or "").strip(" \t")
            continue
        in_options = False
        if stripped == ".." or stripped.startswith(".. "):
            continue  # a reStructuredText comment (``../page`` is an entry)
        entries.append(_entry(stripped, number))
    return Toctree(start, options, tuple(entries))


def _rst_toctrees(lines: list[str], first: int) -> list[Toctree]:
    """The ``.. toctree::`` directives of reStructuredText ``lines``, the first numbered
    ``first``."""
    found: list[Toctree] = []
    i = 0
    while i < len(lines):
        opening = _RST_TOCTREE.match(lines[i])
        if opening is None:
            i += 1
            continue
        indent = len(opening.group(1))
        j = i + 1
        content: list[tuple[int, str]] = []
        while j < len(lines):
            row = lines[j]
            if row.strip() and len(row) - len(row.lstrip()) <= indent:
                break
            content.append((first + j, row))
            j += 1
        found.append(_read_toctree(first + i, content))
        i = j
    return found


def toctrees(text: str, *, rst: bool = False) -> list[Toctree]:
    """Every ``toctree`` directive of a page's text (MyST Markdown, or reStructuredText when
    ``rst``), in order; in MyST, those of its ``{eval-rst}`` blocks too, which Sphinx parses
    as reStructuredText of the page."""
    lines = text.split("\n")
    if rst:
        return _rst_toctrees(lines, 1)
    found: list[Toctree] = []
    stack: list[_Open] = []
    i = 0
    while i < len(lines):
        inner = stack[-1] if stack else None
        if inner is not None and _closes(lines[i], inner):
            stack.pop()
            i += 1
            continue
        if inner is not None and inner.directive in (None, *_CODE):
            i += 1  # a code block: its text is shown, never read
            continue
        fence = _opening(lines[i], i + 1)
        if fence is None:
            i += 1
            continue
        if fence.directive not in ("toctree", "eval-rst"):
            stack.append(fence)  # other directives hold MyST: a toctree may be inside
            i += 1
            continue
        j = i + 1
        content = []
        while j < len(lines) and not _closes(lines[j], fence):
            content.append((j + 1, lines[j]))
            j += 1
        if fence.directive == "eval-rst":
            found.extend(_rst_toctrees([row for _, row in content], i + 2))
        else:
            found.append(_read_toctree(i + 1, content))
        i = j + 1
    return found
