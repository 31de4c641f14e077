"""mdBook's ``links`` preprocessor: the files a chapter includes before it is rendered.

``{{#include file}}`` is replaced by the file (relative to the chapter's folder), or by part of
it: ``file:4`` its line 4, ``file:4:9`` lines 4 to 9, ``file::9`` up to line 9, ``file:4:``
from line 4, ``file:name`` the lines between ``ANCHOR: name`` and ``ANCHOR_END: name`` (lines
holding an anchor marker are dropped). ``{{#rustdoc_include}}`` selects alike;
``{{#playground file}}`` (and the older ``{{#playpen}}``) puts the file in a ``rust`` code
block; ``{{#title ...}}`` names the HTML page and is removed from the text. Included text is
expanded in turn, at most :data:`MAX_DEPTH` deep and :data:`._budget.MAX_EXPANDED` characters
in all (past it a directive is left as written). A backslash before ``{{#`` keeps the
directive as text (without the backslash). A file that is missing or outside the source
folder leaves the directive as written, as mdBook does after reporting it.
"""

from __future__ import annotations

import re
from pathlib import Path

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators._budget import Budget
from gezel_knowledge.compiler.text.data import read_text_file

__all__ = ["MAX_DEPTH", "expand_includes"]

MAX_DEPTH = 10
# The argument runs to the next brace or line end, never retried shorter than that (one scan
# per directive: a long unclosed line costs its length once).
_DIRECTIVE = re.compile(
    r"(\\?)\{\{[ \t]*#(include|rustdoc_include|playground|playpen|title)(?:[ \t]([^{}\n]*))?"
    r"\}\}"
)
_RANGE = re.compile(r"(\d*)(?::(\d*))?\Z")
_ANCHOR = re.compile(r"ANCHOR(?:_END)?:[ \t]*([\w-]+)")


def expand_includes(
    body: str, *, folder: Path, within: Path, depth: int = 0, budget: Budget | None = None
) -> str:
    """``body`` (a chapter in ``folder``) with its directives expanded (module docstring)."""
    if "{{" not in body:
        return body
    left = Budget(body) if budget is None else budget

    def replace(match: re.Match[str]) -> str:
        escaped, kind, argument = match.group(1), match.group(2), (match.group(3) or "").strip()
        if escaped:
            return match.group(0)[1:]
        if kind == "title":
            return ""
        if not argument or depth >= MAX_DEPTH:
            return match.group(0)
        name, _, selector = argument.split()[0].partition(":")
        text = _read(folder / name, within)
        if text is None:
            return match.group(0)
        if kind in ("playground", "playpen"):
            if not left.take(text):
                return match.group(0)
            attributes = ",".join(["rust", *argument.split()[1:]])
            return f"```{attributes}\n{text.rstrip(chr(10))}\n```"
        chosen = _select(text, selector)
        if not left.take(chosen):
            return match.group(0)
        return expand_includes(
            chosen, folder=(folder / name).parent, within=within, depth=depth + 1, budget=left
        )

    return _DIRECTIVE.sub(replace, body)


def _read(file: Path, within: Path) -> str | None:
    """A file's text when it is inside ``within``, else ``None``."""
    resolved = file.resolve()
    if not resolved.is_relative_to(within) or not resolved.is_file():
        return None
    try:
        text = read_text_file(resolved, where=display_path(resolved, within), within=within)
    except SourceError:
        return None
    return text.replace("\r\n", "\n")


def _select(text: str, selector: str) -> str:
    """The part of ``text`` a selector names (module docstring)."""
    lines = text.removesuffix("\n").split("\n")
    if not selector:
        chosen = lines
    elif (found := _RANGE.match(selector)) is not None:
        start = int(found.group(1)) if found.group(1) else 1
        if found.group(2) is None:
            end = start if found.group(1) else len(lines)
        else:
            end = int(found.group(2)) if found.group(2) else len(lines)
        chosen = lines[max(start, 1) - 1 : end]
    else:
        chosen, inside = [], False
        for line in lines:
            marker = _ANCHOR.search(line)
            if marker is not None:
                if marker.group(1) == selector:
                    inside = "ANCHOR_END" not in line
                continue
            if inside:
                chosen.append(line)
    return "\n".join(line for line in chosen if not _ANCHOR.search(line))
