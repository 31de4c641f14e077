"""VitePress sites: the configuration read without running it, the root locale's sidebar in
its order, clean URLs, ``srcDir``, ``rewrites`` and VitePress' anchors."""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler import CatalogSource, LinkBase
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import write_tree

LINKS = LinkBase("tester", "demo")

CONFIG = """\
import { defineConfig } from 'vitepress'
import { guide } from './sidebar'

export default defineConfig({
  title: 'Widget',
  description: 'Widgets, documented',
  lang: 'en-GB',
  srcDir: 'src',
  rewrites: { 'packages/:pkg/README.md': 'pkg/:pkg.md' },
  locales: { root: { label: 'English' }, fr: { label: 'Français' } },
  themeConfig: {
    socialLinks: [{ icon: 'github', link: 'https://github.com/acme/widget' }],
    sidebar: {
      '/guide/': { base: '/guide/', items: guide },
      '/reference/': [
        { text: 'Reference', link: '/reference/', items: [
          { text: `Options ${version}`, link: '/reference/options' },
          { text: 'Packages', link: '/pkg/core' },
        ] },
      ],
    },
  },
})
"""
SIDEBAR = """\
export const guide = [
  { text: 'Start', items: [
    { text: 'Why Widget', link: 'why' },
    { text: 'Getting started', link: 'start.html' },
  ] },
]
"""


def toc_order(source: CatalogSource) -> list[str]:
    """Document ids as the table of contents lists them: a topic's documents (by ordinal)
    and subtopics (by numeric sort key) merged, depth first."""
    children: dict[str | None, list[tuple[float, str, str]]] = {}
    for t in source.topics:
        key = float(t.sort_key) if t.sort_key.isdigit() else float("inf")
        children.setdefault(t.parent_id, []).append((key - 2**31, "topic", t.id))
    for d in source.documents:
        children.setdefault(d.topic_path[-1], []).append((float(d.ordinal or 0), "doc", d.id))
    out: list[str] = []

    def visit(topic_id: str | None) -> None:
        for _, kind, ident in sorted(children.get(topic_id, []), key=lambda c: (c[0], c[1])):
            if kind == "doc":
                out.append(ident)
            else:
                visit(ident)

    visit(None)
    return out


def _site(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "site",
        {
            "docs/.vitepress/config.mts": CONFIG,
            "docs/.vitepress/sidebar.ts": SIDEBAR,
            "docs/src/index.md": "---\nlayout: home\ntitle: Widget\n---\n",
            "docs/src/guide/start.md": (
                "# Getting started\n\nSee [why](./why#config-build) and [opts](/reference/options)"
                " and [core](../pkg/core).\n"
            ),
            "docs/src/guide/why.md": "# Why\n\n## `config.build`\n\ntext\n",
            "docs/src/reference/index.md": "# Reference\n",
            "docs/src/reference/options.md": "# Options\n",
            "docs/src/packages/core/README.md": "# Core\n",
            "docs/src/extra.md": "# Extra\n\n[gone](./nowhere)\n",
            "docs/src/fr/index.md": "# Accueil\n",
            "docs/src/node_modules/x/README.md": "# Dependency\n",
        },
        catalog=None,
    )


def test_the_root_locale_sidebar_gives_the_order_and_labels(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path))
    assert source.site == "vitepress"
    # Home page first, the sidebars in file order, then what no sidebar lists, by path;
    # the French locale and node_modules are no pages of this site.
    assert toc_order(source) == [
        "index",
        "guide/why",
        "guide/start",
        "reference/index",
        "reference/options",
        "packages/core/README",
        "extra",
    ]
    titles = {d.id: d.title for d in source.documents}
    assert titles["guide/why"] == "Why Widget"  # the sidebar's text
    assert titles["reference/options"] == "Options"  # an interpolated text is not read
    assert [t.name for t in source.topics][1:] == ["Start", "Reference"]
    assert source.metadata.name == "Widget"
    assert source.metadata.language == "en-GB"
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.name == "acme"


def test_clean_links_rewrites_and_vitepress_anchors_resolve(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path))
    assert [(w.reason, w.path) for w in source.warnings] == [
        ("unresolved-link", "docs/src/extra.md")
    ]
    body = next(d for d in source.documents if d.id == "guide/start").load_body(LINKS)
    assert "[why](knowledge://tester/demo/guide/why#line=3-5)" in body
    assert "[opts](knowledge://tester/demo/reference/options)" in body
    assert "[core](knowledge://tester/demo/packages/core/README)" in body


def test_rest_rewrites_a_directory_config_and_a_sidebar_function(tmp_path: Path) -> None:
    # VitePress' own docs: pages in en/ published at the root, the sidebar in the content
    # folder's config.ts returned by functions, a base that is a prefix of the page names.
    root = write_tree(
        tmp_path / "site",
        {
            "docs/.vitepress/config.ts": (
                "export default defineConfig({ title: 'Press', rewrites: { 'en/:rest*': "
                "':rest*' }, locales: { root: { lang: 'en-US' }, zh: { lang: 'zh' } } })\n"
            ),
            "docs/config.ts": (
                "export default defineAdditionalConfig({ description: 'Pages, pressed',\n"
                "  themeConfig: { sidebar: { '/reference/': { base: '/reference/', items: "
                "ref() } } } })\n"
                "function ref(): DefaultTheme.SidebarItem[] {\n"
                "  return [{ text: 'Theme', base: '/reference/theme-', items: [\n"
                "    { text: 'Nav', link: 'nav' }, { text: 'Footer', link: 'footer' }] }]\n}\n"
            ),
            "docs/en/index.md": "# Press\n",
            "docs/en/reference/theme-footer.md": "# Footer\n\n[nav](./theme-nav)\n",
            "docs/en/reference/theme-nav.md": "# Nav\n",
            "docs/zh/index.md": "# 首页\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert toc_order(source) == [
        "en/index",
        "en/reference/theme-nav",
        "en/reference/theme-footer",
    ]
    assert source.metadata.description == "Pages, pressed"
    body = next(d for d in source.documents if d.id == "en/reference/theme-footer").load_body(LINKS)
    assert "[nav](knowledge://tester/demo/en/reference/theme-nav)" in body


def test_included_files_are_part_of_the_page(tmp_path: Path) -> None:
    # VitePress' markdown file inclusion: the anchors of included headings exist on the page.
    root = write_tree(
        tmp_path / "site",
        {
            ".vitepress/config.js": "export default { title: 'Inc' }\n",
            "index.md": "# Home\n\n[gen](/cli#standalone) [part](/cli#only-this)\n",
            "cli.md": (
                "# CLI\n\n<!--@include: ./parts/cli-generated.md-->\n\n"
                "<!--@include: @/x.md#one-->\n"
            ),
            "parts/cli-generated.md": "### standalone\n\nRun alone.\n",
            "x.md": (
                "# X\n\n<!-- #region one -->\n## Only this\n<!-- #endregion one -->\n## Not this\n"
            ),
            "y.md": "# Y\n\n<!--@include: ../../outside.md-->\n",
        },
        catalog=None,
    )
    (tmp_path / "outside.md").write_text("## Outside\n", encoding="utf-8")
    source = load_markdown_tree(root)
    assert source.warnings == ()
    cli = next(d for d in source.documents if d.id == "cli").load_body(LINKS)
    assert "### standalone\n\nRun alone." in cli
    assert "## Only this" in cli
    assert "Not this" not in cli
    y = next(d for d in source.documents if d.id == "y").load_body(LINKS)
    assert "<!--@include: ../../outside.md-->" in y  # never read outside the source folder


def test_locale_configs_spread_in_are_not_the_sites_settings(tmp_path: Path) -> None:
    # Each locale spreads its own configuration (description, head, themeConfig): the root
    # locale's object then holds more settings keys than the site's, which holds `locales`.
    config = (
        "import { defineConfig } from 'vitepress'\nimport { en } from './en'\n"
        "import { zh } from './zh'\n"
        "export default defineConfig({\n  ...shared,\n  locales: {\n"
        "    root: { label: 'English', lang: 'en-US', link: '/', ...en },\n"
        "    zh: { label: 'Chinese', lang: 'zh-CN', link: '/zh/', ...zh },\n  },\n})\n"
    )
    locale = (
        "export const {name} = {{ description: 'D', head: [],\n"
        "  themeConfig: {{ sidebar: [{{ text: 'Guide', link: '{prefix}/guide' }}] }} }}\n"
    )
    root = write_tree(
        tmp_path / "site",
        {
            ".vitepress/config/index.ts": config,
            ".vitepress/config/en.ts": locale.format(name="en", prefix=""),
            ".vitepress/config/zh.ts": locale.format(name="zh", prefix="/zh"),
            "index.md": "# Home\n",
            "guide.md": "# Guide\n",
            "zh/index.md": "# Zh home\n",
            "zh/guide.md": "# Zh guide\n",
        },
    )
    source = load_markdown_tree(root)
    # The README beside the pages is published too (/README): no srcExclude names it.
    assert sorted(d.id for d in source.documents) == ["README", "guide", "index"]


def test_imported_defaults_typed_arrays_and_sidebars_built_by_code(tmp_path: Path) -> None:
    # Slidev's shape: a default import, a name typed `T[]`, a spread of sidebars made by code.
    root = write_tree(
        tmp_path / "site",
        {
            "docs/.vitepress/config.ts": (
                "import Custom from './custom'\nimport { getMore } from './more'\n"
                "export const bars: DefaultTheme.SidebarItem[] = [\n"
                "  { text: 'Guide', items: [{ text: 'Why', link: '/guide/why' }] },\n"
                "  { text: 'Custom', items: Custom },\n]\n"
                "export default defineConfig({ title: 'S', themeConfig: { sidebar: {\n"
                "  '/guide/': bars, ...await getMore(), '/': bars } } })\n"
            ),
            "docs/.vitepress/custom.ts": "export default [{ text: 'F', link: '/zz/fonts' }]\n",
            "docs/.vitepress/more.ts": "export async function getMore() { return build() }\n",
            "docs/index.md": "# S\n",
            "docs/zz/fonts.md": "# Fonts\n",
            "docs/features/a.md": "# A\n",
            "docs/guide/why.md": "# Why\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert toc_order(source) == ["index", "guide/why", "zz/fonts", "features/a"]
    assert [(w.reason, w.path) for w in source.warnings] == [
        ("sidebars-not-read", "docs/.vitepress/config.ts")
    ]


def test_a_sidebar_for_a_folder_the_tree_lacks_names_pages_the_build_writes(
    tmp_path: Path,
) -> None:
    # vue-router's '/api/' sidebar lists the reference typedoc writes into api/ at build.
    config = (
        "export default { themeConfig: { sidebar: {\n"
        "  '/api/': [{ text: 'API', link: '/api/' }],\n"
        "  '/guide/': [{ text: 'Guide', link: '/guide/' }] } } }\n"
    )
    root = write_tree(
        tmp_path / "site",
        {
            ".vitepress/config.ts": config,
            "index.md": "# Home\n",
            "guide/index.md": (
                "# Guide\n\n[a](/api/interfaces/Router.md#push) [b](../api/#x) [c](/guide/gone)\n"
            ),
        },
    )
    source = load_markdown_tree(root)
    messages = [w.message for w in source.warnings]
    # The links into api/ are routes, its sidebar silent; a missing page of a folder the
    # tree has still warns.
    assert messages == ["link '/guide/gone' names no page of the tree; kept as written"]


def test_ignore_dead_links_naming_paths_are_routes_of_the_host(tmp_path: Path) -> None:
    # UnoCSS: `ignoreDeadLinks: [/^\/play/, /^\/interactive/]`, apps beside the docs.
    config = (
        "export default { ignoreDeadLinks: [/^\\/interactive/, '/exact/page', /(.*)+x/,\n"
        "  /^\\/(a|b)/], themeConfig: {} }\n"
    )
    root = write_tree(
        tmp_path / "site",
        {
            ".vitepress/config.ts": config,
            "index.md": (
                "# Home\n\n[i](/interactive/?s=sr-only) [e](/exact/page) [x](/ax) [a](/a/b)\n"
            ),
        },
    )
    source = load_markdown_tree(root)
    # A pattern that is no literal path (an alternation, a wildcard) is not read.
    assert sorted(w.message.split("'")[1] for w in source.warnings) == ["/a/b", "/ax"]


def test_links_to_file_types_vitepress_does_not_check_are_kept_silently(tmp_path: Path) -> None:
    # Mermaid links source files (../../tests/util.ts); VitePress' dead-link check skips
    # targets of known file types, whether or not the file exists.
    root = write_tree(
        tmp_path / "site",
        {
            ".vitepress/config.ts": "export default { themeConfig: {} }\n",
            "index.md": (
                "# Home\n\n[t](../src/util.ts) [p](/files/guide.PDF#page=2) [m](./gone.md) "
                '[h](./gone.html) [x](./gone.xyz)\n\n![i](./gone.png) <img src="/gone.gif">\n'
            ),
        },
    )
    source = load_markdown_tree(root)
    # Images are no links: a missing one is broken whatever the dead-link check skips.
    assert sorted(w.message.split("'")[1] for w in source.warnings) == [
        "./gone.html",
        "./gone.md",
        "./gone.png",
        "./gone.xyz",
        "/gone.gif",
    ]


def test_a_monorepos_one_site_in_a_workspace_package_builds_at_its_root(
    tmp_path: Path,
) -> None:
    # vuejs/router: the site is packages/docs/.vitepress; examples/ is no workspace folder.
    files = {
        "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
        "packages/docs/.vitepress/config.ts": (
            "export default { title: 'Router', themeConfig: { sidebar: [\n"
            "  { text: 'Guide', link: '/guide' }, { text: 'Home', link: '/' }] } }\n"
        ),
        "packages/docs/index.md": "# Home\n",
        "packages/docs/guide.md": "# Guide\n",
        "packages/router/README.md": "# The package\n",
        "examples/demo/.vitepress/config.ts": "export default { title: 'Demo' }\n",
    }
    source = load_markdown_tree(write_tree(tmp_path / "repo", files, catalog=None))
    assert source.site == "vitepress"
    assert source.metadata.name == "Router"
    assert toc_order(source) == ["index", "guide"]
    # Two sites among the packages: which one is the repository's is not stated.
    files["apps/web/.vitepress/config.ts"] = "export default { title: 'Web' }\n"
    files["apps/web/index.md"] = "# Web\n"
    other = load_markdown_tree(write_tree(tmp_path / "two", files, catalog=None))
    assert other.site != "vitepress"
    # No workspace manifest: packages/ is no monorepo's, and is not looked into.
    del files["pnpm-workspace.yaml"], files["apps/web/.vitepress/config.ts"]
    plain = load_markdown_tree(write_tree(tmp_path / "plain", files, catalog=None))
    assert plain.site != "vitepress"


def test_a_linked_package_json_outside_the_source_is_not_read(tmp_path: Path) -> None:
    # The workspace manifest is a link out of the source folder: not read, so it makes no
    # monorepo (and the packages are not looked into).
    outside = tmp_path / "package.json"
    outside.write_text('{"workspaces": ["packages/*"]}\n')
    files = {
        "packages/docs/.vitepress/config.ts": "export default { title: 'Router' }\n",
        "packages/docs/index.md": "# Home\n",
    }
    root = write_tree(tmp_path / "repo", files, catalog=None)
    (root / "package.json").symlink_to(outside)
    assert load_markdown_tree(root).site != "vitepress"


def test_a_readme_is_a_page_and_sidebar_links_to_served_files_are_no_pages(
    tmp_path: Path,
) -> None:
    # Hono's site: VitePress publishes README.md as /README (no srcExclude leaves it out);
    # its sidebar links /llms.txt, a file a plugin writes and the site serves as it is.
    config = (
        "const bar = [{ text: 'Guide', link: '/guide' }, { text: 'Gone', link: '/gone' }]\n"
        "export default { themeConfig: { sidebar: { '/': [\n"
        "  { text: 'Guide', link: '/guide' }, { text: 'llms.txt', link: '/llms.txt' },\n"
        "  { text: 'Gone', link: '/gone' }], '/a/': bar, '/b/': bar } } }\n"
    )
    root = write_tree(
        tmp_path / "site",
        {
            ".vitepress/config.ts": config,
            "index.md": "# Home\n",
            "guide.md": "# Guide\n",
            "README.md": "# About this repository\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert toc_order(source) == ["index", "guide", "README"]
    # A missing page that sidebars sharing one array name is one warning, not three.
    assert [w.message for w in source.warnings] == [
        "sidebar links '/gone', which no page is published at; left out"
    ]
