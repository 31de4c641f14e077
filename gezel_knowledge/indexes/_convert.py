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
  takes minutes on a few hundred kilobytes of unclosed tags);
- the converted text is counted as it is produced, into one growing string (never a list of
  millions of small ones), and stops at :data:`MAX_CONVERTED_CHARS` (60 MB of ``ab<br>``
  converts to 30 million characters: a small member may convert to a lot of text).

A document over either budget raises :class:`DocumentTooLarge` (the structural pass skips the file
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
    "MAX_CONVERTED_CHARS",
    "MAX_EXPANDED_BYTES",
    "MAX_MEMBERS",
    "MAX_XML_DEPTH",
    "DocumentTooLarge",
    "document_text",
]

MAX_EXPANDED_BYTES: Final = 64 * 1024 * 1024
"""Bytes a zipped document may expand to, all its members together."""
MAX_CONVERTED_CHARS: Final = 16 * 1024 * 1024
"""Characters of text one document may convert to, counted before lines are tidied.

A full-length book is 2-8 million characters (an unabridged long novel about 3.3 million, a
complete Shakespeare about 5.5 million, a seven-volume novel cycle about 7.5 million); twice
that leaves room for the indentation and blank lines of pretty-printed markup, which count too.
Held as one compact string, the text costs 16-64 MB (1-4 bytes a character) per copy."""
MAX_MEMBERS: Final = 10_000
"""Members of a zipped document read at most (slides, chapters)."""
MAX_XML_DEPTH: Final = 256
"""XML elements nested deeper than this make a document unreadable."""


class DocumentTooLarge(Exception):
    """A document expands beyond :data:`MAX_EXPANDED_BYTES` or converts to more than
    :data:`MAX_CONVERTED_CHARS` characters of text."""


class _Text:
    """The converted text of one document, counted as it is written: one growing buffer (a
    list of millions of small strings costs twenty times their characters), which refuses to
    grow past :data:`MAX_CONVERTED_CHARS`."""

    __slots__ = ("_out", "left")

    def __init__(self) -> None:
        self._out = io.StringIO()
        self.left = MAX_CONVERTED_CHARS

    def charge(self, chars: int) -> None:
        """Count ``chars`` characters against the budget; raises :class:`DocumentTooLarge`
        past it."""
        self.left -= chars
        if self.left < 0:
            raise DocumentTooLarge(f"converted text over {MAX_CONVERTED_CHARS:,} characters")

    def write(self, text: str, *, charged: bool = False) -> None:
        """Append ``text``, counting it unless it was ``charged`` already."""
        if not charged:
            self.left -= len(text)  # as charge() does, without a second call per piece
            if self.left < 0:
                raise DocumentTooLarge(f"converted text over {MAX_CONVERTED_CHARS:,} characters")
        self._out.write(text)

    def value(self) -> str:
        """Everything written so far."""
        return self._out.getvalue()


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


def _html_text(text: str, out: _Text) -> None:
    """Write the text of an HTML page to ``out``: headings as ``#`` lines, blocks on their own
    lines, no script, style or head. One forward pass; no offset is read twice."""
    write = out.write  # called once or twice per tag: millions of times in a hostile page
    skip = 0
    pos = 0
    n = len(text)
    while pos < n:
        lt = text.find("<", pos)
        if lt < 0:
            lt = n
        if lt > pos and not skip:
            write(html.unescape(text[pos:lt]))
        if lt >= n:
            break
        if text.startswith(("<!", "<?"), lt):  # most tags are neither: one test, not three
            after = _skip_markup(text, lt)
            if after is not None:
                pos = after
                continue
        name = _TAG_NAME.match(text, lt + 1)
        if name is None:
            if not skip:
                write("<")
            pos = lt + 1
            continue
        rest = _TAG_REST.match(text, name.end())
        pos = n if rest is None else rest.end()
        tag = name.group(1).lower()
        closing = name.group(0).startswith("/")
        if tag in _RAW_TEXT and not closing:
            end = _RAW_END[tag].search(text, pos)
            pos = n if end is None else end.end()
        elif tag in _BLOCK:  # no heading is a block: the common case first
            write("\n")
        elif tag in _SKIP:
            skip = max(0, skip - 1) if closing else skip + 1
        elif level := _heading_level(tag):
            write("\n" if closing else "\n\n" + "#" * level + " ")


# The line boundaries of str.splitlines other than "\n", and the whitespace of str.split
# inside a line: each pattern matches only what it changes (a plain space between two words
# is left alone), since re.sub holds a list of every piece it makes.
_OTHER_BREAK = re.compile(r"\r\n?|[\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_SPACES = re.compile(r"[^\S\n]{2,}|[^\S \n]")
_SPACE_AT_BREAK = re.compile(r" \n ?|\n ")
_BLANK_LINES = re.compile(r"\n{3,}")
_CUT = re.compile(r"\S\s")  # a window ends after a word: no run of whitespace spans two
_LONG_SPACE = re.compile(r"\s{256,}")
_TIDY_WINDOW = 1 << 16


def _tidy_window(text: str) -> str:
    text = _SPACES.sub(" ", _OTHER_BREAK.sub("\n", text))
    return _BLANK_LINES.sub("\n\n", _SPACE_AT_BREAK.sub("\n", text))


def _line_breaks(space: str) -> int:
    n = space.count("\n") + space.count("\r") - space.count("\r\n")
    return n + sum(space.count(c) for c in "\v\f\x1c\x1d\x1e\x85\u2028\u2029")


def _tidy(text: str, window: int = _TIDY_WINDOW) -> str:
    """Each line's whitespace collapsed and trimmed, at most one blank line in a row.

    Substitutions over windows of about ``window`` characters, each cut after a word, and a
    long run of whitespace collapsed by counting its line breaks: memory stays a few copies of
    the text, never an object per line or per word (millions, for a converted zip bomb)."""
    out = io.StringIO()
    pos = 0
    n = len(text)
    while pos < n:
        long = _LONG_SPACE.search(text, pos)
        stop = n if long is None else long.start()
        while pos < stop:
            end = min(pos + window, stop)
            if end < stop:
                cut = _CUT.search(text, end - 1, stop)
                end = stop if cut is None else cut.start() + 1
            out.write(_tidy_window(text[pos:end]))
            pos = end
        if long is not None:
            breaks = _line_breaks(long.group())
            out.write(" " if breaks == 0 else "\n" if breaks == 1 else "\n\n")
            pos = long.end()
    return out.getvalue().strip() + "\n"


def _html(data: bytes, out: _Text) -> None:
    _html_text(data.decode("utf-8", errors="replace"), out)


# -- XML ---------------------------------------------------------------------------------------


def _local(name: str) -> str:
    return name.rpartition("}")[2].rpartition(":")[2]


@dataclass(slots=True)
class _Paragraph:
    slot: int
    level: int = 0
    text: io.StringIO = field(default_factory=io.StringIO)


@dataclass(frozen=True, slots=True)
class _Shape:
    """Which elements are paragraphs and which hold their text, in one XML vocabulary."""

    paragraphs: frozenset[str]
    text: frozenset[str] | None  # None: all character data inside a paragraph counts
    level_of: Callable[[str, dict[str, str]], int | None] = lambda _name, _attrs: None
    tab: str | None = None
    strip: bool = False  # drop paragraphs that are only whitespace
    headed: bool = False  # a paragraph's level becomes a "#" prefix
    separator: str = "\n\n"


MAX_HELD_PARAGRAPHS: Final = 100_000
"""Paragraphs nested in one outer paragraph (text boxes) held before they are written."""


class _XmlParagraphs:
    """Paragraph texts of an XML document read as expat events (no tree is built), written
    to a :class:`_Text` as each outermost paragraph closes.

    Text belongs to the innermost open paragraph; paragraphs keep the order they open in.
    Character data is counted against the text budget as it arrives, so a paragraph of
    millions of pieces stops at the budget, not after.
    """

    def __init__(self, shape: _Shape, out: _Text) -> None:
        self._shape = shape
        self._out = out
        self._open: list[_Paragraph] = []
        self._in_text = 0
        self._depth = 0
        self._held: list[_Paragraph | None] = []  # since the outermost open paragraph opened

    def parse(self, data: bytes) -> None:
        """Read ``data``, writing its paragraphs."""
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
        self._flush()

    def _doctype(self, *_: object) -> None:
        raise _Unreadable("a document type declaration in an office document")

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        self._depth += 1
        if self._depth > MAX_XML_DEPTH:
            raise _Unreadable(f"XML nested deeper than {MAX_XML_DEPTH} elements")
        local = _local(name)
        shape = self._shape
        if local in shape.paragraphs:
            if len(self._held) >= MAX_HELD_PARAGRAPHS:
                raise DocumentTooLarge(f"over {MAX_HELD_PARAGRAPHS:,} nested paragraphs")
            paragraph = _Paragraph(len(self._held))
            self._held.append(None)
            self._open.append(paragraph)
        level = shape.level_of(local, {_local(k): v for k, v in attrs.items()})
        if level is not None and self._open:
            self._open[-1].level = level
        if shape.text is not None and local in shape.text:
            self._in_text += 1
        if local == "tab" and shape.tab is not None and self._open:
            self._append(shape.tab)

    def _end(self, name: str) -> None:
        self._depth -= 1
        local = _local(name)
        shape = self._shape
        if shape.text is not None and local in shape.text:
            self._in_text -= 1
        if local in shape.paragraphs and self._open:
            paragraph = self._open.pop()
            self._held[paragraph.slot] = paragraph
            if not self._open:
                self._flush()

    def _data(self, text: str) -> None:
        if self._open and (self._shape.text is None or self._in_text > 0):
            self._append(text)

    def _append(self, text: str) -> None:
        self._out.charge(len(text))
        self._open[-1].text.write(text)

    def _flush(self) -> None:
        """Write the held paragraphs that closed, in the order they opened."""
        shape = self._shape
        out = self._out
        for paragraph in self._held:
            if paragraph is None:
                continue  # never closed (the document ended inside it)
            line = paragraph.text.getvalue()
            if shape.strip:
                line = line.strip()
                if not line:
                    continue
            elif not shape.headed and not line:
                continue
            level = min(paragraph.level, 6) if shape.headed else 0
            prefix = "#" * level + " " if level and line else ""
            out.write(prefix)
            out.write(line, charged=True)
            out.write(shape.separator)
        self._held.clear()


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


_DOCX = _Shape(frozenset({"p"}), frozenset({"t"}), _docx_level, tab="\t", headed=True)
_PPTX = _Shape(frozenset({"p"}), frozenset({"t"}))
_XLSX = _Shape(frozenset({"si"}), frozenset({"t"}), separator="\n")
_ODF = _Shape(frozenset({"h", "p"}), None, _odf_level, strip=True, headed=True)


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


_Reader = Callable[[zipfile.ZipFile, _Budget, _Text], bool]
"""Writes a zipped document's text; ``False`` when it holds none of its format's members."""


def _one_part(name: str, shape: _Shape) -> _Reader:
    def read(archive: zipfile.ZipFile, budget: _Budget, out: _Text) -> bool:
        data = budget.read(archive, name)
        if data is None:
            return False
        _XmlParagraphs(shape, out).parse(data)
        return True

    return read


_SLIDE = re.compile(r"ppt/slides/slide(\d{1,9})\.xml")


def _pptx(archive: zipfile.ZipFile, budget: _Budget, out: _Text) -> bool:
    slides = sorted((int(m.group(1)), n) for n in archive.namelist() if (m := _SLIDE.fullmatch(n)))
    found = False
    for number, (_, name) in enumerate(slides, start=1):
        data = budget.read(archive, name)
        if data is None:
            continue
        found = True
        out.write(f"# Slide {number}\n\n")
        _XmlParagraphs(_PPTX, out).parse(data)
        del data  # the next slide's bytes need not sit beside this one's
    return found


def _epub(archive: zipfile.ZipFile, budget: _Budget, out: _Text) -> bool:
    names = sorted(n for n in archive.namelist() if n.lower().endswith((".xhtml", ".html", ".htm")))
    found = False
    for name in names:
        data = budget.read(archive, name)
        if data is None:
            continue
        found = True
        text = data.decode("utf-8", errors="replace")
        del data  # a member's bytes need not sit beside its text
        _html_text(text, out)
        del text
        out.write("\n\n")
    return found


def _rtf(data: bytes) -> str:
    text = data.decode("latin-1")
    text = re.sub(r"\\'([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text)
    text = re.sub(r"\\par[d]?\b ?", "\n", text)
    text = re.sub(r"\\[a-zA-Z]+-?\d* ?", "", text)
    return _tidy(text.replace("{", "").replace("}", ""))


_OPENDOCUMENT: Final = _one_part("content.xml", _ODF)
_ZIPPED: Final[dict[str, _Reader]] = {
    "docx": _one_part("word/document.xml", _DOCX),
    "pptx": _pptx,
    "xlsx": _one_part("xl/sharedStrings.xml", _XLSX),
    "odt": _OPENDOCUMENT,
    "odp": _OPENDOCUMENT,
    "ods": _OPENDOCUMENT,
    "epub": _epub,
}


def document_text(fmt: str, data: bytes) -> str | None:
    """Searchable text of a document of format ``fmt`` (its extension), or ``None`` when this
    format has no reader or the bytes are not a readable document; raises
    :class:`DocumentTooLarge` when it expands or converts beyond its budgets."""
    out = _Text()
    try:
        if fmt in ("html", "htm", "xhtml"):
            _html(data, out)
            return _tidy(out.value())
        if fmt == "rtf":
            text = _rtf(data)
            out.charge(len(text))  # RTF only shrinks: its text is at most the file's size
            return text
        reader = _ZIPPED.get(fmt)
        if reader is None:
            return None
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if not reader(archive, _Budget(), out):
                return None
        return _tidy(out.value())
    except (_Unreadable, zipfile.BadZipFile, ValueError, KeyError, EOFError, NotImplementedError):
        # NotImplementedError: a compression method zipfile does not have.
        return None
