"""Catalog Markdown to safe HTML: CommonMark with tables, blocks marked with their lines,
every URL mapped or dropped, nothing active kept."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from gezel_knowledge.browse._markdown import LinkMap, render_body
from gezel_knowledge.browse._urls import cite_url

LINKS = LinkMap(cite=cite_url, asset=lambda path: f"/c/p/c/{path}")


def test_blocks_carry_their_line_ranges_and_headings_their_sections() -> None:
    body = (
        "# Title\n\nFirst paragraph.\n\n## Part\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n```py\nx = 1\n```\n"
    )
    rendered = render_body(body, LINKS)
    assert '<h1 data-lines="1-1" id="u-title">Title</h1>' in rendered.html
    assert '<p data-lines="3-3">First paragraph.</p>' in rendered.html
    assert '<table data-lines="7-9">' in rendered.html
    assert '<code data-lines="11-13" class="language-py">' in rendered.html
    assert [(s.title, s.line_start, s.line_end) for s in rendered.sections] == [
        ("Title", 1, 13),
        ("Part", 5, 13),
    ]
    assert rendered.sections[1].anchor == "u-part"


def test_a_highlighted_range_marks_the_blocks_it_touches() -> None:
    body = "One.\n\nTwo.\n\nThree.\n"
    html = render_body(body, LINKS, highlight=(3, 3)).html
    assert '<p data-lines="3-3" data-hl=""><span id="hl"></span>Two.</p>' in html
    assert html.count("data-hl") == 1
    assert html.count('id="hl"') == 1


@pytest.mark.parametrize(
    ("markdown", "absent"),
    [
        ("<script>alert(1)</script>", "<script"),
        ('<img src="x" onerror="alert(1)">', "onerror"),
        ("[x](javascript:alert(1))", 'href="javascript'),
        ('<a href="javascript:alert(1)">x</a>', "javascript"),
        ('<a href="data:text/html,hi">x</a>', "data:"),
        ('<svg onload="alert(1)"><script>alert(2)</script></svg>', "alert"),
        ('<iframe src="https://evil.example"></iframe>', "iframe"),
        ('<form action="https://evil.example"><input></form>', "form"),
        ('<div style="background:url(https://evil.example/x)">x</div>', "style"),
        ("<style>body{display:none}</style>", "display"),
        ('<img src="https://evil.example/t.png">', "evil.example"),
        ('<img src="//evil.example/t.png">', "evil.example"),
        ('<img srcset="https://evil.example/t.png 1x">', "evil.example"),
        ('<link rel="stylesheet" href="https://evil.example/s.css">', "evil.example"),
        ('<base href="https://evil.example/">', "<base"),
        ('<meta http-equiv="refresh" content="0;url=https://evil.example">', "<meta"),
        ('<object data="x.swf"></object>', "<object"),
        ('<p id="main">clobber</p>', 'id="main"'),
        ('<p data-lines="1-99" data-hl>forged</p>', 'data-lines="1-99"'),
        ("<!-- <script>alert(1)</script> -->", "script"),
    ],
)
def test_active_or_leaking_content_is_removed(markdown: str, absent: str) -> None:
    html = render_body(f"Before.\n\n{markdown}\n\nAfter.\n", LINKS).html
    assert absent not in html
    assert "Before." in html
    assert "After." in html


def test_urls_are_mapped_to_the_browser_or_kept_when_external() -> None:
    body = (
        "[doc](knowledge://pub/cat/some%20doc#line=3-4) "
        "[site](https://example.org/a) [mail](mailto:a@example.org) [here](#part)\n\n"
        "![pic](assets/images/a.png) ![inline](data:image/png;base64,iVBORw0KGgo=)\n"
    )
    html = render_body(body, LINKS).html
    assert 'href="/cite?ref=knowledge%3A%2F%2Fpub%2Fcat%2Fsome%2520doc%23line%3D3-4"' in html
    assert 'href="https://example.org/a" rel="noopener noreferrer nofollow"' in html
    assert 'href="mailto:a@example.org"' in html
    assert 'href="#u-part"' in html
    assert 'src="/c/p/c/assets/images/a.png"' in html
    assert 'src="data:image/png;base64,iVBORw0KGgo="' in html


def test_raw_html_words_are_not_renamed() -> None:
    html = render_body("<p>the id of a data-lines thing</p>\n", LINKS).html
    assert "the id of a data-lines thing" in html


class _Elements(HTMLParser):
    """Every start tag of a fragment with its attributes, as a browser would parse them."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def _marked(html: str, attribute: str) -> list[tuple[str, str | None]]:
    return [(tag, a[attribute]) for tag, a in _Elements(html).found if attribute in a]


@pytest.mark.parametrize(
    "markdown",
    [
        '<p title="a>b" data-hl data-lines="1-1">forged</p>',
        "<p title='a>b' data-hl data-lines=\"1-1\">forged</p>",
        '<p title=a>b data-hl data-lines="1-1">forged</p>',
        '<div><p data-lines="1-1" data-hl id="hl">forged</p></div>',
        '<p DATA-HL DATA-LINES="1-1">forged</p>',
        '<p data-lines="1-1" data-lines="2-2" data-hl="data-hl">forged</p>',
        "<span data-hl>forged</span> inline",
    ],
)
def test_raw_html_cannot_forge_line_marks_or_highlights(markdown: str) -> None:
    body = f"Before.\n\n{markdown}\n\nAfter.\n"
    html = render_body(body, LINKS).html
    assert _marked(html, "data-hl") == []
    assert ("p", "1-1") in _marked(html, "data-lines")  # "Before.", marked by the renderer
    assert [lines for _, lines in _marked(html, "data-lines")] == ["1-1", "3-3", "5-5"]
    marked = render_body(body, LINKS, highlight=(5, 5)).html
    assert _marked(marked, "data-hl") == [("p", "")]
    assert [(tag, a["id"]) for tag, a in _Elements(marked).found if a.get("id") == "hl"] == [
        ("span", "hl")
    ]
    assert '<p data-lines="5-5" data-hl=""><span id="hl"></span>After.</p>' in marked


def test_the_highlight_anchor_cannot_be_claimed_by_catalog_text() -> None:
    body = 'Before.\n\n<p title="x>y" id="hl">claims the anchor</p>\n\nTarget.\n'
    html = render_body(body, LINKS, highlight=(5, 5)).html
    assert html.count('id="hl"') == 1
    assert 'id="u-hl"' in html  # the catalog's id, in the catalog's namespace
    assert html.index('id="hl"') > html.index("claims the anchor")


def test_highlights_touch_blocks_and_only_whole_containers() -> None:
    body = "# Title\n\n- one\n- two\n\n> quoted\n\n```\ncode\n```\n\n| a |\n|---|\n| 1 |\n"
    rendered = render_body(body, LINKS)
    whole = render_body(body, LINKS, highlight=(1, 15)).html
    assert whole.count('id="hl"') == 1
    assert whole.index('id="hl"') < whole.index("Title")
    for tag in ("h1", "li", "blockquote", "code", "table"):
        assert f"<{tag} data-lines=" in rendered.html
        assert re.search(rf'<{tag} data-lines="[0-9-]+"[^>]* data-hl=""', whole), tag
    assert "<ul data-lines" in whole
    assert not re.search(r'<ul data-lines="[0-9-]+" data-hl', whole)
    part = render_body(body, LINKS, highlight=(3, 3)).html  # the first item, not the list
    assert re.search(r'<li data-lines="3-3" data-hl=""><span id="hl"></span>one', part)
    assert '<blockquote data-lines="6-6">' in part


@pytest.mark.parametrize(
    "markdown",
    [
        "![up](assets/../manifest.json)",
        '<img src="assets/images/../../../../enable">',
        '<img src="./assets/./a.png">',
        '<img src="assets//a.png">',
        '<img src="assets/.hidden.png">',
        '<a href="assets/../index/router.db">db</a>',
        '<img src="assets\\..\\manifest.json">',
    ],
)
def test_only_valid_asset_paths_become_asset_urls(markdown: str) -> None:
    html = render_body(f"{markdown}\n", LINKS).html
    assert "/c/p/c/" not in html
    assert ".." not in html


def _nested_list(depth: int) -> str:
    return "# Deep\n\n" + "".join("  " * i + "- item\n" for i in range(depth)) + "\nThe end.\n"


def test_a_list_ten_deep_keeps_the_rest_of_the_page() -> None:
    # markdown-it's CommonMark preset stops at 20 levels of nesting (a list item is two) and
    # dropped everything after a list ten deep: "The end." never reached the page.
    rendered = render_body(_nested_list(10) + "\n## After\n", LINKS)
    assert '<p data-lines="14-14">The end.</p>' in rendered.html
    assert [s.title for s in rendered.sections] == ["Deep", "After"]


@pytest.mark.parametrize("depth", [60, 5000])
def test_a_body_nested_past_the_bound_is_shown_whole_as_escaped_text(depth: int) -> None:
    body = _nested_list(depth) + "<script>alert(1)</script>\n"
    rendered = render_body(body, LINKS, highlight=(depth + 4, depth + 4))
    html = rendered.html
    assert "shown as text" in html
    assert (
        f'<p data-lines="{depth + 4}-{depth + 4}" data-hl=""><span id="hl"></span>The end.' in html
    )
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>" not in html
    assert html.count("<p data-lines=") == depth + 3  # every non-blank line, none lost
    assert rendered.sections == ()
