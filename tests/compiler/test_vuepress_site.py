"""VuePress sites (1 and 2): the .vuepress configuration read as literals (themeConfig, a
theme function's options, imported sidebars and builder functions), sidebar forms (arrays,
objects by prefix, [path, title] pairs, groups with path/link/prefix), other locales left
out, README and permalink routes, and sidebars built by code."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gezel_knowledge.compiler import LinkBase
from gezel_knowledge.compiler.generators._page_globs import compile_glob
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.test_vitepress_site import toc_order
from tests.compiler.trees import write_tree

LINKS = LinkBase("tester", "demo")

V1_CONFIG = """\
import { defineConfig } from 'vuepress/config'
import { guide } from './sidebar'

export default defineConfig(ctx => ({
  locales: {
    '/': { lang: 'en-US', title: 'Widget', description: 'Widgets for all' },
    '/zh/': { lang: 'zh-CN', title: 'Widget' },
  },
  themeConfig: {
    repo: 'acme/widget',
    locales: {
      '/': {
        sidebar: {
          '/guide/': guide('Basics'),
          '/api/': ['', ['options', 'All options']],
        },
      },
      '/zh/': { sidebar: { '/zh/guide/': ['', 'setup'] } },
    },
  },
}))
"""

V1_SIDEBAR = """\
export function guide (title: string): SidebarConfigArray {
  const sidebar: SidebarConfigArray = [
    { title: title, collapsable: false, children: ['', 'setup', '../faq'] },
  ]
  return sidebar
}
"""


def _page(title: str, body: str = "") -> str:
    return f"# {title}\n\n{body}"


def _v1(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "site",
        {
            "docs/.vuepress/config.ts": V1_CONFIG,
            "docs/.vuepress/sidebar.ts": V1_SIDEBAR,
            "docs/README.md": "---\nhome: true\n---\n\nSee [the guide](./guide/README.md).\n",
            "docs/guide/README.md": _page("Guide", "Read [setup](setup.md#install) first.\n"),
            "docs/guide/setup.md": _page("Setup", "## Install\n\nBack [home](../index.md).\n"),
            "docs/faq.md": _page("FAQ"),
            "docs/api/README.md": _page("API"),
            "docs/api/options.md": _page("Options"),
            "docs/extra.md": _page("Extra", "[Moved](/moved/)\n"),
            "docs/moved.md": "---\npermalink: /moved/\n---\n\n# Moved\n",
            "docs/zh/README.md": _page("首页"),
            "docs/zh/guide/setup.md": _page("安装"),
        },
        catalog=None,
    )


def test_vuepress_1_sidebar_by_prefix_with_builder_functions(tmp_path: Path) -> None:
    source = load_markdown_tree(_v1(tmp_path))
    assert source.site == "vuepress"
    # The home page; the sidebars in file order (relative paths against their prefix, ''
    # the prefix's README, '../faq' above it); unlisted pages after, by path. zh/ is another
    # locale's site.
    assert toc_order(source) == [
        "README",
        "guide/README",
        "guide/setup",
        "faq",
        "api/README",
        "api/options",
        "extra",
        "moved",
    ]
    titles = {d.id: d.title for d in source.documents}
    assert titles["api/options"] == "All options"
    assert any(t.name == "Basics" for t in source.topics)
    assert source.metadata.name == "Widget"
    assert source.metadata.language == "en-US"
    assert source.metadata.description == "Widgets for all"
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.name == "acme"


def test_readme_index_and_permalink_routes_resolve(tmp_path: Path) -> None:
    source = load_markdown_tree(_v1(tmp_path))
    # `../index.md` names the home page README.md serves; `/moved/` a page's permalink.
    assert source.warnings == ()
    body = next(d for d in source.documents if d.id == "guide/setup").load_body(LINKS)
    assert "[home](knowledge://tester/demo/README)" in body
    extra = next(d for d in source.documents if d.id == "extra").load_body(LINKS)
    assert "[Moved](knowledge://tester/demo/moved)" in extra


V2_CONFIG = """\
import { defaultTheme } from '@vuepress/theme-default'
import { defineUserConfig } from 'vuepress'
import { sidebarEn } from './configs/index.js'

export default defineUserConfig({
  lang: 'en-US',
  title: 'Gadget',
  theme: defaultTheme({
    hostname: 'https://gadget.example.org',
    docsRepo: 'https://github.com/gadgets/docs',
    locales: { '/': { sidebar: sidebarEn }, '/fr/': { sidebar: {} } },
  }),
})
"""

V2_SIDEBAR = """\
export const sidebarEn = [
  { text: 'Start', prefix: '/start/', link: '/start/', children: ['install.md', 'usage'] },
  { text: 'Elsewhere', link: 'https://example.org' },
  '/reference.md',
  '/gone.md',
]
"""


def test_vuepress_2_theme_function_options_and_prefixes(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "docs/.vuepress/config.ts": V2_CONFIG,
            "docs/.vuepress/configs/index.ts": "export * from './sidebar.js'\n",
            "docs/.vuepress/configs/sidebar.ts": V2_SIDEBAR,
            "docs/README.md": _page("Home"),
            "docs/start/README.md": _page("Start"),
            "docs/start/install.md": _page("Install"),
            "docs/start/usage.md": _page("Usage"),
            "docs/reference.md": _page("Reference"),
            "docs/fr/README.md": _page("Accueil"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert toc_order(source) == [
        "README",
        "start/README",
        "start/install",
        "start/usage",
        "reference",
    ]
    # A sidebar path no page is published at is left out, with the generator's warning.
    assert [w.reason for w in source.warnings] == ["missing-outline-page"]
    assert "/gone.md" in source.warnings[0].message
    assert source.metadata.name == "Gadget"
    assert source.metadata.source_url == "https://gadget.example.org"
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.name == "gadgets"


def test_a_sidebar_built_by_code_warns_and_its_pages_follow(tmp_path: Path) -> None:
    config = """\
const fs = require('fs')
module.exports = {
  title: 'Tool',
  themeConfig: {
    sidebar: [
      '/',
      { title: 'Plugins', children: fs.readdirSync('plugins').map(f => 'plugins/' + f) },
      '/zz',
    ],
  },
}
"""
    root = write_tree(
        tmp_path / "site",
        {
            ".vuepress/config.js": config,
            "README.md": _page("Tool"),
            "aa.md": _page("AA"),
            "zz.md": _page("ZZ"),
            "plugins/one.md": _page("One"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert toc_order(source) == ["README", "zz", "aa", "plugins/one"]
    assert [w.reason for w in source.warnings] == ["sidebars-not-read"]


def test_auto_sidebar_gives_path_order_without_a_warning(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "docs/.vuepress/config.js": "module.exports = { title: 'T', themeConfig: "
            "{ sidebar: 'auto' } }\n",
            "docs/index.md": _page("T"),
            "docs/b.md": _page("B"),
            "docs/a/z.md": _page("Z"),
            "docs/a/README.md": _page("A"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert toc_order(source) == ["index", "b", "a/README", "a/z"]
    assert source.warnings == ()


def test_markdown_it_include_puts_files_in_from_the_package_folder(tmp_path: Path) -> None:
    config = (
        "module.exports = { title: 'Kit', themeConfig: { sidebar: ['/', '/api/'] },\n"
        "  extendMarkdown: md => { md.use(require('markdown-it-include')) } }\n"
    )
    root = write_tree(
        tmp_path / "site",
        {
            "package.json": '{"scripts": {"docs:build": "vuepress build docs"}}',
            "docs/.vuepress/config.js": config,
            "docs/index.md": _page("Kit", "Mount with [mount](./api/#mount).\n"),
            "docs/api/README.md": "# API\n\n!!!include(docs/api/mount.md)!!!\n"
            "!!!include(docs/api/gone.md)!!!\n",
            "docs/api/mount.md": "## mount\n\n!!!include(./note.md)!!!\n",
            "docs/api/note.md": "A note.\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    # The anchor comes from the included page; a missing file is left as written.
    assert source.warnings == ()
    body = next(d for d in source.documents if d.id == "api/README").load_body(LINKS)
    assert "## mount" in body
    assert "A note." in body
    assert "!!!include(docs/api/gone.md)!!!" in body


def test_includes_of_includes_stay_within_the_budget(tmp_path: Path) -> None:
    # Each file includes the next one eight times: 8**8 copies unless the budget stops it.
    files = {f"docs/p{i}.md": f"!!!include(./p{i + 1}.md)!!!\n" * 8 for i in range(10)}
    files["docs/p10.md"] = "x" * 1000 + "\n"
    files["docs/.vuepress/config.js"] = (
        "module.exports = { title: 'T',\n"
        "  extendMarkdown: md => md.use(require('markdown-it-include')) }\n"
    )
    root = write_tree(tmp_path / "site", files, catalog=None)
    start = time.perf_counter()
    source = load_markdown_tree(root)
    body = next(d for d in source.documents if d.id == "p0").load_body(LINKS)
    assert time.perf_counter() - start < 60
    assert len(body) <= 5 * 1024 * 1024
    assert "!!!include(" in body  # the directives past the depth or the budget stay as written


def test_a_sidebar_of_shared_literals_is_walked_within_a_bound(tmp_path: Path) -> None:
    # Each level lists the one below twice: 2**30 paths through a few hundred bytes.
    lines = ["const l0 = [{ title: 'x', children: ['/a'] }]"]
    lines += [
        f"const l{i} = [{{ title: 'g', children: l{i - 1} }}, ...l{i - 1}, l{i - 1}]"
        for i in range(1, 31)
    ]
    config = "\n".join(lines) + "\nexport default { title: 'T', themeConfig: { sidebar: l30 } }\n"
    root = write_tree(
        tmp_path / "site",
        {"docs/.vuepress/config.ts": config, "docs/index.md": _page("T"), "docs/a.md": _page("A")},
        catalog=None,
    )
    start = time.perf_counter()
    source = load_markdown_tree(root)
    assert time.perf_counter() - start < 60
    assert set(toc_order(source)) == {"index", "a"}


def test_sidebars_it_cannot_read_say_so(tmp_path: Path) -> None:
    # Theme options a wrapper builds.
    wrapped = (
        "import theme from './theme.js'\nimport { config } from '@docs/shared'\n"
        "export default config('x', { title: 'W', theme })\n"
    )
    for name, files in (
        (
            "wrapped",
            {
                "docs/.vuepress/config.ts": wrapped,
                "docs/.vuepress/theme.ts": "export default theme('x', { sidebar: [] })\n",
            },
        ),
    ):
        root = write_tree(
            tmp_path / name,
            {**files, "docs/README.md": _page("H"), "docs/a.md": _page("A")},
            catalog=None,
        )
        source = load_markdown_tree(root)
        assert toc_order(source) == ["README", "a"]
        assert [w.reason for w in source.warnings] == ["sidebars-not-read"], name


def _data_site(tmp_path: Path, name: str, text: str) -> Path:
    return write_tree(
        tmp_path / "site",
        {
            f"docs/.vuepress/{name}": text,
            "docs/README.md": _page("Home"),
            "docs/guide/README.md": _page("Guide"),
            "docs/guide/setup.md": _page("Setup"),
            "docs/alpha.md": _page("Alpha"),
            "docs/zh/README.md": _page("首页"),
        },
        catalog=None,
    )


def test_vuepress_1_config_yml_is_read(tmp_path: Path) -> None:
    root = _data_site(
        tmp_path,
        "config.yml",
        "title: Yammy\nlang: en-GB\nlocales:\n  /: {lang: en-GB}\n  /zh/: {lang: zh-CN}\n"
        "themeConfig:\n  repo: acme/yammy\n  sidebar:\n    - /guide/setup\n"
        "    - title: Guide\n      path: /guide/\n      children: [/alpha]\n",
    )
    source = load_markdown_tree(root)
    assert source.site == "vuepress"
    assert source.metadata.name == "Yammy"
    assert source.metadata.language == "en-GB"
    # The sidebar's order (setup before the Guide group, alpha inside it); zh/ is a locale.
    assert toc_order(source) == ["README", "guide/setup", "guide/README", "alpha"]
    assert any(t.name == "Guide" for t in source.topics)


def test_vuepress_1_config_toml_is_read(tmp_path: Path) -> None:
    root = _data_site(
        tmp_path,
        "config.toml",
        'title = "Tommy"\n\n[themeConfig]\nsidebar = ["alpha", "/guide/setup"]\n',
    )
    source = load_markdown_tree(root)
    assert source.site == "vuepress"
    assert source.metadata.name == "Tommy"
    assert toc_order(source) == ["README", "alpha", "guide/setup", "guide/README", "zh/README"]


def test_vuepress_2_page_patterns_choose_the_pages(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "docs/.vuepress/config.ts": "import { defaultTheme } from '@vuepress/theme-default'\n"
            "export default {\n  title: 'Pat',\n"
            "  pagePatterns: ['**/*.md', '!**/*.snippet.md', '!drafts', '!.vuepress', "
            "'!node_modules'],\n  theme: defaultTheme({ sidebar: ['/b.md', '/a.md'] }),\n}\n",
            "docs/README.md": _page("Home"),
            "docs/a.md": _page("A"),
            "docs/b.md": _page("B"),
            "docs/part.snippet.md": _page("Part"),
            "docs/guide/more.snippet.md": _page("More"),
            "docs/drafts/wip.md": _page("WIP"),
            "docs/guide/c.md": _page("C"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    # Snippets and the drafts folder are not pages: VuePress builds only what the patterns name.
    assert toc_order(source) == ["README", "b", "a", "guide/c"]


def test_vuepress_2_page_patterns_of_one_folder(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "docs/.vuepress/config.js": "module.exports = { title: 'Pat', "
            "pagePatterns: ['*.md', 'guide/{intro,setup}.md'] }\n",
            "docs/README.md": _page("Home"),
            "docs/a.md": _page("A"),
            "docs/guide/intro.md": _page("Intro"),
            "docs/guide/setup.md": _page("Setup"),
            "docs/guide/other.md": _page("Other"),
        },
        catalog=None,
    )
    assert toc_order(load_markdown_tree(root)) == ["README", "a", "guide/intro", "guide/setup"]


HOPE_CONFIG = """\
import { hopeTheme } from 'vuepress-theme-hope'
export default {
  title: 'Hope',
  theme: hopeTheme({
    sidebar: {
      '/guide/': 'structure',
      '/': ['', { text: 'API', prefix: 'api/', children: 'structure' }],
    },
  }),
}
"""


def _front(front: str, title: str) -> str:
    return f"---\n{front}\n---\n\n# {title}\n"


def test_hope_structure_sidebars_follow_the_theme_order(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "docs/.vuepress/config.ts": HOPE_CONFIG,
            "docs/README.md": _page("Home"),
            "docs/guide/README.md": _page("Guide"),
            "docs/guide/zeta.md": _front("order: 1", "Zeta"),
            "docs/guide/alpha.md": _page("Beta"),
            "docs/guide/beta.md": _front("title: Alpha", "Not this"),
            "docs/guide/item10.md": _page("Item 10"),
            "docs/guide/item2.md": _page("Item 2"),
            "docs/guide/last.md": _front("order: -1", "Last"),
            "docs/guide/hidden.md": _front("index: false", "Hidden"),
            "docs/guide/sub/README.md": _front("dir:\n  text: Deep\n  order: 2", "Sub"),
            "docs/guide/sub/x.md": _page("X"),
            "docs/guide/gone/README.md": _front("dir:\n  index: false", "Gone"),
            "docs/guide/gone/y.md": _page("Y"),
            "docs/api/README.md": _page("API"),
            "docs/api/b.md": _page("B"),
            "docs/api/a.md": _page("A"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    # README first; order 1, then the Deep folder (dir order 2); then by title (beta.md is
    # titled Alpha, Item 2 before Item 10); negative orders last. Pages the structure leaves
    # out (index: false, a folder whose README says dir.index: false) follow, by path.
    assert toc_order(source) == [
        "README",
        "guide/README",
        "guide/zeta",
        "guide/sub/README",
        "guide/sub/x",
        "guide/beta",
        "guide/alpha",
        "guide/item2",
        "guide/item10",
        "guide/last",
        "api/README",
        "api/a",
        "api/b",
        "guide/hidden",
        "guide/gone/README",
        "guide/gone/y",
    ]
    assert {"Deep", "API"} <= {t.name for t in source.topics}
    assert source.warnings == ()


def test_hope_theme_without_a_sidebar_is_a_structure_one(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "docs/.vuepress/config.ts": "import { hopeTheme } from 'vuepress-theme-hope'\n"
            "export default { title: 'Hope', theme: hopeTheme({ hostname: 'https://h.example' }) "
            "}\n",
            "docs/README.md": _page("Home"),
            "docs/b.md": _front("order: 1", "B"),
            "docs/a.md": _front("order: 2", "A"),
            "docs/z.md": _page("Z"),
            "docs/c/README.md": _front("dir:\n  order: -1", "C"),
            "docs/c/d.md": _page("D"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    # hopeTheme's sidebar defaults to 'structure': orders, then the unordered, then the
    # negative (the folder c).
    assert toc_order(source) == ["README", "b", "a", "z", "c/README", "c/d"]


def test_hope_theme_options_in_an_imported_theme_file(tmp_path: Path) -> None:
    # vuepress-theme-hope's template: config.ts names `theme`, which theme.ts exports.
    root = write_tree(
        tmp_path / "site",
        {
            "src/.vuepress/config.ts": "import { defineUserConfig } from 'vuepress'\n"
            "import theme from './theme.js'\n"
            "export default defineUserConfig({ lang: 'en-US', title: 'Hope', theme })\n",
            "src/.vuepress/theme.ts": "import { hopeTheme } from 'vuepress-theme-hope'\n"
            "export default hopeTheme({ hostname: 'https://hope.example', "
            "sidebar: { '/': ['', 'z', { text: 'More', prefix: 'more/', "
            "children: 'structure' }] } })\n",
            "src/README.md": _page("Home"),
            "src/a.md": _page("A"),
            "src/z.md": _page("Z"),
            "src/more/b.md": _front("order: 2", "B"),
            "src/more/c.md": _front("order: 1", "C"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert toc_order(source) == ["README", "z", "more/c", "more/b", "a"]
    assert source.metadata.source_url == "https://hope.example"
    assert source.warnings == ()


HOPE_SIDEBARS = {
    "object": (
        "import sidebar from './sidebar.js'\nexport default hopeTheme({ sidebar })\n",
        "import { sidebar } from 'vuepress-theme-hope'\nexport default sidebar({ '/': "
        "['', 'z', { text: 'Demo', prefix: 'demo/', link: 'demo/', children: 'structure' }] })\n",
    ),
    "array": (
        "import { guide } from './sidebar.js'\nexport default hopeTheme({ sidebar: guide })\n",
        "import { arraySidebar } from 'vuepress-theme-hope'\nexport const guide = arraySidebar("
        "['', 'z', { text: 'Demo', prefix: 'demo/', link: 'demo/', children: 'structure' }])\n",
    ),
}


@pytest.mark.parametrize("form", sorted(HOPE_SIDEBARS))
def test_hope_sidebar_helper_is_read_as_its_argument(tmp_path: Path, form: str) -> None:
    # vuepress-theme-hope's `sidebar({...})` / `arraySidebar([...])` return their argument.
    theme, sidebar = HOPE_SIDEBARS[form]
    root = write_tree(
        tmp_path / "site",
        {
            "src/.vuepress/config.ts": "import theme from './theme.js'\n"
            "export default { title: 'Hope', theme }\n",
            "src/.vuepress/theme.ts": "import { hopeTheme } from 'vuepress-theme-hope'\n" + theme,
            "src/.vuepress/sidebar.ts": sidebar,
            "src/README.md": _page("Home"),
            "src/a.md": _page("A"),
            "src/z.md": _page("Z"),
            "src/demo/README.md": _page("Demo"),
            "src/demo/b.md": _front("order: 2", "B"),
            "src/demo/c.md": _front("order: 1", "C"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    # The group's link `demo/` is relative to the sidebar, its prefix to its children.
    assert toc_order(source) == ["README", "z", "demo/README", "demo/c", "demo/b", "a"]
    assert source.warnings == ()


def test_page_patterns_match_in_bounded_time() -> None:
    # A pattern of many wildcards against a long name costs no backtracking blow-up.
    hostile = compile_glob("**/" + "*a" * 40 + "*b.md")
    assert hostile is not None
    start = time.perf_counter()
    assert not hostile.match("x/" * 50 + "a" * 250 + ".md")
    assert time.perf_counter() - start < 2
    brace = compile_glob("guide/{intro,setup}/**/*.md")
    assert brace is not None
    assert brace.match("guide/setup/a/b/c.md")
    assert brace.match("guide/intro/c.md")
    assert not brace.match("guide/other/c.md")
    assert compile_glob("{" + ",".join("abcdefghijklmnopq") + "}") is None
