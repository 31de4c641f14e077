"""Markdown structure the compiler needs: lines, blocks, ATX headings, fenced code.

Not a Markdown renderer: just enough of CommonMark's block rules to split a normalised body into
blocks with line spans (spec section 7.2 step 2) and to know which lines are code, so that a
``#`` line inside a fenced code block is never taken for a heading and a link inside code is
never rewritten. Setext headings are ordinary text: the format's sections are opened by ATX
headings only.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "Block",
    "Heading",
    "LineIndex",
    "code_line_mask",
    "headings",
    "normalize_body",
    "parse_blocks",
]

BlockKind = Literal["heading", "fence", "text"]

_ATX = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)(.*)\Z")
_EXPLICIT_ID = re.compile(r"\{#([A-Za-z0-9_][A-Za-z0-9_:.-]*)\}\Z")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)\Z")
# MDX turns indented code off, so a fence may be indented any amount (a fence inside
# `<TabItem>` written four spaces in, closed by a line two spaces in).
_MDX_FENCE_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})(.*)\Z")


def normalize_body(text: str) -> str:
    """Normalise a Markdown body (spec section 7.2 step 1): LF line ends, NFC.

    CRLF and lone CR become LF, a leading byte-order mark is dropped, and a non-empty body ends
    with exactly the newline its last line already had, or one added.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = unicodedata.normalize("NFC", text)
    if text and not text.endswith("\n"):
        text += "\n"
    return text


class LineIndex:
    """Maps character offsets of a body to 1-based line numbers and back."""

    def __init__(self, body: str) -> None:
        starts = [0]
        pos = body.find("\n")
        while pos >= 0:
            starts.append(pos + 1)
            pos = body.find("\n", pos + 1)
        if starts[-1] == len(body) and len(starts) > 1:
            starts.pop()  # the final newline terminates the last line, it does not open one
        self._starts = starts
        self._body = body

    @property
    def count(self) -> int:
        """Number of lines."""
        return 0 if not self._body else len(self._starts)

    def line_of(self, offset: int) -> int:
        """The 1-based line holding character ``offset``."""
        return bisect_right(self._starts, offset)

    def span(self, line: int) -> tuple[int, int]:
        """Start and end offsets of a 1-based line's content (end excludes the newline)."""
        start = self._starts[line - 1]
        end = self._body.find("\n", start)
        return start, len(self._body) if end < 0 else end

    def lines(self) -> list[str]:
        """The lines' contents."""
        return [self._body[s:e] for s, e in (self.span(n) for n in range(1, self.count + 1))]


@dataclass(frozen=True, slots=True)
class Heading:
    """An ATX heading: its level, its text (closing ``#``s and ``{#id}`` removed) and line."""

    depth: int
    text: str
    line: int
    explicit_id: str | None = None


@dataclass(frozen=True, slots=True)
class Block:
    """A run of lines that belongs together: a heading, a fenced code block, or text."""

    kind: BlockKind
    start: int
    end: int
    line_start: int
    line_end: int
    heading: Heading | None = None


def _parse_heading(line: str, number: int) -> Heading | None:
    match = _ATX.match(line)
    if match is None:
        return None
    text = _without_closing(match.group(2).strip(" \t"))
    explicit_id = None
    brace = text.rfind("{#")
    explicit = _EXPLICIT_ID.match(text, brace) if brace >= 0 else None
    if explicit:
        explicit_id = explicit.group(1)
        text = text[:brace]
    return Heading(len(match.group(1)), text.strip(" \t"), number, explicit_id)


def _without_closing(text: str) -> str:
    """``text`` (already stripped) without an ATX closing sequence: a run of ``#`` at the end
    that is the whole text or follows a blank. Stripped from the right, where an expression
    would retry every blank of a long run."""
    hashes = text.rstrip("#")
    if hashes != text and (not hashes or hashes[-1] in " \t"):
        return hashes.rstrip(" \t")
    return text


def _fence_opening(line: str, *, mdx: bool = False) -> str | None:
    match = (_MDX_FENCE_OPEN if mdx else _FENCE_OPEN).match(line)
    if match is None:
        return None
    fence = match.group(1)
    if fence[0] == "`" and "`" in match.group(2):
        return None  # a backtick fence's info string may not contain backticks
    return fence


def _closes(line: str, fence: str, *, mdx: bool = False) -> bool:
    stripped = line.lstrip(" \t" if mdx else " ")
    if len(line) - len(stripped) > 3 and not mdx:
        return False
    run = len(stripped) - len(stripped.lstrip(fence[0]))
    return run >= len(fence) and not stripped[run:].strip(" \t")


def _line(body: str, index: LineIndex, number: int) -> str:
    start, end = index.span(number)
    return body[start:end]


def parse_blocks(body: str, index: LineIndex | None = None, *, mdx: bool = False) -> list[Block]:
    """Split a normalised body into blocks with line spans and character offsets (``mdx``:
    an MDX page, whose fences may be indented any amount)."""
    index = index or LineIndex(body)
    blocks: list[Block] = []
    count = index.count
    number = 1
    while number <= count:
        start, end = index.span(number)
        line = body[start:end]
        if not line.strip(" \t"):
            number += 1
            continue
        heading = _parse_heading(line, number)
        if heading is not None:
            blocks.append(Block("heading", start, end, number, number, heading))
            number += 1
            continue
        fence = _fence_opening(line, mdx=mdx)
        if fence is not None:
            last = number
            probe = number + 1
            while probe <= count:
                last = probe
                if _closes(_line(body, index, probe), fence, mdx=mdx):
                    break
                probe += 1
            blocks.append(Block("fence", start, index.span(last)[1], number, last))
            number = last + 1
            continue
        last = number
        probe = number + 1
        while probe <= count:
            text = _line(body, index, probe)
            if (
                not text.strip(" \t")
                or _parse_heading(text, probe) is not None
                or _fence_opening(text, mdx=mdx) is not None
            ):
                break
            last = probe
            probe += 1
        blocks.append(Block("text", start, index.span(last)[1], number, last))
        number = last + 1
    return blocks


def headings(blocks: Sequence[Block]) -> list[Heading]:
    """The headings among ``blocks``, in order."""
    return [b.heading for b in blocks if b.heading is not None]


def code_line_mask(blocks: Sequence[Block], line_count: int) -> list[bool]:
    """For each line (index 0 is line 1), whether it belongs to a fenced code block."""
    mask = [False] * line_count
    for block in blocks:
        if block.kind == "fence":
            for n in range(block.line_start, block.line_end + 1):
                mask[n - 1] = True
    return mask
