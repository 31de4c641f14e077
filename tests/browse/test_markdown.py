"""Catalog Markdown to safe HTML: CommonMark with tables, blocks marked with their lines,
every URL mapped or dropped, nothing active kept."""

from __future__ import annotations

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
    assert '<p data-lines="3-3" data-hl="">Two.</p>' in html
    assert html.count("data-hl") == 1


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
