"""Docsify sites: ``index.html`` setting ``window.$docsify``, its options, the sidebar as the
navigation, Docsify's own files as no pages, its routes, ``?id=`` anchors and heading ids."""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler import CatalogSource, LinkBase
from gezel_knowledge.compiler.generators.registry import detect_site
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from gezel_knowledge.compiler.text.anchors import slugify
from tests.compiler.trees import write_tree
from tests.faults import assert_linear_time

LINKS = LinkBase("tester", "demo")
REF = "knowledge://tester/demo/"


def _index(settings: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="de">\n<body><div id="app"></div>\n'
        f"<script>\n  window.$docsify = {{\n{settings}\n  }};\n</script>\n"
        '<script src="//cdn.jsdelivr.net/npm/docsify@4"></script>\n</body></html>\n'
    )


SETTINGS = """\
    name: '<b>Demo</b> Docs',
    repo: 'example-org/demo',
    loadSidebar: true,
    coverpage: true,
    subMaxLevel: 2,
    alias: {
      '.*?/changelog': 'https://raw.githubusercontent.com/example-org/demo/main/CHANGELOG.md',
      '/old/(.*)': 'https://example.org/old/$1',
    },
"""

SIDEBAR = """\
- Getting started
  - [Quick start](quickstart.md)
  - [Setup](/guide/setup)
- [Guide](guide/)
  - [Setup again](guide/setup.md?id=install)
- [Changelog](changelog)
- [Gone](gone.md)
* [Site](https://example.org)
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


def _tree(**extra: str) -> dict[str, str]:
    return {
        "index.html": _index(SETTINGS),
        "_sidebar.md": SIDEBAR,
        "_coverpage.md": "# Demo\n",
        "_navbar.md": "- [Home](/)\n",
        "README.md": "# Demo\n\nWelcome. See [setup](guide/setup.md?id=install).\n",
        "quickstart.md": "# Quick start\n\n## 1. Install\n\nRun it.\n",
        "guide/README.md": "# Guide\n\n[quick](quickstart.md) [cl](changelog) [old](old/x)\n",
        "guide/setup.md": "# Setup\n\n## Install :id=install\n\nSteps.\n",
        "extra.md": "# Extra\n\n[one](#/quickstart?id=_1-install) [here](?id=extra)\n",
        "_media/snippet.md": "embedded, no page\n",
        **extra,
    }


def test_an_index_html_setting_docsify_is_the_site(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "site", _tree())
    site = detect_site(root)
    assert site is not None
    assert site.generator_name == "docsify"
    assert site.metadata.name == "Demo Docs"  # its HTML removed
    assert site.metadata.language == "de"  # <html lang>
    assert site.metadata.publisher is not None
    assert site.metadata.publisher.name == "example-org"
    # From the repository root: the site in docs/.
    repo = write_tree(tmp_path / "repo", {f"docs/{k}": v for k, v in _tree().items()})
    found = detect_site(repo)
    assert found is not None
    assert found.content_root == repo / "docs"
    plain = write_tree(tmp_path / "plain", {"index.html": "<html></html>", "a.md": "# A\n"})
    assert detect_site(plain) is None


def test_the_sidebar_orders_the_pages(tmp_path: Path) -> None:
    source = load_markdown_tree(write_tree(tmp_path / "site", _tree()))
    # Home first (no sidebar entry names it); a text item is a group; a link with children
    # a section led by its page; a route aliased to a URL is no page and no warning; the
    # pages no sidebar lists follow; Docsify's own files and _media are no pages.
    assert _order(source) == ["README", "quickstart", "guide/setup", "guide/README", "extra"]
    titles = {d.id: d.title for d in source.documents}
    assert titles["guide/setup"] == "Setup"
    assert [(w.reason, w.path, w.line) for w in source.warnings] == [
        ("missing-outline-page", "_sidebar.md", 7)
    ]


def test_a_folder_sidebar_adds_its_pages_as_a_section(tmp_path: Path) -> None:
    tree = _tree(
        **{
            "api/README.md": "# API\n",
            "api/calls.md": "# Calls\n",
            "api/_sidebar.md": "- [Calls](api/calls.md)\n- [API](api/)\n",
        }
    )
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    # After the root sidebar, before the pages no sidebar lists.
    assert _order(source) == [
        "README",
        "quickstart",
        "guide/setup",
        "guide/README",
        "api/calls",
        "api/README",
        "extra",
    ]


def test_a_nested_docsify_site_is_not_this_sites(tmp_path: Path) -> None:
    tree = _tree(**{"demo/index.html": _index("name: 'inner'"), "demo/page.md": "# Inner\n"})
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    assert "demo/page" not in {d.id for d in source.documents}


def test_routes_id_anchors_and_docsify_heading_ids(tmp_path: Path) -> None:
    source = load_markdown_tree(write_tree(tmp_path / "site", _tree()))
    # `?id=` is an anchor; `:id=` names a heading's; a link is read from the site root.
    assert f"[setup]({REF}guide/setup#line=" in _body(source, "README")
    guide = _body(source, "guide/README")
    assert f"[quick]({REF}quickstart)" in guide
    assert "[cl](changelog)" in guide  # aliased to a URL: kept, silently
    assert "[old](old/x)" in guide
    extra = _body(source, "extra")
    assert f"[one]({REF}quickstart#line=" in extra
    assert f"[here]({REF}extra" in extra
    assert not [w for w in source.warnings if w.reason != "missing-outline-page"]


def test_docsify_slugs() -> None:
    assert slugify("1. Install", "docsify") == "_1-install"
    assert slugify("Offline Mode (PWA)", "docsify") == "offline-mode-pwa"
    assert slugify("Ünïcode Title_x", "docsify") == "Ünïcode-title_x"  # only A-Z lowercased


def test_embeds_are_put_in_the_page(tmp_path: Path) -> None:
    page = (
        "# Embeds\n\nBefore.\n\n[part](_media/part.md ':include')\n\n"
        "[code](/_media/demo.js ':include :type=code :fragment=demo')\n\n"
        "[clip](clip.mp4 ':include :type=video')\n\n"
        "```md\n[part](_media/part.md ':include')\n```\n\n[to](#embedded-heading)\n"
    )
    tree = _tree(
        **{
            "embeds.md": page,
            "_media/part.md": "## Embedded heading\n\nFrom another file.\n",
            "_media/demo.js": "/// [demo]\nconst answer = 42;\n/// [demo]\nconst other = 1;\n",
        }
    )
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    body = _body(source, "embeds")
    # The Markdown file's text and the code fragment are the page's; the heading they bring
    # is an anchor; a video embed and an embed written in code stay as written.
    assert "From another file." in body
    assert "```js\nconst answer = 42;\n```" in body
    assert "const other" not in body
    assert "[clip](clip.mp4 ':include :type=video')" in body
    assert "```md\n[part](_media/part.md ':include')\n```" in body
    assert f"[to]({REF}embeds#line=" in body


def test_a_docsify_page_other_than_index_html_and_its_title(tmp_path: Path) -> None:
    landing = "<html><head><title>Landing</title></head><body>Welcome</body></html>\n"
    settings = "loadSidebar: true,"
    doc = _index(settings).replace("<body>", "<head><title>Demo &amp; Docs</title></head><body>")
    tree = {
        "index.html": landing,
        "doc.html": doc,
        "_sidebar.md": (
            "- **Basics**\n  - [Start](/start)\n- <span>More</span>\n  - [End](end.md)\n"
        ),
        "README.md": "# Home\n",
        "start.md": "# Start\n",
        "end.md": "# End\n",
    }
    root = write_tree(tmp_path / "site", tree)
    site = detect_site(root)
    assert site is not None
    assert site.generator_name == "docsify"
    assert site.metadata.name == "Demo & Docs"  # no `name`: the page's <title>
    source = load_markdown_tree(root)
    assert _order(source) == ["README", "start", "end"]
    # Text items are groups named without their emphasis and HTML.
    assert {"Basics", "More"} <= {t.name for t in source.topics}


def test_a_deeply_nested_sidebar_builds(tmp_path: Path) -> None:
    # Deeper than any sidebar shows (and than Python's recursion): flattened at a depth.
    sidebar = "".join(f"{'  ' * i}- [P{i}](p{i}.md)\n" for i in range(2000))
    pages = {f"p{i}.md": f"# P{i}\n" for i in range(0, 2000, 100)}
    tree = {"index.html": _index("loadSidebar: true,"), "_sidebar.md": sidebar, **pages}
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    assert _order(source)[:3] == ["README", "p0", "p100"]


def test_an_alias_python_cannot_compile_is_skipped(tmp_path: Path) -> None:
    # A repetition count past Python's limit raises OverflowError, not re.error; a deeply
    # nested pattern RecursionError: the alias is skipped like any pattern Python cannot read.
    settings = "loadSidebar: true, alias: {'/a{4294967296}': '/b', '/x" + "(" * 1200 + "': '/c'},"
    tree = {"index.html": _index(settings), "_sidebar.md": "- [A](a.md)\n", "a.md": "# A\n"}
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    assert _order(source) == ["README", "a"]


def test_an_alias_of_nested_quantifiers_is_skipped(tmp_path: Path) -> None:
    # `(a+)+$` against a route of 40 a's and a b takes Python's re hours: a site's alias of
    # that shape is not run (its route then names no page); the other aliases still are.
    settings = (
        "loadSidebar: true, alias: {'/(a+)+$': 'https://example.org/', "
        "'/gone': 'https://example.org/gone'},"
    )
    sidebar = "- [A](a.md)\n- [Long](/aaaa)\n- [Gone](/gone)\n"
    tree = {"index.html": _index(settings), "_sidebar.md": sidebar, "a.md": "# A\n"}
    source = load_markdown_tree(write_tree(tmp_path / "site", tree))
    assert _order(source) == ["README", "a"]
    warned = " ".join(w.message for w in source.warnings)
    assert "aaaa" in warned
    assert "gone" not in warned


def test_a_linked_index_html_outside_the_source_is_not_read(tmp_path: Path) -> None:
    # A sub-folder's index.html linking out of the source folder is never read: it does not
    # make that folder another site, so its pages stay this site's.
    outside = write_tree(tmp_path / "outside", {"index.html": _index("name: 'elsewhere'")})
    tree = {"index.html": _index("loadSidebar: false,"), "sub/a.md": "# A\n"}
    root = write_tree(tmp_path / "site", tree)
    (root / "sub" / "index.html").symlink_to(outside / "index.html")
    source = load_markdown_tree(root)
    assert "sub/a" in {d.id for d in source.documents}


def test_long_runs_of_spaces_are_read_in_linear_time(tmp_path: Path) -> None:
    # A sidebar item, a sidebar link and a heading holding a long run of spaces: no pattern
    # may backtrack over the run from each of its positions.
    size = 100_000
    sidebar = f"- [A](a.md)\n- b{' ' * size}c\n- [x]({' ' * size}y\n"
    page = f"# A\n\n## Set{' ' * size}up :id=setup\n\nText.\n"
    tree = {"index.html": _index("loadSidebar: true,"), "_sidebar.md": sidebar, "a.md": page}
    root = write_tree(tmp_path / "site", tree)
    found: list[CatalogSource] = []
    scan = lambda: found.append(load_markdown_tree(root))  # noqa: E731
    assert_linear_time(scan, 3 * size, seconds_per_mb=20, what="docsify spaces")
    assert "{#setup}" in _body(found[0], "a") or "#setup" in _body(found[0], "a")


def test_an_index_html_of_unclosed_tags_is_read_in_linear_time(tmp_path: Path) -> None:
    # Any source's index.html is read to detect Docsify: script and html tags never closed
    # must not be scanned to the end of the page from each of them.
    size = 200_000
    noise = "<script " * (size // 16) + "<html " * (size // 12)
    site = write_tree(
        tmp_path / "site", {"index.html": _index("name: 'N',") + noise, "a.md": "# A\n"}
    )
    plain = write_tree(tmp_path / "plain", {"index.html": noise + "<script>", "a.md": "# A\n"})
    for root in (site, plain):
        assert_linear_time(lambda r=root: detect_site(r), size, seconds_per_mb=20, what="html")
    found = detect_site(site)
    assert found is not None
    assert found.generator_name == "docsify"
    assert found.metadata.name == "N"
    assert found.metadata.language == "de"


def test_a_sidebar_label_of_many_angle_brackets_is_read_in_linear_time(tmp_path: Path) -> None:
    # HTML is removed from a label: a `<` never closed must not be scanned to the line's end
    # from each of them.
    size = 200_000
    sidebar = "- [A](a.md)\n- " + "<" * size + "\n- <b>Bold</b> group\n  - [B](b.md)\n"
    tree = {
        "index.html": _index("loadSidebar: true,"),
        "_sidebar.md": sidebar,
        "a.md": "# A\n",
        "b.md": "# B\n",
    }
    root = write_tree(tmp_path / "site", tree)
    found: list[CatalogSource] = []
    scan = lambda: found.append(load_markdown_tree(root))  # noqa: E731
    assert_linear_time(scan, size, seconds_per_mb=20, what="sidebar labels")
    assert "Bold group" in {t.name for t in found[0].topics}


def test_an_unclosed_embed_title_is_read_in_linear_time(tmp_path: Path) -> None:
    # A link title of many `:include` never closed: not rescanned from each of them.
    size = 200_000
    page = "# A\n\n[x](y ':include" + " :include" * (size // 9) + "\n\n[t](b.md 'title')\n"
    tree = {"index.html": _index("name: 'N',"), "a.md": page, "b.md": "# B\n"}
    root = write_tree(tmp_path / "site", tree)
    found: list[CatalogSource] = []
    scan = lambda: found.append(load_markdown_tree(root))  # noqa: E731
    assert_linear_time(scan, size, seconds_per_mb=20, what="embed titles")
    assert f"[t]({REF}b" in _body(found[0], "a")  # a titled link: no embed, a link
