"""Jekyll sites (GitHub Pages): detection, ``_config.yml`` metadata, which files are pages,
just-the-docs' navigation and Jekyll's own page order, Liquid URL tags and permalinks."""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler import CatalogSource, LinkBase
from gezel_knowledge.compiler.generators.jekyll import _heading_title
from gezel_knowledge.compiler.generators.registry import detect_site
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import PNG, write_tree
from tests.faults import assert_linear_time

LINKS = LinkBase("tester", "demo")
REF = "knowledge://tester/demo/"
LICENSE = "MIT License\n\nCopyright (c) 2024 Example\n"

CONFIG = """\
title: Demo Docs
description: Docs of the demo
lang: fr
url: https://example.org
baseurl: /demo
repository: example-org/demo
remote_theme: just-the-docs/just-the-docs
permalink: pretty
exclude: [drafts/]
"""


def _body(source: CatalogSource, doc_id: str) -> str:
    return next(d for d in source.documents if d.id == doc_id).load_body(LINKS)


def _order(source: CatalogSource) -> list[str]:
    """The documents in table-of-contents order, every top-level topic in turn."""
    out: list[str] = []

    def walk(topic: str, path: tuple[str, ...]) -> None:
        entries = [(d.ordinal or 0, 0, d.id) for d in source.documents if d.topic_path == path]
        entries += [
            (int(t.sort_key or 0) - 2**31, 1, t.id) for t in source.topics if t.parent_id == topic
        ]
        for _, kind, ident in sorted(entries):
            if kind:
                walk(ident, (*path, ident))
            else:
                out.append(ident)

    roots = sorted((t for t in source.topics if t.parent_id is None), key=lambda t: t.sort_key or 0)
    for root in roots:
        walk(root.id, (root.id,))
    return out


def _page(title: str, extra: str = "", body: str = "Text.\n") -> str:
    return f"---\ntitle: {title}\n{extra}---\n\n{body}"


def test_a_config_yml_is_jekyll_only_with_a_sign_of_jekyll(tmp_path: Path) -> None:
    plain = write_tree(tmp_path / "plain", {"_config.yml": "title: X\n", "a.md": "# A\n"})
    assert detect_site(plain) is None  # any tool's _config.yml: a plain folder
    for name, files in {
        "theme": {"_config.yml": "theme: minima\n"},
        "gemfile": {"_config.yml": "title: X\n", "Gemfile": "gem 'github-pages'\n"},
        "layouts": {"_config.yml": "title: X\n", "_layouts/default.html": "{{ content }}"},
    }.items():
        root = write_tree(tmp_path / name, {**files, "a.md": "# A\n"})
        site = detect_site(root)
        assert site is not None, name
        assert site.generator_name == "jekyll", name


def test_metadata_comes_from_the_config(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "site", {"_config.yml": CONFIG, "index.md": _page("Home")})
    site = detect_site(root)
    assert site is not None
    meta = site.metadata
    assert (meta.name, meta.description, meta.language) == ("Demo Docs", "Docs of the demo", "fr")
    assert meta.source_url == "https://example.org/demo"
    assert meta.publisher is not None
    assert meta.publisher.name == "example-org"


def test_github_pages_makes_front_matter_optional_but_for_meta_files(tmp_path: Path) -> None:
    tree = {
        "_config.yml": "title: Pages\ntheme: minima\n",  # no Gemfile: GitHub Pages builds it
        "LICENSE": LICENSE,
        "guide.md": "# Guide\n\nNo front matter.\n",
        "CONTRIBUTING.md": "# Contributing\n",
        "sub/README.md": "# Sub\n",
        "_drafts/wip.md": _page("WIP"),
        "_notes/n.md": _page("Note"),
        ".hidden/h.md": _page("Hidden"),
        "off.md": _page("Off", "published: false\n"),
        "vendor/bundle/gem.md": _page("Gem"),
    }
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    # A README stands for its folder when it has no index (jekyll-readme-index: the root one
    # write_tree writes is the home page); CONTRIBUTING stays a static file.
    assert sorted(d.id for d in source.documents) == ["README", "guide", "sub/README"]


def test_a_gemfile_without_github_pages_requires_front_matter(tmp_path: Path) -> None:
    tree = {
        "_config.yml": "title: Own\ntheme: minima\ninclude: [_extra]\n",
        "Gemfile": 'gem "jekyll", "~> 4.3"\n',
        "LICENSE": LICENSE,
        "index.md": _page("Home"),
        "raw.md": "# Raw\n\nCopied as it is.\n",
        "_extra/kept.md": _page("Kept"),
    }
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    assert sorted(d.id for d in source.documents) == ["_extra/kept", "index"]


def test_output_collections_are_pages_after_the_navigation(tmp_path: Path) -> None:
    config = "title: C\ntheme: minima\ncollections:\n  recipes:\n    output: true\n  hidden: {}\n"
    tree = {
        "_config.yml": config,
        "LICENSE": LICENSE,
        "index.md": _page("Home"),
        "_recipes/soup.md": _page("Soup"),
        "_recipes/plain.md": "no front matter: a static file\n",
        "_hidden/h.md": _page("Not output"),
        "_posts/2024-01-02-new.md": _page("New post"),
        "_posts/2023-05-06-old.md": _page("Old post"),
        "_posts/notes.md": _page("Not a dated post"),
    }
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    assert _order(source) == [
        "index",
        "_posts/2024-01-02-new",  # posts newest first
        "_posts/2023-05-06-old",
        "_recipes/soup",
    ]


def test_just_the_docs_navigation_order(tmp_path: Path) -> None:
    tree = {
        "_config.yml": CONFIG,
        "LICENSE": LICENSE,
        "index.md": _page("Home", "nav_order: 1\n"),
        "b.md": _page("Beta"),
        "a.md": _page("Alpha"),
        "s.md": _page("Stringly", "nav_order: 'b'\n"),
        "guide/index.md": _page("Guide", "nav_order: 2\nhas_children: true\n"),
        "guide/two.md": _page("Two", "parent: Guide\nnav_order: 2\n"),
        "guide/one.md": _page("One", "parent: Guide\nnav_order: 1\n"),
        "guide/deep/index.md": _page("Deep", "parent: One\ngrand_parent: Guide\n"),
        "other/deep.md": _page("Deep2", "parent: One\ngrand_parent: Elsewhere\n"),
        "rev/index.md": _page("Rev", "nav_order: 3\nchild_nav_order: desc\n"),
        "rev/x.md": _page("X", "parent: Rev\nnav_order: 1\n"),
        "rev/y.md": _page("Y", "parent: Rev\nnav_order: 2\n"),
        "secret.md": _page("Secret", "nav_exclude: true\n"),
        "untitled.md": "---\nlayout: default\n---\n\nNo title.\n",
        "drafts/d.md": _page("Excluded by the config"),
    }
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    # Numeric nav_order, then string nav_order, then by title; children below their parent
    # (grand_parent tells same-titled parents apart); desc reverses; the pages the
    # navigation does not show (excluded, untitled, orphaned) after it, in path order.
    assert _order(source) == [
        "index",
        "guide/index",
        "guide/one",
        "guide/deep/index",
        "guide/two",
        "rev/index",
        "rev/y",
        "rev/x",
        "s",
        "a",
        "b",
        "other/deep",
        "secret",
        "untitled",
    ]


def test_without_just_the_docs_pages_go_by_folder_and_file_name(tmp_path: Path) -> None:
    tree = {
        "_config.yml": "title: Minima\ntheme: minima\n",
        "LICENSE": LICENSE,
        "zeta.md": _page("Zeta", "nav_order: 1\n"),
        "about.md": _page("About"),
        "index.md": _page("Home"),
        "ref/api.md": _page("API"),
        "ref/index.md": _page("Reference"),
    }
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    assert _order(source) == [
        "index",
        "about",
        "zeta",
        "ref/index",
        "ref/api",
    ]


def test_liquid_urls_permalinks_and_footnotes_resolve(tmp_path: Path) -> None:
    index = (
        "[g]({% link docs/guide.md %}) [b]({{ site.baseurl }}/docs/guide/#setup) "
        "[f]({{ '/faq/' | relative_url }}) [p]({% post_url 2024-01-02-new %}) "
        "[r](/demo/docs/guide/) ![i]({{ site.baseurl }}/img/a.png) "
        "[n]({% link docs/guide.md %}#fn:x)\n\n"
        "{% raw %}`{{ site.baseurl }}`{% endraw %}\n"
    )
    tree = {
        "_config.yml": CONFIG,
        "LICENSE": LICENSE,
        "index.md": _page("Home", body=index),
        "docs/guide.md": _page("Guide", body="## Setup\n\nA note[^x].\n\n[^x]: The note.\n"),
        "misc/faq.md": _page("FAQ", "permalink: /faq/\n"),
        "_posts/2024-01-02-new.md": _page("New"),
        "img/a.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 20,
    }
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    body = _body(source, "index")
    assert f"[g]({REF}docs/guide)" in body
    assert f"[b]({REF}docs/guide#line=" in body
    assert f"[f]({REF}misc/faq)" in body
    assert f"[p]({REF}_posts/2024-01-02-new)" in body
    assert f"[r]({REF}docs/guide)" in body
    assert f"[n]({REF}docs/guide#line=" in body
    assert "![i](assets/" in body
    assert "`{{ site.baseurl }}`" in body  # {% raw %} keeps its text
    assert source.warnings == ()


def test_defaults_and_headings_give_front_matter(tmp_path: Path) -> None:
    config = (
        "title: D\nremote_theme: just-the-docs/just-the-docs\n"
        "defaults:\n"
        "  - scope: {path: ''}\n    values: {layout: default}\n"
        "  - scope: {path: guide, type: pages}\n    values: {parent: Guide}\n"
        "  - scope: {path: guide/index.md}\n    values: {parent: ''}\n"
        "  - scope: {path: old}\n    values: {nav_exclude: true}\n"
    )
    tree = {
        "_config.yml": config,  # no Gemfile: GitHub Pages' plugins run
        "LICENSE": LICENSE,
        "index.md": _page("Home", "nav_order: 1\n"),
        "guide/index.md": _page("Guide", "nav_order: 2\n"),
        "guide/b.md": "# Bravo\n\nTitled by its heading.\n",
        "guide/a.md": "Alpha\n=====\n\nA setext heading.\n",
        "old/x.md": _page("Old"),
        "zulu.md": "Text first.\n\n# Not a title\n",
    }
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    # guide/ pages are the Guide's children by the defaults, titled by their headings
    # (jekyll-titles-from-headings) and sorted by those titles; old/ is out of the navigation;
    # the README is no page beside an index (a meta file).
    assert _order(source) == [
        "index",
        "guide/index",
        "guide/a",
        "guide/b",
        "old/x",
        "zulu",
    ]


def test_a_repository_root_builds_its_docs_site(tmp_path: Path) -> None:
    # GitHub Pages publishes docs/: its _config.yml needs no other sign of Jekyll.
    tree = {
        "docs/_config.yml": "title: From Docs\n",
        "docs/index.md": _page("Home"),
        "docs/usage.md": "# Usage\n",
        "src/notes.md": "# Not the site's\n",
    }
    root = write_tree(tmp_path / "repo", tree)
    site = detect_site(root)
    assert site is not None
    assert site.generator_name == "jekyll"
    assert site.content_root == root / "docs"
    assert site.metadata.name == "From Docs"
    source = load_markdown_tree(root)
    assert _order(source) == ["index", "usage"]


def test_posts_are_published_at_the_permalink_pattern(tmp_path: Path) -> None:
    tree = {
        "_config.yml": "title: P\ntheme: minima\npermalink: /blog/:year/:title/\n",
        "LICENSE": LICENSE,
        "index.md": _page("Home", body="[n](/blog/2024/new/) [d](/news/2024/01/02/new.html)\n"),
        "_posts/2024-01-02-new.md": _page("New", "categories: [News]\n"),
    }
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    assert f"[n]({REF}_posts/2024-01-02-new)" in _body(source, "index")
    # Not the default date style: that URL is no page.
    assert [w.reason for w in source.warnings] == ["unresolved-link"]


def test_collection_permalinks_redirects_and_html_routes(tmp_path: Path) -> None:
    config = (
        "title: J\ntheme: minima\ncollections:\n  docs:\n    output: true\n"
        "    permalink: /:collection/:path/\n"
    )
    index = (
        "[a]({{ 'docs/guide/setup/' | relative_url }}) [b](/docs/old-setup/) "
        "[c](/help/) [d](/news/)\n"
    )
    tree = {
        "_config.yml": config,
        "LICENSE": LICENSE,
        "index.md": _page("Home", body=index),
        "_docs/guide/setup.md": _page("Setup", "redirect_from: [/docs/old-setup/]\n"),
        "_docs/guide/pic.md": _page("Pic", body="![p](../../img/p.png)\n"),
        "img/p.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 20,
        "news.html": "---\nlayout: default\n---\n<p>News</p>\n",
        "redirects/help.html": "---\npermalink: /help/\n---\n<p>Help</p>\n",
    }
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    body = _body(source, "index")
    # The collection's permalink, a redirect_from URL, the site's HTML pages (routes).
    assert f"[a]({REF}_docs/guide/setup)" in body
    assert f"[b]({REF}_docs/guide/setup)" in body
    assert "[c](/help/)" in body
    assert "[d](/news/)" in body
    # An image relative to a page published at a folder URL (/docs/guide/pic/).
    assert "![p](assets/" in _body(source, "_docs/guide/pic")
    assert source.warnings == ()


def test_a_deep_parent_chain_builds(tmp_path: Path) -> None:
    # just-the-docs shows three levels; a chain far deeper than recursion allows still builds.
    pages = {
        f"p{i}.md": _page(f"T{i}", f"parent: T{i - 1}\n" if i else "nav_order: 1\n")
        for i in range(1500)
    }
    tree = {"_config.yml": CONFIG, "LICENSE": LICENSE, **pages}
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    assert len(source.documents) == 1501  # and the README, the home page (no index.md)
    assert _order(source)[:2] == ["p0", "p1"]


def test_a_docs_folder_of_another_generator_is_not_jekylls(tmp_path: Path) -> None:
    # A Jupyter Book keeps its _config.yml in docs/ too: the repository is not a Jekyll site.
    tree = {"docs/_config.yml": "title: Book\n", "docs/_toc.yml": "root: intro\n"}
    root = write_tree(tmp_path / "repo", {**tree, "docs/intro.md": "# Intro\n"})
    site = detect_site(root)
    assert site is None or site.generator_name != "jekyll"


def test_a_static_html_file_jekyll_only_copies_does_not_stop_the_build(tmp_path: Path) -> None:
    # HTML without front matter is a static file: not UTF-8 (a legacy page) or past the text
    # limit (generated API docs), it is no route and no reason to fail.
    tree = {
        "_config.yml": "title: J\ntheme: minima\n",
        "LICENSE": LICENSE,
        "index.md": _page("Home"),
        "legacy/old.html": "<p>caf\xe9</p>\n".encode("latin-1"),
    }
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    assert [d.id for d in source.documents] == ["index"]


def test_a_title_from_a_heading_is_found_in_linear_time(tmp_path: Path) -> None:
    # jekyll-titles-from-headings reads the opening line: a long run of spaces before it, or
    # inside a heading, must not make the pattern backtrack quadratically.
    size = 100_000
    for body in (" " * size + "x\n", "# a" + " " * size + "x\n"):
        assert_linear_time(lambda b=body: _heading_title(b), size, seconds_per_mb=10, what="title")
    assert _heading_title("\n\n## Plain title ##\n\nText.\n") == "Plain title"
    assert _heading_title("Setext title\n====\n") == "Setext title"
    assert _heading_title("#### Too deep\n") is None
    # Through a build: a page opening with spaces has no heading title, and builds.
    tree = {
        "_config.yml": "title: J\ntheme: minima\n",
        "LICENSE": LICENSE,
        "index.md": _page("Home"),
        "spaces.md": " " * size + "x\n",
    }
    root = write_tree(tmp_path / "site", tree)
    assert_linear_time(lambda: load_markdown_tree(root), size, seconds_per_mb=20, what="build")


def test_unclosed_raw_tags_are_read_in_linear_time(tmp_path: Path) -> None:
    # Many `{% raw %}` with no `{% endraw %}` after them: each must not scan to the end.
    size = 100_000
    body = "{% endraw %}{% raw %}{{ x }}" + "{% raw %}" * (size // 9) + "\n\n[a]({% link b.md %})\n"
    tree = {
        "_config.yml": "title: J\ntheme: minima\n",
        "LICENSE": LICENSE,
        "index.md": _page("Home", body="{% raw %}[b]({% link b.md %}){% endraw %}\n"),
        "b.md": _page("B"),
        "many.md": _page("Many", body=body),
    }
    root = write_tree(tmp_path / "site", tree)
    found: list[CatalogSource] = []
    scan = lambda: found.append(load_markdown_tree(root))  # noqa: E731
    assert_linear_time(scan, size, seconds_per_mb=20, what="raw tags")
    # Raw text is kept as written (its Liquid unrendered); outside it, Liquid is rendered.
    assert "[b]({% link b.md %})" in _body(found[0], "index")
    many = _body(found[0], "many")
    assert f"[a]({REF}b)" in many
    assert "{{ x }}" in many


def test_the_documentation_themes_sidebar_orders_pages_found_by_permalink(
    tmp_path: Path,
) -> None:
    # _config.yml's `sidebars` names _data/sidebars/main.yml: folders, folderitems and
    # subfolders in order, each url the page with that permalink; a PDF-only item and a URL
    # no page has (written by the site's own build) are no pages, links to the latter are
    # kept silently. Pages published at a permalink link images and files from that URL's
    # folder; an include writing ids from its parameters gives its page anchors.
    root = write_tree(
        tmp_path / "site",
        {
            "_config.yml": "title: Docs\nsidebars:\n- main\n",
            "Gemfile": 'gem "jekyll"\n',
            "LICENSE": LICENSE,
            "_data/sidebars/main.yml": (
                "entries:\n- title: sidebar\n  folders:\n"
                "  - title: null\n    output: pdf\n    folderitems:\n"
                "    - {title: Cover, url: /cover.html, output: pdf}\n"
                "  - title: Users\n    output: web, pdf\n    folderitems:\n"
                "    - {title: Install, url: /user_install.html, output: web}\n"
                "    - title: null\n      output: web\n      subfolders:\n"
                "      - title: Extending\n        output: web\n        subfolderitems:\n"
                "        - {title: Rules, url: /user_rules.html, output: web}\n"
                "        - {title: Java rules, url: /rules_java.html, output: web}\n"
                "  - title: About\n    output: web\n    folderitems:\n"
                "    - {title: Home, url: /index.html, output: web}\n"
            ),
            "_includes/option.html": '<a name="{{ include.name }}"></a>\n',
            "index.md": "---\ntitle: Home\n---\nWelcome.\n",
            "pages/user/install.md": (
                "---\ntitle: Install\npermalink: user_install.html\n---\n"
                "![logo](images/logo.png) [report](examples/report.html) "
                "[cache](user_rules.html#cache) [Java](rules_java.html#naming)\n"
            ),
            "pages/user/rules.md": (
                "---\ntitle: Rules\npermalink: user_rules.html\n---\n"
                '{% include option.html name="cache" %}\n'
            ),
            "pages/cover.md": "---\ntitle: Cover\npermalink: cover.html\n---\nPDF only.\n",
            "images/logo.png": PNG,
            "examples/report.html": "<p>report</p>\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    docs = {d.id: (d.topic_path, d.ordinal) for d in source.documents}
    assert docs == {
        "pages/user/install": (("docs", "users"), 0),
        "pages/user/rules": (("docs", "users", "extending"), 0),
        "index": (("docs", "about"), 0),
        "pages/cover": (("docs",), 2),
    }
