"""Outline recognisers: each with a small tree of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.compiler import CatalogSource, LinkBase, SourceError
from gezel_knowledge.compiler.generators.docusaurus import doc_id, strip_number_prefix
from gezel_knowledge.compiler.generators.registry import recognise_outline, source_site
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from gezel_knowledge.compiler.sources.toc import outline_pages
from gezel_knowledge.compiler.text.names import derive_topic_id
from gezk.ids import sort_key_for_order
from tests.compiler.trees import write_tree


def _topics(source: CatalogSource) -> dict[str, tuple[str, str | None, str]]:
    return {t.id: (t.name, t.parent_id, t.sort_key) for t in source.topics}


def _docs(source: CatalogSource) -> dict[str, tuple[tuple[str, ...], int | None]]:
    return {d.id: (d.topic_path, d.ordinal) for d in source.documents}


def _refs(source: CatalogSource, doc_id: str) -> list[tuple[tuple[str, ...], int | None]]:
    doc = next(d for d in source.documents if d.id == doc_id)
    return [(r.topic_path, r.ordinal) for r in doc.toc_references]


def test_gitbook_summary(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "book",
        {
            "SUMMARY.md": (
                "# Summary\n\n"
                "* [Introduction](README.md)\n"
                "* [Getting started](start/README.md)\n"
                "  * [Install](start/install.md)\n"
                "  * [Configure](start/configure.md)\n\n"
                "## Reference\n\n"
                "* [Commands](ref/commands.md)\n"
                "* [Install again](start/install.md)\n"
            ),
            "start/README.md": "# Getting started\n\nStart.\n",
            "start/install.md": "# Install\n\nInstall it.\n",
            "start/configure.md": "# Configure\n\nConfigure it.\n",
            "ref/commands.md": "# Commands\n\nCommands.\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.outline == "gitbook"
    assert _topics(source) == {
        "demo": ("Demo catalog", None, sort_key_for_order(0)),
        "getting-started": ("Getting started", None, sort_key_for_order(1)),
        "reference": ("Reference", None, sort_key_for_order(2)),
    }
    assert _docs(source) == {
        "README": (("demo",), 0),
        "start/README": (("getting-started",), 0),
        "start/install": (("getting-started",), 1),
        "start/configure": (("getting-started",), 2),
        "ref/commands": (("reference",), 0),
    }
    # A page listed twice is one document with an additional placement.
    assert _refs(source, "start/install") == [(("reference",), 1)]


def test_mkdocs_nav_tolerates_python_tags(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: Site\n"
                "markdown_extensions:\n"
                "  - pymdownx.emoji:\n"
                "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
                "extra:\n  secret: !ENV [SECRET, none]\n"
                "nav:\n"
                "  - Home: index.md\n"
                "  - User guide:\n"
                "      - guide/writing.md\n"
                "      - Styling: guide/styling.md\n"
                "      - Advanced:\n"
                "          - Plugins: guide/plugins.md\n"
                "  - External: https://example.test/\n"
            ),
            "docs/index.md": "# Home\n\nWelcome.\n",
            "docs/guide/writing.md": "# Writing your docs\n\nWrite.\n",
            "docs/guide/styling.md": "Styling without a heading.\n",
            "docs/guide/plugins.md": "# Plugins\n\nPlug.\n",
            "docs/unlisted.md": "# Unlisted\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.outline == "mkdocs"
    assert _topics(source)["user-guide"] == ("User guide", None, sort_key_for_order(1))
    assert _topics(source)["advanced"] == ("Advanced", "user-guide", sort_key_for_order(2))
    assert _docs(source) == {
        "index": (("demo",), 0),
        "guide/writing": (("user-guide",), 0),
        "guide/styling": (("user-guide",), 1),
        "guide/plugins": (("user-guide", "advanced"), 0),
    }
    titles = {d.id: d.title for d in source.documents}
    assert titles["guide/styling"] == "Styling"  # the nav label when there is no H1


def test_jupyter_book_toc(tmp_path: Path) -> None:
    notebook = (
        '{"cells": [{"cell_type": "markdown", "source": ["# Analysis\\n", "Text."]},'
        ' {"cell_type": "code", "source": ["print(1)"]}],'
        ' "metadata": {"kernelspec": {"language": "python"}}}'
    )
    root = write_tree(
        tmp_path / "jb",
        {
            "_toc.yml": (
                "format: jb-book\n"
                "root: intro\n"
                "parts:\n"
                "  - caption: Basics\n"
                "    chapters:\n"
                "      - file: basics/one\n"
                "        sections:\n"
                "          - file: basics/two\n"
                "      - file: basics/analysis\n"
                "  - caption: Extra\n"
                "    chapters:\n"
                "      - url: https://example.test\n"
                "      - glob: extra/*\n"
            ),
            "intro.md": "# Intro\n\nHello.\n",
            "basics/one.md": "# One\n\nFirst.\n",
            "basics/two.md": "# Two\n\nSecond.\n",
            "basics/analysis.ipynb": notebook,
            "extra/b.md": "# B\n\nb.\n",
            "extra/a.md": "# A\n\na.\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.outline == "jupyter-book"
    assert _topics(source) == {
        "demo": ("Demo catalog", None, sort_key_for_order(0)),
        "basics": ("Basics", None, sort_key_for_order(1)),
        "one": ("One", "basics", sort_key_for_order(0)),
        "extra": ("Extra", None, sort_key_for_order(2)),
    }
    assert _docs(source) == {
        "intro": (("demo",), 0),
        "basics/one": (("basics", "one"), 0),
        "basics/two": (("basics", "one"), 1),
        "basics/analysis": (("basics",), 1),
        "extra/a": (("extra",), 0),
        "extra/b": (("extra",), 1),
    }
    notebook_doc = next(d for d in source.documents if d.id == "basics/analysis")
    body = notebook_doc.load_body(_links())
    assert body == "# Analysis\nText.\n\n```python\nprint(1)\n```\n"


def _links() -> LinkBase:
    return LinkBase("tester", "demo")


def test_docfx_toc_with_nested_toc(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "fx",
        {
            "toc.yml": (
                "- name: Overview\n  href: index.md\n"
                "- name: Concepts\n  topicHref: concepts/intro.md\n  items:\n"
                "    - name: Shards\n      href: concepts/shards.md\n"
                "- name: API\n  href: api/\n"
            ),
            "api/toc.yml": "items:\n  - name: Reader\n    href: reader.md\n",
            "index.md": "# Overview\n",
            "concepts/intro.md": "# Concepts\n\nIntro.\n",
            "concepts/shards.md": "# Shards\n\nShards.\n",
            "api/reader.md": "# Reader\n\nRead.\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.outline == "docfx"
    assert set(_topics(source)) == {"demo", "concepts", "api"}
    assert _docs(source) == {
        "index": (("demo",), 0),
        "concepts/intro": (("concepts",), 0),
        "concepts/shards": (("concepts",), 1),
        "api/reader": (("api",), 0),
    }


def test_hugo_sections_and_weights(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "Site"\n',
            "content/_index.md": "---\ntitle: Handbook home\ndescription: The start\n---\n",
            "content/welcome.md": "---\ntitle: Welcome\nweight: 5\n---\nHi.\n",
            "content/guides/_index.md": (
                '+++\ntitle = "Guides"\nweight = 2\ndescription = "How-tos"\n+++\n'
                "Guides intro text.\n"
            ),
            "content/guides/second.md": "---\ntitle: Second\nweight: 20\n---\nTwo.\n",
            "content/guides/first.md": "---\ntitle: First\nweight: 10\n---\nOne.\n",
            "content/notes/loose.md": "# Loose\n\nNo weight.\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.outline == "hugo"
    topics = _topics(source)
    # The home page (content/_index.md) names the root topic; sections and pages of the home
    # share Hugo's order: guides (weight 2), welcome (5), notes (no weight: last). A page
    # after a section makes the sections subtopics of the root topic.
    assert topics["demo"] == ("Handbook home", None, sort_key_for_order(0))
    assert topics["guides"] == ("Guides", "demo", sort_key_for_order(1))
    assert topics["notes"] == ("Notes", "demo", sort_key_for_order(3))
    assert {t.id: t.description for t in source.topics}["guides"] == "How-tos"
    assert _docs(source) == {
        "_index": (("demo",), 0),
        "welcome": (("demo",), 2),
        "guides/_index": (("demo", "guides"), 0),
        "guides/first": (("demo", "guides"), 1),
        "guides/second": (("demo", "guides"), 2),
        "notes/loose": (("demo", "notes"), 0),
    }


def test_hugo_default_order_weight_date_link_title_path(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "config/_default/hugo.yaml": "title: Site\n",
            "content/blog/_index.md": "---\ntitle: Blog\n---\n",
            # Weight first (0 is no weight: last), then the newest date, then linkTitle.
            "content/blog/a.md": "---\ntitle: A\ndate: 2024-01-01\n---\nA.\n",
            "content/blog/b.md": "---\ntitle: B\ndate: 2025-06-01T10:00:00Z\n---\nB.\n",
            "content/blog/c.md": "---\ntitle: C\nweight: 3\n---\nC.\n",
            "content/blog/d.md": "---\ntitle: Zed\nlinkTitle: Dee\n---\nD.\n",
            "content/blog/e.md": "---\ntitle: Eee\n---\nE.\n",
            # A folder with no _index.md below the top is no section: its pages are the blog's.
            "content/blog/2023/old.md": "---\ntitle: Old\ndate: 2023-01-01\n---\nOld.\n",
            "content/blog/post.fr.md": "---\ntitle: Article\n---\nAutre langue.\n",
            "content/blog/sub/_index.md": "---\ntitle: Sub\nweight: 1\n---\n",
            "content/blog/sub/x.md": "# X\n",
        },
    )
    (root / "config/_default/languages.yaml").write_text("en: {weight: 1}\nfr: {weight: 2}\n")
    source = load_markdown_tree(root)
    docs = _docs(source)
    in_blog = sorted((o, d) for d, (p, o) in docs.items() if p == ("blog",))
    # Position 1 is the subsection (weight 1), between the section page and c (weight 3).
    assert [d for _, d in in_blog] == [
        "blog/_index",
        "blog/c",
        "blog/b",
        "blog/a",
        "blog/2023/old",
        "blog/d",
        "blog/e",
    ]
    assert [o for o, _ in in_blog] == [0, 2, 3, 4, 5, 6, 7]
    assert _topics(source)["sub"] == ("Sub", "blog", sort_key_for_order(1))
    assert "blog/post.fr" not in docs
    # linkTitle is the navigation label, and orders.
    labels = {d.id: d.title for d in source.documents}
    assert labels["blog/d"] in ("Dee", "Zed")  # the catalog title rule is the toc's


def test_per_folder_topic_yaml(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "ty",
        {
            "_topic.yaml": "id: home\nname: Home\n",
            "start.md": "# Start\n",
            "alpha/_topic.yaml": (
                "id: first-steps\nname: First steps\ndescription: Begin\norder: 2\n"
            ),
            "alpha/a.md": "# A\n",
            "beta/_topic.yaml": "name: Beta things\norder: 1\n",
            "beta/b.md": "# B\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.outline == "topic-yaml"
    topics = _topics(source)
    assert topics["home"] == ("Home", None, "home")
    assert topics["first-steps"] == ("First steps", None, sort_key_for_order(2))
    assert topics["beta-things"] == ("Beta things", None, sort_key_for_order(1))
    assert _docs(source)["alpha/a"] == (("first-steps",), None)


def test_plain_folder_tree(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "plain",
        {
            "index.md": "# Welcome\n",
            "02-usage/README.md": "# Usage\n",
            "02-usage/03-advanced.md": "# Advanced\n",
            "02-usage/basics.md": "# Basics\n",
            "01-getting-started/install.md": "# Install\n",
            "01-getting-started/deep/nested.md": "# Nested\n",
            "empty/notes.txt": "not markdown",
            ".hidden/secret.md": "# Secret\n",
            "_drafts/draft.md": "# Draft\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.outline == "folders"
    # GitHub's order: the index page, the numbered entries, pages by name, folders by name;
    # each position is the entry's rank in its folder.
    assert _topics(source) == {
        "demo": ("Demo catalog", None, sort_key_for_order(0)),
        "usage": ("Usage", None, sort_key_for_order(2)),
        "getting-started": ("Getting started", None, sort_key_for_order(1)),
        "deep": ("Deep", "getting-started", sort_key_for_order(1)),
    }
    assert _docs(source) == {
        "index": (("demo",), 0),
        "02-usage/README": (("usage",), 0),
        "02-usage/03-advanced": (("usage",), 1),
        "02-usage/basics": (("usage",), 2),
        "01-getting-started/install": (("getting-started",), 0),
        "01-getting-started/deep/nested": (("getting-started", "deep"), 0),
    }


def test_catalog_yaml_can_force_the_folder_outline(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "forced",
        {"SUMMARY.md": "* [A](a.md)\n", "a.md": "# A\n", "sub/b.md": "# B\n"},
    )
    (root / "catalog.yaml").write_text(
        (root / "catalog.yaml").read_text() + "outline: folders\n", encoding="utf-8"
    )
    source = load_markdown_tree(root)
    assert source.outline == "folders"
    assert {d.id for d in source.documents} == {"a", "sub/b", "SUMMARY"}


def test_an_outline_entry_naming_a_missing_file_is_left_out_with_a_warning(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "gb",
        {"SUMMARY.md": "# Summary\n\n* [A](a.md)\n* [Gone](gone.md)\n", "a.md": "# A\n"},
    )
    source = load_markdown_tree(root)
    assert [d.id for d in source.documents] == ["a"]
    (warning,) = source.warnings
    assert (warning.reason, warning.path, warning.line) == ("missing-outline-page", "SUMMARY.md", 4)
    assert "SUMMARY.md:4: outline names a missing file 'gone.md'" in str(warning)


def test_mkdocs_nav_naming_a_missing_file_reports_the_line(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "mk",
        {"mkdocs.yml": "nav:\n  - Home: index.md\n  - Gone: gone.md\n", "docs/index.md": "# H\n"},
    )
    source = load_markdown_tree(root)
    assert [(w.reason, w.path, w.line) for w in source.warnings] == [
        ("missing-outline-page", "mkdocs.yml", 3)
    ]


def test_an_outline_entry_leaving_the_content_folder_is_refused(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "mk",
        {"mkdocs.yml": "nav:\n  - Out: ../README.md\n", "docs/index.md": "# H\n"},
    )
    with pytest.raises(SourceError) as err:
        load_markdown_tree(root)
    assert (err.value.reason, err.value.path, err.value.line) == ("unsafe-path", "mkdocs.yml", 2)


def test_linked_folders_are_not_followed(tmp_path: Path) -> None:
    outside = write_tree(tmp_path / "outside", {"secret.md": "# Secret\n"}, catalog=None)
    root = write_tree(tmp_path / "t", {"a.md": "# A\n"})
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "loop").symlink_to(root, target_is_directory=True)
    source = load_markdown_tree(root)
    assert {d.id for d in source.documents} == {"a"}
    assert sorted((w.reason, w.path) for w in source.warnings) == [
        ("symlink-skipped", "linked"),
        ("symlink-skipped", "loop"),
    ]


def test_topic_ids_are_derived_to_the_grammar() -> None:
    assert derive_topic_id("Getting Started!") == "getting-started"
    assert derive_topic_id("Ünïcode  Tópics") == "unicode-topics"
    assert derive_topic_id("x" * 80) == "x" * 63
    assert derive_topic_id("日本語").startswith("topic-")
    assert derive_topic_id("日本語") == derive_topic_id("日本語")


@pytest.mark.parametrize(
    ("outline", "text", "message", "line"),
    [
        ("mkdocs.yml", "nav:\n  Home: index.md\n", "nav must be a list", 2),
        ("_toc.yml", "root: index\nchapters:\n  file: a\n", "entries must be a list", 3),
        ("_toc.yml", "root: index\nchapters:\n  - a\n", "each entry must be a mapping", 3),
        ("_toc.yml", "root: index\nparts: a\n", "parts must be a list", 2),
        ("_toc.yml", "root: index\nparts:\n  - a\n", "each part must be a mapping", 3),
        ("toc.yml", "- name: A\n  items: a\n", "items must be a list", 2),
        ("toc.yml", "- name: A\n  href: index.md\n- a\n", "each toc item must be a mapping", 3),
    ],
)
def test_malformed_outline_lists_are_refused_at_their_line(
    tmp_path: Path, outline: str, text: str, message: str, line: int
) -> None:
    pages = {"docs/index.md": "# Home\n"} if outline == "mkdocs.yml" else {"index.md": "# Home\n"}
    root = write_tree(tmp_path / "t", {outline: text, **pages})
    with pytest.raises(SourceError) as err:
        load_markdown_tree(root)
    assert (err.value.reason, err.value.path, err.value.line) == ("invalid-outline", outline, line)
    assert str(err.value) == f"{outline}:{line}: {message}"


@pytest.mark.parametrize("order", [2**31, -(2**31) - 1])
def test_a_topic_order_outside_32_bits_is_refused(tmp_path: Path, order: int) -> None:
    root = write_tree(
        tmp_path / "t",
        {"guide/_topic.yaml": f"name: Guide\norder: {order}\n", "guide/a.md": "# A\n"},
    )
    with pytest.raises(SourceError) as err:
        load_markdown_tree(root)
    assert err.value.reason == "invalid-order"
    assert str(err.value) == f"topic order {order} of 'Guide' is not a signed 32-bit integer"


def test_mdbook_summary_as_mdbook_shows_it(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "book",
        {
            "book.toml": '[book]\ntitle = "Garden Book"\n',
            "src/SUMMARY.md": (
                "# Summary\n\n"
                "[Introduction](README.md)\n\n"
                "# Getting started\n\n"
                "- [Planting](start/planting.md)\n"
                "- [Watering](start/watering.md)\n\n"
                "# Reference\n\n"
                "- [Tools](tools/README.md)\n"
                "    - [Spade](tools/spade.md)\n"
                "    - [Rake](tools/rake.md)\n"
                "        - [Rake types]()\n"
                "- [Compost]()\n\n"
                "---\n\n"
                "[Thanks](thanks.md)\n"
            ),
            "src/README.md": "# Introduction\n\nWelcome.\n",
            "src/start/planting.md": "# Planting\n",
            "src/start/watering.md": "# Watering\n",
            "src/tools/README.md": "# Tools\n",
            "src/tools/spade.md": "# Spade\n",
            "src/tools/rake.md": "# Rake\n",
            "src/thanks.md": "# Thanks\n",
        },
        catalog=None,
    )
    (root / "README.md").unlink()
    source = load_markdown_tree(root)
    assert source.outline == "mdbook"
    # A suffix chapter follows the parts: the parts are subtopics of the root topic, which
    # lists the prefix chapter (0), the parts (1, 2) and the suffix chapter (3) in that order.
    assert _topics(source) == {
        "garden-book": ("Garden Book", None, sort_key_for_order(0)),
        "getting-started": ("Getting started", "garden-book", sort_key_for_order(1)),
        "reference": ("Reference", "garden-book", sort_key_for_order(2)),
        "tools": ("Tools", "reference", sort_key_for_order(0)),
    }
    # The Introduction (src/README.md) is a document; ids are relative to src/; the prefix
    # and suffix chapters are in the root topic, outside every part; a chapter whose only
    # child is a draft is a page.
    assert _docs(source) == {
        "README": (("garden-book",), 0),
        "start/planting": (("garden-book", "getting-started"), 0),
        "start/watering": (("garden-book", "getting-started"), 1),
        "tools/README": (("garden-book", "reference", "tools"), 0),
        "tools/spade": (("garden-book", "reference", "tools"), 1),
        "tools/rake": (("garden-book", "reference", "tools"), 2),
        "thanks": (("garden-book",), 3),
    }
    # mdBook shows draft chapters as entries without a link: nothing to warn about.
    assert source.warnings == ()
    assert source.readme is None  # the book has no README of its own: one is generated


def test_summary_part_title_first_after_a_prefix_chapter_is_kept(tmp_path: Path) -> None:
    # Without a '# Summary' title, a part heading after a prefix chapter is still a part.
    root = write_tree(
        tmp_path / "book",
        {
            "book.toml": "[book]\n",
            "src/SUMMARY.md": "[Intro](intro.md)\n\n# Part one\n\n- [A](a.md)\n",
            "src/intro.md": "# Intro\n",
            "src/a.md": "# A\n",
        },
    )
    source = load_markdown_tree(root)
    assert _docs(source) == {"intro": (("demo",), 0), "a": (("part-one",), 0)}


def test_mkdocs_nav_sections_index_pages_and_external_links(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: Site\ndocs_dir: pages\nnav:\n"
                "  - index.md\n"
                "  - Guide:\n"
                "      - guide/index.md\n"
                "      - Setup: guide/setup.md\n"
                "      - Issues: https://example.test/issues\n"
                "  - Blog: https://example.test/blog\n"
            ),
            "pages/index.md": "# Home\n",
            "pages/guide/index.md": "# The guide\n",
            "pages/guide/setup.md": "# Setup\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.outline == "mkdocs"
    assert _docs(source) == {
        "index": (("demo",), 0),
        "guide/index": (("guide",), 0),
        "guide/setup": (("guide",), 1),
    }
    assert source.warnings == ()  # external links are no pages, and no problem


def test_mkdocs_without_nav_is_the_docs_folder_tree(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": "site_name: Site\n",
            "docs/index.md": "# Home\n",
            "docs/user-guide/writing.md": "# Writing\n",
            "notes.md": "# Not in docs_dir\n",
        },
    )
    source = load_markdown_tree(root)
    # MkDocs' own navigation of the docs folder: pages first, then folders, in order.
    assert (source.site, source.outline) == ("mkdocs", "mkdocs")
    assert _docs(source) == {
        "index": (("demo",), 0),
        "user-guide/writing": (("user-guide",), 0),
    }
    assert {t.id: t.name for t in source.topics}["user-guide"] == "User guide"


def test_docusaurus_autogenerated_sidebar(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "website",
        {
            "docusaurus.config.js": 'module.exports = { title: "Docs" };\n',
            "sidebars.js": "module.exports = { s: [{ type: 'autogenerated', dirName: '.' }] };\n",
            "docs/intro.md": "---\nsidebar_position: 1\n---\n# Intro\n",
            "docs/zeta.mdx": "---\nsidebar_position: 2\nsidebar_label: Zeta!\n---\nText.\n",
            "docs/wip.md": "---\ndraft: true\n---\n# Not yet\n",
            "docs/_snippet.md": "A partial, never a page.\n",
            "docs/02-guides/_category_.json": (
                '{"label": "How-to guides", "position": 3, '
                '"link": {"type": "generated-index", "description": "Step by step."}}'
            ),
            "docs/02-guides/02-second.md": "# Second\n",
            "docs/02-guides/01-first.md": "# First\n",
            "docs/02-guides/index.md": "# Guides overview\n",
            "docs/api/_category_.yml": "label: API\nposition: 2.5\n",
            "docs/api/api.md": "# API\n",
            "docs/api/calls.md": "# Calls\n",
            "docs/api/0-before.md": "# Before\n",
        },
    )
    source = load_markdown_tree(root)
    assert (source.site, source.outline) == ("docusaurus", "docusaurus")
    topics = _topics(source)
    # Sidebar positions 1, 2, 2.5, 3: the items' places in one sequence.
    assert topics["how-to-guides"] == ("How-to guides", None, sort_key_for_order(3))
    assert topics["api"] == ("API", None, sort_key_for_order(2))
    assert {t.id: t.description for t in source.topics}["how-to-guides"] == "Step by step."
    assert _docs(source) == {
        "intro": (("demo",), 0),
        "zeta": (("demo",), 1),
        # An explicit generated-index link: index.md is a page of the category, not its lead.
        "guides/first": (("how-to-guides",), 0),
        "guides/second": (("how-to-guides",), 1),
        "guides/index": (("how-to-guides",), 2),
        # No link: the page named after the folder leads it; a number prefix orders.
        "api/api": (("api",), 0),
        "api/before": (("api",), 1),
        "api/calls": (("api",), 2),
    }
    assert {d.id: d.title for d in source.documents}["zeta"] == "Zeta!"
    # A draft is left out silently, as a production build leaves it out.
    assert source.warnings == ()


def test_docusaurus_sidebars_are_read_without_running_them(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "repo",
        {
            # Config in website/, docs beside it: `..` stays inside the source folder.
            "website/docusaurus.config.ts": (
                "import type {Config} from '@docusaurus/types';\n"
                "const config: Config = {\n  title: 'Site', url: 'https://x.example',\n"
                "  presets: [['classic', { docs: { path: '../docs', routeBasePath: '/',\n"
                "    editUrl: ({docPath}) => `https://e/${docPath}`,\n"
                "    sidebarPath: require.resolve('./sidebars.js'),\n"
                "    include: ['{01-guide,api}/*.{md,mdx}', 'intro.md'] } }]],\n"
                "  themeConfig: { docs: { sidebar: { hideable: true } } },\n};\n"
                "export default config;\n"
            ),
            # sidebars.js is named; the file is sidebars.ts (the config's loader finds it).
            "website/sidebars.ts": (
                "import type {SidebarsConfig} from '@docusaurus/plugin-content-docs';\n"
                "// A comment with { braces } and 'quotes\n"
                "const sidebars: SidebarsConfig = {\n"
                "  main: [\n    'intro',\n"
                "    { type: 'category', label: 'Guide',\n"
                "      link: { type: 'doc', id: 'guide/overview' },\n"
                "      items: ['guide/setup', { type: 'link', label: 'Out', href: 'https://x' }],\n"
                "    },\n"
                "    { 'API reference': ['api/provider',\n"
                "      { type: 'doc', id: 'api/hooks', label: 'Hooks!' }] },\n"
                "  ],\n};\nexport default sidebars;\n"
            ),
            "docs/intro.md": "# Intro\n",
            "docs/01-guide/overview.md": "# Overview\n",
            "docs/01-guide/02-setup.md": "# Setup\n",
            "docs/api/Provider.md": "---\nid: provider\n---\n# Provider\n",
            "docs/api/hooks.mdx": "# Hooks\n",
            "docs/notes/ignored.md": "# Not included\n",
            "docs/api/extra.md": "# Listed in no sidebar\n",
        },
    )
    source = load_markdown_tree(root)
    assert (source.site, source.outline) == ("docusaurus", "docusaurus")
    # Document ids are Docusaurus doc ids: number prefixes dropped, front matter `id` taken.
    # A page (api/extra, listed by no sidebar) follows the categories: they are subtopics
    # of the root topic, so its pages and theirs keep one order.
    assert [(t.id, t.parent_id, t.sort_key) for t in source.topics] == [
        ("demo", None, sort_key_for_order(0)),
        ("guide", "demo", sort_key_for_order(1)),
        ("api-reference", "demo", sort_key_for_order(2)),
    ]
    assert _docs(source) == {
        "intro": (("demo",), 0),
        "guide/overview": (("demo", "guide"), 0),
        "guide/setup": (("demo", "guide"), 1),
        "api/provider": (("demo", "api-reference"), 0),
        "api/hooks": (("demo", "api-reference"), 1),
        "api/extra": (("demo",), 3),
    }
    assert source.warnings == ()


def test_docusaurus_doc_ids_drop_number_prefixes_and_follow_front_matter() -> None:
    assert doc_id("01-intro.md", {}) == "intro"
    assert doc_id("02-guides/10_setup.mdx", {}) == "guides/setup"
    assert doc_id("api/Provider.md", {"id": "provider"}) == "api/provider"
    # A date or a version is no number prefix.
    assert strip_number_prefix("2021-01-01-release") == ("2021-01-01-release", None)
    assert strip_number_prefix("1.2.3-notes") == ("1.2.3-notes", None)
    assert strip_number_prefix("3 - Setup") == ("Setup", 3)
    # Two numbers joined by one separator start no prefix either (Hydra's upgrade folders).
    assert strip_number_prefix("1.3_to_1.4") == ("1.3_to_1.4", None)
    assert strip_number_prefix("8.0") == ("8.0", None)
    assert strip_number_prefix("18_2 - Doc") == ("18_2 - Doc", None)
    assert doc_id("upgrades/0.11_to_1.0/a.md", {"id": "b"}) == "upgrades/0.11_to_1.0/b"
    assert strip_number_prefix("1--2 Doc") == ("2 Doc", 1)


def test_docusaurus_docs_path_may_not_leave_the_source_folder(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "website",
        {
            "docusaurus.config.js": "module.exports = { presets: [['classic', "
            "{ docs: { path: '../docs' } }]] };\n",
        },
    )
    write_tree(tmp_path / "docs", {"a.md": "# A\n"})
    with pytest.raises(SourceError) as caught:
        load_markdown_tree(root)
    assert caught.value.reason == "unsafe-path"


def test_docusaurus_sidebars_that_need_javascript_fall_back_to_the_folders(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "website",
        {
            "docusaurus.config.js": 'module.exports = { title: "Docs" };\n',
            "sidebars.js": "module.exports = makeSidebars(require('./list'));\n",
            "docs/a.md": "# A\n",
        },
    )
    source = load_markdown_tree(root)
    (warning,) = source.warnings
    assert (warning.reason, warning.path) == ("sidebars-not-read", "sidebars.js")
    assert _docs(source) == {"a": (("demo",), 0)}


def test_hugo_leaf_bundles_are_pages_and_drafts_are_left_out(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.yaml": "title: Site\n",
            "content/blog/_index.md": "---\ntitle: Blog\n---\n",
            "content/blog/first-post/index.md": "---\ntitle: First post\nweight: 1\n---\nHi.\n",
            "content/blog/first-post/notes.md": "A resource of the bundle, not a page.\n",
            "content/blog/draft-post.md": "---\ntitle: Later\ndraft: true\n---\nSoon.\n",
            "content/blog/shared/index.md": "---\nheadless: true\n---\nResources only.\n",
            "content/blog/hidden.md": "---\ntitle: H\nbuild: {render: never}\n---\nNot shown.\n",
        },
    )
    source = load_markdown_tree(root)
    assert _docs(source) == {
        "blog/_index": (("blog",), 0),
        "blog/first-post/index": (("blog",), 1),
    }
    # Hugo publishes no draft, and says nothing about it.
    assert source.warnings == ()


def test_docfx_generated_api_folders_and_project_paths(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "fx",
        {
            "docfx.json": "{}",
            "toc.yml": (
                "- name: Intro\n  href: ~/intro.md\n"
                "- name: API\n  href: api/\n"
                "- name: Guides\n  href: guides/\n"
            ),
            "intro.md": "# Intro\n",
            "api/index.md": "# Generated by DocFX\n",
            "guides/toc.yml": "- name: One\n  href: ~/guides/one.md\n",
            "guides/one.md": "# One\n",
        },
    )
    source = load_markdown_tree(root)
    assert _docs(source) == {"intro": (("demo",), 0), "guides/one": (("guides",), 0)}
    assert [(w.reason, w.line) for w in source.warnings] == [("missing-outline-page", 4)]


def test_jupyter_book_leaves_out_pages_it_builds_but_cannot_be_read(tmp_path: Path) -> None:
    # Jupyter Book builds reStructuredText (and jupytext's .Rmd): no broken link, no warning;
    # an entry naming no file at all is one.
    root = write_tree(
        tmp_path / "jb",
        {
            "_toc.yml": "root: index\nchapters:\n  - file: api\n  - file: notebook\n"
            "  - file: gone\n",
            "index.md": "# Home\n",
            "api.rst": "API\n===\n",
            "notebook.Rmd": "# An R Markdown notebook\n",
        },
    )
    source = load_markdown_tree(root)
    assert [d.id for d in source.documents] == ["index"]
    (warning,) = source.warnings
    assert (warning.reason, warning.path, warning.line) == ("missing-outline-page", "_toc.yml", 5)


def test_docusaurus_docs_folder_beside_website_is_its_project(tmp_path: Path) -> None:
    repo = write_tree(
        tmp_path / "repo",
        {
            "website/docusaurus.config.js": (
                "module.exports = { title: 'Site', presets: [['classic', { docs: "
                "{ path: '../docs', sidebarPath: './sidebars.json' } }]] };\n"
            ),
            "website/sidebars.json": '{"docs": {"Guides": ["b", "a"]}}',
        },
        catalog=None,
    )
    docs = write_tree(
        repo / "docs",
        {"a.md": "---\nsidebar_label: First A\n---\n# A\n", "b.md": "# B\n"},
    )
    # Pointed at docs/, the source is the project configured beside it, in its sidebar order.
    source = load_markdown_tree(docs)
    assert (source.site, source.outline) == ("docusaurus", "docusaurus")
    assert _docs(source) == {"b": (("guides",), 0), "a": (("guides",), 1)}
    assert all(not (w.path or "").startswith("/") for w in source.warnings)
    # The sidebar item gives no label: the page's sidebar_label is its navigation label.
    readme = {(docs / "README.md").resolve()}  # the catalog's README, never a page
    recognised = recognise_outline(docs.resolve(), source_site(docs.resolve()), reserved=readme)
    assert outline_pages(recognised.outline) == {"b.md": None, "a.md": "First A"}


def test_docusaurus_sidebar_items_that_need_javascript_are_named(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "website",
        {
            "docusaurus.config.js": 'module.exports = { title: "Docs" };\n',
            "sidebars.js": "module.exports = { s: ['b', ...require('./more'), makeItem('a')] };\n",
            "docs/a.md": "# A\n",
            "docs/b.md": "# B\n",
        },
    )
    source = load_markdown_tree(root)
    (warning,) = source.warnings
    assert (warning.reason, warning.path) == ("sidebars-not-read", "sidebars.js")
    # What the literal says is kept; the page only code would list follows.
    assert _docs(source) == {"b": (("demo",), 0), "a": (("demo",), 1)}


def test_hugo_weights_are_read_leniently(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "H"\n',
            "content/docs/_index.md": "---\ntitle: Docs\n---\n",
            # Hugo reads "2" as 2 and ignores a weight that is no number: no build stops.
            "content/docs/a.md": "---\ntitle: A\nweight: odd\n---\nA.\n",
            "content/docs/b.md": '---\ntitle: B\nweight: "2"\n---\nB.\n',
            "content/docs/c.md": "---\ntitle: C\nweight: 1\n---\nC.\n",
        },
    )
    docs = _docs(load_markdown_tree(root))
    in_docs = sorted((o, d) for d, (p, o) in docs.items() if p == ("docs",))
    assert [d for _, d in in_docs] == ["docs/_index", "docs/c", "docs/b", "docs/a"]


def test_docusaurus_sidebars_by_name_and_shared_lists(tmp_path: Path) -> None:
    # Each level names the one below twice: walked by value, 2**14 categories.
    levels = "".join(
        f"const n{i} = [{{ type: 'category', label: 'L{i}', items: n{i - 1} }}, "
        f"{{ type: 'category', label: 'M{i}', items: n{i - 1} }}];\n"
        for i in range(1, 15)
    )
    root = write_tree(
        tmp_path / "website",
        {
            "docusaurus.config.js": "module.exports = { title: 'Docs' };\n",
            "sidebars.js": (
                "const n0 = ['b', 'a'];\nconst unrelated = { notASidebar: [] };\n"
                + levels
                + "const sidebars = { main: [{ type: 'category', label: 'Top', items: n14 }] };\n"
                "module.exports = sidebars;\n"
            ),
            "docs/a.md": "# A\n",
            "docs/b.md": "# B\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    # The exported sidebars (not the first literal) are read; the names stand for their lists;
    # each shared list is walked once, so the pages sit under the first path to them.
    docs = _docs(source)
    assert [docs["b"][1], docs["a"][1]] == [0, 1]
    assert docs["a"][0][-1] == docs["b"][0][-1] == "l1"
    assert len(docs["a"][0]) == 15
