"""MDX partials: the Markdown files a Docusaurus page imports and renders as a component.

A page may ``import Name from './_part.mdx'`` (a ``.md`` or ``.mdx`` file, relative to the
page; ``@site/`` names the site's folder) and write ``<Name />`` where the part's text goes.
Docusaurus renders the part there, headings included, so a link to one of them resolves. The
import line is dropped and each ``<Name />`` (props, if any, ignored) replaced by the part's
text without its front matter, expanded in turn, at most :data:`MAX_DEPTH` deep and
:data:`MAX_EXPANDED` characters in all; the part's relative link targets are rewritten from
the page's folder, as MDX resolves them from the part's own. An import of anything else (a
React component, a part outside the source folder or missing) is left as written. With
``rooted`` (Mintlify), a target starting with ``/`` is from the site's folder too
(``/snippets/a.mdx``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators._budget import MAX_EXPANDED, Budget
from gezel_knowledge.compiler.text.data import read_text_file
from gezel_knowledge.compiler.text.frontmatter import split_front_matter

__all__ = ["MAX_DEPTH", "MAX_EXPANDED", "expand_partials", "indented_headings"]

MAX_DEPTH = 8

# One import per line, as MDX writes them: `import Name from './x.mdx';`.
_IMPORT = re.compile(
    r"^import[ \t]+([A-Za-z_$][\w$]*)[ \t]+from[ \t]+(['\"])([^'\"\n]+\.mdx?)\2[ \t]*;?[ \t]*$",
    re.MULTILINE,
)
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)", re.MULTILINE)


def expand_partials(
    body: str, *, folder: Path, site: Path, within: Path, depth: int = 0, rooted: bool = False
) -> str:
    """``body`` (a page in ``folder``) with its imported Markdown parts put in."""
    if "import" not in body or depth >= MAX_DEPTH:
        return body
    parts: dict[str, str] = {}
    fences = [m.start() for m in _FENCE.finditer(body)]

    def fenced(at: int) -> bool:
        return sum(1 for f in fences if f < at) % 2 == 1

    def drop(match: re.Match[str]) -> str:
        name, target = match.group(1), match.group(3)
        if fenced(match.start()):
            return match.group(0)
        file = site / target.removeprefix("@site/") if target.startswith("@site/") else None
        if rooted and target.startswith("/"):
            file = site / target.lstrip("/")
        text = _read(file if file is not None else folder / target, within)
        if text is None:
            return match.group(0)
        where = display_path((file or folder / target).resolve(), within)
        try:
            inner = split_front_matter(text, path=where).body
        except SourceError:
            inner = text
        part_folder = (file or folder / target).resolve().parent
        expanded = expand_partials(
            inner, folder=part_folder, site=site, within=within, depth=depth + 1, rooted=rooted
        )
        parts[name] = _rebased(expanded, part_folder, folder).strip("\n")
        return ""

    body = _IMPORT.sub(drop, body)
    if not parts:
        return body
    names = "|".join(re.escape(n) for n in sorted(parts, key=len, reverse=True))
    usage = re.compile(rf"<({names})(?:[ \t\n][^<>]*)?/>")
    budget = Budget(body)

    def put(match: re.Match[str]) -> str:
        text = parts[match.group(1)]
        if not budget.take(text):
            return match.group(0)
        return f"\n{text}\n"

    return usage.sub(put, body)


# An inline link or image target: `](target` up to a space or `)`.
_TARGET = re.compile(r"(\]\()([^)\s]+)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _rebased(text: str, part: Path, page: Path) -> str:
    """A part's text with its relative link targets (``../a.md``, ``./img.png``) written
    from the page's folder: MDX compiles the part as its own file, so they resolve from the
    part's folder. Fenced code is left as it is."""
    if part == page.resolve():
        return text
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if opened is not None:
            fence = None if fence == opened.group(1) else (fence or opened.group(1))
        elif fence is None and "](" in line:
            out.append(_TARGET.sub(lambda m: m.group(1) + _from(m.group(2), part, page), line))
            continue
        out.append(line)
    return "\n".join(out)


def _from(target: str, part: Path, page: Path) -> str:
    """``target`` (relative to ``part``) relative to ``page``; other targets as written."""
    if not target or target.startswith(("/", "#", "@", "<")) or _SCHEME.match(target):
        return target
    path, sep, rest = target.partition("#")
    rebased = os.path.relpath(os.path.normpath(part / path), page.resolve())
    return Path(rebased).as_posix() + sep + rest


def _read(file: Path, within: Path) -> str | None:
    """A part's text when it is a file inside ``within``, else ``None``."""
    if PurePosixPath(file.name).suffix.lower() not in (".md", ".mdx"):
        return None
    try:
        resolved = file.resolve()
    except OSError:
        return None
    if not resolved.is_relative_to(within) or not resolved.is_file():
        return None
    try:
        text = read_text_file(resolved, where=display_path(resolved, within), within=within)
    except SourceError:
        return None
    return text.replace("\r\n", "\n")


_INDENTED_HEADING = re.compile(r"^[ \t]{4,}(#{1,6}[ \t])")


def indented_headings(body: str) -> str:
    """An MDX page's headings indented inside a component (``<Steps>`` then ``    ### Set up``)
    written at the margin: MDX has no indented code blocks, so such a line is a heading (and
    an anchor), not code. Fenced code is left as it is."""
    if "    #" not in body and "\t#" not in body:
        return body
    out: list[str] = []
    fence: str | None = None
    for line in body.split("\n"):
        opened = _FENCE.match(line.lstrip(" \t"))
        if opened is not None:
            fence = None if fence == opened.group(1) else (fence or opened.group(1))
        elif fence is None:
            out.append(_INDENTED_HEADING.sub(r"\1", line))
            continue
        out.append(line)
    return "\n".join(out)
