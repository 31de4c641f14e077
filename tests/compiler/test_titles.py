"""Titles: the navigation label first, then the page's own; never raw Markdown (issue 21)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from gezel_knowledge.compiler.text.titles import plain_title
from tests.compiler.trees import write_tree
from tests.faults import assert_linear_time


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("`From` and `Into`", "From and Into"),
        ("[Guide](guide.md) overview", "Guide overview"),
        ("[Ref][ref] list", "Ref list"),
        ("**Bold** and __strong__ moves", "Bold and strong moves"),
        ("Use *the* _api_ now", "Use the api now"),
        ("snake_case_name and 2 * 3 * 4", "snake_case_name and 2 * 3 * 4"),
        ("A [link with **emphasis**](x.md)", "A link with emphasis"),
        ("`**literal**` code", "**literal** code"),
        ("![badge](b.svg) Project", "Project"),
        ("![Project logo](logo.png)", "Project logo"),
        ("<code>x</code> and <em>y</em>", "x and y"),
        ("{doc}`Setting up <setup>`", "Setting up"),
        ("Heading {#custom-id}", "Heading"),
        # Pandoc's (Quarto's) attribute lists: classes only, or `{-}` for unnumbered.
        ("Welcome {.unnumbered}", "Welcome"),
        ("Intro {#sec-intro .unnumbered}", "Intro"),
        ("Preface {-}", "Preface"),
        ("Sets {a, b}", "Sets {a, b}"),
        ("Stars \\*not\\* emphasis", "Stars *not* emphasis"),
        ("AT&amp;T  and\ttabs", "AT&T and tabs"),
        ("~~Old~~ New", "Old New"),
        ("`` a`b ``", "a`b"),
        ("Plain title", "Plain title"),
    ],
)
def test_plain_title_drops_the_markdown(raw: str, shown: str) -> None:
    assert plain_title(raw) == shown


def test_the_navigation_label_names_the_page(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "book",
        {
            "SUMMARY.md": "# Summary\n\n- [Getting started](a.md)\n- [`From` and `Into`](b.md)\n",
            "a.md": "# A long first heading\n",
            "b.md": "# Conversions\n",
        },
    )
    titles = {d.id: d.title for d in load_markdown_tree(root).documents}
    assert titles == {"a": "Getting started", "b": "From and Into"}


def test_without_a_label_the_first_heading_is_the_title_without_markdown(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "t",
        {
            "a.md": "# The `From` and `Into` traits\n",
            "b.md": "---\ntitle: 'A <plain> *title*'\n---\n",
        },
    )
    titles = {d.id: d.title for d in load_markdown_tree(root).documents}
    # Front matter titles are plain text already: kept as written.
    assert titles == {"a": "The From and Into traits", "b": "A <plain> *title*"}


def test_pages_with_alike_headings_keep_the_labels_that_tell_them_apart(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "mk",
        {
            "mkdocs.yml": (
                "nav:\n  - Client:\n      - Options: client/options.md\n"
                "  - Server:\n      - Server options: server/options.md\n"
            ),
            "docs/client/options.md": "# Options\n",
            "docs/server/options.md": "# Options\n",
        },
    )
    titles = {d.id: d.title for d in load_markdown_tree(root).documents}
    assert titles == {"client/options": "Options", "server/options": "Server options"}


def test_section_names_drop_their_markdown_too(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "mk",
        {
            "mkdocs.yml": "nav:\n  - '`cli` reference':\n      - Run: run.md\n",
            "docs/run.md": "# Run\n",
        },
    )
    (topic,) = load_markdown_tree(root).topics
    assert (topic.id, topic.name) == ("cli-reference", "cli reference")


def test_an_untitled_index_page_is_named_after_its_folder(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "t",
        {"dark-mode/_index.md": "Text only.\n", "notes/plain.md": "Text only.\n"},
    )
    titles = {d.id: d.title for d in load_markdown_tree(root).documents}
    assert titles == {"dark-mode/_index": "Dark mode", "notes/plain": "plain"}


def test_pages_opening_with_one_shared_banner_are_titled_by_their_own_heading(
    tmp_path: Path,
) -> None:
    # A book's chapters all open with the series' name, then their own H1: the shared banner
    # names none of them. A page with one H1, or whose first H1 no other page shares, keeps it.
    root = write_tree(
        tmp_path / "book",
        {
            "ch1.md": "# The Series: Book One\n# Chapter 1: *What* It Is\n\nText.\n",
            "ch2.md": "# The Series: Book One\n\n# Chapter 2: Next\n\nText.\n",
            "ch3.md": "# The Series: Book One\n\n## Only a subheading\n\nText.\n",
            "solo.md": "# Solo Page\n# Second Heading\n\nText.\n",
        },
    )
    source = load_markdown_tree(root)
    assert {d.id: d.title for d in source.documents} == {
        "ch1": "Chapter 1: What It Is",
        "ch2": "Chapter 2: Next",
        "ch3": "The Series: Book One",
        "solo": "Solo Page",
    }


def test_a_title_of_long_blank_runs_is_read_in_linear_time() -> None:
    # A trailing `{#id}` or role target is looked for after the last closing character only:
    # a pattern opening with blanks, searched everywhere, retried each blank of a run.
    size = 200_000
    for raw in ("a" + " " * size + "b", "{doc}`x" + " " * size + "`", "x {" + " " * size):
        assert_linear_time(lambda r=raw: plain_title(r), size, seconds_per_mb=5, what="title")
    assert plain_title("Install  {#install}  ") == "Install"
    assert plain_title("x {a} {#id}") == "x {a}"
    assert plain_title("{ref}`a <b> c <d>`") == "a <b> c"
