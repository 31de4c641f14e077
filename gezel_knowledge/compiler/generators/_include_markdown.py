"""mkdocs-include-markdown-plugin: files an MkDocs page includes before it is rendered.

``{% include-markdown "file" %}`` is replaced by the file (relative to the including page's
folder), ``{% include "file" %}`` alike without rewriting. Arguments, written ``name=value``
after the file (strings quoted, ``true``/``false`` bare): ``start`` and ``end`` keep only the
text between the first ``start`` marker and the first ``end`` marker after it (markers left
out; a marker not found includes nothing), ``heading-offset`` adds that many ``#`` to each ATX
heading, ``preserve-includer-indent`` (on by default) indents every included line after the
first as the directive is, ``dedent`` removes the included text's common indentation, and
``rewrite-relative-urls`` (on by default for ``include-markdown``) makes the relative links,
images and link definitions of the included text relative to the including page, so that they
name the same files. The delimiters are the plugin's ``opening_tag`` and ``closing_tag``
(``{%`` and ``%}``). Included text is expanded in turn, at most :data:`MAX_DEPTH` deep, never
into itself. A file that is missing, a glob, a URL, or outside the source folder leaves the
directive as written, as the plugin stops the build on it.
"""

from __future__ import annotations

import os
import posixpath
import re
import textwrap
from pathlib import Path

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators._budget import MAX_EXPANDED, Budget
from gezel_knowledge.compiler.text.data import MAX_TEXT_FILE_BYTES, read_text_file

__all__ = ["MAX_DEPTH", "MAX_EXPANDED", "expand_include_markdown"]

MAX_DEPTH = 8
_MAX_DIRECTIVE = 4000
# After the opening tag: the directive's name and its quoted file (``{%-`` trims blanks).
_HEAD = re.compile(r"-?\s*(?P<kind>include-markdown|include)\s+([\"'])(?P<file>[^\"'\n]{1,1000})\2")
# name="quoted value" (or 'quoted'), or name=bare (true, false, 2). A name starts a word (the
# look-behind): a long word with no `=` is tried once, not from each of its characters.
_ARGUMENT = re.compile(
    r"""(?<![\w-])([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(\S+))"""
)
_HEADING = re.compile(r"^(#{1,6})(?=[ \t]|$)", re.MULTILINE)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
# Inline links and images, and link reference definitions, whose destination is rewritten.
_INLINE = re.compile(r"(!?\[(?:[^\[\]\\]|\\.)*\]\()(<[^>\n]*>|[^)\s]+)")
_DEFINITION = re.compile(r"^([ \t]{0,3}\[(?:[^\[\]\\]|\\.)+\]:[ \t]*)(<[^>\n]*>|\S+)", re.MULTILINE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def expand_include_markdown(
    body: str,
    *,
    page: Path,
    within: Path,
    opening: str = "{%",
    closing: str = "%}",
    seen: tuple[Path, ...] = (),
    budget: Budget | None = None,
) -> str:
    """``body`` (the text of ``page``) with its includes put in (see the module docstring)."""
    if opening not in body:
        return body
    left = Budget() if budget is None else budget
    out: list[str] = []
    at = 0
    while (start := body.find(opening, at)) >= 0:
        head = _HEAD.match(body, start + len(opening))
        # The closing tag is looked for within a directive's length only: an unclosed one
        # costs that much, never a scan to the end of the page.
        end = body.find(closing, head.end(), start + _MAX_DIRECTIVE) if head else -1
        if head is None or end < 0:
            out.append(body[at : start + len(opening)])
            at = start + len(opening)
            continue
        prefix = body[body.rfind("\n", 0, start) + 1 : start]
        indent = prefix if not prefix.strip(" \t") else ""
        text = _expanded(
            head.group("kind"),
            head.group("file"),
            _arguments(body[head.end() : end].rstrip("-")),
            indent,
            page=page,
            within=within,
            tags=(opening, closing),
            seen=seen,
            left=left,
        )
        out.append(body[at:start] if text is not None else body[at : end + len(closing)])
        if text is not None:
            out.append(text)
        at = end + len(closing)
    out.append(body[at:])
    return "".join(out)


def _expanded(
    kind: str,
    name: str,
    args: dict[str, str],
    indent: str,
    *,
    page: Path,
    within: Path,
    tags: tuple[str, str],
    seen: tuple[Path, ...],
    left: Budget,
) -> str | None:
    """The text one directive puts in, or ``None`` when its file is not read or would pass
    the ``left`` characters the page's includes may still put in."""
    included = _included(name, page, within, seen, left.left)
    if included is None:
        return None
    path, text = included
    # Counted before it is expanded, its includes then count theirs: the work is bounded.
    if not left.take(text):
        return None
    markdown = kind == "include-markdown"
    text = _between(text, args.get("start"), args.get("end"))
    if args.get("dedent") == "true":
        text = textwrap.dedent(text)
    if len(seen) < MAX_DEPTH:
        # Its own includes first, relative to it; then all of it moved to the page.
        text = expand_include_markdown(
            text,
            page=path,
            within=within,
            opening=tags[0],
            closing=tags[1],
            seen=(*seen, page.resolve()),
            budget=left,
        )
    if markdown and args.get("rewrite-relative-urls", "true") != "false":
        text = _rewritten(text, path.parent, page.parent)
    offset = args.get("heading-offset", "0")
    if markdown and offset.isdigit() and int(offset) > 0:
        text = _offset_headings(text, int(offset))
    if args.get("preserve-includer-indent", "true") != "false" and indent:
        # The indent goes before each line, its includes' too: counted as well.
        if not left.spend(len(indent) * text.count("\n")):
            return None
        lines = text.split("\n")
        text = "\n".join([lines[0], *(indent + line if line else line for line in lines[1:])])
    return text


def _included(
    name: str, page: Path, within: Path, seen: tuple[Path, ...], left: int
) -> tuple[Path, str] | None:
    """The file a directive names and its text, or ``None`` when it is not read (also when
    it is larger than ``left`` characters could be: UTF-8 is at most 4 bytes a character)."""
    name = name.strip()
    if not name or _SCHEME.match(name) or any(c in name for c in "*?[") or name.startswith("/"):
        return None
    path = (page.parent / name).resolve()
    if path in seen or path == page.resolve() or not path.is_file():
        return None
    if not path.is_relative_to(within):
        return None
    try:
        limit = min(MAX_TEXT_FILE_BYTES, 4 * left)
        return path, read_text_file(
            path, where=display_path(path, within), within=within, limit=limit
        )
    except SourceError:
        return None


def _arguments(text: str) -> dict[str, str]:
    """The directive's ``name=value`` arguments (quoted values unescaped)."""
    out: dict[str, str] = {}
    for match in _ARGUMENT.finditer(text):
        name, double, single, bare = match.groups()
        quoted = double if double is not None else single
        value = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else bare
        out[name] = value.lower() if quoted is None else value
    return out


def _between(text: str, start: str | None, end: str | None) -> str:
    """The text after the first ``start`` marker up to the first ``end`` after it."""
    if start:
        at = text.find(start)
        if at < 0:
            return ""
        text = text[at + len(start) :]
    if end:
        at = text.find(end)
        if at < 0:
            return ""
        text = text[:at]
    return text


def _offset_headings(text: str, offset: int) -> str:
    """Each ATX heading outside code fences ``offset`` levels deeper (six at most)."""
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if opened and (fence is None or opened.group(1).startswith(fence)):
            fence = None if fence is not None else opened.group(1)[:3]
            out.append(line)
        else:
            out.append(
                line
                if fence is not None
                else _HEADING.sub(lambda m: "#" * min(6, len(m.group(1)) + offset), line)
            )
    return "\n".join(out)


def _rewritten(text: str, source: Path, target: Path) -> str:
    """``text`` written in folder ``source``, its relative link destinations made relative to
    folder ``target``."""
    if source == target:
        return text

    def move(url: str) -> str:
        bare = url[1:-1] if url.startswith("<") else url
        if not bare or bare.startswith(("#", "/")) or _SCHEME.match(bare):
            return url
        moved = posixpath.normpath(
            Path(os.path.relpath(source / bare.split("#", 1)[0], target)).as_posix()
        )
        if "#" in bare:
            moved += "#" + bare.split("#", 1)[1]
        return f"<{moved}>" if url.startswith("<") else moved

    text = _INLINE.sub(lambda m: m.group(1) + move(m.group(2)), text)
    return _DEFINITION.sub(lambda m: m.group(1) + move(m.group(2)), text)
