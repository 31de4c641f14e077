"""Text from convertible documents, with the standard library only.

HTML/XHTML, Office Open XML (``.docx``, ``.pptx``, ``.xlsx``), OpenDocument (``.odt``,
``.odp``, ``.ods``), EPUB and RTF become Markdown-ish text (headings become ``#`` lines) for
search; the original file stays the visible document. Formats without a stdlib reader (PDF and
the legacy binary Office formats) return ``None`` and are findable by name only. Archive members
are size-checked before they are inflated so a zip bomb cannot exhaust memory.
"""

from __future__ import annotations

import io
import re
import zipfile
from html.parser import HTMLParser
from xml.etree import ElementTree

__all__ = ["document_text"]

_MAX_MEMBER_BYTES = 64 * 1024 * 1024


class _HtmlText(HTMLParser):
    _SKIP = frozenset({"script", "style", "head", "noscript", "template"})
    _BLOCK = frozenset({"p", "div", "li", "br", "tr", "section", "article", "pre", "blockquote"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skip += 1
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.parts.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag in self._BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skip = max(0, self._skip - 1)
        elif (len(tag) == 2 and tag[0] == "h" and tag[1] in "123456") or tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def _tidy(text: str) -> str:
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


def _html(data: bytes) -> str:
    parser = _HtmlText()
    parser.feed(data.decode("utf-8", errors="replace"))
    parser.close()
    return _tidy("".join(parser.parts))


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _member(archive: zipfile.ZipFile, name: str) -> bytes | None:
    try:
        info = archive.getinfo(name)
    except KeyError:
        return None
    if info.file_size > _MAX_MEMBER_BYTES:
        return None
    return archive.read(info)


def _docx(archive: zipfile.ZipFile) -> str | None:
    data = _member(archive, "word/document.xml")
    if data is None:
        return None
    out: list[str] = []
    for para in ElementTree.fromstring(data).iter():
        if _local(para.tag) != "p":
            continue
        level = 0
        texts: list[str] = []
        for node in para.iter():
            name = _local(node.tag)
            if name == "pStyle":
                style = next((v for k, v in node.attrib.items() if _local(k) == "val"), "")
                match = re.match(r"(?i)heading\s*(\d)", style)
                level = int(match.group(1)) if match else (1 if style.lower() == "title" else 0)
            elif name == "t" and node.text:
                texts.append(node.text)
            elif name == "tab":
                texts.append("\t")
        line = "".join(texts)
        out.append(("#" * min(level, 6) + " " + line) if level and line else line)
    return _tidy("\n\n".join(out))


def _paragraph_texts(data: bytes, para_tag: str, text_tag: str) -> list[str]:
    lines: list[str] = []
    for para in ElementTree.fromstring(data).iter():
        if _local(para.tag) == para_tag:
            texts = [n.text for n in para.iter() if _local(n.tag) == text_tag and n.text]
            if texts:
                lines.append("".join(texts))
    return lines


def _pptx(archive: zipfile.ZipFile) -> str | None:
    slides = sorted(
        (n for n in archive.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)),
        key=lambda n: int(re.findall(r"\d+", n)[-1]),
    )
    out: list[str] = []
    for number, name in enumerate(slides, start=1):
        data = _member(archive, name)
        if data is None:
            continue
        out.append(f"# Slide {number}")
        out.extend(_paragraph_texts(data, "p", "t"))
    return _tidy("\n\n".join(out)) if out else None


def _xlsx(archive: zipfile.ZipFile) -> str | None:
    data = _member(archive, "xl/sharedStrings.xml")
    if data is None:
        return None
    return _tidy("\n".join(_paragraph_texts(data, "si", "t")))


def _opendocument(archive: zipfile.ZipFile) -> str | None:
    data = _member(archive, "content.xml")
    if data is None:
        return None
    out: list[str] = []
    for node in ElementTree.fromstring(data).iter():
        name = _local(node.tag)
        if name in ("h", "p"):
            text = "".join(node.itertext()).strip()
            if not text:
                continue
            if name == "h":
                level = next(
                    (v for k, v in node.attrib.items() if _local(k) == "outline-level"), "1"
                )
                out.append("#" * min(int(level) if level.isdigit() else 1, 6) + " " + text)
            else:
                out.append(text)
    return _tidy("\n\n".join(out))


def _epub(archive: zipfile.ZipFile) -> str | None:
    names = sorted(n for n in archive.namelist() if n.lower().endswith((".xhtml", ".html", ".htm")))
    parts = [_html(data) for n in names if (data := _member(archive, n)) is not None]
    return _tidy("\n\n".join(parts)) if parts else None


def _rtf(data: bytes) -> str:
    text = data.decode("latin-1")
    text = re.sub(r"\\'([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text)
    text = re.sub(r"\\par[d]?\b ?", "\n", text)
    text = re.sub(r"\\[a-zA-Z]+-?\d* ?", "", text)
    return _tidy(text.replace("{", "").replace("}", ""))


_ZIPPED = {
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
    format has no reader or the bytes are not a readable document."""
    try:
        if fmt in ("html", "htm", "xhtml"):
            return _html(data)
        if fmt == "rtf":
            return _rtf(data)
        reader = _ZIPPED.get(fmt)
        if reader is None:
            return None
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return reader(archive)
    except (zipfile.BadZipFile, ElementTree.ParseError, ValueError, KeyError, EOFError):
        return None
