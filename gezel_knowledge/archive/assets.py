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


def svg_problem(data: bytes) -> AssetProblem | None:
    """Why an SVG is not inert (spec section 3.4), or ``None`` when it is."""
    text = _utf8(data)
    if text is None:
        return AssetProblem("asset-type-mismatch", "SVG is not valid UTF-8 text")
    if _svg_root_offset(text) is None:
        return AssetProblem("asset-type-mismatch", "SVG does not start with an <svg> element")
    why = _active_content(text) or _attributes_problem(text)
    if why is None and "@import" in text.lower():
        why = "a CSS @import"
    if why is None:
        return None
    return AssetProblem("unsafe-svg", f"SVG is not inert: it contains {why}")


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
_HTML_SRC = re.compile(r"<img\b[^>]*?\bsrc\s*=\s*[\"']?(assets/[^\"'\s>]+)", re.IGNORECASE)


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
        for pattern in (_MD_TARGET, _HTML_SRC):
            for match in pattern.finditer(line):
                found.setdefault(match.group(1), None)
        definition = _MD_DEFINITION.match(line)
        if definition:
            found.setdefault(definition.group(1), None)
    return list(found)
