"""Every scanner over untrusted text runs in time proportional to its input (issue 26).

Each test feeds a scanner about a megabyte of the inputs that made an earlier version quadratic
or exponential (a 30 KB SVG of ``<a `` took 114 s to validate, 80 KB of ``<img `` 42 s to
build, a 2 MB ``.c`` file of ``a b()`` lines over 120 s to index) and holds it to a CPU-time
budget proportional to the size: about ten times what it takes on this machine, so a loaded
two-core machine does not flake it, while a quadratic scan of a megabyte would take minutes to
hours. Correctness of each scanner is tested beside it; these tests measure cost only.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest

from gezel_knowledge._untrusted import StructuredInputError, load_json, load_toml
from gezel_knowledge._untrusted_yaml import load_yaml
from gezel_knowledge.archive.assets import asset_references, svg_problem
from gezel_knowledge.compiler.generators._includes import expand_includes
from gezel_knowledge.compiler.generators._literate_nav import _last_list
from gezel_knowledge.compiler.generators._snippets import expand_snippets
from gezel_knowledge.compiler.generators._summary import _find_link, _heading
from gezel_knowledge.compiler.text.anchors import SLUG_STYLES, heading_text, page_anchors
from gezel_knowledge.compiler.text.blocks import LineIndex, normalize_body, parse_blocks
from gezel_knowledge.compiler.text.links import find_links
from gezel_knowledge.indexes._chunker import chunk_text
from gezel_knowledge.indexes._convert import DocumentTooLarge, document_text
from gezel_knowledge.indexes._ignore import IgnoreRules
from gezel_knowledge.indexes._memory_format import parse_memory_file
from gezel_knowledge.indexes._symbols import extract_symbols
from gezel_knowledge.indexes._text import split_identifier_words
from gezel_knowledge.query import query_terms
from tests.faults import MB, assert_linear_time


def _repeat(unit: str, size: int = MB, head: str = "") -> str:
    return head + (unit * ((size - len(head)) // len(unit) + 1))[: size - len(head)]


def _quietly(scan: Callable[[], object]) -> Callable[[], object]:
    """The scan, with the typed refusals a hostile input may well end in counted as done."""

    def run() -> object:
        try:
            return scan()
        except (StructuredInputError, DocumentTooLarge):
            return None

    return run


_SVG_HEAD = '<svg xmlns="http://www.w3.org/2000/svg">'
SVG_FAMILIES = {
    "anchors": "<a ",
    "unclosed quotes": '<a x="',
    "style elements": "<style>",
    "css urls": "<style>url(#a",
    "doctype": "<!DOCTYPE ",
    "comments": "<!--",
    "end tags": "</a",
    "lone angles": "<",
    "spaced angles": "< ",
    "prefixed names": "<a:a:a",
    "equals": "<a x= ",
    "javascript words": "javascript ",
    "entities": "&#x61;",
    "attributes": '<rect style="fill:url(#g)" ',
}


@pytest.mark.parametrize("unit", SVG_FAMILIES.values(), ids=SVG_FAMILIES.keys())
def test_the_svg_check_is_linear(unit: str) -> None:
    data = _repeat(unit, head=_SVG_HEAD).encode()
    assert_linear_time(lambda: svg_problem(data), len(data), seconds_per_mb=10, what=unit)


@pytest.mark.parametrize("unit", ["<img ", "<img src ", "](", "[a](assets/", "![", "<img\tsrc= "])
def test_asset_references_are_linear(unit: str) -> None:
    body = _repeat(unit, head="assets/ ")
    assert_linear_time(
        lambda: asset_references(body), len(body), seconds_per_mb=10, what=f"references {unit!r}"
    )


IGNORE_FAMILIES: dict[str, Callable[[int], str]] = {
    "stars": lambda i: "*a" * 40 + f"*b{i}",
    "double stars": lambda i: "/" + "**/" * 40 + f"x{i}",
    "mixed": lambda i: "a/**/b*c*d/**/e*f*g/**/" * 4 + str(i),
    "classes": lambda i: "[a-z]*[!b]*?" * 10 + str(i),
}


def test_gitignore_matching_is_linear() -> None:
    # A megabyte of ignore rules, a quarter of each family that backtracked exponentially
    # (``*a*a*a...*b``, ``/**/**/.../x``), against long and deep paths.
    lines: list[str] = []
    size = 0
    for family in IGNORE_FAMILIES.values():
        quarter = size + MB // len(IGNORE_FAMILIES)
        while size < quarter:
            lines.append(family(len(lines)))
            size += len(lines[-1]) + 1
    paths = ["a/" * 60 + "a" * 200 + str(k) for k in range(10)]
    paths += ["a/b/c/d/e/" * 30 + "f" + str(k) for k in range(10)]

    def scan() -> None:
        rules = IgnoreRules().with_file("", lines)
        for path in paths:
            rules.ignored(path, is_dir=False)

    assert_linear_time(scan, size, seconds_per_mb=60, what="ignore rules")


SOURCE_FAMILIES = {
    "c": ["a b()\n", "a b(\n", "#include <\n", "a &a:a:a(", "struct a \n"],
    "java": ["async ", "public a a a a a (", "public static final x y\n", "fun <"],
    "javascript": ["import x\n", "import a from\n", "export {\n", "const a = (\n", "  a(b) :"],
    "rust": ["impl" + " " * 50, "impl a a a a\n", "use x\n", "use {\n", "pub(\n", 'extern "'],
    "go": ["func (\n", "func (a", '\t"x\n'],
    "ruby": ["require '\n", "def self."],
    "php": ["require '\n", "public public function"],
    "swift": ["public public func", "class "],
    "shell": ["a() ", "source "],
    "lua": ["require('\n", "local function a.b:c"],
    "python": ["a+", "def (", "class a(b" + "(" * 10, "import a." * 5 + "\n"],
}


@pytest.mark.parametrize(
    ("language", "unit"),
    [(lang, unit) for lang, units in SOURCE_FAMILIES.items() for unit in units],
)
def test_symbol_extraction_is_linear(language: str, unit: str) -> None:
    text = _repeat(unit)
    assert_linear_time(
        lambda: extract_symbols(language, text),
        len(text),
        seconds_per_mb=15,
        what=f"{language} symbols of {unit!r}",
    )


@pytest.mark.parametrize("unit", ["# a" + " " * 60 + "x\n", "#" * 7 + " \n", "# " + "#" * 50, "`"])
def test_markdown_chunking_and_headings_are_linear(unit: str) -> None:
    text = _repeat(unit)
    assert_linear_time(
        lambda: chunk_text(text, markdown=True), len(text), seconds_per_mb=20, what=repr(unit)
    )


HTML_FAMILIES = ["<a ", "<!--", "</", "<?", '<a b="', "<script></script", "<p>x", "&amp;", "<h1>"]


@pytest.mark.parametrize("unit", HTML_FAMILIES)
def test_html_text_is_linear(unit: str) -> None:
    data = _repeat(unit).encode()
    assert_linear_time(
        lambda: document_text("html", data), len(data), seconds_per_mb=10, what=repr(unit)
    )


def _zipped(name: str, data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize(
    ("fmt", "member", "unit"),
    [
        ("xlsx", "xl/sharedStrings.xml", b"<si><t>a</t>"),
        ("xlsx", "xl/sharedStrings.xml", b"<si>"),
        ("docx", "word/document.xml", b"<w:p xmlns:w='urn:w'><w:t>a</w:t></w:p>"),
        ("odt", "content.xml", b"<p>x<span>y</span>"),
    ],
)
def test_office_xml_is_read_in_linear_time(fmt: str, member: str, unit: bytes) -> None:
    xml = b"<root>" + unit * (MB // len(unit)) + b"</root>"
    data = _zipped(member, xml)
    assert_linear_time(
        _quietly(lambda: document_text(fmt, data)), len(xml), seconds_per_mb=15, what=repr(unit)
    )


@pytest.mark.parametrize(
    "text",
    [
        _repeat("[", size=MB),
        _repeat("- a\n"),
        _repeat("a: &x [1]\nb: *x\n"),
        _repeat("'\\u" * 1),
        _repeat("k: v\n"),
        "a: " + "1" * (MB - 3),
    ],
    ids=["flow", "list", "aliases", "quotes", "mapping", "number"],
)
def test_yaml_is_read_in_linear_time(text: str) -> None:
    assert_linear_time(
        _quietly(lambda: load_yaml(text, "mkdocs.yml")), len(text), seconds_per_mb=40, what="yaml"
    )


@pytest.mark.parametrize(
    "text",
    [_repeat("["), _repeat('{"a":'), "1" * MB, '"' + _repeat("\\ud800") + '"', _repeat("[1,")],
    ids=["arrays", "objects", "number", "surrogates", "unclosed"],
)
def test_json_is_read_in_linear_time(text: str) -> None:
    assert_linear_time(
        _quietly(lambda: load_json(text, "a line")), len(text), seconds_per_mb=10, what="json"
    )


@pytest.mark.parametrize(
    "text",
    ["a = " + _repeat("["), "a = " + "1" * MB, "[" + ".".join(["k"] * (MB // 2)) + "]"],
    ids=["arrays", "number", "tables"],
)
def test_toml_is_read_in_linear_time(text: str) -> None:
    assert_linear_time(
        _quietly(lambda: load_toml(text, "hugo.toml")), len(text), seconds_per_mb=30, what="toml"
    )


@pytest.mark.parametrize("unit", ["- (fact, project) a\n", "  # x\n", "- " + " " * 100 + "\n"])
def test_memory_files_are_parsed_in_linear_time(unit: str) -> None:
    text = _repeat(unit)
    assert_linear_time(
        lambda: parse_memory_file(date(2026, 1, 1), text), len(text), seconds_per_mb=15, what=unit
    )


@pytest.mark.parametrize("unit", ["a_", "A", "aB", "a b ", "\u0301"])
def test_query_and_identifier_words_are_linear(unit: str) -> None:
    text = _repeat(unit)

    def scan() -> None:
        query_terms(text)
        split_identifier_words(text)

    assert_linear_time(scan, len(text), seconds_per_mb=20, what=repr(unit))


# -- the compiler's scanners over pages, headings and outlines ---------------------------------

BODY_FAMILIES = [
    "<img ",
    "<a ",
    "](",
    "[a](",
    "\\[",
    "![a](",
    "`` ` ",
    "```",
    "{#",
    "# " + " " * 60 + "x\n",
    "# # \n",
    "# [a](b) `c` <a id='x'> *d*\n",
    "<a id='x'>",
    "(a)=\n",
    "{{< ref ",
    "{ #a",
    "> #### a" + " " * 60 + "x\n",
    ">",
]


@pytest.mark.parametrize("unit", BODY_FAMILIES)
def test_page_scanners_are_linear(unit: str) -> None:
    # Blocks, links, anchors in every slug style, and the heading text of one long heading.
    body = _repeat(unit)

    def scan() -> None:
        text = normalize_body(body)
        index = LineIndex(text)
        blocks = parse_blocks(text, index)
        find_links(text, index, blocks)
        for style in SLUG_STYLES:
            page_anchors(blocks, index, text, style)
        heading_text(body[: MB // 4])

    assert_linear_time(scan, len(body), seconds_per_mb=40, what=f"page of {unit!r}")


@pytest.mark.parametrize("unit", ["](", "[a](", "](<", "# ", "#\t", "- [a](", ">", " "])
def test_summary_lines_are_read_in_linear_time(unit: str) -> None:
    line = _repeat(unit, head="[")

    def scan() -> None:
        _find_link(line)
        _heading(line)

    assert_linear_time(scan, len(line), seconds_per_mb=20, what=f"SUMMARY.md of {unit!r}")


@pytest.mark.parametrize("unit", ["{{#include ", "{{#include a", "\\{{#title ", " ", '--8<-- "a'])
def test_include_directives_are_read_in_linear_time(unit: str, tmp_path: Path) -> None:
    # mdBook's {{#include}} and pymdownx.snippets' --8<-- lines over a long unclosed line.
    body = _repeat(unit)

    def scan() -> None:
        expand_includes(body, folder=tmp_path, within=tmp_path)
        expand_snippets(body, bases=(tmp_path,), within=tmp_path)

    assert_linear_time(scan, len(body), seconds_per_mb=20, what=f"includes of {unit!r}")


@pytest.mark.parametrize("unit", ["- ", "- [a](", "  - a\n", "<!--nav-->\n", "1. [a](b)\n"])
def test_literate_nav_lists_are_read_in_linear_time(unit: str) -> None:
    text = _repeat(unit)
    assert_linear_time(
        lambda: _last_list(text), len(text), seconds_per_mb=20, what=f"nav file of {unit!r}"
    )


@pytest.mark.parametrize("head", ["{#", "{: #", "> # ", "> #### a "])
def test_one_long_unclosed_attribute_or_quoted_heading_is_linear(head: str) -> None:
    # An id that never closes, or a quoted heading of blanks: each was rescanned per character.
    body = _repeat("a" if "{" in head else " ", head=head) + "\n"

    def scan() -> None:
        text = normalize_body(body)
        index = LineIndex(text)
        page_anchors(parse_blocks(text, index), index, text, "python-markdown")

    assert_linear_time(scan, len(body), seconds_per_mb=40, what=f"a long {head!r}")
