"""DocFX: toc.yml order, href/topicHref, nested toc.yml, and the links DocFX resolves kept
silently (generated api/ folders, files it copies or includes, YAML pages, tab links) (issue 21)."""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler import CatalogSource, LinkBase
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import PNG, write_tree

LINKS = LinkBase("tester", "demo")

DOCFX_JSON = (
    '\ufeff{"metadata": [{"src": [{"files": ["*.csproj"], "src": "../src"}], "dest": "api"}],\n'
    ' "build": {"globalMetadata": {"_appTitle": "Widget"}, "resource": [{"files": ["media/**"]}]}}'
)
LFS = b"version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 12\n"


def _warnings(source: CatalogSource) -> list[tuple[str, str | None, int | None]]:
    return [(w.reason, w.path, w.line) for w in source.warnings]


def _site(root: Path) -> Path:
    return write_tree(
        root,
        {
            "docfx.json": DOCFX_JSON,
            "toc.yml": (
                "\ufeff- name: Docs\n  href: docs/\n- name: API\n  href: api/\n"
                "- name: Reference\n  href: reference.yml\n"
            ),
            "docs/toc.yml": (
                "- name: Start\n  href: start.md\n"
                "- name: Concepts\n  topicHref: concepts/index.md\n  items:\n"
                "    - name: Shards\n      href: concepts/shards.md\n"
                "- name: Tabs\n  href: tabs.md\n"
            ),
            "docs/start.md": (
                "# Start\n\nSee [the API](../api/Widget.yml), [the reader](../api/index.md),\n"
                "[a sheet](../media/sheet.pdf), [code](../src/a.cs?name=x), "
                "[reference](../reference.yml).\n\n![diagram](../media/diagram.png)\n"
                "[gone](nowhere.md)\n"
            ),
            "docs/concepts/index.md": "# Concepts\n",
            "docs/concepts/shards.md": "# Shards\n\n[Back](#no-such-heading)\n",
            "docs/tabs.md": "# Tabs\n\n# [Linux](#tab/linux)\n\nRun it.\n\n---\n",
            "reference.yml": "### YamlMime:ApiPage\ntitle: Reference\n",
            "media/sheet.pdf": b"%PDF-1.4\n",
            "media/diagram.png": LFS,
            "src/a.cs": "class A {}\n",
        },
        catalog=None,
    )


def test_docfx_outline_order_and_sections(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path / "fx"))
    assert source.outline == "docfx"
    assert source.metadata.name == "Widget"
    assert {d.id: (d.topic_path, d.ordinal) for d in source.documents} == {
        "docs/start": (("docs",), 0),
        "docs/concepts/index": (("docs", "concepts"), 0),
        "docs/concepts/shards": (("docs", "concepts"), 1),
        "docs/tabs": (("docs",), 2),
    }
    assert {t.id: t.sort_key for t in source.topics}["concepts"] == "2147483649"


def test_docfx_links_it_resolves_are_silent_and_real_problems_warn(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path / "fx"))
    # No warning for api/ (written by docfx metadata), the toc's YAML page, the PDF resource,
    # the code snippet, the tab link or the Git LFS pointer (DocFX publishes the file that is
    # there); the missing page and the missing bookmark are reported.
    assert sorted(_warnings(source)) == [
        ("missing-anchor", "docs/concepts/shards.md", 3),
        ("unresolved-link", "docs/start.md", 7),
    ]
    # The pointer is said once, as a note, and its link is kept as written.
    assert len(source.notes) == 1
    assert source.notes[0].startswith("1 image is a Git LFS pointer, not image data")
    body = next(d for d in source.documents if d.id == "docs/start").load_body(LINKS)
    assert "![diagram](../media/diagram.png)" in body
    assert source.assets == ()


def test_a_real_image_still_ships(tmp_path: Path) -> None:
    root = _site(tmp_path / "fx")
    (root / "media" / "diagram.png").write_bytes(PNG)
    source = load_markdown_tree(root)
    assert [a.path for a in source.assets] == ["assets/media/diagram.png"]
    assert ("missing-image", "docs/start.md", 6) not in _warnings(source)


def test_xref_links_reach_the_page_with_that_uid_and_are_silent_otherwise(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "fx",
        {
            "toc.yml": "- name: A\n  href: a.md\n- name: B\n  href: b.md\n",
            "a.md": (
                "# A\n\nSee [B](xref:guide.b#usage), <xref:guide.b> and "
                "[String](xref:System.String).\n"
            ),
            "b.md": "---\nuid: guide.b\n---\n# B\n\n## Usage\n\nUse it.\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    body = next(d for d in source.documents if d.id == "a").load_body(LINKS)
    assert "[B](knowledge://tester/demo/b#line=3-5)" in body
    assert "[String](xref:System.String)" in body


def test_a_markdown_toc_nests_by_heading_level(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "fx",
        {
            "docfx.json": "{}",
            "toc.md": (
                "# [Overview](index.md)\n"
                "# Guides\n## [Install](guides/install.md)\n## [Use `it`](guides/use.md)\n"
                "```\n# [Not a heading](nope.md)\n```\n"
                "# [Reference](ref/)\n"
            ),
            "ref/toc.md": "# [Calls](calls.md)\n",
            "index.md": "# Overview\n",
            "guides/install.md": "# Install\n",
            "guides/use.md": "# Use\n",
            "ref/calls.md": "# Calls\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.outline == "docfx"
    assert {d.id: (d.topic_path, d.ordinal, d.title) for d in source.documents} == {
        "index": (("overview",), 0, "Overview"),
        "guides/install": (("guides",), 0, "Install"),
        "guides/use": (("guides",), 1, "Use it"),
        "ref/calls": (("reference",), 0, "Calls"),
    }
    assert source.warnings == ()


def test_a_lone_toc_md_is_no_docfx_project(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "t", {"toc.md": "# [A](a.md)\n", "a.md": "# A\n"}, catalog=None)
    assert load_markdown_tree(root).outline != "docfx"


def test_a_toc_item_may_name_its_page_by_uid(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "fx",
        {
            "docfx.json": "{}",
            "toc.yml": (
                "- name: Intro\n  href: intro.md\n- uid: guide.setup\n"
                "- name: String\n  uid: System.String\n"
            ),
            "intro.md": "# Intro\n",
            "setup.md": "---\nuid: guide.setup\n---\n# Setting up\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert {d.id: (d.ordinal, d.title) for d in source.documents} == {
        "intro": (0, "Intro"),
        "setup": (1, "Setting up"),
    }
    assert source.warnings == ()


def test_docfx_json_may_hold_comments_and_trailing_commas(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "fx",
        {
            "docfx.json": (
                '// "$schema": "https://example.test/schema.json",\n{\n'
                '  "build": {\n    /* the site */\n'
                '    "globalMetadata": {"_appName": "Gadget // tools", "_lang": "en",},\n'
                "  },\n}\n"
            ),
            "toc.yml": "- name: A\n  href: a.md\n",
            "a.md": "# A\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.outline == "docfx"
    assert source.metadata.name == "Gadget // tools"


def test_a_navbar_page_shows_its_folders_toc_and_xref_items_name_pages_by_uid(
    tmp_path: Path,
) -> None:
    # The navigation bar (the toc beside docfx.json) names pages by xref; the guide's page
    # lies in a folder whose own toc.md DocFX shows beside it, so those entries are its
    # section. `# <xref:...>` and `# @uid` name a page by uid too.
    root = write_tree(
        tmp_path / "fx",
        {
            "docfx.json": "{}",
            "toc.md": (
                "# [Home](xref:home)\n# [Guide](xref:guide.start)\n# [API](xref:Gadget)\n"
                "# [Notes](notes/)\n"
            ),
            "index.md": "---\nuid: home\n---\n# Home\n",
            "guide/toc.md": "# [Start](xref:guide.start)\n## <xref:guide.deep>\n# @guide.end\n",
            "guide/start/index.md": "---\nuid: guide.start\n---\n# Start here\n",
            "guide/deep.md": "---\nuid: guide.deep\n---\n# Deeper\n",
            "guide/end.md": "---\nuid: guide.end\n---\n# The end\n",
            "notes/toc.yml": "- name: One\n  href: one.md\n",
            "notes/one.md": "# One\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert {d.id: (d.topic_path, d.ordinal, d.title) for d in source.documents} == {
        "index": (("overview",), 0, "Home"),
        "guide/start/index": (("guide", "start"), 0, "Start"),
        "guide/deep": (("guide", "start"), 1, "Deeper"),
        "guide/end": (("guide",), 1, "The end"),
        "notes/one": (("notes",), 0, "One"),
    }


def test_a_navbar_page_its_toc_does_not_list_leads_the_section(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "fx",
        {
            "docfx.json": "{}",
            "toc.yml": "- name: Guide\n  href: guide/intro.md\n",
            "guide/toc.yml": "- name: Use\n  href: use.md\n",
            "guide/intro.md": "# Intro\n",
            "guide/use.md": "# Use\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert {d.id: (d.topic_path, d.ordinal) for d in source.documents} == {
        "guide/intro": (("guide",), 0),
        "guide/use": (("guide",), 1),
    }


def test_homepage_leads_an_item_as_topic_href_does(tmp_path: Path) -> None:
    # `homepage` is DocFX's older name for topicHref: the page a navbar item opens.
    root = write_tree(
        tmp_path / "fx",
        {
            "docfx.json": '{"metadata": [{"dest": "api"}]}',
            "toc.yml": (
                "- name: Articles\n  href: articles/\n  homepage: articles/index.md\n"
                "- name: API\n  href: api/\n  homepage: api/index.md\n"
            ),
            "articles/toc.yml": "- name: Start\n  href: start.md\n",
            "articles/index.md": "# Articles\n",
            "articles/start.md": "# Start\n",
            "api/index.md": "# API\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert {d.id: (d.topic_path, d.ordinal) for d in source.documents} == {
        "articles/index": (("articles",), 0),
        "articles/start": (("articles",), 1),
        "api/index": (("api",), 0),
    }


def test_code_included_from_above_the_project_is_kept_silently_and_noted(
    tmp_path: Path,
) -> None:
    # DocFX includes snippets from anywhere in the repository; the build only sees that the
    # file above its source folder exists (never reads it), and says so once.
    repo = tmp_path / "repo"
    write_tree(repo, {"samples/Hello.cs": "class Hello {}\n"}, catalog=None, notices=False)
    root = write_tree(
        repo / "docs" / "site",
        {
            "docfx.json": "{}",
            "toc.yml": "- name: A\n  href: a.md\n",
            "a.md": (
                "# A\n\n[!code-csharp[](../../samples/Hello.cs)]\n"
                "[!code-csharp[](../../samples/Gone.cs)]\n"
            ),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert _warnings(source) == [("unresolved-link", "a.md", 4)]
    assert source.notes == (
        "1 file above the source folder (such as ../../samples/Hello.cs) is named by links "
        "the generator resolves; not read (confinement), the links are kept as written",
    )


def test_links_from_the_project_folder_resolve_as_docfx_resolves_them(tmp_path: Path) -> None:
    # `~/` is the DocFX project's folder in page links, images and code snippets alike.
    root = write_tree(
        tmp_path / "fx",
        {
            "docfx.json": "{}",
            "toc.yml": "- name: Guide\n  href: guide/a.md\n- name: B\n  href: b.md\n",
            "guide/a.md": (
                "# A\n\nSee [B](~/b.md#usage) and [old docs](~/legacy/home.html).\n\n"
                "![shot](~/images/shot.png)\n\n[!code-csharp[Main](~/snippets/Demo.cs#Main)]\n"
                "[gone](~/gone.md)\n"
            ),
            "b.md": "# B\n\n## Usage\n\nUse it.\n",
            "legacy/home.html": "<p>old</p>\n",
            "images/shot.png": PNG,
            "snippets/Demo.cs": "class Demo {}\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert _warnings(source) == [("unresolved-link", "guide/a.md", 8)]
    assert [a.path for a in source.assets] == ["assets/images/shot.png"]
    body = next(d for d in source.documents if d.id == "guide/a").load_body(LINKS)
    assert "[B](knowledge://tester/demo/b#line=3-5)" in body


def test_a_section_page_its_items_list_again_is_placed_once_silently(tmp_path: Path) -> None:
    # topicHref names the page the node opens; DocFX lists it again as the first item (or
    # later): one page, placed as the section's first page, with no repeated-placement warning.
    root = write_tree(
        tmp_path / "fx",
        {
            "docfx.json": "{}",
            "toc.yml": (
                "- name: Guide\n  href: guide/toc.yml\n  topicHref: guide/intro.md\n"
                "- name: Other\n  topicHref: other/b.md\n  items:\n"
                "    - name: A\n      href: other/a.md\n    - name: B\n      href: other/b.md\n"
            ),
            "guide/toc.yml": "- name: Intro\n  href: intro.md\n- name: Next\n  href: next.md\n",
            "guide/intro.md": "# Intro\n",
            "guide/next.md": "# Next\n",
            "other/a.md": "# A\n",
            "other/b.md": "# B\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert {d.id: (d.topic_path, d.ordinal) for d in source.documents} == {
        "guide/intro": (("guide",), 0),
        "guide/next": (("guide",), 1),
        "other/b": (("other",), 0),
        "other/a": (("other",), 1),
    }


def test_rooted_hrefs_are_site_urls_and_unreached_tocs_and_unlisted_pages_follow(
    tmp_path: Path,
) -> None:
    # The navigation bar links `/` (a URL of the built site, never an include of itself);
    # articles/toc.yml is reached from nowhere but is the sidebar of articles/, and names
    # pages by their published URLs. Pages build.content builds that no toc lists follow in
    # path order; a toc outside build.content (pdf/) and an excluded README are no pages.
    root = write_tree(
        tmp_path / "fx",
        {
            "docfx.json": (
                '{"build": {"content": [{"files": ["articles/**/*.md", "articles/**/*.yml",'
                ' "roadmap/**/*.md", "toc.yml", "*.md"], "exclude": ["README.md"]}]}}'
            ),
            "toc.yml": "- name: Learn\n  href: /\n- name: Shop\n  href: https://example.org/\n",
            "index.md": (
                "# Home\n\n[Setup](/articles/setup.html), [the guide](/downloads/guide.pdf)\n"
                "![gone](/media/gone.png) [source path](/articles/gone.md)\n"
            ),
            "README.md": "# Repository readme\n",
            "articles/toc.yml": (
                "- name: Setup\n  href: /articles/setup.html\n"
                "- name: Roadmap\n  href: /roadmap/\n"
                "- name: Basics\n  href: basics.md\n  items:\n"
                "    - name: Gone\n      href: /articles/gone.html\n"
            ),
            "articles/setup.md": "# Setup\n",
            "articles/basics.md": "# Basics\n",
            "articles/howto/b.md": "# B\n",
            "articles/howto/a.md": "# A\n",
            "roadmap/index.md": "# Roadmap\n",
            "pdf/toc.yml": "- name: Setup again\n  href: ../articles/setup.md\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert [(w.reason, w.path) for w in source.warnings] == [
        ("missing-image", "index.md"),
        ("unresolved-link", "index.md"),
    ]
    assert {d.id: (d.topic_path, d.ordinal) for d in source.documents} == {
        "index": (("overview",), 0),
        "articles/setup": (("overview", "articles"), 0),
        "roadmap/index": (("overview", "articles"), 1),
        "articles/basics": (("overview", "articles", "basics"), 0),
        "articles/howto/a": (("overview",), 2),
        "articles/howto/b": (("overview",), 3),
    }
    # A rooted link is a URL DocFX never checks: a page's resolves, anything else is kept.
    home = next(d for d in source.documents if d.id == "index").load_body(LINKS)
    assert "[Setup](knowledge://tester/demo/articles/setup)" in home
    assert "[the guide](/downloads/guide.pdf)" in home


def test_redirections_are_no_pages_and_links_into_a_sibling_checkout_are_kept(
    tmp_path: Path,
) -> None:
    # A page whose front matter holds redirect_url is a redirection DocFX writes; docfx.json
    # reads the engine's sources from ../../engine (metadata src), the checkout the site's
    # build puts beside the docs: a tutorial's link to a sample there is kept silently, never
    # read; a missing file elsewhere still warns.
    repo = tmp_path / "docs-repo"
    root = write_tree(
        repo / "en",
        {
            "docfx.json": (
                '{"metadata": [{"src": [{"files": ["a.csproj"], "src": "../../engine"}],'
                ' "dest": "api"}], "build": {"content": [{"files": ["**/*.md", "toc.yml"]}]}}'
            ),
            "toc.yml": "- name: Start\n  href: start.md\n",
            "start.md": ("# Start\n\n[sample](../../engine/samples/Demo.cs) and [gone](gone.md)\n"),
            "old.md": "---\nredirect_url: start.md\n---\n",
            "guide/more.md": "# More\n\n[sample](../../../engine/samples/Demo.cs)\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert sorted(d.id for d in source.documents) == ["guide/more", "start"]
    assert [(w.reason, w.path) for w in source.warnings] == [("unresolved-link", "start.md")]
    assert "gone.md" in source.warnings[0].message


def test_an_unreached_toc_linked_from_outside_the_tree_is_not_read(tmp_path: Path) -> None:
    # A sidebar toc.yml no toc reaches is read as its folder's section; one that is a symbolic
    # link to a file outside the source folder must not be (it could name anything).
    outside = tmp_path / "elsewhere" / "toc.yml"
    outside.parent.mkdir()
    outside.write_text("- name: Outside secret\n  href: page.md\n")
    root = write_tree(
        tmp_path / "fx",
        {
            "docfx.json": "{}",
            "toc.yml": "- name: Home\n  href: index.md\n",
            "index.md": "# Home\n",
            "guide/page.md": "# Page\n",
        },
        catalog=None,
    )
    (root / "guide" / "toc.yml").symlink_to(outside)
    source = load_markdown_tree(root)
    assert "Outside secret" not in {t.name for t in source.topics}
    assert [d.title for d in source.documents] == ["Home"]


def test_folder_toc_md_files_are_no_pages_and_swagger_entries_are_silent(tmp_path: Path) -> None:
    # docfx-seed's layout: build.content takes every Markdown file of articles/ and restapi/,
    # whose toc.md files are their TOCs, never pages; restapi/toc.md names Swagger files,
    # which DocFX builds into REST API pages (not the catalog's): left out silently. A JSON
    # file that is no API description is still reported as no Markdown.
    root = write_tree(
        tmp_path / "seed",
        {
            "docfx.json": (
                '{"build": {"content": [{"files": ["articles/**/*.md", "*.md", "toc.yml",'
                ' "restapi/**"]}]}}'
            ),
            "toc.yml": (
                "- name: Home\n  href: index.md\n- name: Articles\n  href: articles/\n"
                "- name: REST API\n  href: restapi/\n"
            ),
            "index.md": "# Home\n",
            "articles/toc.md": "\ufeff# [Start](start.md)\n# [Rules](rules.md)\n",
            "articles/start.md": "# Start\n",
            "articles/rules.md": "# Rules\n",
            "restapi/toc.md": (
                "# [Pets](pets.json)\n# [Contacts](contacts.json)\n# [Data](data.json)\n"
            ),
            "restapi/pets.json": '{\n  "swagger": "2.0",\n  "info": {"title": "Pets"}\n}\n',
            "restapi/contacts.json": '{"openapi": "3.0.1", "paths": {}}\n',
            "restapi/data.json": '{"rows": [1, 2]}\n',
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert sorted(d.id for d in source.documents) == [
        "articles/rules",
        "articles/start",
        "index",
    ]
    assert [(w.reason, w.path, w.line) for w in source.warnings] == [
        ("unsupported-page", "restapi/toc.md", 3)
    ]


def test_only_the_head_of_a_json_toc_entry_is_read(tmp_path: Path) -> None:
    # The Swagger check reads 64 KiB at most: a key past that is not seen (the entry is then
    # reported as not Markdown), however large the file.
    padding = '{"x": "' + "a" * 70_000 + '", "swagger": "2.0"}\n'
    root = write_tree(
        tmp_path / "big",
        {
            "docfx.json": '{"build": {"content": [{"files": ["**"]}]}}',
            "toc.yml": "- name: Home\n  href: index.md\n- name: API\n  href: api.json\n",
            "index.md": "# Home\n",
            "api.json": padding,
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert [(w.reason, w.path) for w in source.warnings] == [("unsupported-page", "toc.yml")]
