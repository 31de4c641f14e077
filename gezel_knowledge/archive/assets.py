"""Catalog assets (spec section 3.4): which files may ship under ``assets/`` and what they must be.

Shared by the compiler (which refuses a broken or unsafe image before it is packed) and the
verifier (which refuses one before it is served): the archive path grammar, the media type an
extension implies, the per-asset and per-catalog limits, magic-byte sniffing, and the inertness
an SVG must prove. Checks return an :class:`AssetProblem` (a stable ``reason`` and a one-line
message) or ``None``, so each caller raises the error type that fits its role.

The SVG check is deliberately stricter than a sanitiser: it never rewrites, it only accepts files
that are plainly inert. Beyond the spec's list it refuses processing instructions other than the
XML declaration and any DOCTYPE that names an external DTD or declares anything, since a viewer
may fetch a style sheet or a DTD, and DTD declarations can add attributes. An ``href`` or CSS
``url()`` may point inside the file (``#id``) or carry embedded raster data
(``data:image/png|jpeg|gif|webp``); anything else, a relative path included, leaves the file
and is refused, as the spec's wording requires.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass

from gezel_knowledge.archive.paths import entry_name_problem

__all__ = [
    "ASSET_MEDIA_TYPES",
    "ASSET_PREFIX",
    "MAX_ASSETS_PER_CATALOG",
    "MAX_ASSETS_TOTAL_BYTES",
    "MAX_ASSET_BYTES",
    "MAX_ASSET_DIRECTORIES",
    "MAX_ASSET_PATH_CHARS",
    "MAX_ASSET_SEGMENT_CHARS",
    "AssetProblem",
    "asset_media_type",
    "asset_path_problem",
    "asset_problem",
    "asset_references",
    "catalog_assets_problem",
    "is_asset_path",
    "sniff_image",
    "svg_problem",
]

ASSET_PREFIX = "assets/"
ASSET_MEDIA_TYPES: dict[str, str] = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "svg": "image/svg+xml",
}
"""Allowed extensions (lowercase) and the media type each implies."""

MAX_ASSET_BYTES = 8 * 1024 * 1024
MAX_ASSETS_TOTAL_BYTES = 256 * 1024 * 1024
MAX_ASSETS_PER_CATALOG = 8192
MAX_ASSET_PATH_CHARS = 512
MAX_ASSET_DIRECTORIES = 15
MAX_ASSET_SEGMENT_CHARS = 128

_SEGMENT = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*\Z")


@dataclass(frozen=True, slots=True)
class AssetProblem:
    """Why an asset is unacceptable: a stable kebab-case ``reason`` and a one-line message."""

    reason: str
    message: str

    def __str__(self) -> str:
        return self.message


def asset_path_problem(path: str) -> AssetProblem | None:
    """Why ``path`` is not a valid ``assets/...`` archive path, or ``None`` when it is."""

    def bad(why: str) -> AssetProblem:
        return AssetProblem("invalid-asset-path", f"asset path {path!r} {why}")

    if not path.startswith(ASSET_PREFIX):
        return bad("does not start with 'assets/'")
    if len(path) > MAX_ASSET_PATH_CHARS:
        return bad(f"is longer than {MAX_ASSET_PATH_CHARS} characters")
    segments = path[len(ASSET_PREFIX) :].split("/")
    directories, name = segments[:-1], segments[-1]
    if len(directories) > MAX_ASSET_DIRECTORIES:
        return bad(f"has more than {MAX_ASSET_DIRECTORIES} directory levels")
    for segment in segments:
        if not segment:
            return bad("has an empty segment")
        if not _SEGMENT.match(segment):
            return bad("has a segment outside [A-Za-z0-9._-] or starting with a dot")
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return bad("has no file name and extension")
    # Directory segments, and the name without its extension, are at most 128 characters.
    if any(len(s) > MAX_ASSET_SEGMENT_CHARS for s in [*directories, stem]):
        return bad(f"has a segment longer than {MAX_ASSET_SEGMENT_CHARS} characters")
    if ext.lower() not in ASSET_MEDIA_TYPES:
        allowed = ", ".join(sorted({*ASSET_MEDIA_TYPES}))
        return bad(f"has extension {ext!r} (allowed: {allowed})")
    # An asset path is also an archive entry name, so the verifier's entry rule (which also
    # refuses Windows device names such as aux.png) applies.
    entry = entry_name_problem(path)
    if entry is not None:
        return bad(f"is refused as an archive entry name ({entry})")
    return None


def is_asset_path(path: str) -> bool:
    """Whether ``path`` matches the asset path grammar."""
    return asset_path_problem(path) is None


def asset_media_type(path: str) -> str | None:
    """The media type an asset path's extension implies, or ``None`` for other extensions."""
    _, dot, ext = path.rpartition(".")
    return ASSET_MEDIA_TYPES.get(ext.lower()) if dot else None


def _kind_of_extension(path: str) -> str | None:
    _, dot, ext = path.rpartition(".")
    ext = ext.lower()
    if not dot or ext not in ASSET_MEDIA_TYPES:
        return None
    return "jpeg" if ext == "jpg" else ext


def sniff_image(data: bytes) -> str | None:
    """What the leading bytes say the file is: png, jpeg, gif, webp, svg, or ``None``."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    text = _utf8(data)
    if text is not None and _svg_root_offset(text) is not None:
        return "svg"
    return None


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


_SVG_OPEN = re.compile(r"<svg[\s/>]")


def _svg_root_offset(text: str) -> int | None:
    """Offset of the root ``<svg`` after any BOM, XML declaration, comments and DOCTYPE."""
    i, n = 0, len(text)
    if text.startswith("\ufeff"):
        i = 1
    while i < n:
        ch = text[i]
        if ch in " \t\r\n":
            i += 1
        elif text.startswith("<?", i):
            end = text.find("?>", i + 2)
            if end < 0:
                return None
            i = end + 2
        elif text.startswith("<!--", i):
            end = text.find("-->", i + 4)
            if end < 0:
                return None
            i = end + 3
        elif text[i : i + 9].upper() == "<!DOCTYPE":
            close = text.find(">", i)
            if close < 0:
                return None
            bracket = text.find("[", i, close)
            if bracket >= 0:
                # An internal subset: its end is "]>"; entity declarations inside it are
                # refused separately.
                end = text.find("]", bracket)
                close = text.find(">", end) if end >= 0 else -1
                if close < 0:
                    return None
            i = close + 1
        else:
            return i if _SVG_OPEN.match(text, i) else None
    return None


# Element names are matched with an optional namespace prefix (``<svg:script>``). The searches
# over the whole text below start only at a fixed literal and never cross it again, so each runs
# in time linear in the file; tags, attributes, declarations and style sheets are read by the
# one-pass walk of _markup_problem.
_ACTIVE_ELEMENT = re.compile(r"<\s*(?:[\w.-]+:)?(script|foreignobject)\b", re.IGNORECASE)
_ENTITY = re.compile(r"<!ENTITY", re.IGNORECASE)
# The one processing instruction allowed: the XML declaration, first in the file.
_XML_DECLARATION = re.compile(r"\ufeff?<\?xml[ \t\r\n][^?]*\?>")
_EXTERNAL_ID = re.compile(r"\b(?:SYSTEM|PUBLIC)\b", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z_][\w.:-]*")
_SPACE = re.compile(r"\s*")
_ATTRIBUTE_NAME = re.compile(r"""[^\s=/>"'<]+""")
_UNQUOTED_VALUE = re.compile(r"""[^\s"'<>]+""")
_END_TAG = re.compile(r"/\s*([A-Za-z_][\w.:-]*)\s*>")
_EMBEDDED_RASTER = re.compile(r"data:image/(?:png|jpeg|gif|webp)[;,]", re.IGNORECASE)
_JAVASCRIPT = re.compile(r"javascript\s*:", re.IGNORECASE)
_DATA_HTML = re.compile(r"data\s*:\s*text/html", re.IGNORECASE)


def _strip_quotes(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _leaves_file(target: str) -> bool:
    """Whether a reference points outside the SVG (anything but ``#id`` or embedded rasters)."""
    value = "".join(target.split())
    if value == "" or value.startswith("#"):
        return False
    return _EMBEDDED_RASTER.match(value) is None


def _css_urls(css: str) -> Iterable[str]:
    """The targets of every ``url(...)`` in ``css``, in one forward scan (an unclosed quote or
    parenthesis runs to the end, and the scan stops there)."""
    lower = css.lower()
    n = len(css)
    pos = 0
    while (start := lower.find("url(", pos)) >= 0:
        i = _SPACE.match(css, start + 4).end()  # type: ignore[union-attr]
        if i < n and css[i] in "\"'":
            close = css.find(css[i], i + 1)
            value = css[i + 1 :] if close < 0 else css[i + 1 : close]
        else:
            close = css.find(")", i)
            value = css[i:] if close < 0 else css[i:close]
        yield value.strip()
        if close < 0:
            return
        pos = close + 1


def _css_problem(css: str) -> str | None:
    if "@import" in css.lower():
        return "a CSS @import"
    if "\\" in css:
        # CSS escapes can spell url( or @import in ways a lexical check cannot see.
        return "a CSS escape sequence"
    for target in _css_urls(css):
        if _leaves_file(html.unescape(target)):
            return f"a CSS url() that leaves the file ({target[:60]})"
    return None


def svg_problem(data: bytes) -> AssetProblem | None:
    """Why an SVG is not inert (spec section 3.4), or ``None`` when it is.

    Linear in the size of the file: a few searches that each pass over the text once, and one
    walk over its markup (:func:`_markup_problem`).
    """
    text = _utf8(data)
    if text is None:
        return AssetProblem("asset-type-mismatch", "SVG is not valid UTF-8 text")
    if _svg_root_offset(text) is None:
        return AssetProblem("asset-type-mismatch", "SVG does not start with an <svg> element")
    why = _active_content(text) or _markup_problem(text)
    if why is None and "@import" in text.lower():
        why = "a CSS @import"
    if why is None:
        return None
    return AssetProblem("unsafe-svg", f"SVG is not inert: it contains {why}")


def _active_content(text: str) -> str | None:
    """Entities, processing instructions, active elements, script or HTML references."""
    if _ENTITY.search(text):
        return "an entity declaration"
    declaration = _XML_DECLARATION.match(text)
    rest = text[declaration.end() :] if declaration else text
    start = rest.find("<?")
    if start >= 0:
        # <?xml-stylesheet href=...?> makes a viewer fetch and apply a style sheet.
        return f"a processing instruction ({rest[start : start + 40]!r})"
    element = _ACTIVE_ELEMENT.search(text)
    if element:
        return f"a <{element.group(1)}> element"
    if _JAVASCRIPT.search(text):
        return "a javascript: reference"
    if _DATA_HTML.search(text):
        return "a data:text/html reference"
    return None


def _declaration_problem(declaration: str) -> str | None:
    """A document type declaration that names an external DTD, or declares anything (an
    ``ATTLIST`` default can give every element an ``href``)."""
    if declaration[:9].upper() != "<!DOCTYPE":
        return None
    if "[" in declaration:
        return "a DOCTYPE with an internal subset"
    if _EXTERNAL_ID.search(declaration):
        return "a DOCTYPE that references an external DTD"
    return None


def _skip_to(text: str, pos: int, closer: str) -> int:
    """The offset after the next ``closer`` from ``pos``; the end of the text without one."""
    end = text.find(closer, pos)
    return len(text) if end < 0 else end + len(closer)


def _skip_markup(text: str, lt: int) -> tuple[int, str | None] | None:
    """A comment, CDATA section, declaration or processing instruction at ``lt``: the offset
    after it and why it is active (a DOCTYPE, a comment an HTML reader ends early), or
    ``None`` when ``lt`` starts none of them."""
    for opener, closer in (("<!--", "-->"), ("<![CDATA[", "]]>"), ("<!", ">"), ("<?", "?>")):
        if text.startswith(opener, lt):
            pos = _skip_to(text, lt + len(opener), closer)
            if opener == "<!--":
                return pos, _comment_problem(text[lt + 4 : max(lt + 4, pos - 3)])
            return pos, _declaration_problem(text[lt:pos]) if opener == "<!" else None
    return None


def _comment_problem(body: str) -> str | None:
    """A comment that is not well-formed XML: an HTML reader (an SVG pasted into a page) ends
    it early (at ``--!>``, or at once for ``<!-->``), and what this walk skipped as a comment
    would then be markup."""
    if "--" in body or body.startswith((">", "->")) or body.endswith("-"):
        return "a comment that is not well-formed XML (an HTML reader would end it early)"
    return None


def _markup_problem(text: str) -> str | None:
    """The first tag, attribute, declaration or style sheet that makes the SVG active.

    One forward walk: every offset is read once, whatever the markup (unclosed tags, quotes,
    comments or declarations included), so a hostile file costs what its size costs. Text
    inside a ``<style>`` element is checked as CSS; comments and CDATA sections are skipped
    as markup (a CDATA section inside ``<style>`` is still part of the CSS checked).
    """
    pos = 0
    style_start: int | None = None
    while (lt := text.find("<", pos)) >= 0:
        skipped = _skip_markup(text, lt)
        why: str | None = None
        if skipped is not None:
            pos, why = skipped
        elif (end_tag := _END_TAG.match(text, lt + 1)) is not None:
            pos = end_tag.end()
            if style_start is not None and _local(end_tag.group(1)) == "style":
                why, style_start = _css_problem(text[style_start:lt]), None
        elif (name := _NAME.match(text, lt + 1)) is not None:
            pos, why, closed = _tag_attributes(text, name.end())
            if style_start is None and not closed and _local(name.group(0)) == "style":
                style_start = pos
        else:
            pos = lt + 1  # a '<' that starts no markup (not well-formed, and inert)
        if why:
            return why
    return None if style_start is None else _css_problem(text[style_start:])


def _local(name: str) -> str:
    return name.rpartition(":")[2].lower()


def _tag_attributes(text: str, pos: int) -> tuple[int, str | None, bool]:
    """Read a start tag's attributes from ``pos``: ``(offset after the tag, why it is active,
    whether it closed itself)``. A ``<`` ends the tag where it is (the walk reads it next)."""
    n = len(text)
    while True:
        pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= n:
            return n, None, False
        ch = text[pos]
        if ch == ">":
            return pos + 1, None, False
        if text.startswith("/>", pos):
            return pos + 2, None, True
        if ch == "<":
            return pos, None, False
        name = _ATTRIBUTE_NAME.match(text, pos)
        if name is None:
            pos += 1  # a stray '/', '=' or quote: step over it and read on
            continue
        pos = _SPACE.match(text, name.end()).end()  # type: ignore[union-attr]
        raw = ""
        if pos < n and text[pos] == "=":
            pos, raw, why = _attribute_value(text, pos + 1, name.group(0))
            if why is not None:
                return pos, why, False
        why = _attribute_problem(name.group(0), raw)
        if why is not None:
            return pos, why, False


def _attribute_value(text: str, pos: int, name: str) -> tuple[int, str, str | None]:
    """Read the value after an attribute's ``=`` from ``pos``: ``(offset after it, the raw
    value with its quotes, why it makes the SVG active)``."""
    n = len(text)
    pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
    raw = ""
    if pos < n and text[pos] in "\"'":
        close = text.find(text[pos], pos + 1)
        if close < 0:
            return n, "", "an attribute value that is never closed"
        raw = text[pos : close + 1]
        if "<" in raw:
            # Not well-formed XML; a reader that recovers might see a tag in it.
            return close + 1, raw, f"a '<' inside the value of attribute {name}"
        return close + 1, raw, None
    if (value := _UNQUOTED_VALUE.match(text, pos)) is not None:
        raw = value.group(0)
        pos = value.end()
    if text.startswith("<", pos):
        # An HTML reader keeps a '<' inside an unquoted value (href=</svg> is a link to
        # "</svg"), where this walk would end the tag: refused, as inside quotes.
        return pos, raw, f"a '<' inside the value of attribute {name}"
    return pos, raw, None


def _attribute_problem(name: str, raw: str) -> str | None:
    """Why one attribute makes an SVG active: event handlers, references that leave the file,
    animated references, script or HTML values, unsafe CSS."""
    local = name.lower().rpartition(":")[2]
    # Character references are decoded first: "jav&#x61;script:" is still JavaScript.
    value = html.unescape(_strip_quotes(raw))
    if local.startswith("on"):
        return f"an event-handler attribute ({name})"
    if local in ("href", "src") and _leaves_file(value):
        return f"an {local} that leaves the file ({value[:60]!r})"
    # <set>/<animate> can rewrite a link at run time (to="https://..."), so animating a
    # reference attribute is refused outright rather than by inspecting its values.
    if local == "attributename" and value.strip().lower().rpartition(":")[2] in ("href", "src"):
        return f"an animation of the {value.strip()} attribute"
    if _JAVASCRIPT.search(value) or _DATA_HTML.search(value):
        return f"an active reference in attribute {name}"
    if local == "style" or "url(" in value.lower():
        return _css_problem(value) or None
    return None


def asset_problem(path: str, data: bytes) -> AssetProblem | None:
    """Everything one asset must satisfy: path grammar, size, magic bytes, SVG inertness."""
    problem = asset_path_problem(path)
    if problem is not None:
        return problem
    if len(data) > MAX_ASSET_BYTES:
        return AssetProblem(
            "asset-too-large",
            f"asset {path!r} is {len(data):,} bytes (limit {MAX_ASSET_BYTES:,})",
        )
    declared = _kind_of_extension(path)
    actual = sniff_image(data)
    if actual != declared:
        found = actual or "unrecognised content"
        return AssetProblem(
            "asset-type-mismatch",
            f"asset {path!r} is named as {declared} but its bytes are {found}",
        )
    if declared == "svg":
        svg = svg_problem(data)
        if svg is not None:
            return AssetProblem(svg.reason, f"asset {path!r}: {svg.message}")
    return None


def catalog_assets_problem(sizes: Iterable[int]) -> AssetProblem | None:
    """Whether a catalog's assets, given their sizes, exceed the count or total-bytes limits."""
    count = 0
    total = 0
    for size in sizes:
        count += 1
        total += size
    if count > MAX_ASSETS_PER_CATALOG:
        return AssetProblem(
            "too-many-assets", f"{count:,} assets (limit {MAX_ASSETS_PER_CATALOG:,} per catalog)"
        )
    if total > MAX_ASSETS_TOTAL_BYTES:
        return AssetProblem(
            "assets-too-large",
            f"assets total {total:,} bytes (limit {MAX_ASSETS_TOTAL_BYTES:,} per catalog)",
        )
    return None


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MD_TARGET = re.compile(r"\]\(\s*<?(assets/[^)\s>]+)")
_MD_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(assets/[^\s>]+)")
_IMG_TAG = re.compile(r"<img\b", re.IGNORECASE)
_IMG_SRC = re.compile(r"\bsrc\s*=\s*[\"']?(assets/[^\"'\s>]+)", re.IGNORECASE)


def _img_sources(line: str) -> Iterable[str]:
    """``src`` targets under ``assets/`` of the ``<img>`` tags of one line. Each tag is read
    up to its ``>`` or the next ``<img``, so no part of the line is read twice."""
    starts = [m.start() for m in _IMG_TAG.finditer(line)]
    for k, start in enumerate(starts):
        limit = starts[k + 1] if k + 1 < len(starts) else len(line)
        close = line.find(">", start, limit)
        found = _IMG_SRC.search(line, start, limit if close < 0 else close)
        if found is not None:
            yield found.group(1)


def asset_references(markdown: str) -> list[str]:
    """The ``assets/...`` targets a Markdown body references outside fenced code, in order.

    Covers inline links and images (``[..](assets/..)``), reference definitions and HTML
    ``<img src>``; each target appears once.
    """
    found: dict[str, None] = {}
    if "assets/" not in markdown:
        return []
    fence: str | None = None
    for line in markdown.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if (
                opened
                and opened.group(1)[0] == fence[0]
                and len(opened.group(1)) >= len(fence)
                and not line.strip().strip(fence[0])
            ):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        for match in _MD_TARGET.finditer(line):
            found.setdefault(match.group(1), None)
        for source in _img_sources(line):
            found.setdefault(source, None)
        definition = _MD_DEFINITION.match(line)
        if definition:
            found.setdefault(definition.group(1), None)
    return list(found)
