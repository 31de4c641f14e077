"""Links resolved by each generator's own rules."""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler import CatalogSource, LinkBase
from gezel_knowledge.compiler.generators.hugo import hugo_ref
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import write_tree
from tests.faults import MB, assert_linear_time

LINKS = LinkBase("tester", "demo")
REF = "knowledge://tester/demo/"


def _body(source: CatalogSource, doc_id: str) -> str:
    return next(d for d in source.documents if d.id == doc_id).load_body(LINKS)


def _warnings(source: CatalogSource) -> list[tuple[str, str | None, int | None]]:
    return [(w.reason, w.path, w.line) for w in source.warnings]


TRANSPORTS = "# Transports\n\n## ASGI Transport\n\nUse it.\n\n## SSL_CERT_FILE\n\nSet it.\n"


def test_mkdocs_links_follow_directory_urls(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            # unrecognized_links: warn, so MkDocs reports the broken '../nowhere/' too.
            "mkdocs.yml": (
                "site_name: S\nsite_url: https://s.example/docs/\n"
                "validation:\n  unrecognized_links: warn\n"
            ),
            "docs/index.md": "# Home\n\n[Quick](quickstart/) [abs](/docs/quickstart/)\n",
            "docs/quickstart.md": "# Quickstart\n",
            "docs/async.md": (
                "# Async\n\n"
                # From the page's URL /async/, '../advanced/transports' is /advanced/transports.
                "[t](../advanced/transports#asgi-transport)\n"
                "[file](advanced/transports.md#ssl_cert_file)\n"
                "[broken](../nowhere/)\n"
            ),
            "docs/advanced/transports.md": TRANSPORTS,
        },
    )
    source = load_markdown_tree(root)
    assert _body(source, "index") == (
        f"# Home\n\n[Quick]({REF}quickstart) [abs]({REF}quickstart)\n"
    )
    assert _body(source, "async") == (
        "# Async\n\n"
        f"[t]({REF}advanced/transports#line=3-5)\n"
        f"[file]({REF}advanced/transports#line=7-9)\n"
        "[broken](../nowhere/)\n"
    )
    assert _warnings(source) == [("unresolved-link", "docs/async.md", 5)]


def test_mkdocs_links_without_directory_urls(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": "site_name: S\nuse_directory_urls: false\n",
            "docs/guide/a.md": "[b](b.html) [t](../advanced/transports.html#asgi-transport)\n",
            "docs/guide/b.md": "# B\n",
            "docs/advanced/transports.md": TRANSPORTS,
        },
    )
    source = load_markdown_tree(root)
    assert _body(source, "guide/a") == (
        f"[b]({REF}guide/b) [t]({REF}advanced/transports#line=3-5)\n"
    )


def test_mdbook_links_name_the_html_files(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "book",
        {
            "book.toml": '[book]\ntitle = "B"\n[output.html]\nsite-url = "/guide/"\n',
            "src/SUMMARY.md": "- [Intro](intro.md)\n- [Theme](format/theme/README.md)\n",
            "src/intro.md": (
                "[theme](format/theme/index.html) [same](format/theme/) "
                "[hl](format/theme/index.html#syntax_highlighting) [abs](/guide/intro.html)\n"
            ),
            "src/format/theme/README.md": "# Theme\n\n## Syntax_highlighting\n\nColours.\n",
        },
    )
    source = load_markdown_tree(root)
    assert _body(source, "intro") == (
        f"[theme]({REF}format/theme/README) [same]({REF}format/theme/README) "
        f"[hl]({REF}format/theme/README#line=3-5) [abs]({REF}intro)\n"
    )
    assert source.warnings == ()


def test_hugo_refs_urls_slugs_and_aliases(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "H"\nbaseURL = "https://h.example/"\n',
            "content/docs/_index.md": "---\ntitle: Docs\n---\nThe docs.\n",
            "content/docs/Tasks/porridge.md": (
                "---\ntitle: Porridge\nslug: oats\naliases: [/old/porridge/]\n---\n"
                "# Porridge\n\n## Cooking\n\nStir.\n"
            ),
            "content/docs/bundle/index.md": "---\ntitle: Bundle\nurl: /special/place/\n---\nB.\n",
            "content/docs/links.md": (
                "---\ntitle: Links\n---\n"
                '[ref]({{< ref "Tasks/porridge.md#cooking" >}}) '
                '[relref]({{% relref "/docs/bundle" %}})\n'
                "[url](/docs/tasks/oats/) [alias](/old/porridge/) [moved](/special/place/) "
                "[section](/docs/) [relative](../tasks/oats/#cooking)\n"
            ),
        },
    )
    source = load_markdown_tree(root)
    porridge = f"{REF}docs/Tasks/porridge"
    assert _body(source, "docs/links") == (
        f"[ref]({porridge}#line=3-5) [relref]({REF}docs/bundle/index)\n"
        f"[url]({porridge}) [alias]({porridge}) [moved]({REF}docs/bundle/index) "
        f"[section]({REF}docs/_index) [relative]({porridge}#line=3-5)\n"
    )
    assert source.warnings == ()


def test_docusaurus_links_by_doc_url(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "website",
        {
            "docusaurus.config.js": (
                "module.exports = { title: 'D', baseUrl: '/site/', presets: [['classic', "
                "{ docs: { routeBasePath: 'docs' } }]] };\n"
            ),
            "docs/intro.md": "---\nslug: /\n---\n# Intro\n",
            "docs/01-guides/01-first.md": "---\nid: start\n---\n# First\n",
            "docs/01-guides/second.mdx": "---\nslug: two\n---\n# Second\n",
            "docs/links.md": (
                "[home](/site/docs/) [first](/docs/guides/start) [second](/docs/guides/two)\n"
                "[file](01-guides/second.mdx) [gone](/docs/nothing)\n"
            ),
        },
    )
    source = load_markdown_tree(root)
    assert _body(source, "links") == (
        f"[home]({REF}intro) [first]({REF}guides/start) [second]({REF}guides/second)\n"
        f"[file]({REF}guides/second) [gone](/docs/nothing)\n"
    )
    assert _warnings(source) == [("unresolved-link", "docs/links.md", 2)]


def test_static_site_images_are_found_in_static(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 17
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "H"\n',
            "content/page.md": "# Page\n\n![logo](/images/logo.png)\n",
            "static/images/logo.png": png,
        },
    )
    source = load_markdown_tree(root)
    assert [a.path for a in source.assets] == ["assets/static/images/logo.png"]
    assert _body(source, "page") == "# Page\n\n![logo](assets/static/images/logo.png)\n"


def test_hugo_links_the_site_resolves_are_silent(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "config/_default/hugo.yaml": (
                "title: H\nbaseURL: https://h.example/\n"
                "module:\n  mounts:\n"
                "    - {source: content/en, target: content}\n"
            ),
            "content/en/project/_index.md": "---\ntitle: Project\n---\nThe project.\n",
            "content/en/blog/old.md": (
                "---\ntitle: Old\naliases: [older, ../gone]\n---\n"
                "### {{% param icon %}} Upgrading\n\nText.\n"
            ),
            "content/en/links.md": (
                "[a](/blog/older/) [b](/gone/) [d](/blog/old/#upgrading)\n"
                "[repo]({{% param github_repo %}}/issues) [map](/sitemap.xml) [tag](/tags/x/)\n"
                "[file](/files/spec.yaml) [gone](/nowhere/)\n"
            ),
            "static/files/spec.yaml": "a: 1\n",
        },
    )
    source = load_markdown_tree(root)
    old = f"{REF}blog/old"
    body = _body(source, "links")
    # Relative aliases are relative to the page's URL folder; a shortcode in a heading is not
    # part of its id (mounts from above the source: test_hugo_publishing).
    assert body.startswith(f"[a]({old}) [b]({old}) [d]({old}#line=1-3)\n")
    assert _warnings(source) == [("unresolved-link", "content/en/links.md", 3)]


def test_hugo_content_folder_by_language(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": (
                'title = "H"\ndefaultContentLanguage = "en"\n'
                '[languages.en]\ncontentDir = "content.en"\n'
                '[languages.he]\ncontentDir = "content.he"\n'
            ),
            "content.en/docs/a.md": "# A\n",
            "content.he/docs/a.md": "# א\n",
        },
    )
    source = load_markdown_tree(root)
    assert [d.id for d in source.documents] == ["docs/a"]
    assert {d.title for d in source.documents} == {"A"}


def test_hugo_mounts_for_the_default_language(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.yaml": (
                "title: H\nmodule:\n  mounts:\n"
                "    - source: content/fr\n      target: content\n"
                "      sites: {matrix: {languages: [fr]}}\n"
                "    - source: content/en\n      target: content\n"
                "      sites: {matrix: {languages: [en, fr]}}\n"
            ),
            "content/en/_index.md": "---\ntitle: Home\n---\nWelcome.\n",
            "content/en/docs/a.md": "# A\n",
            "content/fr/_index.md": "---\ntitle: Accueil\n---\nBienvenue.\n",
        },
    )
    source = load_markdown_tree(root)
    # Ids are relative to the mounted folder: no `en/` prefix.
    assert sorted(d.id for d in source.documents) == ["_index", "docs/a"]


def test_docusaurus_links_to_other_routes_are_silent(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "website",
        {
            "docusaurus.config.js": (
                "module.exports = { title: 'D', presets: [['classic', "
                "{ docs: { routeBasePath: '/' }, blog: { showReadingTime: true } }]] };\n"
            ),
            "src/pages/index.js": "export default function Home() {}\n",
            "src/pages/help/index.tsx": "export default function Help() {}\n",
            "blog/2024-01-01-hello.md": "# Hello\n",
            "docs/api/connect.md": (
                "[home](/) [help](/help) [post](/blog/2024/01/01/hello) "
                "[guide](../guide/mapdispatch#usage) [gone](/nothing)\n"
            ),
            "docs/guide/mapdispatch.md": "---\nid: mapdispatch\n---\n# Map\n\n## Usage\n\nUse.\n",
        },
    )
    source = load_markdown_tree(root)
    # Document ids are doc ids (guide/mapdispatch from its front matter id).
    # A page is published at /api/connect (no trailing slash): ../guide/x is /guide/x.
    assert _body(source, "api/connect") == (
        "[home](/) [help](/help) [post](/blog/2024/01/01/hello) "
        f"[guide]({REF}guide/mapdispatch#line=3-5) [gone](/nothing)\n"
    )
    assert _warnings(source) == [("unresolved-link", "docs/api/connect.md", 1)]


def test_hugo_ref_shortcodes_are_read_in_linear_time() -> None:
    assert hugo_ref('{{< ref "a.md#x" >}}') == "a.md#x"
    assert hugo_ref("{{% relref path=b.md lang=en %}}") == "b.md"
    assert hugo_ref("{{< refx a >}}") is None
    for unit in ("{{< ref ", "{{< ref a", "{{% relref '"):
        text = unit + "a" * MB + " >}}"
        assert_linear_time(lambda t=text: hugo_ref(t), MB, seconds_per_mb=5, what=unit)


def test_docusaurus_versions_next_and_older_routes(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "website",
        {
            "docusaurus.config.js": "module.exports = { title: 'D' };\n",
            "versions.json": '["2.0", "1.0"]',
            "docs/options.md": "# Options\n",
            "docs/links.md": (
                "[next](/docs/next/options) [latest](/docs/options) [old](/docs/1.0/options) "
                "[gone](/docs/next/nothing)\n"
            ),
        },
    )
    source = load_markdown_tree(root)
    # The docs folder is the next version; the newest is at /docs/, older ones elsewhere.
    assert _body(source, "links") == (
        f"[next]({REF}options) [latest]({REF}options) [old](/docs/1.0/options) "
        "[gone](/docs/next/nothing)\n"
    )
    assert _warnings(source) == [("unresolved-link", "docs/links.md", 1)]


def test_hugo_ugly_urls(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "H"\nuglyURLs = true\n',
            "content/docs/a.md": "[b](b.html) [abs](/docs/b.html) [pretty](/docs/b/)\n",
            "content/docs/b.md": "# B\n",
        },
    )
    source = load_markdown_tree(root)
    # a.md is published as docs/a.html: b.html beside it is docs/b.md. A pretty URL still
    # finds its page by the URL lookup's key (no suffix).
    assert _body(source, "docs/a") == (
        f"[b]({REF}docs/b) [abs]({REF}docs/b) [pretty]({REF}docs/b)\n"
    )
