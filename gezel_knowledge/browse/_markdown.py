"""A document body as safe HTML: CommonMark with tables, then sanitised.

A catalog's Markdown is hostile until proven otherwise. It is rendered by markdown-it-py
(CommonMark and GitHub tables; raw HTML is parsed, not trusted) and the result goes through nh3
(ammonia), which keeps a fixed set of tags and attributes and drops scripts, event handlers,
styles, forms, frames and every URL scheme but ``http``, ``https``, ``mailto`` and
``knowledge``. Every surviving URL is then mapped by :class:`LinkMap`: ``knowledge://``
references open through ``/cite``, valid ``assets/...`` paths through the catalog's asset route,
external images are dropped (no request leaves the origin), ``data:`` URLs are kept only for
raster images. Every ``id`` the body carries is prefixed with ``u-``, so catalog text can never
name (clobber) an element of the page around it.

Each block carries ``data-lines="a-b"``, its 1-based line range in the normalized body (the
range ``#line=a-b`` citations use), so a selection can be cited. The renderer signs the marks it
sets with a random value of this rendering, and the sanitiser keeps only signed ones: raw HTML
in the body cannot forge a line range, a heading anchor or a highlight, however it is spelled.
:func:`highlight_lines` marks the blocks of a line range afterwards (``data-hl``, the first with
``id="hl"``, the target of every highlighted link), so one rendering serves every highlight.
"""

from __future__ import annotations

import html as html_text
import re
import secrets
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token

from gezel_knowledge.archive.assets import asset_path_problem

__all__ = [
    "HIGHLIGHT_ANCHOR",
    "LinkMap",
    "RenderedBody",
    "Section",
    "highlight_lines",
    "render_body",
]

HIGHLIGHT_ANCHOR = "hl"
"""The ``id`` of the first highlighted block (outside the ``u-`` namespace of catalog ids)."""

_TAGS = frozenset(nh3.ALLOWED_TAGS - {"area", "map"})
_BLOCK_ATTRIBUTES = {"data-lines", "id"}
_ATTRIBUTES: dict[str, set[str]] = {
    tag: set(nh3.ALLOWED_ATTRIBUTES.get(tag, set())) | _BLOCK_ATTRIBUTES for tag in _TAGS
}
_ATTRIBUTES["a"] = {"href", "hreflang", "title", "id"}
_ATTRIBUTES["img"] = {"src", "alt", "title", "width", "height", "id"}
_ATTRIBUTES["code"] = {"class", "data-lines", "id"}
_SCHEMES = frozenset({"http", "https", "mailto", "knowledge", "data"})
_LINES = re.compile(r"^[0-9]{1,9}-[0-9]{1,9}$")
_LANGUAGE = re.compile(r"^language-[A-Za-z0-9_+#.-]{1,40}$")
_RASTER_DATA = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*$")
# After sanitising, only the renderer's own marks are left, each the first attribute of its tag.
# Its other attributes are the renderer's too (a heading's id, a code block's language class),
# so the start tag ends at the first ">".
_MARK = re.compile(r'<([a-z][a-z0-9]*) data-lines="([0-9]{1,9})-([0-9]{1,9})"[^>]*>')
_OVERLAPPING = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "code", "table", "div", "hr"}
)
"""Blocks highlighted when they touch the range (paragraphs, headings, code, tables, raw HTML)."""
_CONTAINED = frozenset({"li", "blockquote"})
"""Containers highlighted only when the range holds them whole."""


@dataclass(frozen=True, slots=True)
class LinkMap:
    """Where the links and images of one document point in the browser."""

    cite: Callable[[str], str]
    """A ``knowledge://`` reference -> the URL that opens it."""
    asset: Callable[[str], str]
    """An archive path ``assets/...`` -> the URL that serves it."""


@dataclass(frozen=True, slots=True)
class Section:
    """A heading of the body: its level, text, anchor and line range (heading to section end)."""

    level: int
    title: str
    anchor: str
    line_start: int
    line_end: int


@dataclass(frozen=True, slots=True)
class RenderedBody:
    """The sanitised HTML of a body and its sections in document order."""

    html: str
    sections: tuple[Section, ...]


def _slug(text: str, seen: dict[str, int]) -> str:
    base = re.sub(r"[^\w\- ]", "", unicodedata.normalize("NFKC", text).lower()).strip()
    base = re.sub(r"\s+", "-", base) or "section"
    count = seen.get(base, 0)
    seen[base] = count + 1
    return base if count == 0 else f"{base}-{count}"


_MAX_NESTING = 100
"""markdown-it's nesting bound (its CommonMark preset's 20 let a list ten deep end the page)."""
_MD = MarkdownIt("commonmark", {"html": True, "maxNesting": _MAX_NESTING}).enable("table")


def _html_block(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    return f'<div data-lines="{token.attrGet("data-lines")}">{token.content}</div>\n'


_MD.add_render_rule("html_block", _html_block)


def _mark_blocks(tokens: Sequence[Token], lines: int, seal: str) -> list[tuple[int, int, str, str]]:
    """Give every block its line range (signed with ``seal``); return the headings found."""
    headings: list[tuple[int, int, str, str]] = []
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token.map is None or token.nesting == -1 or token.type == "inline":
            continue
        start, end = token.map[0] + 1, max(token.map[0] + 1, min(token.map[1], lines))
        token.attrSet("data-lines", f"{seal}{start}-{end}")
        if token.type == "heading_open":
            title = _text(tokens[i + 1]) if i + 1 < len(tokens) else ""
            anchor = _slug(title, seen)
            token.attrSet("id", seal + anchor)
            headings.append((int(token.tag[1]), start, title, anchor))
    return headings


def _text(inline: Token) -> str:
    """The words of a heading, without its markup or raw HTML."""
    return "".join(c.content for c in inline.children or () if c.type in ("text", "code_inline"))


def _sections(headings: Sequence[tuple[int, int, str, str]], lines: int) -> tuple[Section, ...]:
    out: list[Section] = []
    for n, (level, start, title, anchor) in enumerate(headings):
        end = lines
        for later_level, later_start, _, _ in headings[n + 1 :]:
            if later_level <= level:
                end = max(start, later_start - 1)
                break
        out.append(Section(level, title, "u-" + anchor, start, end))
    return tuple(out)


def _attribute_filter(links: LinkMap, seal: str) -> Callable[[str, str, str], str | None]:
    def keep(tag: str, attribute: str, value: str) -> str | None:
        if attribute == "id":
            return "u-" + value.removeprefix(seal)  # the renderer's heading or a catalog id
        if attribute == "data-lines":
            lines = value.removeprefix(seal)
            return lines if lines != value and _LINES.match(lines) else None  # signed only
        if attribute == "class":
            kept = [c for c in value.split() if tag == "code" and _LANGUAGE.match(c)]
            return " ".join(kept) or None
        if attribute == "href":
            return _href(value, links)
        if attribute == "src":
            return _src(value, links)
        return value

    return keep


def _asset(value: str) -> str | None:
    """``value`` as a valid archive asset path (``assets/...``), else ``None``: no ``..``, no
    empty or dot segment, nothing that would resolve anywhere but an asset."""
    path = value.removeprefix("./")
    return path if asset_path_problem(path) is None else None


def _href(value: str, links: LinkMap) -> str | None:
    if value.startswith("knowledge://"):
        return links.cite(value)
    if value.startswith("#"):
        return "#u-" + value[1:] if len(value) > 1 else None
    if value.lower().startswith(("http://", "https://", "mailto:")):
        return value
    asset = _asset(value)
    if asset is not None:
        return links.asset(asset)
    # data: and every other scheme, protocol-relative URLs (they leave the origin), and relative
    # links the compiler could not resolve (they name nothing served here).
    return None


def _src(value: str, links: LinkMap) -> str | None:
    asset = _asset(value)
    if asset is not None:
        return links.asset(asset)
    if _RASTER_DATA.match(value):
        return value
    return None  # an image elsewhere would be a request leaving the origin


def render_body(
    body: str, links: LinkMap, *, highlight: tuple[int, int] | None = None
) -> RenderedBody:
    """Render a normalized Markdown body to sanitised HTML with line-marked blocks (and, with
    ``highlight``, that line range marked as :func:`highlight_lines` marks it)."""
    seal = f"m{secrets.token_hex(8)}:"
    tokens = _MD.parse(body)
    lines = body.count("\n") + (0 if body.endswith("\n") else 1)
    if any(t.level >= _MAX_NESTING - 1 for t in tokens):
        # markdown-it stops at its nesting bound and drops the rest of the body without a word:
        # show every line as text rather than a page whose end is missing.
        rendered = _as_text(body)
        return rendered if highlight is None else highlight_lines(rendered, highlight)
    headings = _mark_blocks(tokens, max(lines, 1), seal)
    raw = _MD.renderer.render(tokens, _MD.options, {})
    html = nh3.clean(
        raw,
        tags=set(_TAGS),
        clean_content_tags={"script", "style", "template", "iframe", "object", "noscript"},
        attributes=_ATTRIBUTES,
        attribute_filter=_attribute_filter(links, seal),
        url_schemes=set(_SCHEMES),
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    rendered = RenderedBody(html, _sections(headings, max(lines, 1)))
    return rendered if highlight is None else highlight_lines(rendered, highlight)


def _as_text(body: str) -> RenderedBody:
    """The body line by line as escaped text, each line a block with its line mark."""
    # Split on "\n" only: line numbers count "\n" as citations do (splitlines would also
    # break at form feeds and U+2028).
    blocks = "\n".join(
        f'<p data-lines="{n}-{n}">{html_text.escape(line)}</p>'
        for n, line in enumerate(body.split("\n"), start=1)
        if line.strip()
    )
    note = (
        '<p class="note">This document nests deeper than the browser renders, so it is shown '
        "as text.</p>"
    )
    return RenderedBody(f'{note}\n<div class="as-text">\n{blocks}\n</div>\n', ())


def _touched(tag: str, start: int, end: int, span: tuple[int, int]) -> bool:
    if tag in _CONTAINED:
        return span[0] <= start and end <= span[1]
    return tag in _OVERLAPPING and start <= span[1] and span[0] <= end


def highlight_lines(rendered: RenderedBody, span: tuple[int, int]) -> RenderedBody:
    """The body with the blocks of lines ``span`` marked ``data-hl``; an empty element with
    ``id="hl"`` opens the first (inside it, so a heading keeps its own anchor)."""
    anchored = False

    def mark(match: re.Match[str]) -> str:
        nonlocal anchored
        tag, start, end = match.group(1), int(match.group(2)), int(match.group(3))
        if not _touched(tag, start, end, span):
            return match.group(0)
        opened = f'{match.group(0)[:-1]} data-hl="">'
        if anchored:
            return opened
        anchored = True
        return f'{opened}<span id="{HIGHLIGHT_ANCHOR}"></span>'

    return RenderedBody(_MARK.sub(mark, rendered.html), rendered.sections)
