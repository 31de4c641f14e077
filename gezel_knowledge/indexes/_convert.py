"""Text from convertible documents, with the standard library only, within a budget.

HTML/XHTML, Office Open XML (``.docx``, ``.pptx``, ``.xlsx``), OpenDocument (``.odt``,
``.odp``, ``.ods``), EPUB and RTF become Markdown-ish text (headings become ``#`` lines) for
search; the original file stays the visible document. Formats without a stdlib reader (PDF and
the legacy binary Office formats) return ``None`` and are findable by name only.

A workspace document is untrusted input, and every reader here costs time and memory in
proportion to the bytes it reads, never more:

- the members of a zipped document are read as streams against one budget for the whole
  document, :data:`MAX_EXPANDED_BYTES` (a zip bomb of many members, each small enough on its
  own, stops there), and at most :data:`MAX_MEMBERS` of them are read;
- XML is read by expat as events, never built into a tree: elements nested deeper than
  :data:`MAX_XML_DEPTH` and any document type declaration (which could declare entities) make
  the document unreadable;
- HTML is read by a one-pass scanner of this module (the standard library's ``HTMLParser``
  takes minutes on a few hundred kilobytes of unclosed tags).

A document over the budget raises :class:`DocumentTooLarge` (the structural pass skips the file
with a note); one that cannot be read as its format returns ``None`` (found by name only).
"""

from __future__ import annotations

import html
import io
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final
from xml.parsers import expat

__all__ = [
    "MAX_EXPANDED_BYTES",
    "MAX_MEMBERS",
    "MAX_XML_DEPTH",
    "DocumentTooLarge",
    "document_text",
]

MAX_EXPANDED_BYTES: Final = 64 * 1024 * 1024
"""Bytes a zipped document may expand to, all its members together."""
MAX_MEMBERS: Final = 10_000
"""Members of a zipped document read at most (slides, chapters)."""
MAX_XML_DEPTH: Final = 256
"""XML elements nested deeper than this make a document unreadable."""


class DocumentTooLarge(Exception):
    """A document expands beyond :data:`MAX_EXPANDED_BYTES`."""


class _Unreadable(Exception):
    """A document that cannot be read as its format (or that the budget refuses)."""


# -- HTML --------------------------------------------------------------------------------------

_SKIP: Final = frozenset({"head", "noscript", "template"})
_RAW_TEXT: Final = frozenset({"script", "style"})
_BLOCK: Final = frozenset({"p", "div", "li", "br", "tr", "section", "article", "pre", "blockquote"})
_TAG_NAME = re.compile(r"/?([A-Za-z][A-Za-z0-9:-]*)")
# The rest of a tag: characters, or quoted values; possessive, so a tag that never closes is
# read once to the end of the text, not once per way of dividing it.
_TAG_REST = re.compile(r"""(?:[^>"']|"[^"]*"|'[^']*')*+>""")
# The end of a script or style: the scan of one candidate stops at the next '<', so candidates
# without a '>' are not read again by the ones after them.
_RAW_END: Final = {name: re.compile(rf"</{name}\b[^<>]*+>", re.IGNORECASE) for name in _RAW_TEXT}


def _heading_level(tag: str) -> int:
    return int(tag[1]) if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456" else 0


def _skip_markup(text: str, lt: int) -> int | None:
    """The offset after a comment, declaration or processing instruction at ``lt``."""
    for opener, closer in (("<!--", "-->"), ("<!", ">"), ("<?", ">")):
        if text.startswith(opener, lt):
            end = text.find(closer, lt + len(opener))
            return len(text) if end < 0 else end + len(closer)
    return None


def _html_text(text: str) -> str:
    """The text of an HTML page: headings as ``#`` lines, blocks on their own lines, no
    script, style or head. One forward pass; no offset is read twice."""
    parts: list[str] = []
    skip = 0
    pos = 0
    n = len(text)
    while pos < n:
        lt = text.find("<", pos)
        if lt < 0:
            lt = n
        if lt > pos and not skip:
            parts.append(html.unescape(text[pos:lt]))
        if lt >= n:
            break
        after = _skip_markup(text, lt)
        if after is not None:
            pos = after
            continue
        name = _TAG_NAME.match(text, lt + 1)
        if name is None:
            if not skip:
                parts.append("<")
            pos = lt + 1
            continue
        rest = _TAG_REST.match(text, name.end())
        pos = n if rest is None else rest.end()
        tag = name.group(1).lower()
        closing = name.group(0).startswith("/")
        if tag in _RAW_TEXT and not closing:
            end = _RAW_END[tag].search(text, pos)
            pos = n if end is None else end.end()
        elif tag in _SKIP:
            skip = max(0, skip - 1) if closing else skip + 1
        elif (level := _heading_level(tag)) and not closing:
            parts.append("\n\n" + "#" * level + " ")
        elif level or tag in _BLOCK:
            parts.append("\n")
    return "".join(parts)


def _tidy(text: str) -> str:
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


def _html(data: bytes) -> str:
    return _tidy(_html_text(data.decode("utf-8", errors="replace")))


# -- XML ---------------------------------------------------------------------------------------


def _local(name: str) -> str:
    return name.rpartition("}")[2].rpartition(":")[2]


@dataclass(slots=True)
class _Paragraph:
    slot: int
    level: int = 0
    texts: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Shape:
    """Which elements are paragraphs and which hold their text, in one XML vocabulary."""

    paragraphs: frozenset[str]
    text: frozenset[str] | None  # None: all character data inside a paragraph counts
    level_of: Callable[[str, dict[str, str]], int | None] = lambda _name, _attrs: None
    tab: str | None = None


class _XmlParagraphs:
    """Paragraph texts of an XML document read as expat events (no tree is built).

    Text belongs to the innermost open paragraph; paragraphs keep the order they open in.
    """

    def __init__(self, shape: _Shape) -> None:
        self._shape = shape
        self._open: list[_Paragraph] = []
        self._in_text = 0
        self._depth = 0
        self.paragraphs: list[_Paragraph | None] = []

    def parse(self, data: bytes) -> list[_Paragraph]:
        parser = expat.ParserCreate(namespace_separator="}")
        parser.StartDoctypeDeclHandler = self._doctype
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = self._data
        parser.buffer_text = True
        try:
            parser.Parse(data, True)
        except expat.ExpatError as exc:
            raise _Unreadable(str(exc)) from None
        return [p for p in self.paragraphs if p is not None]

    def _doctype(self, *_: object) -> None:
        raise _Unreadable("a document type declaration in an office document")

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        self._depth += 1
        if self._depth > MAX_XML_DEPTH:
            raise _Unreadable(f"XML nested deeper than {MAX_XML_DEPTH} elements")
        local = _local(name)
        shape = self._shape
        if local in shape.paragraphs:
            paragraph = _Paragraph(len(self.paragraphs))
            self.paragraphs.append(None)
            self._open.append(paragraph)
        level = shape.level_of(local, {_local(k): v for k, v in attrs.items()})
        if level is not None and self._open:
            self._open[-1].level = level
        if shape.text is not None and local in shape.text:
            self._in_text += 1
        if local == "tab" and shape.tab is not None and self._open:
            self._open[-1].texts.append(shape.tab)

    def _end(self, name: str) -> None:
        self._depth -= 1
        local = _local(name)
        shape = self._shape
        if shape.text is not None and local in shape.text:
            self._in_text -= 1
        if local in shape.paragraphs and self._open:
            paragraph = self._open.pop()
            self.paragraphs[paragraph.slot] = paragraph

    def _data(self, text: str) -> None:
        if self._open and (self._shape.text is None or self._in_text > 0):
            self._open[-1].texts.append(text)


_HEADING_STYLE = re.compile(r"(?i)heading\s*(\d)")


def _docx_level(name: str, attrs: dict[str, str]) -> int | None:
    if name != "pStyle":
        return None
    style = attrs.get("val", "")[:64]
    match = _HEADING_STYLE.match(style)
    return int(match.group(1)) if match else (1 if style.lower() == "title" else 0)


def _odf_level(name: str, attrs: dict[str, str]) -> int | None:
    if name != "h":
        return None
    level = attrs.get("outline-level", "1")
    return min(int(level), 6) if level.isdigit() and len(level) <= 2 else 1


_DOCX = _Shape(frozenset({"p"}), frozenset({"t"}), _docx_level, tab="\t")
_PPTX = _Shape(frozenset({"p"}), frozenset({"t"}))
_XLSX = _Shape(frozenset({"si"}), frozenset({"t"}))
_ODF = _Shape(frozenset({"h", "p"}), None, _odf_level)


def _headed(paragraphs: list[_Paragraph], *, strip: bool) -> list[str]:
    out: list[str] = []
    for paragraph in paragraphs:
        line = "".join(paragraph.texts)
        if strip:
            line = line.strip()
            if not line:
                continue
        level = min(paragraph.level, 6)
        out.append(("#" * level + " " + line) if level and line else line)
    return out


# -- zipped documents --------------------------------------------------------------------------


class _Budget:
    """The bytes a zipped document may still expand to, and the members it may still read."""

    def __init__(self) -> None:
        self.bytes = MAX_EXPANDED_BYTES
        self.members = MAX_MEMBERS

    def read(self, archive: zipfile.ZipFile, name: str) -> bytes | None:
        """A member's bytes, or ``None`` when it is absent; raises :class:`DocumentTooLarge`
        past the budget (counted as the bytes come out, whatever the header claims)."""
        try:
            info = archive.getinfo(name)
        except KeyError:
            return None
        self.members -= 1
        if self.members < 0 or info.file_size > self.bytes:
            raise DocumentTooLarge(name)
        with archive.open(info) as member:
            data = member.read(self.bytes + 1)
        if len(data) > self.bytes:
            raise DocumentTooLarge(name)
        self.bytes -= len(data)
        return data


def _docx(archive: zipfile.ZipFile, budget: _Budget) -> str | None:
    data = budget.read(archive, "word/document.xml")
    if data is None:
        return None
    return _tidy("\n\n".join(_headed(_XmlParagraphs(_DOCX).parse(data), strip=False)))


def _texts(data: bytes, shape: _Shape) -> list[str]:
    return [
        text for p in _XmlParagraphs(shape).parse(data) if p.texts and (text := "".join(p.texts))
    ]


_SLIDE = re.compile(r"ppt/slides/slide(\d{1,9})\.xml")


def _pptx(archive: zipfile.ZipFile, budget: _Budget) -> str | None:
    slides = sorted((int(m.group(1)), n) for n in archive.namelist() if (m := _SLIDE.fullmatch(n)))
    out: list[str] = []
    for number, (_, name) in enumerate(slides, start=1):
        data = budget.read(archive, name)
        if data is None:
            continue
        out.append(f"# Slide {number}")
        out.extend(_texts(data, _PPTX))
    return _tidy("\n\n".join(out)) if out else None


def _xlsx(archive: zipfile.ZipFile, budget: _Budget) -> str | None:
    data = budget.read(archive, "xl/sharedStrings.xml")
    if data is None:
        return None
    return _tidy("\n".join(_texts(data, _XLSX)))


def _opendocument(archive: zipfile.ZipFile, budget: _Budget) -> str | None:
    data = budget.read(archive, "content.xml")
    if data is None:
        return None
    return _tidy("\n\n".join(_headed(_XmlParagraphs(_ODF).parse(data), strip=True)))


def _epub(archive: zipfile.ZipFile, budget: _Budget) -> str | None:
    names = sorted(n for n in archive.namelist() if n.lower().endswith((".xhtml", ".html", ".htm")))
    parts = [_html(data) for n in names if (data := budget.read(archive, n)) is not None]
    return _tidy("\n\n".join(parts)) if parts else None


def _rtf(data: bytes) -> str:
    text = data.decode("latin-1")
    text = re.sub(r"\\'([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text)
    text = re.sub(r"\\par[d]?\b ?", "\n", text)
    text = re.sub(r"\\[a-zA-Z]+-?\d* ?", "", text)
    return _tidy(text.replace("{", "").replace("}", ""))


_ZIPPED: Final[dict[str, Callable[[zipfile.ZipFile, _Budget], str | None]]] = {
    "docx": _docx,
    "pptx": _pptx,
    "xlsx": _xlsx,
    "odt": _opendocument,
    "odp": _opendocument,
    "ods": _opendocument,
    "epub": _epub,
}


def document_text(fmt: str, data: bytes) -> str | None:
    """Searchable text of a document of format ``fmt`` (its extension), or ``None`` when this
    format has no reader or the bytes are not a readable document; raises
    :class:`DocumentTooLarge` when it expands beyond the budget."""
    try:
        if fmt in ("html", "htm", "xhtml"):
            return _html(data)
        if fmt == "rtf":
            return _rtf(data)
        reader = _ZIPPED.get(fmt)
        if reader is None:
            return None
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return reader(archive, _Budget())
    except (_Unreadable, zipfile.BadZipFile, ValueError, KeyError, EOFError, NotImplementedError):
        # NotImplementedError: a compression method zipfile does not have.
        return None
