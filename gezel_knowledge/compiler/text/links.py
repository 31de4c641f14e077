"""Finding and rewriting link targets in Markdown bodies.

Covers inline links and images (``[text](target "title")``, ``![alt](target)``, and Hugo's
``[text]({{< ref "page.md" >}})``), reference definitions (``[label]: target``; a footnote
definition, ``[^note]: text``, is none) and HTML
``<img src="...">``. Targets inside fenced code
blocks and inline code spans are left alone. Only the target is replaced; the link text, the
title and the line structure of the body stay as they were, so line numbers computed before a
rewrite still hold after it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gezel_knowledge.compiler.text.blocks import Block, LineIndex, code_line_mask, parse_blocks
from gezel_knowledge.compiler.text.myst import directive_lines

__all__ = ["LinkRef", "find_links", "normalise_path", "rewrite_links", "unused_definitions"]

# Destination: <...>, a Hugo ref/relref shortcode, or a run without spaces, allowing one level
# of balanced parentheses.
# A link opens at a "[" no backslash escapes: a scan from there passes escaped brackets, so
# starting again at each of them would read the same text once per bracket.
_INLINE = re.compile(
    r"(!?)(?<!\\)\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]"
    r"\(\s*(<[^<>\n]*>|\{\{[<%]\s*(?:rel)?ref\s[^{}\n]*?[>%]\}\}"
    r"|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
)
# A definition whose label starts with "^" is a footnote (GitHub, MyST, Python-Markdown,
# mdBook, goldmark all read it so), not a link.
_DEFINITION = re.compile(r" {0,3}\[(?!\^)(?:[^\]\\]|\\.)+\]:[ \t]*(<[^<>\n]*>|\S+)")
# Within one tag: the scan from an "<img" stops at the next "<", never reading the next tag's.
# The `src` attribute itself, after whitespace: not Vue's bound `:src` / `v-bind:src` (a
# JavaScript expression VitePress evaluates) nor `data-src`.
_IMG_SRC = re.compile(r"<img\b[^<>]*?\ssrc\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", re.IGNORECASE)
_BACKTICKS = re.compile(r"`+")
# A definition cannot interrupt a paragraph (CommonMark): it opens a block, or follows a line
# after which one may start: a blank, a heading, a thematic break, a definition or footnote.
_BLOCK_LINE = re.compile(r" {0,3}(?:#{1,6}(?:[ \t]|\Z)|(?:[-*_][ \t]*){3,}\Z|\[\^[^\]]+\]:)")


@dataclass(frozen=True, slots=True)
class LinkRef:
    """One link target in a body: its character span, raw text, line, and whether an image."""

    start: int
    end: int
    target: str
    line: int
    image: bool
    html: bool = False
    """Whether it is a raw HTML ``<img src>`` (which Markdown renderers pass through as is)."""
    label: str | None = None
    """The label of a link reference definition (``[label]: target``), ``None`` otherwise."""


def _mask_code_spans(line: str) -> str:
    """``line`` with the content of inline code spans replaced by spaces (same length)."""
    out = list(line)
    pos = 0
    while True:
        opening = _BACKTICKS.search(line, pos)
        if opening is None:
            break
        run = opening.group(0)
        closing = None
        probe = opening.end()
        while True:
            candidate = _BACKTICKS.search(line, probe)
            if candidate is None:
                break
            if candidate.group(0) == run:
                closing = candidate
                break
            probe = candidate.end()
        if closing is None:
            pos = opening.end()
            continue
        for i in range(opening.start(), closing.end()):
            out[i] = " "
        pos = closing.end()
    return "".join(out)


_MYST_COMMENT = re.compile(r" {0,3}%")


def find_links(
    body: str,
    index: LineIndex | None = None,
    blocks: Sequence[Block] | None = None,
    *,
    myst: bool = False,
) -> list[LinkRef]:
    """Every link target of a normalised body outside code, in order (``blocks``: the body's
    :func:`parse_blocks`, when the caller has them already; ``myst``: the content of MyST
    directives fenced like code, ```` ```{note} ````, is Markdown, not code; a ``%`` comment
    line holds none)."""
    index = index or LineIndex(body)
    if blocks is None:
        blocks = parse_blocks(body, index)
    code = code_line_mask(blocks, index.count)
    _mask_indented_fences(body, index, code)
    if myst:
        _mask_myst(body, index, code)
    refs: list[LinkRef] = []
    # A definition cannot interrupt a paragraph: it opens a block, or follows another.
    may_define = True
    in_comment = False
    for number in range(1, index.count + 1):
        if code[number - 1]:
            may_define = True
            continue
        start, end = index.span(number)
        line = body[start:end]
        opens = may_define
        may_define = not line.strip() or bool(_BLOCK_LINE.match(line))
        if not in_comment and "<!--" not in line and "[" not in line and "<img" not in line.lower():
            continue
        masked, in_comment = _mask_comments(_mask_code_spans(line), in_comment)
        for match in _INLINE.finditer(masked):
            s, e = match.span(2)
            refs.append(_ref(line, start, s, e, number, image=match.group(1) == "!"))
            if match.group(1) != "!" and "![" in masked[match.start() : s]:
                span = (match.start() + 1, s)
                refs += _images_in_text(line, masked, start, span=span, number=number)
        definition = _DEFINITION.match(masked) if opens else None
        if definition:
            may_define = True
            s, e = definition.span(1)
            label = masked[masked.index("[") + 1 : masked.index("]:")]
            ref = _ref(line, start, s, e, number, image=False)
            refs.append(LinkRef(ref.start, ref.end, ref.target, number, False, label=label))
        for match in _IMG_SRC.finditer(masked):
            group = 1 if match.group(1) is not None else 2
            s, e = match.span(group)
            refs.append(LinkRef(start + s, start + e, line[s:e], number, image=True, html=True))
    refs.sort(key=lambda r: r.start)
    return refs


def _mask_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    """``line`` with what HTML comments hold (``<!-- ... -->``, over lines too) blanked, as
    no renderer shows it, and whether a comment is still open at its end."""
    out: list[str] = []
    i = 0
    while i < len(line):
        if in_comment:
            close = line.find("-->", i)
            stop = len(line) if close < 0 else close + 3
            out.append(" " * (stop - i))
            in_comment, i = close < 0, stop
        else:
            opening = line.find("<!--", i)
            if opening < 0:
                out.append(line[i:])
                break
            out.append(line[i:opening])
            in_comment, i = True, opening
    return "".join(out), in_comment


def _mask_myst(body: str, index: LineIndex, code: list[bool]) -> None:
    """Unmask the content of MyST directives fenced like code (Markdown, not code), and mask
    MyST comment lines."""
    for number in directive_lines(body):
        if number <= index.count:
            code[number - 1] = False
    # A MyST comment: a line whose first character (after up to 3 spaces) is % is never
    # rendered, and it interrupts a paragraph, so its links are no links.
    for number in range(1, index.count + 1):
        start, end = index.span(number)
        if _MYST_COMMENT.match(body, start, end):
            code[number - 1] = True


def _images_in_text(
    line: str, masked: str, start: int, *, span: tuple[int, int], number: int
) -> list[LinkRef]:
    """The images in a link's text (``[![badge](b.svg)](url)``): the page's images too."""
    found = []
    for inner in _INLINE.finditer(masked, *span):
        if inner.group(1) == "!":
            s, e = inner.span(2)
            found.append(_ref(line, start, s, e, number, image=True))
    return found


_INDENTED_FENCE = re.compile(r"(?: {4,}|\t[ \t]*)(`{3,}|~{3,})")


def _mask_indented_fences(body: str, index: LineIndex, code: list[bool]) -> None:
    """Mark as code the fenced blocks indented four spaces or more, inside list items and
    the indented containers of Python-Markdown (admonitions, ``=== "tab"`` blocks), which
    every renderer reads as fences there: from the opening line through the first closing
    run of the same character at least as long. An opening without a closing marks nothing."""
    count = index.count
    # The shortest run of each character that found no closing: a longer one after it finds
    # none either, so it is not searched again (the scan stays near linear on hostile text).
    unclosed: dict[str, int] = {}
    number = 1
    while number <= count:
        if code[number - 1]:
            number += 1
            continue
        start, end = index.span(number)
        opening = _INDENTED_FENCE.match(body, start, end)
        run = opening.group(1) if opening is not None else ""
        if not run or len(run) >= unclosed.get(run[0], len(run) + 1):
            number += 1
            continue
        closer = re.compile(rf"[ \t]*{re.escape(run[0])}{{{len(run)},}}[ \t]*\Z")
        probe = number + 1
        while probe <= count:
            s, e = index.span(probe)
            if closer.match(body[s:e]):
                break
            probe += 1
        if probe > count:
            unclosed[run[0]] = len(run)
            number += 1
            continue
        for n in range(number, probe + 1):
            code[n - 1] = True
        number = probe + 1


def _ref(line: str, line_start: int, s: int, e: int, number: int, *, image: bool) -> LinkRef:
    text = line[s:e]
    if text.startswith("<") and text.endswith(">"):
        return LinkRef(line_start + s + 1, line_start + e - 1, text[1:-1], number, image)
    return LinkRef(line_start + s, line_start + e, text, number, image)


def rewrite_links(body: str, links: Sequence[LinkRef], replacements: Mapping[int, str]) -> str:
    """Replace the targets of ``links`` whose start offset is in ``replacements``."""
    pieces: list[str] = []
    cursor = 0
    for link in links:
        new = replacements.get(link.start)
        if new is None:
            continue
        pieces.append(body[cursor : link.start])
        pieces.append(new)
        cursor = link.end
    pieces.append(body[cursor:])
    return "".join(pieces)


def normalise_path(parts: Iterable[str]) -> str | None:
    """Path segments with ``.`` and ``..`` applied, joined by ``/``; ``None`` above the root."""
    out: list[str] = []
    for part in parts:
        if part in ("", "."):
            continue
        if part == "..":
            if not out:
                return None
            out.pop()
        else:
            out.append(part)
    return "/".join(out)


_BRACKETED = re.compile(r"\[([^\[\]]*)\]")


def unused_definitions(links: list[LinkRef], body: str) -> frozenset[int]:
    """The start offsets of the reference definitions in ``links`` that no reference in
    ``body`` uses (``[text][label]``, ``[label][]``, ``[label]``): renderers drop them, so
    their targets are never links of the page. Labels match case and runs of whitespace
    aside, as CommonMark's do."""
    if all(link.label is None for link in links):
        return frozenset()
    seen = Counter(" ".join(m.group(1).split()).casefold() for m in _BRACKETED.finditer(body))
    return frozenset(
        link.start
        for link in links
        # The definition's own "[label]" is one of them.
        if link.label is not None and seen[" ".join(link.label.split()).casefold()] < 2
    )
