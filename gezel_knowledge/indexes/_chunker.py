"""The workspace chunker: character-bounded passages with heading context and line ranges.

This is the mutable content index's own contract (``workspace-chars@1``), separate from the
catalog's token-counted ``markdown-chunks@2`` (seed, "From a file to a searchable passage"):

- A passage holds at most ``max_chars`` characters (Python code points, default 4,000) made of
  whole lines; a single longer line is cut at character bounds.
- In Markdown, every ATX heading outside a fenced code block starts a new passage, and a
  heading with no body before the next heading stays with the section that follows it. Each
  passage carries the heading path of its section (for merged headings, the innermost).
- A section longer than ``max_chars`` is split at line boundaries; each continuation repeats
  up to ``overlap`` characters (default 400) of whole trailing lines from the passage before.
- Passages keep their 1-based inclusive line range and the exact ``[char_start, char_end)``
  slice of the text they are; passages that are only whitespace are dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gezel_knowledge.errors import InvalidInput

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DEFAULT_OVERLAP",
    "WORKSPACE_CHUNKER",
    "WorkspaceChunk",
    "chunk_text",
    "markdown_headings",
]

WORKSPACE_CHUNKER = "workspace-chars@1"
DEFAULT_MAX_CHARS = 4000
DEFAULT_OVERLAP = 400

_ATX_OPEN = re.compile(r" {0,3}(#{1,6})")
_ATX_CLOSE_ONLY = re.compile(r"#*[ \t]*\Z")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class WorkspaceChunk:
    """One passage of a workspace file."""

    ordinal: int
    text: str
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int
    char_start: int
    char_end: int


def markdown_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """``(line_index, level, title)`` of each ATX heading outside fenced code blocks."""
    found: list[tuple[int, int, str]] = []
    fence: str | None = None
    for index, line in enumerate(lines):
        stripped = line.rstrip("\r\n")
        fence_match = _FENCE.match(stripped)
        if fence_match:
            marker = fence_match.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif marker.startswith(fence):
                fence = None
            continue
        if fence is not None:
            continue
        heading = _atx_heading(stripped)
        if heading is not None:
            found.append((index, *heading))
    return found


def _atx_heading(line: str) -> tuple[int, str] | None:
    """``(level, title)`` of an ATX heading line, or ``None``.

    The title is the text after the opening hashes with trailing blanks, then a closing run of
    hashes, then blanks removed (the shortest title ``^ {0,3}#{1,6}(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$``
    would capture), found by stripping from the right: a regular expression doing the same
    backtracks quadratically over a long run of blanks.
    """
    opening = _ATX_OPEN.match(line)
    if opening is None:
        return None
    rest = line[opening.end() :]
    if rest and rest[0] not in " \t":
        # Only a closing run of hashes may follow directly ("####### " is a level-6 heading).
        return (len(opening.group(1)), "") if _ATX_CLOSE_ONLY.match(rest) else None
    return len(opening.group(1)), rest.rstrip(" \t").rstrip("#").rstrip(" \t").strip()


def _sections(lines: list[str], markdown: bool) -> list[tuple[int, int, tuple[str, ...]]]:
    """``(first_line, end_line, heading_path)`` sections, heading-only ones merged forward."""
    if not markdown:
        return [(0, len(lines), ())]
    headings = markdown_headings(lines)
    starts = [0] + [h[0] for h in headings if h[0] > 0]
    paths: dict[int, tuple[str, ...]] = {0: ()}
    stack: list[tuple[int, str]] = []
    for index, level, title in headings:
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        paths[index] = tuple(t for _, t in stack)
    heading_lines = {h[0] for h in headings}
    sections: list[tuple[int, int, tuple[str, ...]]] = []
    pending: int | None = None  # first line of heading-only sections waiting for a body
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(lines)
        has_body = any(ln not in heading_lines and lines[ln].strip() for ln in range(start, end))
        first = start if pending is None else pending
        if not has_body and end < len(lines):
            pending = first
            continue
        sections.append((first, end, paths.get(start, ())))
        pending = None
    return sections


def chunk_text(
    text: str,
    *,
    markdown: bool = False,
    max_chars: int = DEFAULT_MAX_CHARS,
    overlap: int = DEFAULT_OVERLAP,
) -> list[WorkspaceChunk]:
    """Split ``text`` into workspace passages (see the module docstring for the contract)."""
    if max_chars <= 0 or not 0 <= overlap < max_chars:
        raise InvalidInput(
            "need max_chars > 0 and 0 <= overlap < max_chars", reason="invalid-argument"
        )
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    out: list[WorkspaceChunk] = []

    def emit(first: int, last: int, start: int, end: int, path: tuple[str, ...]) -> None:
        piece = text[start:end]
        if piece.strip():
            out.append(WorkspaceChunk(len(out), piece, path, first + 1, last + 1, start, end))

    for first, end, path in _sections(lines, markdown):
        i = first
        while i < end:
            j = i
            size = 0
            while j < end and size + len(lines[j]) <= max_chars:
                size += len(lines[j])
                j += 1
            if j == i:  # one line longer than the bound: cut it at character bounds
                line_start = offsets[i]
                line_end = offsets[i + 1]
                step = max_chars - overlap
                pos = line_start
                while True:
                    stop = min(pos + max_chars, line_end)
                    emit(i, i, pos, stop, path)
                    if stop >= line_end:
                        break
                    pos += step
                i += 1
                continue
            emit(i, j - 1, offsets[i], offsets[j], path)
            if j >= end:
                break
            k = j
            carried = 0
            while k - 1 > i and carried + len(lines[k - 1]) <= overlap:
                k -= 1
                carried += len(lines[k])
            i = k
    return out
