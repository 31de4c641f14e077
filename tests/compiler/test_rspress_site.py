"""Rspress sites: rspress.config (or Rstack's define.doc) read as literals, the default
language's folder, _nav.json groups and _meta.json entries (files, dirs led by their index or
same-named page, dir-section-headers), folder order without _meta.json, route exclusions,
and links Rspress resolves (.md for .mdx, the default language's prefix, unchecked paths)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from gezel_knowledge.compiler import LinkBase
from gezel_knowledge.compiler.generators.rspress import _meta
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.test_vitepress_site import toc_order
from tests.compiler.trees import write_tree

LINKS = LinkBase("tester", "demo")

CONFIG = """\
import * as path from 'node:path';
import { defineConfig } from '@rspress/core';

export default defineConfig({
  root: path.join(__dirname, 'docs'),
  title: 'Toolkit',
  lang: 'en',
  locales: [{ lang: 'en', label: 'English' }, { lang: 'zh', label: '中文' }],
  route: { exclude: ['**/fragments/**'] },
  markdown: { link: { checkDeadLinks: { excludes: ['/llms.txt'] } } },
  themeConfig: {
    socialLinks: [{ icon: 'github', mode: 'link', content: 'https://github.com/tools/kit' }],
  },
});
"""


def _page(title: str, body: str = "") -> str:
    return f"# {title}\n\n{body}"


def _meta_json(entries: list[object]) -> str:
    return json.dumps(entries)


def _site(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "site",
        {
            "website/rspress.config.ts": CONFIG,
            "website/docs/en/index.md": _page("Toolkit"),
            "website/docs/en/_nav.json": json.dumps(
                [
                    {"text": "Guide", "link": "/guide/start/"},
                    {"text": "More", "items": [{"text": "API", "link": "/api/"}]},
                ]
            ),
            "website/docs/en/guide/_meta.json": _meta_json(
                [
                    {"type": "dir-section-header", "name": "start", "label": "Start"},
                    {"type": "dir", "name": "deep", "label": "Deep dive"},
                    "faq",
                ]
            ),
            "website/docs/en/guide/start/_meta.json": _meta_json(
                ["index", {"type": "file", "name": "install", "label": "Installing"}]
            ),
            "website/docs/en/guide/start/index.mdx": _page("Start"),
            "website/docs/en/guide/start/install.mdx": _page(
                "Install",
                "See [config](../../api/config.md#options), [home](/en/), "
                "[llms](/llms.txt) and [zh](/zh/guide/start/).\n",
            ),
            "website/docs/en/guide/deep/index.md": _page("Deep"),
            "website/docs/en/guide/deep/b.md": _page("B"),
            "website/docs/en/guide/deep/a.md": _page("A"),
            "website/docs/en/guide/faq.mdx": _page("FAQ"),
            "website/docs/en/guide/_part.mdx": "A partial.\n",
            "website/docs/en/api/index.mdx": _page("API"),
            "website/docs/en/api/config.mdx": _page("Config", "## Options\n"),
            "website/docs/en/api/config/extra.md": _page("Extra"),
            "website/docs/en/blog/post.md": _page("Post"),
            "website/docs/en/fragments/shared.mdx": "Shared.\n",
            "website/docs/en/public/logo.md": "Served as is.\n",
            "website/docs/zh/index.md": _page("工具"),
        },
        catalog=None,
    )


def test_nav_groups_and_meta_entries_give_rspress_order(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path))
    assert source.site == "rspress"
    # The home page; the navbar's folders (guide, api), then the others by name (blog);
    # each folder's _meta.json, or its files with index first; `api.mdx`-like pages
    # named after a folder lead it. Partials, excluded routes, public/ and zh/ are no pages.
    assert toc_order(source) == [
        "index",
        "guide/start/index",
        "guide/start/install",
        "guide/deep/index",
        "guide/deep/a",
        "guide/deep/b",
        "guide/faq",
        "api/index",
        "api/config",
        "api/config/extra",
        "blog/post",
    ]
    titles = {d.id: d.title for d in source.documents}
    assert titles["guide/start/install"] == "Installing"
    names = {t.name for t in source.topics}
    assert {"Guide", "Start", "Deep dive", "More"} - names == {"More"}
    assert source.metadata.name == "Toolkit"
    assert source.metadata.language == "en"
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.name == "tools"


def test_links_rspress_resolves_are_resolved_or_silent(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path))
    assert source.warnings == ()
    body = next(d for d in source.documents if d.id == "guide/start/install").load_body(LINKS)
    assert "[config](knowledge://tester/demo/api/config#line=" in body
    assert "[home](knowledge://tester/demo/index)" in body
    assert "[llms](/llms.txt)" in body


def test_rstack_define_doc_and_a_root_meta_json(tmp_path: Path) -> None:
    config = (
        "import { define } from 'rstack';\n"
        "define.doc({ title: 'Builder', themeConfig: { locales: [\n"
        "  { lang: 'en', label: 'English', description: 'Builds things' },\n"
        "  { lang: 'zh', label: '中文' }] } });\n"
    )
    root = write_tree(
        tmp_path / "site",
        {
            "rstack.config.ts": config,
            "docs/en/_meta.json": _meta_json(["intro", {"type": "dir", "name": "topics"}]),
            "docs/en/index.md": _page("Builder"),
            "docs/en/intro.md": _page("Intro"),
            "docs/en/topics/index.md": _page("Topics"),
            "docs/en/topics/z.md": _page("Z"),
            "docs/en/topics.md": _page("Topics page"),
            "docs/zh/intro.md": _page("介绍"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    # `topics.md` beside `topics/` leads the folder; the folder's index is then an entry.
    assert toc_order(source) == ["index", "intro", "topics", "topics/index", "topics/z"]
    assert source.metadata.name == "Builder"
    assert source.metadata.description == "Builds things"


def test_a_huge_meta_json_is_read_within_its_bound(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "_meta.json").write_text("[" + '"a",' * 600_000 + '"b"]', encoding="utf-8")
    start = time.perf_counter()
    # Past the first megabyte the text is no JSON: no entries, quickly.
    assert _meta(folder, tmp_path) is None
    assert time.perf_counter() - start < 5


def test_meta_entries_naming_the_folder_itself_are_walked_once(tmp_path: Path) -> None:
    loop = _meta_json([{"type": "dir", "name": n} for n in (".", "./", "..", "sub", "sub")] * 20)
    root = write_tree(
        tmp_path / "site",
        {
            "rspress.config.ts": "export default { title: 'T' }\n",
            "docs/_meta.json": loop,
            "docs/index.md": _page("T"),
            "docs/sub/_meta.json": loop,
            "docs/sub/a.md": _page("A"),
        },
        catalog=None,
    )
    start = time.perf_counter()
    source = load_markdown_tree(root)
    assert time.perf_counter() - start < 30
    assert toc_order(source) == ["index", "sub/a"]


def test_folders_nested_deeper_than_topics_may_nest_still_build(tmp_path: Path) -> None:
    files = {"rspress.config.ts": "export default { title: 'T' }\n", "docs/index.md": _page("T")}
    path = "docs"
    for i in range(20):
        path += f"/d{i}"
        files[f"{path}/p{i}.md"] = _page(f"P{i}")
    source = load_markdown_tree(write_tree(tmp_path / "site", files, catalog=None))
    assert len(toc_order(source)) == 21
    assert max(len(d.topic_path) for d in source.documents) <= 16


def test_the_default_languages_folder_builds_as_the_site(tmp_path: Path) -> None:
    # A user pointing at docs/en of an Rspress site builds that site, in its order.
    source = load_markdown_tree(_site(tmp_path) / "website" / "docs" / "en")
    assert source.site == "rspress"
    assert toc_order(source)[:3] == ["index", "guide/start/index", "guide/start/install"]
