"""The SVG check as it was before issue 26 (quadratic, kept as a reference): a property test
checks that the linear walk never accepts what this one refused, outside comments and CDATA
sections (which the walk reads as XML does, and this one read as markup)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

__all__ = ["old_svg_problem"]


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
            bracket = text.find("[", i)
            if close < 0:
                return None
            if 0 <= bracket < close:
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


# Element names are matched with an optional namespace prefix (``<svg:script>``).
_ACTIVE_ELEMENT = re.compile(r"<\s*(?:[\w.-]+:)?(script|foreignobject)\b", re.IGNORECASE)
_ENTITY = re.compile(r"<!ENTITY", re.IGNORECASE)
# The one processing instruction allowed: the XML declaration, first in the file.
_XML_DECLARATION = re.compile(r"\ufeff?<\?xml[ \t\r\n][^?]*\?>")
_DOCTYPE = re.compile(r"<!DOCTYPE\b([^>\[]*)(\[)?", re.IGNORECASE)
_EXTERNAL_ID = re.compile(r"\b(?:SYSTEM|PUBLIC)\b", re.IGNORECASE)
_TAG_START = re.compile(r"<([A-Za-z_][\w.:-]*)")
_ATTRIBUTE = re.compile(r"\s*([^\s=/>\"']+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'>]+))?")
_STYLE_ELEMENT = re.compile(
    r"<\s*(?:[\w.-]+:)?style\b[^>]*>(.*?)<\s*/\s*(?:[\w.-]+:)?style\s*>", re.IGNORECASE | re.DOTALL
)
_CSS_URL = re.compile(r"url\(\s*(\"[^\"]*\"|'[^']*'|[^)]*)\s*\)", re.IGNORECASE)
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


def _css_problem(css: str) -> str | None:
    if "@import" in css.lower():
        return "a CSS @import"
    if "\\" in css:
        # CSS escapes can spell url( or @import in ways a lexical check cannot see.
        return "a CSS escape sequence"
    for match in _CSS_URL.finditer(css):
        if _leaves_file(html.unescape(_strip_quotes(match.group(1).strip()))):
            return f"a CSS url() that leaves the file ({match.group(1).strip()[:60]})"
    return None


def _attributes(text: str) -> Iterable[tuple[str, str]]:
    """Every ``(name, raw value)`` attribute of every start tag, scanned linearly."""
    for tag in _TAG_START.finditer(text):
        pos = tag.end()
        while True:
            attribute = _ATTRIBUTE.match(text, pos)
            if attribute is None or attribute.end() == pos:
                break
            yield attribute.group(1), attribute.group(2) or ""
            pos = attribute.end()


def old_svg_problem(data: bytes) -> str | None:
    """Why an SVG is not inert (spec section 3.4), or ``None`` when it is."""
    text = _utf8(data)
    if text is None:
        return "asset-type-mismatch"
    if _svg_root_offset(text) is None:
        return "asset-type-mismatch"
    why = _active_content(text) or _attributes_problem(text)
    if why is None and "@import" in text.lower():
        why = "a CSS @import"
    if why is None:
        return None
    return f"unsafe-svg: {why}"


def _active_content(text: str) -> str | None:
    """Entities, active elements, script or HTML references, unsafe ``<style>`` content."""
    if _ENTITY.search(text):
        return "an entity declaration"
    why = _prolog_problem(text)
    if why is not None:
        return why
    element = _ACTIVE_ELEMENT.search(text)
    if element:
        return f"a <{element.group(1)}> element"
    if _JAVASCRIPT.search(text):
        return "a javascript: reference"
    if _DATA_HTML.search(text):
        return "a data:text/html reference"
    for style in _STYLE_ELEMENT.finditer(text):
        why = _css_problem(style.group(1))
        if why:
            return why
    return None


def _prolog_problem(text: str) -> str | None:
    """Processing instructions (``<?xml-stylesheet href=...?>`` makes a viewer fetch and apply
    a style sheet) and document type declarations that name an external DTD, or declare
    anything (an ``ATTLIST`` default can give every element an ``href``)."""
    declaration = _XML_DECLARATION.match(text)
    rest = text[declaration.end() :] if declaration else text
    if "<?" in rest:
        start = rest.index("<?")
        return f"a processing instruction ({rest[start : start + 40]!r})"
    for doctype in _DOCTYPE.finditer(text):
        if _EXTERNAL_ID.search(doctype.group(1)):
            return "a DOCTYPE that references an external DTD"
        if doctype.group(2):
            return "a DOCTYPE with an internal subset"
    return None


def _attributes_problem(text: str) -> str | None:
    """The first attribute that makes the SVG active, if any."""
    for name, raw in _attributes(text):
        why = _attribute_problem(name, raw)
        if why is not None:
            return why
    return None


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
