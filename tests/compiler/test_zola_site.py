"""Zola sites: the configuration with base_url beside content/, sections by _index.md and
their sort_by (weight, date, undated and unweighted pages after), subsections by weight,
transparent sections, drafts, render = false, redirects, translations, dated file names,
@/ internal links, directory URLs and the slug crate's heading anchors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gezel_knowledge.compiler import LinkBase
from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from gezel_knowledge.compiler.text.anchors import slugify
from tests.compiler.test_vitepress_site import toc_order
from tests.compiler.trees import write_tree

LINKS = LinkBase("tester", "demo")

CONFIG = """\
base_url = "https://acme.example.org/widget"
title = "Widget"
description = "The widget's handbook."
default_language = "en"
taxonomies = [{ name = "tags" }]

[languages.fr]
title = "Widget"

[extra]
author = "Ada"
repo_url = "https://github.com/acme/widget"
"""


def _page(front: str, body: str = "") -> str:
    return f"+++\n{front}\n+++\n\n{body}"


def _site(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    return write_tree(
        tmp_path / "site",
        {
            "config.toml": CONFIG,
            "content/_index.md": _page('title = "Home"', "Welcome.\n"),
            "content/docs/_index.md": _page('title = "Docs"\nsort_by = "weight"\nweight = 2'),
            "content/docs/intro.md": _page(
                'title = "Intro"\nweight = 20',
                "See [setup](@/docs/setup.md#install-it), [the bundle](../bundle/), "
                "[rust](/tags/rust/), [here](#ca-marche) and [gone](@/docs/missing.md).\n\n"
                "## Ça marche\n",
            ),
            "content/docs/intro.fr.md": _page('title = "Intro"\nweight = 20'),
            "content/docs/setup.md": _page('title = "Setup"\nweight = 10', "## Install it!\n"),
            "content/docs/bundle/index.md": _page('title = "Bundle"\nweight = 15'),
            "content/docs/nowt.md": _page('title = "No weight"'),
            "content/docs/draft.md": _page('title = "Draft"\nweight = 1\ndraft = true'),
            "content/docs/hidden.md": _page('title = "Hidden"\nweight = 1\nrender = false'),
            "content/blog/_index.md": _page('title = "Blog"\nsort_by = "date"\nweight = 1'),
            "content/blog/2024-01-02-old-news.md": _page('title = "Old news"'),
            "content/blog/new.md": _page('title = "New"\ndate = 2025-03-04'),
            "content/blog/undated.md": _page('title = "Undated"'),
            "content/blog/y2024/_index.md": _page('title = "2024"\ntransparent = true'),
            "content/blog/y2024/mid.md": _page('title = "Mid"\ndate = 2024-06-01'),
            "content/guides/_index.md": _page('redirect_to = "docs/"\nweight = 3'),
            "content/loose/page.md": _page('title = "Loose"'),
            **(extra or {}),
        },
        catalog=None,
    )


def test_sections_pages_and_subsections_in_zolas_order(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path))
    assert source.site == "zola"
    ids = [d.id for d in source.documents]
    # Drafts, render = false, translations and a redirecting _index.md are no pages.
    assert sorted(ids) == sorted(
        [
            "_index",
            "blog/_index",
            "blog/new",
            "blog/y2024/mid",
            "blog/2024-01-02-old-news",
            "blog/undated",
            "blog/y2024/_index",
            "docs/_index",
            "docs/setup",
            "docs/bundle/index",
            "docs/intro",
            "docs/nowt",
            "loose/page",
        ]
    )
    # Subsections by weight (blog 1, docs 2); blog by date, newest first (the dated file
    # name dates its page; the transparent section's page sorts with its parent's), undated
    # after; docs by weight, unweighted after; a folder with no _index.md last.
    assert toc_order(source) == [
        "_index",
        "blog/_index",
        "blog/new",
        "blog/y2024/mid",
        "blog/2024-01-02-old-news",
        "blog/undated",
        "blog/y2024/_index",
        "docs/_index",
        "docs/setup",
        "docs/bundle/index",
        "docs/intro",
        "docs/nowt",
        "loose/page",
    ]
    assert source.metadata.name == "Widget"
    assert source.metadata.description == "The widget's handbook."
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.name == "acme"


def test_internal_links_urls_routes_and_anchors(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path))
    # Only the @/ link to a file that does not exist (Zola stops its build on it).
    assert [w.message.split("'")[1] for w in source.warnings] == ["@/docs/missing.md"]
    body = next(d for d in source.documents if d.id == "docs/intro").load_body(LINKS)
    assert "[setup](knowledge://tester/demo/docs/setup#line=" in body
    assert "[the bundle](knowledge://tester/demo/docs/bundle/index)" in body
    assert "[rust](/tags/rust/)" in body


def test_the_slug_crates_anchors() -> None:
    assert slugify("Install it!", "zola") == "install-it"
    assert slugify("Ça marche", "zola") == "ca-marche"
    assert slugify("  `sort_by` -- the field ", "zola") == "sort-by-the-field"
    assert slugify("Hello world", "zola-unslugified") == "Hello_world"


def test_a_hugo_site_is_still_hugos(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "config.toml": 'baseURL = "https://x.example.org/"\ntitle = "X"\n',
            "content/_index.md": _page('title = "X"'),
        },
        catalog=None,
    )
    assert load_markdown_tree(root).site == "hugo"


def test_a_linked_folder_is_not_followed(tmp_path: Path) -> None:
    root = _site(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "_index.md").write_text(_page('title = "Outside"'), encoding="utf-8")
    (outside / "secret.md").write_text(_page('title = "Secret"'), encoding="utf-8")
    os.symlink(outside, root / "content" / "linked")
    source = load_markdown_tree(root)
    assert not any(d.id.startswith("linked") for d in source.documents)
    assert [w.path for w in source.warnings if w.reason == "symlink-skipped"] == ["content/linked"]


def test_sections_nested_past_the_limit_stop_with_a_typed_error(tmp_path: Path) -> None:
    # 200 nested sections: the walk reads 32 levels at most, and the catalog's topics nest
    # 16 deep at most, which stops the build with its reason (no recursion error).
    deep = {
        "/".join(["content", *(f"d{i}" for i in range(1, depth + 1)), "_index.md"]): _page(
            f'title = "D{depth}"'
        )
        for depth in range(1, 201)
    }
    with pytest.raises(SourceError) as caught:
        load_markdown_tree(_site(tmp_path, deep))
    assert caught.value.reason == "topic-too-deep"


@pytest.mark.parametrize("name", ["zola.toml", "config.toml"])
def test_either_configuration_name(tmp_path: Path, name: str) -> None:
    root = write_tree(
        tmp_path / "z",
        {name: CONFIG, "content/_index.md": _page('title = "Home"')},
        catalog=None,
    )
    assert load_markdown_tree(root).site == "zola"


def test_front_matter_may_follow_blank_lines(tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        {
            "content/docs/late.md": (
                '\n\n+++\ntitle = "Late"\nweight = 30\n+++\n\n## General\n\n[x](@/docs/nope.md)\n'
            )
        },
    )
    source = load_markdown_tree(root)
    late = next(d for d in source.documents if d.id == "docs/late")
    assert late.title == "Late"
    assert "+++" not in late.load_body(LINKS)
    # Lines are the file's: the broken link is on line 10.
    assert [(w.path, w.line) for w in source.warnings if "nope" in w.message] == [
        ("content/docs/late.md", 10)
    ]


def test_a_site_in_the_repositorys_docs_folder(tmp_path: Path) -> None:
    # Zola's own repository keeps its site in docs/: built from the repository's root.
    root = write_tree(
        tmp_path / "repo",
        {
            "Cargo.toml": '[package]\nname = "widget"\n',
            "docs/config.toml": CONFIG,
            "docs/content/_index.md": _page('title = "Home"', "See [setup](@/setup.md).\n"),
            "docs/content/setup.md": _page('title = "Setup"'),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.site == "zola"
    assert sorted(d.id for d in source.documents) == ["_index", "setup"]
    assert source.warnings == ()


def test_plain_folders_are_read_32_levels_deep_at_most(tmp_path: Path) -> None:
    # Folders with no _index.md make no topics, so only the walk's own bound stops a deep
    # tree: a page 200 folders down is not read (and no recursion error), one 30 down is.
    deep = "/".join(f"f{i}" for i in range(200))
    shallow = "/".join(f"g{i}" for i in range(30))
    root = _site(
        tmp_path,
        {
            f"content/{deep}/bottom.md": _page('title = "Bottom"'),
            f"content/{shallow}/near.md": _page('title = "Near"'),
        },
    )
    ids = {d.id for d in load_markdown_tree(root).documents}
    assert f"{shallow}/near" in ids
    assert not any(i.endswith("/bottom") for i in ids)


def test_title_sort_slugs_paths_and_aliases(tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        {
            "content/notes/_index.md": _page('title = "Notes"\nsort_by = "title"\nweight = 4'),
            "content/notes/b.md": _page('title = "Item 10"'),
            "content/notes/a.md": _page('title = "item 9"'),
            "content/notes/c.md": _page('title = "Älpha"'),
            "content/notes/d.md": _page("draft = false"),
            "content/notes/e.md": _page(
                'title = "Moved"\nslug = "New Home"\naliases = ["/old/home/"]',
                "Back to [the first](../a/) and [the about page](/about/).\n",
            ),
            "content/about.md": _page(
                'title = "About"\npath = "about"', "See [the old page](/old/home/).\n"
            ),
        },
    )
    source = load_markdown_tree(root)
    about = next(d for d in source.documents if d.id == "about").load_body(LINKS)
    assert "[the old page](knowledge://tester/demo/notes/e)" in about  # an alias
    notes = [i for i in toc_order(source) if i.startswith("notes/")]
    # Natural order, case and accents folded (Älpha, item 9, Item 10, Moved); an untitled
    # page follows, as Zola leaves it out of the sorted list.
    assert notes == ["notes/_index", "notes/c", "notes/a", "notes/b", "notes/e", "notes/d"]
    # A relative URL from /notes/new-home/ (the slug, slugified) and `path` are resolved.
    assert [w.message for w in source.warnings if w.path == "content/notes/e.md"] == []
    body = next(d for d in source.documents if d.id == "notes/e").load_body(LINKS)
    assert "[the first](knowledge://tester/demo/notes/a)" in body
    assert "[the about page](knowledge://tester/demo/about)" in body
