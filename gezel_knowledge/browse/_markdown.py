"""A document body as safe HTML: CommonMark with tables, then sanitised.

A catalog's Markdown is hostile until proven otherwise. It is rendered by markdown-it-py
(CommonMark and GitHub tables; raw HTML is parsed, not trusted) and the result goes through nh3
(ammonia), which keeps a fixed set of tags and attributes and drops scripts, event handlers,
styles, forms, frames and every URL scheme but ``http``, ``https``, ``mailto`` and
``knowledge``. Every surviving URL is then mapped by :class:`LinkMap`: ``knowledge://``
references open through ``/cite``, ``assets/...`` images through the catalog's asset route,
external images are dropped (no request leaves the origin), ``data:`` URLs are kept only for
raster images. Every ``id`` the body carries is prefixed with ``u-``, so catalog text can never
name (clobber) an element of the page around it.

Each block carries ``data-lines="a-b"``, its 1-based line range in the normalized body (the
range ``#line=a-b`` citations use), so a selection can be cited; blocks inside a highlighted
range carry ``data-hl``. Raw HTML in the body cannot forge either attribute.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token

__all__ = ["LinkMap", "RenderedBody", "Section", "render_body"]

_TAGS = frozenset(nh3.ALLOWED_TAGS - {"area", "map"})
_BLOCK_ATTRIBUTES = {"data-lines", "data-hl", "id"}
_ATTRIBUTES: dict[str, set[str]] = {
    tag: set(nh3.ALLOWED_ATTRIBUTES.get(tag, set())) | _BLOCK_ATTRIBUTES for tag in _TAGS
}
_ATTRIBUTES["a"] = {"href", "hreflang", "title", "id"}
_ATTRIBUTES["img"] = {"src", "alt", "title", "width", "height", "id"}
_ATTRIBUTES["code"] = {"class", "data-lines", "data-hl", "id"}
_SCHEMES = frozenset({"http", "https", "mailto", "knowledge", "data"})
# Raw HTML must not carry the attributes the renderer uses to mark blocks.
_TAG = re.compile(r"<[A-Za-z][^>]*>?")
_FORGED = re.compile(r"(?<=[\s/\"'])(data-lines|data-hl|id)(?=[\s=/>]|$)", re.IGNORECASE)
_LINES = re.compile(r"^[0-9]{1,9}-[0-9]{1,9}$")
_LANGUAGE = re.compile(r"^language-[A-Za-z0-9_+#.-]{1,40}$")
_RASTER_DATA = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*$")
_MARKED = frozenset(
    {"paragraph_open", "heading_open", "fence", "code_block", "table_open", "html_block", "hr"}
)
_CONTAINED = frozenset({"list_item_open", "blockquote_open"})


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


_MD = MarkdownIt("commonmark", {"html": True}).enable("table")


def _html_block(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    lines = token.attrGet("data-lines")
    mark = " data-hl" if token.attrGet("data-hl") is not None else ""
    return f'<div data-lines="{lines}"{mark}>{token.content}</div>\n'


_MD.add_render_rule("html_block", _html_block)


def _mark_blocks(
    tokens: Sequence[Token], lines: int, highlight: tuple[int, int] | None
) -> list[tuple[int, int, str, str]]:
    """Give every block its line range (and ``data-hl``); return the headings found."""
    headings: list[tuple[int, int, str, str]] = []
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token.type in ("html_block", "html_inline"):
            token.content = _unforged(token.content)
        for child in token.children or ():
            if child.type == "html_inline":
                child.content = _unforged(child.content)
        if token.map is None or token.nesting == -1:
            continue
        start, end = token.map[0] + 1, max(token.map[0] + 1, min(token.map[1], lines))
        token.attrSet("data-lines", f"{start}-{end}")
        if highlight is not None and _highlighted(token.type, start, end, highlight):
            token.attrSet("data-hl", "")
        if token.type == "heading_open":
            title = _text(tokens[i + 1]) if i + 1 < len(tokens) else ""
            anchor = _slug(title, seen)
            token.attrSet("id", anchor)
            headings.append((int(token.tag[1]), start, title, anchor))
    return headings


def _unforged(raw: str) -> str:
    """Raw HTML with the renderer's own attributes renamed in its tags (text is untouched)."""
    return _TAG.sub(lambda tag: _FORGED.sub(r"data-x-\1", tag.group(0)), raw)


def _text(inline: Token) -> str:
    """The words of a heading, without its markup or raw HTML."""
    return "".join(c.content for c in inline.children or () if c.type in ("text", "code_inline"))


def _highlighted(kind: str, start: int, end: int, span: tuple[int, int]) -> bool:
    if kind in _CONTAINED:
        return span[0] <= start and end <= span[1]
    return kind in _MARKED and start <= span[1] and span[0] <= end


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


def _url_filter(links: LinkMap) -> Callable[[str, str, str], str | None]:
    def keep(tag: str, attribute: str, value: str) -> str | None:
        if attribute == "id":
            return "u-" + value
        if attribute == "data-lines":
            return value if _LINES.match(value) else None
        if attribute == "class":
            kept = [c for c in value.split() if tag == "code" and _LANGUAGE.match(c)]
            return " ".join(kept) or None
        if attribute == "href":
            return _href(value, links)
        if attribute == "src":
            return _src(value, links)
        return value

    return keep


def _href(value: str, links: LinkMap) -> str | None:
    if value.startswith("knowledge://"):
        return links.cite(value)
    if value.startswith("#"):
        return "#u-" + value[1:]
    if value.lower().startswith(("http://", "https://", "mailto:")):
        return value
    if value.startswith(("assets/", "./assets/")):
        return links.asset(value.removeprefix("./"))
    if ":" in value.split("/", 1)[0] or value.startswith("//"):
        return None  # data: and any other scheme; protocol-relative URLs leave the origin
    return None  # a relative link the compiler could not resolve names nothing served here


def _src(value: str, links: LinkMap) -> str | None:
    if value.startswith("assets/"):
        return links.asset(value)
    if _RASTER_DATA.match(value):
        return value
    return None  # an image elsewhere would be a request leaving the origin


def render_body(
    body: str, links: LinkMap, *, highlight: tuple[int, int] | None = None
) -> RenderedBody:
    """Render a normalized Markdown body to sanitised HTML with line-marked blocks."""
    tokens = _MD.parse(body)
    lines = body.count("\n") + (0 if body.endswith("\n") else 1)
    headings = _mark_blocks(tokens, max(lines, 1), highlight)
    raw = _MD.renderer.render(tokens, _MD.options, {})
    html = nh3.clean(
        raw,
        tags=set(_TAGS),
        clean_content_tags={"script", "style", "template", "iframe", "object", "noscript"},
        attributes=_ATTRIBUTES,
        attribute_filter=_url_filter(links),
        url_schemes=set(_SCHEMES),
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    return RenderedBody(html, _sections(headings, max(lines, 1)))
