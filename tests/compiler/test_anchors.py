"""Heading anchors by each generator's slug rules."""

from __future__ import annotations

import pytest

from gezel_knowledge.compiler.text.anchors import SlugStyle, heading_text, page_anchors, slugify
from gezel_knowledge.compiler.text.blocks import LineIndex, headings, parse_blocks


def _anchors(body: str, style: SlugStyle) -> dict[str, tuple[int, int]]:
    index = LineIndex(body)
    return page_anchors(parse_blocks(body, index), index, body, style)


@pytest.mark.parametrize(
    ("text", "style", "slug"),
    [
        # Underscores inside words are text, not emphasis, in every style.
        ("SSL_CERT_FILE", "github", "ssl_cert_file"),
        ("SSL_CERT_FILE", "python-markdown", "ssl_cert_file"),
        ("SSL_CERT_FILE", "mdbook", "ssl_cert_file"),
        ("HTTP/2 Support", "github", "http2-support"),
        ("HTTP/2 Support", "python-markdown", "http2-support"),
        ("HTTP/2 Support", "mdbook", "http2-support"),
        # GitHub turns each space into '-'; Python-Markdown folds runs of spaces and dashes.
        ("FORWARD vs  TUNNEL", "github", "forward-vs--tunnel"),
        ("FORWARD vs  TUNNEL", "python-markdown", "forward-vs-tunnel"),
        ("A - B", "python-markdown", "a-b"),
        ("A - B", "github", "a---b"),
        # Python-Markdown folds to ASCII; GitHub and mdBook keep letters as they are.
        ("Café Olé", "python-markdown", "cafe-ole"),
        ("Café Olé", "github", "café-olé"),
        ("Ünïcode", "mdbook", "Ünïcode"),
        ("What's new?", "mdbook", "whats-new"),
        # VitePress turns runs of punctuation (dots, underscores) into one '-', trims it,
        # folds accents and puts '_' before a leading digit.
        ("config.build", "vitepress", "config-build"),
        ("SSL_CERT_FILE", "vitepress", "ssl-cert-file"),
        ("What's new?", "vitepress", "what-s-new"),
        ("Café Olé", "vitepress", "cafe-ole"),
        ("2. Install", "vitepress", "_2-install"),
        ("A - B", "vitepress", "a-b"),
    ],
)
def test_slug_rules(text: str, style: SlugStyle, slug: str) -> None:
    assert slugify(text, style) == slug


def test_heading_text_is_the_rendered_text() -> None:
    assert heading_text("The `__init__` [method](api.md#x) is **bold**") == (
        "The __init__ method is bold"
    )
    assert heading_text("__init__") == "init"  # strong emphasis, as a renderer reads it
    # An underscore that opens no emphasis it closes is text (CommonMark).
    assert heading_text('reference to _PyExc_SystemError"') == 'reference to _PyExc_SystemError"'
    assert heading_text("a _b_ and foo_ bar") == "a b and foo_ bar"
    assert heading_text("Logo ![logo](logo.png) <span>here</span> a\\_b &amp; c") == (
        "Logo  here a_b & c"
    )


def test_repeated_headings_are_numbered_the_generators_way() -> None:
    body = "# Usage\n\n## Example\n\nOne.\n\n## Example\n\nTwo.\n"
    assert _anchors(body, "python-markdown")["example_1"] == (7, 9)
    assert _anchors(body, "github")["example-1"] == (7, 9)
    assert _anchors(body, "mdbook")["example-1"] == (7, 9)


def test_the_generators_slug_wins_and_the_others_are_fallbacks() -> None:
    body = "# A - B\n\nText.\n\n# A---B\n\nMore.\n"
    anchors = _anchors(body, "python-markdown")
    # Both headings are 'a-b' to Python-Markdown: the second is 'a-b_1'.
    assert anchors["a-b"] == (1, 3)
    assert anchors["a-b_1"] == (5, 7)
    # GitHub's slug of the first heading still finds it, as a fallback.
    assert anchors["a---b"] == (1, 3)


@pytest.mark.parametrize(
    "heading",
    ["## Setup {#custom}", "## Setup {#custom .wide}", "## Setup {: #custom .wide }"],
)
def test_explicit_ids_name_their_heading(heading: str) -> None:
    anchors = _anchors(f"# Top\n\n{heading}\n\nText.\n", "github")
    assert anchors["custom"] == (3, 5)
    assert anchors["setup"] == (3, 5)  # the attribute list is not part of the text


def test_myst_targets_and_html_anchors() -> None:
    body = (
        "# Guide\n\n(install-label)=\n## Install\n\nSteps.\n\n"
        '<a name="old-name"></a>\n## Configure\n\nSettings.\n\n'
        '## Run <a id="run-it"></a>\n\nGo.\n\n'
        "(loose)=\nA paragraph\nthat goes on.\n"
    )
    anchors = _anchors(body, "github")
    # A section runs to the last line before the next heading of its level.
    assert anchors["install-label"] == anchors["install"] == (4, 8)
    assert anchors["old-name"] == anchors["configure"] == (9, 11)
    assert anchors["run-it"] == anchors["run"] == (13, 19)
    assert anchors["loose"] == (17, 19)


def test_gitbook_slugs_keep_dots_and_answer_to_their_html_id() -> None:
    assert slugify("Release 4.9", "gitbook") == "release-4.9"
    assert slugify("Release 4.9", "github") == "release-49"
    assert slugify("What's new?", "gitbook") == "whats-new"
    # As GitBook writes its own ids into synced Markdown (<a id="id-1.-front-end-vite--...">).
    assert slugify("1. Front-end (Vite + TypeScript)", "gitbook") == "1.-front-end-vite--typescript"
    found = _anchors("# Notes\n\n## 1. Install\n\nRun.\n\n## 1. Install\n", "gitbook")
    assert (found["1.-install"], found["id-1.-install"]) == ((3, 5), (3, 5))
    assert (found["1.-install-1"], found["id-1.-install-1"]) == ((7, 7), (7, 7))


def test_headings_in_block_quotes_and_inline_attribute_ids_are_anchors() -> None:
    body = (
        "# Config\n\n## Theme\n\n> #### custom_dir\n>\n> Where overrides live.\n\n"
        "* **`locale`**{ #mkdocs-locale }: the language.\n"
    )
    found = _anchors(body, "python-markdown")
    assert found["custom_dir"] == (5, 7)
    assert found["mkdocs-locale"] == (9, 9)
    assert found["theme"] == (3, 9)


def test_a_heading_opening_a_list_item_is_an_anchor() -> None:
    body = "# Options\n\n- #### `includeProcessedMarkdown`\n\n  Keeps the text.\n\n1. ### Second\n"
    found = _anchors(body, "github")
    assert found["includeprocessedmarkdown"][0] == 3
    assert found["second"][0] == 7
    assert "options" in found


def test_a_link_whose_text_is_code_loses_its_url() -> None:
    # Docusaurus (github-slugger over the rendered text): the link's URL is no part of it.
    text = heading_text(
        "Reports that conflict with [`verbatimModuleSyntax`](https://ts.dev/#verbatimModuleSyntax)?"
    )
    assert text == "Reports that conflict with verbatimModuleSyntax?"
    assert slugify(text, "github") == "reports-that-conflict-with-verbatimmodulesyntax"
    # Code keeps its markup characters; the markup around it goes.
    assert heading_text("a `*x*` **b** `[y](z)`") == "a *x* b [y](z)"


def test_setext_headings_are_anchors_up_to_the_next_heading() -> None:
    body = (
        "# Title\n\nText.\n\nDifferences\n-----------\n\nSome.\n\n- item\n---\n\n"
        "Two\nlines\n===\n\n## Next\n\nLast.\n\nDifferences\n---\n"
    )
    anchors = _anchors(body, "python-markdown")
    # A list item over '---' is a list and a thematic break, no heading; repeats in order.
    assert {k: v for k, v in anchors.items() if k in ("differences", "two-lines", "item")} == {
        "differences": (5, 12),
        "two-lines": (13, 16),
    }
    assert anchors["differences_1"] == (21, 22)
    assert anchors["next"] == (17, 22)


def test_angle_brackets_that_are_no_html_tag_stay_in_the_heading() -> None:
    # `<string, AnyValue>` is no tag (a comma after the name), so GitHub keeps it as text;
    # `<T>` and `<span class="x">` are tags, dropped.
    anchors = _anchors(
        "### map<string, AnyValue>\n\n## List<T>\n\n## A <span class='x'>b</span>\n", "github"
    )
    assert {"mapstring-anyvalue", "list", "a-b"} <= set(anchors)
    assert heading_text("map<string, AnyValue>") == "map<string, AnyValue>"


def test_an_unquoted_html_id_is_an_anchor() -> None:
    # HTML allows an attribute value without quotes (pino's docs: <a id=opt-base></a>).
    body = "# API\n\n<a id=opt-base></a>\n### `base`\n\nText.\n\n<a name='quoted'></a>\nMore.\n"
    anchors = _anchors(body, "github")
    assert "opt-base" in anchors
    assert "quoted" in anchors
    assert "opt-base>" not in anchors


def test_mdx_fences_may_be_indented_any_amount() -> None:
    # Astro's docs: a fence inside <TabItem> opened two spaces and a tab in and closed four
    # spaces in, then one opened four spaces in and closed two spaces in. MDX turns indented
    # code off, so all four are fence lines and the heading after them is a heading.
    body = (
        "<Tabs>\n  <TabItem>\n  \t```astro\n    <p>{Astro.url}</p>\n    ```\n  </TabItem>\n"
        "  <TabItem>\n    ```ts\n    # not a heading\n  ```\n  </TabItem>\n</Tabs>\n\n"
        "### `locals`\n"
    )
    index = LineIndex(body)
    mdx = [h.text for h in headings(parse_blocks(body, index, mdx=True))]
    assert mdx == ["`locals`"]
    # In CommonMark the two-space line opens a fence that runs to the end: no heading.
    assert [h.text for h in headings(parse_blocks(body, index))] == []


def test_mintlify_ids_answer_on_mintlify_sites_only() -> None:
    # Mintlify keeps a colon and numbers a repeat from 2; another site's generator does
    # neither, so those ids are no fallback there.
    body = "# Example: connect\n\ntext\n\n# Example: connect\n\nmore\n"
    mintlify = _anchors(body, "mintlify")
    assert "example:-connect" in mintlify
    assert "example:-connect-2" in mintlify
    assert "example-connect" in mintlify  # GitHub's, as a fallback there
    github = _anchors(body, "github")
    assert "example:-connect" not in github
    assert "example-connect-1" in github


def test_zola_ids_answer_on_zola_sites_only() -> None:
    # Zola's unslugified ids (`Hello_World`) are no fallback elsewhere: such a link on a
    # GitHub-style site stays unresolved.
    body = "## Hello World\n\n## snake_case names\n"
    github = _anchors(body, "github")
    assert "Hello_World" not in github
    assert "snake_case-names" in github
    assert "Hello_World" in _anchors(body, "zola-unslugified")
    zola = _anchors(body, "zola")
    assert "snake-case-names" in zola
    assert "hello-world" in zola
