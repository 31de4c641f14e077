"""Quarto projects: a book's chapters, parts and appendices; a website's home page, sidebars
(sections, labels, ``auto`` entries), navbar and other rendered pages; what Quarto never
renders; the sidebar a ``metadata-files`` file holds; links to ``.qmd`` files and ``.html``
URLs; the bounds of the configuration reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.compiler import LinkBase
from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.test_vitepress_site import toc_order
from tests.compiler.trees import write_tree

LINKS = LinkBase("tester", "demo")

BOOK = """\
project:
  type: book
book:
  title: "Gardening (2e)"
  author: [Ada Green, Bo Stone]
  repo-url: https://github.com/greenery/gardening/
  site-url: https://gardening.example.org/
  chapters:
    - index.qmd
    - intro.qmd
    - part: Basics
      chapters:
        - soil.qmd
        - water.Rmd
    - part: tools.qmd
      chapters:
        - spades.qmd
    - references.qmd
  appendices:
    - glossary.qmd
lang: en-GB
"""


def _page(title: str, body: str = "", extra: str = "") -> str:
    return f"---\ntitle: {title}\n{extra}---\n\n{body}"


def _book(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "book",
        {
            "_quarto.yml": BOOK,
            "index.qmd": "# Welcome {.unnumbered}\n\nSee [soil](soil.qmd#sec-ph).\n",
            "intro.qmd": "# Introduction\n\nNext: [water](water.html).\n",
            "soil.qmd": "# Soil\n\n## Acidity {#sec-ph}\n\nText.\n",
            "water.Rmd": "# Watering\n\n```{r}\n1 + 1\n```\n",
            "tools.qmd": "# Tools {.unnumbered}\n",
            "spades.qmd": "# Spades\n",
            "references.qmd": "# References {.unnumbered}\n",
            "glossary.qmd": "# Glossary\n",
            "unlisted.qmd": "# Not in the book\n",
        },
        catalog=None,
    )


def test_a_books_chapters_parts_and_appendices_are_its_order(tmp_path: Path) -> None:
    source = load_markdown_tree(_book(tmp_path))
    assert source.site == "quarto"
    # A part naming a page is led by it; a part title is a section; the appendices follow
    # in a section of their own; a page no chapter lists is not rendered by a book.
    assert toc_order(source) == [
        "index",
        "intro",
        "soil",
        "water",
        "tools",
        "spades",
        "references",
        "glossary",
    ]
    assert [t.name for t in source.topics] == ["Gardening (2e)", "Basics", "Tools", "Appendices"]
    assert source.metadata.name == "Gardening (2e)"
    assert source.metadata.language == "en-GB"
    assert source.metadata.source_url == "https://gardening.example.org/"
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.name == "greenery"


def test_a_books_links_name_qmd_files_and_html_urls(tmp_path: Path) -> None:
    source = load_markdown_tree(_book(tmp_path))
    assert source.warnings == ()
    docs = {d.id: d for d in source.documents}
    assert "[soil](knowledge://tester/demo/soil#line=" in docs["index"].load_body(LINKS)
    assert "[water](knowledge://tester/demo/water)" in docs["intro"].load_body(LINKS)


WEBSITE = """\
project:
  type: website
  output-dir: _site
metadata-files:
  - api/_sidebar.yml
  - _missing.yml
quartodoc:
  dir: api
filters:
  - interlinks
website:
  title: Widgets
  description: Widgets, documented.
  repo-url: https://github.com/acme/widgets
  navbar:
    left:
      - text: Blog
        href: blog/index.qmd
      - text: More
        menu:
          - about.qmd
          - https://example.org
      - icon: rss
        href: blog/index.xml
      - href: api/index.qmd
  sidebar:
    - title: Guide
      contents:
        - guide/start.qmd
        - text: Installing it
          href: guide/install.qmd
        - section: guide/advanced/index.qmd
          contents:
            - guide/advanced/tuning.md
        - section: Recipes
          contents: guide/recipes/*
        - text: "---"
        - api/generated.qmd
"""

SIDEBAR_FILE = """\
website:
  sidebar:
    - title: Reference
      contents:
        - reference.qmd
"""


def _website(tmp_path: Path, config: str = WEBSITE) -> Path:
    return write_tree(
        tmp_path / "site",
        {
            "_quarto.yml": config,
            "api/_sidebar.yml": SIDEBAR_FILE,
            "index.qmd": _page(
                "Home",
                "Read the [guide](guide/start.html) and [`widgets.Widget`]"
                "(`widgets.Widget`) and [the API](api/index.html).\n",
            ),
            "guide/start.qmd": _page("Start"),
            "guide/install.qmd": _page("Install"),
            "guide/advanced/index.qmd": _page("Advanced"),
            "guide/advanced/tuning.md": _page("Tuning"),
            "guide/recipes/b.qmd": _page("Recipe B"),
            "guide/recipes/a.qmd": _page("Recipe A", extra="order: 2\n"),
            "guide/recipes/c.ipynb": '{"cells": [], "metadata": {}, "nbformat": 4, '
            '"nbformat_minor": 5}',
            "reference.qmd": _page("Reference"),
            "blog/index.qmd": _page("Blog"),
            "blog/post.qmd": _page("A post"),
            "about.qmd": _page("About"),
            "zzz.md": _page("Last page"),
            "draft.qmd": _page("Draft", extra="draft: true\n"),
            "_include.qmd": "Included text.\n",
            "_site/old.md": "# Rendered output\n",
            ".hidden/page.md": "# Hidden\n",
            "renv/library.md": "# An R environment\n",
            "README.md": "# About this repository\n",
        },
        catalog=None,
    )


def test_a_websites_home_sidebars_navbar_then_its_other_pages(tmp_path: Path) -> None:
    source = load_markdown_tree(_website(tmp_path))
    assert source.site == "quarto"
    # Home first; each sidebar a section (the metadata file's too, after _quarto.yml's own
    # key order); a section page leads its section; a glob sorted by `order` then by name;
    # then the navbar's pages; then every other page rendered, by path. Drafts, `_` and `.`
    # names, the output folder, engine environments and README are not rendered.
    assert toc_order(source) == [
        "index",
        "guide/start",
        "guide/install",
        "guide/advanced/index",
        "guide/advanced/tuning",
        "guide/recipes/a",
        "guide/recipes/b",
        "guide/recipes/c",
        "reference",
        "blog/index",
        "about",
        "blog/post",
        "zzz",
    ]
    assert [t.name for t in source.topics][1:5] == ["Guide", "Advanced", "Recipes", "Reference"]
    titles = {d.id: d.title for d in source.documents}
    assert titles["guide/install"] == "Installing it"
    assert source.metadata.name == "Widgets"
    assert source.metadata.description == "Widgets, documented."


def test_generated_folders_and_interlinks_targets_are_silent(tmp_path: Path) -> None:
    source = load_markdown_tree(_website(tmp_path))
    # api/ is quartodoc's output (written when the site renders): the sidebar entry and the
    # link into it are no warning; `widgets.Widget` is the interlinks filter's; the feed
    # (blog/index.xml) is no page.
    assert source.warnings == ()
    home = next(d for d in source.documents if d.id == "index").load_body(LINKS)
    assert "[guide](knowledge://tester/demo/guide/start)" in home
    assert "(`widgets.Widget`)" in home


def test_a_missing_sidebar_page_is_left_out_with_a_warning(tmp_path: Path) -> None:
    config = WEBSITE.replace("        - guide/start.qmd\n", "        - guide/gone.qmd\n")
    source = load_markdown_tree(_website(tmp_path, config))
    assert [w.reason for w in source.warnings] == ["missing-outline-page"]
    assert "guide/gone.qmd" in source.warnings[0].message
    # The page the sidebar no longer lists is still rendered: it follows the navigation.
    assert "guide/start" in toc_order(source)


AUTO = """\
project:
  type: website
website:
  sidebar:
    contents: auto
"""


def test_an_auto_sidebar_sorts_by_order_then_files_before_folders(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "auto",
        {
            "_quarto.yml": AUTO,
            "index.qmd": _page("Home"),
            "zebra.qmd": _page("Zebra"),
            "Apple.qmd": _page("Apple"),
            "first.qmd": _page("First", extra="order: 1\n"),
            "animals/index.qmd": _page("Animals"),
            "animals/cat.qmd": _page("Cat"),
            "birds/owl.qmd": _page("Owl"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert toc_order(source) == [
        "index",
        "first",
        "Apple",
        "zebra",
        "birds/owl",
        "animals/index",
        "animals/cat",
    ]
    # A folder without an index page is named after the folder; one with an index page sorts
    # as "index" (Quarto names it after that page), after "birds".
    assert [t.name for t in source.topics][1:] == ["Birds", "Animals"]


def test_project_render_lists_the_targets(tmp_path: Path) -> None:
    config = "project:\n  type: website\n  render:\n    - guide\n    - '*.qmd'\n    - '!old.qmd'\n"
    root = write_tree(
        tmp_path / "render",
        {
            "_quarto.yml": config,
            "index.qmd": _page("Home"),
            "old.qmd": _page("Old"),
            "notes.md": _page("Notes"),
            "guide/a.md": _page("A"),
        },
        catalog=None,
    )
    assert toc_order(load_markdown_tree(root)) == ["index", "guide/a"]


def test_sidebars_nested_past_the_limit_are_refused(tmp_path: Path) -> None:
    deep = "page.qmd"
    for _ in range(200):
        deep = f"[{{section: s, contents: {deep}}}]"
    config = f"project:\n  type: website\nwebsite:\n  sidebar:\n    contents: {deep}\n"
    root = write_tree(
        tmp_path / "deep", {"_quarto.yml": config, "page.qmd": _page("P")}, catalog=None
    )
    with pytest.raises(SourceError) as caught:
        load_markdown_tree(root)
    assert caught.value.reason == "too-deep"


def test_a_metadata_file_linked_from_outside_the_project_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "secret.yml"
    outside.write_text("website:\n  title: Stolen\n", encoding="utf-8")
    root = write_tree(
        tmp_path / "linked",
        {
            "_quarto.yml": "project:\n  type: website\nmetadata-files: [meta.yml]\n",
            "index.qmd": _page("Home"),
        },
        catalog=None,
    )
    (root / "meta.yml").symlink_to(outside)
    with pytest.raises(SourceError) as caught:
        load_markdown_tree(root)
    assert caught.value.reason == "unsafe-path"


def test_only_the_first_metadata_files_are_read(tmp_path: Path) -> None:
    names = [f"m{i:02}.yml" for i in range(20)]
    files = {n: f"website:\n  title: From {n}\n" for n in names}
    config = "project:\n  type: website\nmetadata-files: [" + ", ".join(names) + "]\n"
    root = write_tree(
        tmp_path / "many",
        {"_quarto.yml": config, "index.qmd": _page("Home"), **files},
        catalog=None,
    )
    # Sixteen at most: the last one read is m15.yml, later ones are not opened.
    assert load_markdown_tree(root).metadata.name == "From m15.yml"


def test_include_shortcodes_put_the_files_in(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "inc",
        {
            "_quarto.yml": "project:\n  type: website\n",
            "index.qmd": _page(
                "Home",
                "{{< include _parts/intro.qmd >}}\n\n{{{< include _parts/intro.qmd >}}}\n\n"
                "{{< include /_gone.qmd >}}\n",
            ),
            "_parts/intro.qmd": (
                "---\ntitle: ignored\n---\nShared words.\n\n{{< include /_more.md >}}\n"
            ),
            "_more.md": "More words.\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert toc_order(source) == ["index"]  # included files (`_` names) are no pages
    body = source.documents[0].load_body(LINKS)
    assert "Shared words.\n\nMore words." in body
    assert "title: ignored" not in body
    # An escaped shortcode is text; a missing file leaves the shortcode as written.
    assert "{{{< include _parts/intro.qmd >}}}" in body
    assert "{{< include /_gone.qmd >}}" in body


def test_includes_stop_at_the_depth_limit_and_the_budget(tmp_path: Path) -> None:
    fan = "\n".join(["{{< include _fan.md >}}"] * 8) + "\nx" * 1000
    root = write_tree(
        tmp_path / "bomb",
        {
            "_quarto.yml": "project:\n  type: website\n",
            "index.qmd": _page("Home", "{{< include _self.md >}}\n\n{{< include _fan.md >}}\n"),
            "_self.md": "again\n{{< include _self.md >}}\n",
            "_fan.md": fan,
        },
        catalog=None,
    )
    body = load_markdown_tree(root).documents[0].load_body(LINKS)
    # A file including itself stops after MAX_INCLUDE_DEPTH levels; 8 includes of 8 of ...
    # (8**8 copies) stop at the page's budget of characters.
    assert body.count("again") == 8
    assert len(body) < 5 * 1024 * 1024


def test_a_listing_pages_posts_follow_it_newest_first(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "blog",
        {
            "_quarto.yml": "project:\n  type: website\nwebsite:\n  navbar:\n"
            "    left: [blog/index.qmd]\n",
            "index.qmd": _page("Home"),
            "about.qmd": _page("About"),
            "blog/index.qmd": _page("Blog", extra="listing:\n  contents: '**.qmd'\n"),
            "blog/old/index.qmd": _page("Old news", extra="date: 2023-01-05\n"),
            "blog/new/index.qmd": _page("New news", extra="date: 2024-06-01\n"),
            "blog/undated.qmd": _page("Undated"),
            "notes/index.qmd": _page("Notes", extra="listing:\n  sort: title\n"),
            "notes/b.qmd": _page("Beta"),
            "notes/a.qmd": _page("Alpha"),
        },
        catalog=None,
    )
    # The navbar's blog page, then its posts newest first (undated last); the other pages by
    # path, a listing page's own pages after it in its sort order (by title).
    assert toc_order(load_markdown_tree(root)) == [
        "index",
        "blog/index",
        "blog/new/index",
        "blog/old/index",
        "blog/undated",
        "about",
        "notes/index",
        "notes/a",
        "notes/b",
    ]


def test_only_the_first_listing_pages_are_read(tmp_path: Path) -> None:
    files = {"_quarto.yml": "project:\n  type: website\n"}
    for i in range(70):
        files[f"l{i:02}/index.qmd"] = _page(f"L{i}", extra="listing:\n  sort: title\n")
        files[f"l{i:02}/z.qmd"] = _page("A page")
        files[f"l{i:02}/a.qmd"] = _page("Z page")
    order = toc_order(load_markdown_tree(write_tree(tmp_path / "many", files, catalog=None)))
    # MAX_LISTINGS (64) listing pages order their pages by title (z before a); past them,
    # by path.
    assert order[:3] == ["l00/index", "l00/z", "l00/a"]
    assert order[-3:] == ["l69/a", "l69/index", "l69/z"]


def test_a_repository_whose_site_is_its_docs_folder_builds_at_its_root(tmp_path: Path) -> None:
    repo = write_tree(
        tmp_path / "repo",
        {
            "README.md": "# The repository\n",
            "src/notes.md": "# Code notes\n",
            "docs/_quarto.yml": "project:\n  type: website\nwebsite:\n  title: Tool\n",
            "docs/index.qmd": _page("Home"),
            "docs/guide.qmd": _page("Guide"),
        },
        catalog=None,
    )
    source = load_markdown_tree(repo)
    assert source.site == "quarto"
    assert toc_order(source) == ["index", "guide"]
    assert source.metadata.name == "Tool"


def test_a_generator_configured_at_the_root_outranks_a_quarto_project_in_docs(
    tmp_path: Path,
) -> None:
    repo = write_tree(
        tmp_path / "both",
        {
            "conf.py": "project = 'Main site'\nextensions = ['myst_parser']\n",
            "index.md": "# Home\n\n```{toctree}\nguide\n```\n",
            "guide.md": "# Guide\n",
            "docs/_quarto.yml": "project:\n  type: website\n",
            "docs/other.qmd": "# Other\n",
        },
        catalog=None,
    )
    # Sphinx is looked for after Quarto, but its conf.py is at the folder built.
    assert load_markdown_tree(repo).site == "sphinx"
