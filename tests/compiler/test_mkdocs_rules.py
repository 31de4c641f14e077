"""MkDocs rules, each with a small tree of its own (issue 21)."""

from __future__ import annotations

import time
import tomllib
from pathlib import Path

from gezel_knowledge.compiler import CatalogSource, LinkBase
from gezel_knowledge.compiler.generators._include_markdown import (
    MAX_EXPANDED,
    _arguments,
    expand_include_markdown,
)
from gezel_knowledge.compiler.generators._zensical import settings, settings_nodes
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import PNG, write_tree
from tests.faults import MB, assert_linear_time

LINKS = LinkBase("tester", "demo")


def _order(source: CatalogSource) -> list[str]:
    """Document ids in navigation order: topics by sort key, documents by ordinal, merged."""
    children: dict[str | None, list[tuple[str, str]]] = {}
    for topic in source.topics:
        children.setdefault(topic.parent_id, []).append((topic.sort_key, topic.id))
    out: list[str] = []

    def visit(topic_id: str) -> None:
        items = [
            (f"{(d.ordinal or 0) + 2**31:010d}", 0, d.id)
            for d in source.documents
            if d.topic_path[-1] == topic_id
        ]
        items += [(key, 1, child) for key, child in children.get(topic_id, [])]
        for _, kind, ident in sorted(items):
            if kind == 0:
                out.append(ident)
            else:
                visit(ident)

    for _, root in sorted(children.get(None, [])):
        visit(root)
    return out


def _placed(source: CatalogSource) -> dict[str, tuple[tuple[str, ...], int | None]]:
    return {d.id: (d.topic_path, d.ordinal) for d in source.documents}


def test_literate_nav_folder_entries_read_the_folders_nav_file(tmp_path: Path) -> None:
    # mkdocs.yml names folders; literate-nav reads each folder's README.md (its last list),
    # and implicit_index puts the folder's index page (README.md itself) first.
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: Kettle\nnav:\n  - Home: index.md\n  - Guide: guide/\n"
                "  - Extra: extra/\n"
                "plugins:\n  - search\n  - literate-nav:\n      nav_file: README.md\n"
                "      implicit_index: true\n"
            ),
            "docs/index.md": "# Home\n",
            "docs/guide/README.md": (
                "# Guide\n\nRead [filling](fill.md) first.\n\n"
                "- [Filling](fill.md)\n- [Boiling](boil.md)\n- Advanced\n"
                "    - [Descaling](advanced/descale.md)\n\n[ref]: boil.md\n"
            ),
            "docs/guide/start.md": "# Start\n",
            "docs/guide/fill.md": "# Fill\n",
            "docs/guide/boil.md": "# Boil\n",
            "docs/guide/advanced/descale.md": "# Descale\n",
            # No nav file: the folder's pages by name, its index first.
            "docs/extra/index.md": "# Extra\n",
            "docs/extra/b.md": "# B\n",
            "docs/extra/a.md": "# A\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert {t.id: (t.name, t.parent_id) for t in source.topics} == {
        "demo": ("Demo catalog", None),
        "guide": ("Guide", None),
        "advanced": ("Advanced", "guide"),
        "extra": ("Extra", None),
    }
    assert _placed(source) == {
        "index": (("demo",), 0),
        "guide/README": (("guide",), 0),
        "guide/fill": (("guide",), 1),
        "guide/boil": (("guide",), 2),
        "guide/advanced/descale": (("guide", "advanced"), 0),
        "extra/index": (("extra",), 0),
        "extra/a": (("extra",), 1),
        "extra/b": (("extra",), 2),
    }


def test_literate_nav_without_yaml_nav_reads_the_docs_nav_file(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": "site_name: Kettle\nplugins:\n  - literate-nav\n",
            "docs/SUMMARY.md": (
                "Intro text.\n\n- [One](one.md)\n\n<!--nav-->\n\n"
                "* [Two](two.md)\n* [One](one.md)\n\nAnother list:\n\n- [Three](three.md)\n"
            ),
            "docs/one.md": "# One\n",
            "docs/two.md": "# Two\n",
            "docs/three.md": "# Three\n",
        },
    )
    source = load_markdown_tree(root)
    # The first list after <!--nav--> is the navigation; the nav file is no page.
    assert _placed(source) == {"two": (("demo",), 0), "one": (("demo",), 1)}


def test_an_html_image_resolves_from_the_pages_directory_url(tmp_path: Path) -> None:
    # guide/theme.md is published at guide/theme/: its raw <img src="../../img/x.png">
    # (not rewritten by MkDocs) is docs/img/x.png; a Markdown image is relative to the file.
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": "site_name: S\nnav:\n  - guide/theme.md\n",
            "docs/guide/theme.md": (
                '# Theme\n\n<img src="../../img/x.png" alt="x">\n\n![y](../img/x.png)\n'
            ),
            "docs/img/x.png": PNG,
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert [a.path for a in source.assets] == ["assets/img/x.png"]


def test_snippets_are_included_before_anchors_and_links_are_read(tmp_path: Path) -> None:
    # pymdownx.snippets includes CONTRIBUTING.md (found from the folder MkDocs runs in);
    # its headings are anchors of the including page, and its text is the page's.
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: S\nnav:\n  - index.md\n  - about/contributing.md\n"
                "markdown_extensions:\n  - toc:\n      permalink: true\n  - pymdownx.snippets\n"
            ),
            "docs/index.md": (
                "# Home\n\n[dev](about/contributing.md#installing-for-development)\n\n"
                ';--8<-- "kept.md"\n'
            ),
            "docs/about/contributing.md": (
                '--8<-- "CONTRIBUTING.md"\n\n    --8<-- "missing.md"\n--8<-- "../outside.md"\n'
            ),
            "CONTRIBUTING.md": "# Contributing\n\n## Installing for development\n\nRun it.\n",
        },
    )
    (tmp_path / "outside.md").write_text("# Secret\n", encoding="utf-8")
    source = load_markdown_tree(root)
    assert source.warnings == ()
    contributing = next(d for d in source.documents if d.id == "about/contributing")
    assert contributing.title == "Contributing"
    assert contributing.load_body(LinkBase("tester", "demo")) == (
        "# Contributing\n\n## Installing for development\n\nRun it.\n\n"
    )
    home = next(d for d in source.documents if d.id == "index").load_body(
        LinkBase("tester", "demo")
    )
    assert "(knowledge://tester/demo/about/contributing#line=3-5)" in home
    assert '--8<-- "kept.md"\n' in home


def test_anchors_of_autodoc_blocks_are_not_reported_missing(tmp_path: Path) -> None:
    # mkdocstrings (and mkdocs-click) turn "::: identifier" into headings the text lacks.
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: S\nnav:\n  - index.md\n  - api.md\nvalidation:\n  anchors: warn\n"
            ),
            "docs/index.md": ("# Home\n\n[cls](api.md#kettle.Kettle) [gone](index.md#nowhere)\n"),
            "docs/api.md": "# API\n\n::: kettle.Kettle\n    options:\n      show_source: false\n",
        },
    )
    source = load_markdown_tree(root)
    assert [(w.reason, w.path, w.line) for w in source.warnings] == [
        ("missing-anchor", "docs/index.md", 3)
    ]
    home = next(d for d in source.documents if d.id == "index").load_body(LinkBase("t", "d"))
    assert "[cls](knowledge://t/d/api)" in home


def test_an_untitled_nav_section_is_named_after_its_first_page(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                'site_name: S\nnav:\n  - index.md\n  - "":\n      - guide/start.md\n'
                "      - guide/next.md\n"
            ),
            "docs/index.md": "# Home\n",
            "docs/guide/start.md": "# Getting started\n",
            "docs/guide/next.md": "# Next steps\n",
        },
    )
    source = load_markdown_tree(root)
    names = {t.id: t.name for t in source.topics}
    assert names == {"demo": "Demo catalog", "getting-started": "Getting started"}
    assert str(tmp_path) not in repr(source.topics)


def test_awesome_pages_files_order_name_and_hide_folders(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": "site_name: S\nplugins:\n  - search\n  - awesome-pages\n",
            "docs/index.md": "# Home\n",
            "docs/zeta.md": "# Zeta\n",
            "docs/guide/.pages": (
                "title: The guide\nnav:\n  - start.md\n  - Tips: tips.md\n  - ... | glob=b*.md\n"
                "  - Blog: https://example.test/blog\n"
            ),
            "docs/guide/start.md": "# Start\n",
            "docs/guide/tips.md": "# Tips\n",
            "docs/guide/boil.md": "# Boil\n",
            "docs/guide/brew.md": "# Brew\n",
            "docs/guide/unlisted.md": "# Unlisted\n",
            "docs/drafts/.pages": "hide: true\n",
            "docs/drafts/idea.md": "# Idea\n",
            "docs/api/a.md": "# A\n",
            "docs/api/b.md": "# B\n",
            "docs/api/.pages": "order: desc\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert {t.id: t.name for t in source.topics} == {
        "demo": "Demo catalog",
        "api": "Api",
        "the-guide": "The guide",
    }
    # MkDocs' order: the index, the other pages, then the folders by name.
    assert _placed(source) == {
        "index": (("demo",), 0),
        "zeta": (("demo",), 1),
        "api/b": (("api",), 0),
        "api/a": (("api",), 1),
        "guide/start": (("the-guide",), 0),
        "guide/tips": (("the-guide",), 1),
        "guide/boil": (("the-guide",), 2),
        "guide/brew": (("the-guide",), 3),
    }


def test_a_docs_folder_built_alone_keeps_its_sites_literate_nav(tmp_path: Path) -> None:
    # The source is docs/; mkdocs.yml (with literate-nav) is one folder up.
    site = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: S\nnav:\n  - index.md\n  - Guide: guide/\nplugins:\n  - literate-nav\n"
            ),
            "docs/index.md": "# Home\n",
            "docs/guide/SUMMARY.md": "- [B](b.md)\n- [A](a.md)\n",
            "docs/guide/a.md": "# A\n",
            "docs/guide/b.md": "# B\n",
        },
    )
    write_tree(site / "docs", {})
    source = load_markdown_tree(site / "docs")
    assert source.site == "mkdocs"
    assert _placed(source) == {
        "index": (("demo",), 0),
        "guide/b": (("guide",), 0),
        "guide/a": (("guide",), 1),
    }


def test_without_nav_the_docs_folder_is_in_mkdocs_order_less_its_exclusions(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: S\nexclude_docs: |\n  drafts/\n  *-old.md\n  /api/private.md\n"
                "draft_docs: |\n  wip.md\n"
            ),
            "docs/zeta.md": "# Zeta\n",
            "docs/index.md": "# Home\n",
            "docs/API/index.md": "# API\n",
            "docs/API/private.md": "# Private\n",
            "docs/API/setup-old.md": "# Old\n",
            "docs/api-notes/note.md": "# Note\n",
            "docs/drafts/idea.md": "# Idea\n",
            "docs/templates/page.md": "# Template\n",
            "docs/.hidden/x.md": "# Hidden\n",
            "docs/wip.md": "# Soon\n",
        },
    )
    source = load_markdown_tree(root)
    assert {t.id: t.name for t in source.topics} == {
        "demo": "Demo catalog",
        "api": "API",
        "api-notes": "Api notes",
    }
    assert _placed(source) == {
        "index": (("demo",), 0),
        "zeta": (("demo",), 1),
        "API/index": (("api",), 0),
        "API/private": (("api",), 1),
        "api-notes/note": (("api-notes",), 0),
    }


def test_inherit_reads_the_parent_configuration_under_the_childs(tmp_path: Path) -> None:
    # mkdocs.yml inherits nav, plugins and theme settings from config/base.yml; its own
    # site_name and theme.language win, mappings merge key by key.
    root = write_tree(
        tmp_path / "site",
        {
            "config/base.yml": (
                "site_name: Base\nsite_description: Shared words.\n"
                "theme:\n  name: material\n  language: fr\n"
                "nav:\n  - index.md\n  - Guide: guide/\nplugins:\n  - literate-nav\n"
            ),
            "mkdocs.yml": "INHERIT: config/base.yml\nsite_name: Child\ntheme:\n  language: de\n",
            "docs/index.md": "# Home\n",
            "docs/guide/SUMMARY.md": "- [Two](two.md)\n- [One](one.md)\n",
            "docs/guide/one.md": "# One\n",
            "docs/guide/two.md": "# Two\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    meta = source.metadata
    assert (meta.name, meta.description, meta.language) == ("Child", "Shared words.", "de")
    assert _placed(source) == {
        "index": (("child",), 0),
        "guide/two": (("guide",), 0),
        "guide/one": (("guide",), 1),
    }


def test_links_to_files_the_theme_publishes_are_silent(tmp_path: Path) -> None:
    page = (
        "# Home\n\n[icon](img/favicon.ico) [map](sitemap.xml) [style](css/theme.css)"
        " [gone](img/nowhere/missing.txt) [nope](missing.md)\n"
    )
    builtin = write_tree(tmp_path / "a", {"mkdocs.yml": "site_name: A\n", "docs/index.md": page})
    warned = [w.message for w in load_markdown_tree(builtin).warnings]
    # The mkdocs theme serves img/, css/...: only the link to a missing page is reported.
    assert len(warned) == 1
    assert "missing.md" in warned[0]
    material = write_tree(
        tmp_path / "b",
        {"mkdocs.yml": "site_name: B\ntheme:\n  name: material\n", "docs/index.md": page},
    )
    warned = sorted(w.message for w in load_markdown_tree(material).warnings)
    # Material serves assets/, not img/ or css/: those links are reported there.
    assert len(warned) == 4
    assert not any("sitemap.xml" in w for w in warned)


def test_anchors_follow_the_sites_toc_slugify(tmp_path: Path) -> None:
    # Each site's toc slugify names its headings; the links only match under its own rule
    # (pymdownx keeps Unicode and case as configured, repeats are numbered _1 as toc does).
    page = "# Menu\n\n## Café Crème\n\nHot.\n\n## Café Crème\n\nCold.\n\n## Two  Words\n\nW.\n"
    sites = {
        "uslugify": ("!!python/name:pymdownx.slugs.uslugify", "", ["café-crème_1", "two--words"]),
        "cased": (
            "!!python/object/apply:pymdownx.slugs.slugify {}",
            "",
            ["Café-Crème_1", "Two--Words"],
        ),
        "apply": (
            "!!python/object/apply:pymdownx.slugs.slugify\n        kwds:\n          case: fold",
            "",
            ["café-crème_1", "two--words"],
        ),
        "unicode": (
            "!!python/name:markdown.extensions.toc.slugify_unicode",
            "      separator: _\n",
            ["café_crème_1", "two_words"],
        ),
    }
    for name, (function, extra, anchors) in sites.items():
        links = " ".join(f"[{a}](menu.md#{a})" for a in anchors)
        root = write_tree(
            tmp_path / name,
            {
                "mkdocs.yml": (
                    "site_name: S\nvalidation:\n  anchors: warn\nmarkdown_extensions:\n"
                    f"  - toc:\n      permalink: true\n      slugify: {function}\n{extra}"
                ),
                "docs/index.md": f"# Home\n\n{links}\n",
                "docs/menu.md": page,
            },
        )
        source = load_markdown_tree(root)
        assert source.warnings == (), name
        home = next(d for d in source.documents if d.id == "index").load_body(LinkBase("t", "d"))
        assert "(knowledge://t/d/menu#line=7-9)" in home, name
        assert "(knowledge://t/d/menu#line=11-13)" in home, name


def test_only_what_mkdocs_validation_warns_about_is_a_warning(tmp_path: Path) -> None:
    page = (
        "# Home\n\n[a](index.md#nowhere) [b](/nowhere/) [c](nodir/) [d](orphan.md)\n"
        '[e](missing.md) [f](../outside.txt) ![g](gone.png) <img src="raw.png">\n'
        "[h](script.py) [i](/orphan.md)\n"
    )
    files = {
        "docs/index.md": page,
        "docs/orphan.md": "# Orphan\n",
        "docs/script.py": "print(1)\n",
        "outside.txt": "x\n",
    }

    def warned(validation: str) -> list[str]:
        name = f"site{len(list(tmp_path.iterdir()))}"
        yml = f"site_name: S\nnav:\n  - index.md\n{validation}"
        source = load_markdown_tree(write_tree(tmp_path / name, {"mkdocs.yml": yml, **files}))
        return [w.message.split("'")[1] for w in source.warnings]

    # MkDocs' defaults: a missing anchor, an absolute link and an unrecognized relative link
    # are info, a file of docs_dir (a page left out of nav, a script) is published, raw HTML
    # is never checked; a missing target with a suffix is a warning.
    assert warned("") == ["missing.md", "../outside.txt", "gone.png"]
    assert warned(
        "validation:\n  links:\n    anchors: warn\n    absolute_links: warn\n"
        "    unrecognized_links: warn\n"
    ) == ["index.md#nowhere", "/nowhere/", "nodir/", "missing.md", "../outside.txt", "gone.png"]
    # The shorthand applies to links; relative_to_docs checks absolute links from docs_dir
    # (/orphan.md is a file there), a missing one is not found, whatever its suffix.
    assert warned("validation:\n  absolute_links: relative_to_docs\n") == [
        "/nowhere/",
        "missing.md",
        "../outside.txt",
        "gone.png",
    ]
    assert warned("validation:\n  not_found: info\n") == []


def test_blog_posts_follow_the_blog_index_newest_first(tmp_path: Path) -> None:
    # Material's blog plugin builds posts that nav never lists: pinned first, then newest
    # first (date or date.created); drafts are not built; a tags index makes headings.
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: S\ntheme:\n  name: material\nplugins:\n  - blog\n  - tags\n"
                "validation:\n  anchors: warn\n"
                "nav:\n  - index.md\n  - Blog:\n      - blog/index.md\n  - tags.md\n"
            ),
            "docs/index.md": "# Home\n\n[t](tags.md#python) [p](blog/posts/old.md)\n",
            "docs/tags.md": "# Tags\n\n<!-- material/tags -->\n",
            "docs/blog/index.md": "# Blog\n",
            "docs/blog/.authors.yml": "authors: {}\n",
            "docs/blog/posts/old.md": "---\ndate: 2023-01-05\n---\n# Old\n",
            "docs/blog/posts/2024/new.md": "---\ndate:\n  created: 2024-03-01\n---\n# New\n",
            "docs/blog/posts/pinned.md": "---\ndate: 2022-01-01\npin: true\n---\n# Pinned\n",
            "docs/blog/posts/draft.md": "---\ndate: 2025-01-01\ndraft: true\n---\n# Draft\n",
            "docs/blog/posts/same.md": "---\ndate: 2023-01-05\n---\n# Same day\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert {t.id: t.name for t in source.topics} == {"demo": "Demo catalog", "blog": "Blog"}
    assert _placed(source) == {
        "index": (("demo",), 0),
        "blog/index": (("demo", "blog"), 0),
        "blog/2022/01/01/pinned": (("demo", "blog"), 1),
        "blog/2024/03/01/new": (("demo", "blog"), 2),
        "blog/2023/01/05/old": (("demo", "blog"), 3),
        "blog/2023/01/05/same-day": (("demo", "blog"), 4),
        "tags": (("demo",), 2),
    }


def test_monorepo_includes_merge_other_projects_under_their_site_name(tmp_path: Path) -> None:
    # mkdocs-monorepo-plugin: !include puts the included nav in place (its pages published
    # under site_name), *include does so for each mkdocs.yml a glob matches, in path order,
    # each a section named after its site_name (slugified unless plain); a project without
    # nav lists its docs folder, folders before files. External links are no pages.
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: S\nplugins:\n  - monorepo\nnav:\n  - index.md\n"
                "  - https://example.com/elsewhere\n  - Away: https://example.com\n"
                "  - Parts: '*include ./parts/*/mkdocs.yml'\n"
                "  - API:\n    - v1: '!include ./v1/mkdocs.yml'\n"
                "    - v2: '!include ./v2/mkdocs.yml'\n"
            ),
            "docs/index.md": "# Home\n\n[v1](versions/v1/ref.md) [b](part-b/README.md)\n",
            "parts/b/mkdocs.yml": "site_name: Part B\nnav:\n  - Home: README.md\n",
            "parts/b/docs/README.md": "# B\n\n[home](../index.md)\n",
            "parts/a/mkdocs.yml": "site_name: Part A\nnav:\n  - README.md\n",
            "parts/a/docs/README.md": "# A\n",
            "v1/mkdocs.yml": (
                "site_name: versions/v1\nnav:\n  - Reference: ref.md\n  - Changes: log.md\n"
            ),
            "v1/docs/ref.md": "# Reference\n",
            "v1/docs/log.md": "# Changelog\n",
            "v2/mkdocs.yml": "site_name: versions/v2\ndocs_dir: pages\n",
            "v2/pages/z.md": "# Z\n",
            "v2/pages/old/a.md": "# Old A\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert _order(source) == [
        "index",
        "part-a/README",
        "part-b/README",
        "versions/v1/ref",
        "versions/v1/log",
        "versions/v2/old/a",
        "versions/v2/z",
    ]
    names = {t.id: t.name for t in source.topics}
    assert {"Parts", "Part A", "Part B", "API", "v1", "v2", "Old"} <= set(names.values())
    # The merged pages keep their files and links resolve across the merged site.
    body = next(d for d in source.documents if d.id == "index").load_body(LINKS)
    assert "versions/v1/ref" in body
    assert "part-b/README" in body


def test_a_monorepo_include_that_cannot_merge_is_left_out_with_a_warning(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: S\nnav:\n  - index.md\n  - Gone: '!include ./gone/mkdocs.yml'\n"
                "  - Nameless: '!include ./nameless/mkdocs.yml'\n"
                "  - Nested: '!include ./nested/mkdocs.yml'\n"
            ),
            "docs/index.md": "# Home\n",
            "nameless/mkdocs.yml": "nav:\n  - index.md\n",
            "nameless/docs/index.md": "# Nameless\n",
            "nested/mkdocs.yml": "site_name: nested\nnav:\n  - X: '!include ../x/mkdocs.yml'\n",
            "nested/docs/index.md": "# Nested\n",
        },
    )
    source = load_markdown_tree(root)
    assert [(w.reason, w.line) for w in source.warnings] == [
        ("outline-entry-outside", 4),
        ("outline-entry-outside", 5),
        ("outline-entry-outside", 6),
    ]
    assert _placed(source) == {"index": (("demo",), 0)}


def test_nav_entries_gen_files_writes_are_left_out_silently(tmp_path: Path) -> None:
    # gen-files scripts write reference/ when MkDocs builds: the nav entry and links into it
    # resolve there (reference.md, a page beside it, is another page, placed once).
    files = {
        "docs/index.md": "# Home\n\n[api](reference/markdown/core.md) [lib](reference.md)\n",
        "docs/reference.md": "# Library\n",
    }
    nav = "nav:\n  - index.md\n  - Library: reference.md\n  - API: reference/\n"
    plugins = "plugins:\n  - gen-files:\n      scripts: [gen.py]\n  - literate-nav\n"
    root = write_tree(tmp_path / "a", {"mkdocs.yml": f"site_name: S\n{nav}{plugins}", **files})
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert _placed(source) == {"index": (("demo",), 0), "reference": (("demo",), 1)}
    # Without gen-files, nothing writes the folder: MkDocs reports both.
    bare = write_tree(tmp_path / "b", {"mkdocs.yml": f"site_name: S\n{nav}", **files})
    assert [w.reason for w in load_markdown_tree(bare).warnings] == [
        "missing-outline-page",
        "unresolved-link",
    ]


def test_mkdocs_static_i18n_leaves_the_other_languages_pages_out(tmp_path: Path) -> None:
    languages = (
        "plugins:\n  - i18n:\n      docs_structure: {}\n      languages:\n"
        "        - locale: en\n          default: true\n        - locale: fr\n"
        "        - locale: pt-BR\n"
    )
    suffix = write_tree(
        tmp_path / "suffix",
        {
            "mkdocs.yml": "site_name: S\n" + languages.format("suffix"),
            "docs/index.md": "# Home\n",
            "docs/index.fr.md": "# Accueil\n",
            "docs/guide/a.md": "# A\n",
            "docs/guide/a.fr.md": "# A (fr)\n",
            "docs/guide/a.pt-BR.md": "# A (pt)\n",
            "docs/guide/b.final.md": "# B\n",  # a dot in a name is no language
        },
    )
    assert _order(load_markdown_tree(suffix)) == ["index", "guide/a", "guide/b.final"]
    folder = write_tree(
        tmp_path / "folder",
        {
            "mkdocs.yml": "site_name: S\n" + languages.format("folder"),
            "docs/en/index.md": "# Home\n",
            "docs/fr/index.md": "# Accueil\n",
            "docs/pt-BR/index.md": "# Início\n",
        },
    )
    assert _order(load_markdown_tree(folder)) == ["en/index"]
    # Without the plugin, a .fr.md page is a page like any other.
    plain = write_tree(
        tmp_path / "plain", {"mkdocs.yml": "site_name: S\n", "docs/index.fr.md": "# Accueil\n"}
    )
    assert _order(load_markdown_tree(plain)) == ["index.fr"]


def test_an_old_sites_pages_setting_is_its_nav(tmp_path: Path) -> None:
    # MkDocs 0.17 to 1.2 read the deprecated `pages` as `nav`; 1.3 refuses the setting.
    files = {"docs/index.md": "# Home\n", "docs/b.md": "# B\n", "docs/a.md": "# A\n"}
    pages = "pages:\n  - Home: index.md\n  - Guide:\n    - b.md\n    - a.md\n"
    root = write_tree(tmp_path / "old", {"mkdocs.yml": f"site_name: S\n{pages}", **files})
    source = load_markdown_tree(root)
    assert _order(source) == ["index", "b", "a"]
    assert "Guide" in {t.name for t in source.topics}
    both = write_tree(
        tmp_path / "both",
        {"mkdocs.yml": f"site_name: S\nnav:\n  - a.md\n  - index.md\n{pages}", **files},
    )
    assert _order(load_markdown_tree(both)) == ["a", "index"]  # nav wins; b is in no nav


def test_nav_entries_a_script_writes_as_gitignore_says_are_left_out_silently(
    tmp_path: Path,
) -> None:
    # uv's and Pydantic's way: a script writes docs/reference/cli.md (and a changelog) before
    # `mkdocs build`, and .gitignore keeps them out of git by their anchored paths.
    files = {
        "docs/index.md": "# Home\n\n[cli](reference/cli.md#uv-run) [log](changelog.md)\n",
        "docs/guide.md": "# Guide\n\n[gone](reference/other.md)\n",
    }
    nav = "nav:\n  - index.md\n  - guide.md\n  - reference/cli.md\n  - changelog.md\n"
    ignore = "# generated\n/docs/reference/cli.md\ndocs/changelog.md\nsite/\n*.md~\n"
    root = write_tree(
        tmp_path / "a", {"mkdocs.yml": f"site_name: S\n{nav}", ".gitignore": ignore, **files}
    )
    source = load_markdown_tree(root)
    assert [(w.reason, w.path, w.line) for w in source.warnings] == [
        ("unresolved-link", "docs/guide.md", 3)  # reference/other.md: nothing writes it
    ]
    assert _order(source) == ["index", "guide"]
    # A pattern of any depth (no / before its end) names build output, never a page.
    loose = write_tree(
        tmp_path / "b",
        {"mkdocs.yml": f"site_name: S\n{nav}", ".gitignore": "cli.md\nchangelog.md\n", **files},
    )
    assert [w.reason for w in load_markdown_tree(loose).warnings].count("missing-outline-page") == 2


def test_pages_not_in_nav_names_follow_the_navigation_in_file_order(tmp_path: Path) -> None:
    # MkDocs builds every page; not_in_nav (gitignore lines) says which are meant to be outside
    # the nav: they follow it, each folder's files (index first) before its folders. Pages it
    # does not name stay out, as do excluded ones and pages nav lists (placed there once).
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: S\nnav:\n  - index.md\n  - Log: changes/index.md\n"
                "not_in_nav: |\n  changes/\n  /extra/*.md\nexclude_docs: |\n  changes/old/\n"
            ),
            "docs/index.md": "# Home\n\n[2.0](changes/release-2.0.md)\n",
            "docs/changes/index.md": "# Changes\n",
            "docs/changes/release-2.0.md": "# Release 2.0\n",
            "docs/changes/a-release.md": "# Release 1.0\n",
            "docs/changes/z/notes.md": "# Notes\n",
            "docs/changes/old/gone.md": "# Gone\n",
            "docs/extra/page.md": "# Extra\n",
            "docs/extra/deep/no.md": "# Not named\n",
            "docs/stray.md": "# Stray\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert _order(source) == [
        "index",
        "changes/index",
        "changes/a-release",
        "changes/release-2.0",
        "changes/z/notes",
        "extra/page",
    ]


def test_material_blog_posts_are_published_and_named_at_their_post_urls(tmp_path: Path) -> None:
    # Material's blog: a post's URL is blog/{date}/{slug}/ (yyyy/MM/dd; the slug from front
    # matter, else the title by post_slugify with its separator); its id is that URL path,
    # and links by URL or by file find it.
    files = {
        "docs/index.md": (
            "# Home\n\n[by url](blog/2024/01/31/hatch_v110/) [by file](blog/posts/b.md) "
            "[named](blog/2023/12/01/chosen/)\n"
        ),
        "docs/blog/index.md": "# Blog\n",
        "docs/blog/posts/a.md": "---\ndate: 2024-01-31\n---\n\n# Hatch v1.10!\n\nNews.\n",
        "docs/blog/posts/b.md": (
            "---\ndate:\n  created: 2023-12-01\nslug: chosen\ncategories: [Big News]\n---\n\n"
            "# B\n\n[back](../../index.md) [sibling](../2024/01/31/hatch_v110/)\n"
        ),
    }
    root = write_tree(
        tmp_path / "site",
        {
            **files,
            "mkdocs.yml": (
                "site_name: S\nnav:\n  - index.md\n  - Blog: blog/index.md\nplugins:\n"
                "  - material/blog:\n      post_slugify: !!python/object/apply:"
                "pymdownx.slugs.slugify\n        kwds:\n          case: lower\n"
                "      post_slugify_separator: _\n"
            ),
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    posts = ["blog/2024/01/31/hatch_v110", "blog/2023/12/01/chosen"]
    assert _order(source) == ["index", "blog/index", *posts]
    home = next(d for d in source.documents if d.id == "index").load_body(LINKS)
    assert home.count(posts[0]) == 1
    assert home.count(posts[1]) == 2
    # Another format: the first category and the file name; no date needed.
    root = write_tree(
        tmp_path / "other",
        {
            **files,
            "mkdocs.yml": (
                "site_name: S\nnav:\n  - index.md\nplugins:\n  - blog:\n"
                "      post_url_format: '{categories}/{file}'\n"
            ),
        },
    )
    ids = {d.id for d in load_markdown_tree(root).documents}
    assert {"blog/a", "blog/big-news/b"} <= ids


def test_blog_post_url_date_formats_and_fields() -> None:
    from gezel_knowledge.compiler.generators._material_blog import _formatted  # noqa: PLC0415

    assert _formatted("yyyy/MM/dd", 2024, 1, 5) == "2024/01/05"
    assert _formatted("yy/M/d", 2024, 1, 5) == "24/1/5"
    assert _formatted("yyyy/MMM", 2024, 3, 5) == "2024/Mar"
    assert _formatted("yyyy 'week' ww", 2024, 3, 5) is None


def test_a_properdocs_yml_is_read_as_mkdocs_yml(tmp_path: Path) -> None:
    # ProperDocs (a fork of MkDocs 1.6) reads properdocs.yml before an mkdocs.yml.
    root = write_tree(
        tmp_path / "site",
        {
            "properdocs.yml": (
                "site_name: Wheelwright\ntheme:\n  name: readthedocs\n"
                "nav:\n  - Home: index.md\n  - Guide:\n    - setup.md\n"
            ),
            "mkdocs.yml": "site_name: Old name\nnav:\n  - setup.md\n",
            "docs/index.md": "# Home\n\n[icon](img/favicon.ico)\n",
            "docs/setup.md": "# Setup\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.site == "mkdocs"
    assert source.metadata.name == "Wheelwright"
    assert _order(source) == ["index", "setup"]
    assert _placed(source)["setup"][0][-1] == "guide"
    assert source.warnings == ()  # img/ is the readthedocs theme's own folder


def test_a_zensical_toml_is_read_as_mkdocs_settings(tmp_path: Path) -> None:
    # Zensical's [project] table holds MkDocs' settings: nav as inline tables, and
    # markdown_extensions as a table whose unquoted pymdownx.* names nest.
    root = write_tree(
        tmp_path / "site",
        {
            "zensical.toml": (
                "[project]\n"
                'site_name = "Lantern"\n'
                'repo_url = "https://github.com/lumen/lantern"\n'
                "nav = [\n"
                '  { "Home" = [\n'
                '    { "Overview" = "index.md" },\n'
                '    { "Changelog" = "changelog.md" },\n'
                "  ] },\n"
                '  { "Usage" = [ "usage/index.md", { "Themes" = "usage/themes.md" } ] },\n'
                '  { "Blog" = "https://example.org/blog" },\n'
                '  { "Gone" = "gone.md" },\n'
                "]\n"
                "[project.markdown_extensions.toc]\n"
                'permalink = "#"\n'
                "[project.markdown_extensions.pymdownx.snippets]\n"
                "check_paths = true\n"
            ),
            "CHANGELOG.md": "# Changelog\n\n## 1.0\n\nFirst.\n",
            "docs/index.md": "# Lantern\n\nSee [1.0](changelog.md#10).\n",
            "docs/changelog.md": '--8<-- "CHANGELOG.md"\n',
            "docs/usage/index.md": "# Usage\n",
            "docs/usage/themes.md": "# Themes\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.site == "mkdocs"
    assert source.metadata.name == "Lantern"
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.id == "lumen"
    assert _order(source) == ["index", "changelog", "usage/index", "usage/themes"]
    titles = {d.id: d.title for d in source.documents}
    assert titles["index"] == "Overview"
    assert titles["usage/themes"] == "Themes"
    # The missing page warns at the line of zensical.toml that names it.
    assert [(w.reason, w.path, w.line) for w in source.warnings] == [
        ("missing-outline-page", "zensical.toml", 11)
    ]
    changelog = next(d for d in source.documents if d.id == "changelog")
    assert changelog.load_body(LINKS).startswith("# Changelog\n\n## 1.0")


def test_include_markdown_puts_files_in_with_their_links_moved(tmp_path: Path) -> None:
    # mkdocs-include-markdown-plugin: the part of README.md between two markers goes in the
    # page, indented as the directive, its relative links rewritten from the repository root
    # to docs/; headings offset; an include that cannot be read stays as written.
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: S\nnav:\n  - index.md\n  - options.md\n"
                "plugins:\n  - search\n  - include-markdown\n"
            ),
            "README.md": (
                "# Project\n\nSkipped.\n<!--intro-start-->\n"
                "Build with [options](docs/options.md#archs).\n\n"
                "## Features\n\nFast.\n<!--intro-end-->\nAfter.\n"
            ),
            "docs/index.md": (
                '# Home\n\n{%\n   include-markdown "../README.md"\n   start="<!--intro-start-->"\n'
                '   end="<!--intro-end-->"\n   heading-offset=1\n%}\n\n'
                '!!! note\n    {% include-markdown "../README.md" start="## Features" %}\n\n'
                '{% include-markdown "../missing.md" %}\n'
            ),
            "docs/options.md": "# Options\n\n## archs\n\nWhich.\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    home = next(d for d in source.documents if d.id == "index").load_body(LINKS)
    assert "Skipped." not in home
    assert "After." not in home.split("!!! note")[0]
    assert "Build with [options](knowledge://tester/demo/options#line=3-5)." in home
    assert "\n### Features\n" in home
    # Lines after the first keep the directive's indentation (inside the admonition).
    assert "!!! note\n    \n\n    Fast.\n    <!--intro-end-->\n" in home
    assert '{% include-markdown "../missing.md" %}' in home


def test_snippet_scissors_take_any_number_of_dashes(tmp_path: Path) -> None:
    # pymdownx.snippets reads -+8<-+ (Powertools writes ---8<-- "examples/...").
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: S\nnav:\n  - index.md\n"
                "markdown_extensions:\n  - pymdownx.snippets:\n      base_path: '.'\n"
            ),
            "docs/index.md": (
                '# Home\n\n```python\n---8<-- "examples/app.py"\n```\n\n'
                '-8<-\nexamples/two.py\n-8<-\n;---8<-- "kept.py"\n'
            ),
            "examples/app.py": "print('one')\n",
            "examples/two.py": "print('two')\n",
        },
    )
    body = load_markdown_tree(root).documents[0].load_body(LINKS)
    assert "```python\nprint('one')\n```" in body
    assert "print('two')" in body
    assert '\n---8<-- "kept.py"' in body


def test_the_default_languages_own_nav_is_the_navigation(tmp_path: Path) -> None:
    # mkdocs-static-i18n 1.x: a language entry's nav replaces mkdocs.yml's nav for that
    # language; the default language (default: true, not the first) is the catalog's.
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": (
                "site_name: S\nnav:\n  - other.md\n"
                "plugins:\n  - search\n  - i18n:\n      docs_structure: folder\n      languages:\n"
                "        - locale: ja\n          nav:\n            - ja/index.md\n"
                "        - locale: en\n          default: true\n          nav:\n"
                "            - Intro: index.md\n            - Guide:\n"
                "                - Start: guide/start.md\n            - Gone: gone.md\n"
            ),
            "docs/index.md": "# Home\n",
            "docs/other.md": "# Other\n",
            "docs/guide/start.md": "# Start\n",
            "docs/ja/index.md": "# ホーム\n",
        },
    )
    source = load_markdown_tree(root)
    assert _order(source) == ["index", "guide/start"]
    assert {d.id: d.title for d in source.documents}["index"] == "Intro"
    assert [(w.reason, w.line) for w in source.warnings] == [("missing-outline-page", 18)]


def test_zensical_toml_lines_are_found_in_linear_time() -> None:
    # Every bare key and unquoted value misses the quoted-string index: a lookup never scans
    # the text again (a megabyte of keys costs one pass, not one per key).
    keys = "".join(f"k{i} = {i}\n" for i in range(60_000))
    nav = "".join(f'  {{ "P{i}" = "p{i}.md" }},\n' for i in range(8_000))
    text = f"[project]\n{keys}nav = [\n{nav}]\n"
    data = settings(tomllib.loads(text))

    def scan() -> None:
        node = settings_nodes(data, text)
        assert isinstance(node.value, dict)
        last = node.value["nav"].value
        assert isinstance(last, list)
        assert last[-1].line == text.count("\n") - 1

    assert_linear_time(scan, len(text), seconds_per_mb=4.0, what="zensical.toml lines")
    assert len(text) < 2 * MB


def test_unclosed_include_markdown_directives_cost_linear_time(tmp_path: Path) -> None:
    # A page of opening tags that never close: each is given a directive's length at most.
    body = '{% include-markdown "a.md" start="x" ' * 30_000
    page = tmp_path / "docs" / "index.md"
    page.parent.mkdir()
    (tmp_path / "docs" / "a.md").write_text("A\n", encoding="utf-8")

    def scan() -> None:
        assert expand_include_markdown(body, page=page, within=tmp_path) == body

    assert_linear_time(scan, len(body), seconds_per_mb=4.0, what="unclosed include-markdown")


def test_include_markdown_arguments_are_read_in_linear_time() -> None:
    # A directive's 4,000 characters of arguments read as name=value pairs: a long word with
    # no `=` must be tried once, not from each of its characters.
    size = 20_000
    text = "a" * size
    assert_linear_time(lambda: _arguments(text), size, seconds_per_mb=20, what="arguments")
    assert _arguments('x start="<!--s-->" heading-offset=2 yes') == {
        "start": "<!--s-->",
        "heading-offset": "2",
    }


def test_include_markdown_fan_out_is_bounded(tmp_path: Path) -> None:
    # Each file includes the next one ten times, eight files deep: 10^8 copies of the last if
    # each directive were expanded. The included text is bounded in all, as MDX parts are.
    tree = {f"f{i}.md": f'{{% include-markdown "f{i + 1}.md" %}}\n' * 10 for i in range(8)}
    tree["f8.md"] = "x" * 1000 + "\n"
    root = write_tree(tmp_path / "site", tree, catalog=None)
    page = root / "page.md"
    body = '{% include-markdown "f0.md" %}\n'
    # A long indent before a directive is given to every included line: bounded as well.
    wide = " " * 100_000 + '{% include-markdown "many.md" %}\n'
    (root / "many.md").write_text("y\n" * 50_000)
    started = time.process_time()
    out = expand_include_markdown(body, page=page, within=root.resolve())
    out_wide = expand_include_markdown(wide, page=page, within=root.resolve())
    assert time.process_time() - started < 20
    assert "x" * 1000 in out
    assert len(out) <= MAX_EXPANDED + len(body)
    assert len(out_wide) <= MAX_EXPANDED + len(wide)
