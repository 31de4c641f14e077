"""``pymdownx.snippets``: files an MkDocs page includes before it is rendered.

A line ``--8<-- "file.md"`` (any indentation, single or double quotes, any number of dashes
either side: ``---8<--``) is replaced by the
file's lines, indented as the line was; a block of file names between two ``--8<--`` lines
includes each. A file name is looked for in each ``base_path`` (the folder MkDocs runs in,
``.``, by default); one that is not found, a URL, or one outside the source folder includes
nothing, as the extension does without ``check_paths``. A line escaped as ``;--8<--`` keeps
its text without the ``;``. Included files are expanded in turn, at most
:data:`MAX_DEPTH` deep, never into themselves, and at most
:data:`._budget.MAX_EXPANDED` characters in all (past it a snippet includes nothing).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators._budget import Budget
from gezel_knowledge.compiler.text.data import read_text_file

__all__ = ["MAX_DEPTH", "expand_snippets"]

MAX_DEPTH = 4
_MARK = "--8<--"
# The extension takes any number of dashes either side of the scissors (``---8<--``).
_SCISSORS = "8<-"
_LINE = re.compile(r"([ \t]*)(;?)-+8<-+[ \t]+(['\"])([^'\"\n]+)\3[ \t]*\Z")
_BLOCK = re.compile(r"([ \t]*)-+8<-+[ \t]*\Z")


def expand_snippets(
    body: str,
    *,
    bases: Sequence[Path],
    within: Path,
    seen: tuple[Path, ...] = (),
    budget: Budget | None = None,
) -> str:
    """``body`` with its snippets included (see the module docstring)."""
    if _SCISSORS not in body:
        return body
    left = Budget(body) if budget is None else budget
    out: list[str] = []
    block: list[str] | None = None
    indent = ""
    for line in body.split("\n"):
        if block is not None:
            if _BLOCK.match(line):
                for name in block:
                    out.extend(_included(name, indent, bases, within, seen, budget=left))
                block = None
            elif line.strip() and not line.strip().startswith(";"):
                block.append(line.strip())
            continue
        single = _LINE.match(line)
        if single is not None:
            if single.group(2):
                out.append(line.replace(";", "", 1))
            else:
                out.extend(
                    _included(single.group(4), single.group(1), bases, within, seen, budget=left)
                )
            continue
        opening = _BLOCK.match(line)
        if opening is not None:
            block, indent = [], opening.group(1)
            continue
        out.append(line)
    if block is not None:  # an unclosed block is text, as written
        out.append(indent + _MARK)
        out.extend(block)
    return "\n".join(out)


def _included(
    name: str,
    indent: str,
    bases: Sequence[Path],
    within: Path,
    seen: tuple[Path, ...],
    *,
    budget: Budget,
) -> list[str]:
    """The lines a snippet name includes, indented (none past the page's budget)."""
    if "://" in name or len(seen) >= MAX_DEPTH:
        return []
    for base in bases:
        file = (base / name).resolve()
        if not file.is_relative_to(within) or not file.is_file() or file in seen:
            continue
        try:
            text = read_text_file(file, where=display_path(file, within), within=within)
        except SourceError:
            return []  # unreadable or too large: the extension would stop, we include nothing
        if not budget.take(text):
            return []
        text = expand_snippets(
            text.replace("\r\n", "\n"),
            bases=bases,
            within=within,
            seen=(*seen, file),
            budget=budget,
        )
        return [indent + line if line else line for line in text.removesuffix("\n").split("\n")]
    return []
