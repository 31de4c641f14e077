"""Asset content checks (spec section 3.4): leading bytes match the extension, SVGs are inert.

The compiler's ``gezel_knowledge.assets`` will own the asset grammar; until it lands on main the
verifier carries its own copy of the content rules here (to be merged, see the reader report).
An SVG that can run code is a page, not a picture, so the rules are deliberately strict: any
construct that could execute or fetch is refused, even where a browser might sandbox it.
"""

from __future__ import annotations

import re

__all__ = ["asset_content_problem", "sniff_asset_kind", "svg_problem"]

_PNG = b"\x89PNG\r\n\x1a\n"
_JPEG = b"\xff\xd8\xff"
_KIND_BY_EXT = {"png": "png", "jpg": "jpeg", "jpeg": "jpeg", "gif": "gif", "webp": "webp"}


def sniff_asset_kind(data: bytes) -> str | None:
    """What the leading bytes say a raster file is (``png``, ``jpeg``, ``gif``, ``webp``)."""
    if data.startswith(_PNG):
        return "png"
    if data.startswith(_JPEG):
        return "jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def asset_content_problem(path: str, data: bytes) -> tuple[str, str] | None:
    """``(reason, message)`` when an asset's bytes do not fit its extension, else ``None``."""
    ext = path.rpartition(".")[2].lower()
    if ext == "svg":
        problem = svg_problem(data)
        if problem is None:
            return None
        return problem
    expected = _KIND_BY_EXT.get(ext)
    if expected is None:
        return ("invalid-asset-path", f"unsupported asset extension {ext!r}")
    actual = sniff_asset_kind(data)
    if actual != expected:
        return (
            "asset-type-mismatch",
            f"leading bytes say {actual or 'unknown'}, the extension says {expected}",
        )
    return None


_SVG_OPEN = re.compile(r"<svg[\s/>]")
_ACTIVE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"<\s*(?:[\w.-]+:)?script\b", re.I), "a script element"),
    (re.compile(r"<\s*(?:[\w.-]+:)?foreignobject\b", re.I), "a foreignObject element"),
    (re.compile(r"<!\s*entity", re.I), "an entity declaration"),
    (re.compile(r"[\s\"'/](?:[\w.-]+:)?on[a-z]+\s*=", re.I), "an event-handler attribute"),
    (re.compile(r"javascript:", re.I), "a javascript: reference"),
    (re.compile(r"vbscript:", re.I), "a vbscript: reference"),
    (re.compile(r"data:text/html", re.I), "a data:text/html reference"),
    (re.compile(r"@import", re.I), "a CSS @import"),
    (
        re.compile(r"attributename\s*=\s*[\"']\s*(?:[\w.-]+:)?href", re.I),
        "an animation of href",
    ),
)
_HREF = re.compile(r"(?:[\w.-]+:)?href\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", re.I)
_CSS_URL = re.compile(r"url\(\s*(?:\"([^\"]*)\"|'([^']*)'|([^)]*))\)", re.I)
_RASTER_DATA = re.compile(r"data:image/(?:png|jpeg|gif|webp)[;,]", re.I)
_CHAR_REF = re.compile(r"&#(?:x([0-9a-f]+)|([0-9]+));?", re.I)
_IGNORABLE = re.compile(r"[\x00-\x20\x7f-\x9f\u00ad\u200b-\u200f\u2028\u2029\ufeff]+")


def _decode_refs(text: str) -> str:
    """Numeric character references decoded, so ``java&#x73;cript:`` cannot hide."""

    def one(match: re.Match[str]) -> str:
        value = int(match.group(1), 16) if match.group(1) else int(match.group(2))
        return chr(value) if 0 < value < 0x110000 else ""

    return _CHAR_REF.sub(one, text)


def _starts_with_svg(text: str) -> bool:
    i, n = 0, len(text)
    while i < n:
        if text[i] in " \t\r\n\ufeff":
            i += 1
        elif text.startswith("<?", i):
            end = text.find("?>", i)
            if end < 0:
                return False
            i = end + 2
        elif text.startswith("<!--", i):
            end = text.find("-->", i + 4)
            if end < 0:
                return False
            i = end + 3
        elif text[i : i + 9].lower() == "<!doctype":
            close = text.find(">", i)
            bracket = text.find("[", i)
            if close < 0:
                return False
            if 0 <= bracket < close:
                end = text.find("]", bracket)
                close = text.find(">", end) if end >= 0 else -1
                if close < 0:
                    return False
            i = close + 1
        else:
            return _SVG_OPEN.match(text, i) is not None
    return False


def _leaves_file(target: str) -> bool:
    value = _IGNORABLE.sub("", target)
    if value == "" or value.startswith("#"):
        return False
    return _RASTER_DATA.match(value) is None


def svg_problem(data: bytes) -> tuple[str, str] | None:
    """``(reason, message)`` when an SVG is not inert UTF-8 starting with ``<svg``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return ("asset-type-mismatch", "SVG is not valid UTF-8")
    if not _starts_with_svg(text):
        return ("asset-type-mismatch", "SVG does not start with an <svg> element")
    decoded = _decode_refs(text)
    squeezed = _IGNORABLE.sub("", decoded)
    for pattern, what in _ACTIVE:
        if pattern.search(decoded) or pattern.search(squeezed):
            return ("svg-not-inert", f"SVG contains {what}")
    for match in _HREF.finditer(decoded):
        target = match.group(1) if match.group(1) is not None else match.group(2)
        if _leaves_file(target or ""):
            return ("svg-not-inert", "SVG contains an href that leaves the file")
    for match in _CSS_URL.finditer(decoded):
        target = next((g for g in match.groups() if g is not None), "")
        if _leaves_file(target.strip("\"' ")):
            return ("svg-not-inert", "SVG contains a CSS url() that leaves the file")
    return None
