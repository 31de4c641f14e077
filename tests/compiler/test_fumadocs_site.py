"""Fumadocs sites: the docs folder source.config names, meta.json's pages (paths, rests,
extracted folders, exceptions, separators, links), the loader's baseUrl, i18n by folder or by
file suffix, the app's own routes and next.config's redirects, <include> and [#id]."""

from __future__ import annotations

import json
from pathlib import Path

from gezel_knowledge.compiler import LinkBase
from gezel_knowledge.compiler.generators._mdx import MAX_EXPANDED
from gezel_knowledge.compiler.generators.base import Site
from gezel_knowledge.compiler.generators.fumadocs import Fumadocs
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.test_vitepress_site import toc_order
from tests.compiler.trees import write_tree

LINKS = LinkBase("tester", "demo")

SOURCE_CONFIG = """\
import { defineDocs, defineConfig } from 'fumadocs-mdx/config';
export const docs = defineDocs({ dir: 'content/docs' });
export default defineConfig();
"""
SHARED = """\
export const appName = 'Widget';
export const docsRoute = '/docs';
export const gitConfig = { user: 'acme', repo: 'widget', branch: 'main' };
"""
SOURCE = """\
import { loader } from 'fumadocs-core/source';
import { docsRoute } from './shared';
export const source = loader({ baseUrl: docsRoute, source: docs.toFumadocsSource() });
export const blog = loader({ baseUrl: '/blog', source: posts });
"""
NEXT_CONFIG = """\
const config = {
  async redirects() {
    return [{ source: '/old/:path*', destination: '/docs', permanent: true }];
  },
};
export default config;
"""


def _page(title: str, body: str = "") -> str:
    return f"---\ntitle: {title}\n---\n\n{body}"


def _site(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    d = "content/docs/"
    tree = {
        "source.config.ts": SOURCE_CONFIG,
        "next.config.mjs": NEXT_CONFIG,
        "lib/shared.ts": SHARED,
        "lib/source.ts": SOURCE,
        "app/community/page.tsx": "export default function Page() { return null }\n",
        "app/docs/[[...slug]]/page.tsx": "export default function Page() { return null }\n",
        d + "meta.json": json.dumps(
            {"pages": ["index", "---Guides---", "guides", "...", "!draft", "[Blog](/blog)"]}
        ),
        d + "index.mdx": _page(
            "Widget",
            "See [setup](/docs/guides/setup#first-run), [the blog](/blog/hello), "
            "[community](/community), [old](/old/page) and [gone](/docs/gone).\n",
        ),
        d + "zeta.mdx": _page("Zeta"),
        d + "alpha.mdx": _page("Alpha"),
        d + "draft.mdx": _page("Draft"),
        d + "guides/meta.json": json.dumps({"title": "The guides", "pages": ["setup", "..."]}),
        d + "guides/index.mdx": _page("Guides"),
        d + "guides/setup.mdx": _page(
            "Setup", "<include>../../shared/note.md</include>\n\n## First run [#first-run]\n"
        ),
        d + "guides/b.mdx": _page("B"),
        d + "guides/a.mdx": _page("A"),
        "content/shared/note.md": "---\ntitle: x\n---\nIncluded note.\n",
    }
    return write_tree(tmp_path / "site", tree | (files or {}), catalog=None)


def test_meta_json_gives_fumadocs_order(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path))
    assert source.site == "fumadocs"
    # The index, the listed folder (its index first, its pages, its rest by name), the rest
    # by name but the excepted page; the excepted page after the navigation.
    assert toc_order(source) == [
        "index",
        "guides/index",
        "guides/setup",
        "guides/a",
        "guides/b",
        "alpha",
        "zeta",
        "draft",
    ]
    assert "The guides" in [t.name for t in source.topics]
    assert source.metadata.name == "Widget"
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.name == "acme"


def test_links_routes_includes_and_custom_ids(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path))
    # Another loader's URLs, the app's pages and the redirects are routes; [#id] anchors.
    assert [w.message.split("'")[1] for w in source.warnings] == ["/docs/gone"]
    body = next(d for d in source.documents if d.id == "index").load_body(LINKS)
    assert "[setup](knowledge://tester/demo/guides/setup#line=" in body
    setup = next(d for d in source.documents if d.id == "guides/setup").load_body(LINKS)
    assert "Included note." in setup


def test_i18n_by_file_suffix_and_by_folder(tmp_path: Path) -> None:
    i18n = "export const i18n = defineI18n({ defaultLanguage: 'en', languages: ['en', 'cn'] });\n"
    d = "content/docs/"
    root = _site(
        tmp_path,
        {"lib/i18n.ts": i18n, d + "alpha.cn.mdx": _page("Alpha (cn)"), d + "meta.cn.json": "{}"},
    )
    ids = {doc.id for doc in load_markdown_tree(root).documents}
    assert "alpha" in ids
    assert "alpha.cn" not in ids
    by_folder = i18n.replace("] }", "], parser: 'dir' }")
    root = write_tree(
        tmp_path / "dir",
        {
            "source.config.ts": SOURCE_CONFIG,
            "lib/i18n.ts": by_folder,
            d + "en/index.mdx": _page("Home"),
            d + "en/start.mdx": _page("Start"),
            d + "cn/index.mdx": _page("首页"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root, metadata=None)
    assert toc_order(source) == ["index", "start"]


def test_a_meta_extracting_its_own_folder_is_walked_once(tmp_path: Path) -> None:
    # `....` names the folder itself, twice: walked again, each would double the work.
    d = "content/docs/"
    root = write_tree(
        tmp_path / "site",
        {
            "source.config.ts": SOURCE_CONFIG,
            d + "meta.json": json.dumps({"pages": ["a", "....", "....", "...guides"]}),
            d + "a.mdx": _page("A"),
            d + "guides/meta.json": json.dumps({"pages": ["b", "...", "...."]}),
            d + "guides/b.mdx": _page("B"),
            d + "guides/c.mdx": _page("C"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert toc_order(source) == ["a", "guides/b", "guides/c"]


def test_a_heading_indented_inside_a_component_is_a_heading_in_mdx(tmp_path: Path) -> None:
    # MDX has no indented code blocks: `    ### Configure` inside <Steps> is a heading.
    body = (
        "See [configure](#configure).\n\n<Steps>\n  <Step>\n    ### Configure\n\n"
        "    Text.\n  </Step>\n</Steps>\n\n```md\n    ### Not a heading\n```\n"
    )
    root = _site(tmp_path, {"content/docs/alpha.mdx": _page("Alpha", body)})
    source = load_markdown_tree(root)
    assert [w.message.split("'")[1] for w in source.warnings] == ["/docs/gone"]
    text = next(d for d in source.documents if d.id == "alpha").load_body(LINKS)
    assert "[configure](knowledge://tester/demo/alpha#line=" in text
    assert "    ### Not a heading" in text


def test_includes_put_in_a_bounded_amount_of_text(tmp_path: Path) -> None:
    # Thousands of <include> tags naming one large file: each copy was put in, 1,000 x 1 MB.
    root = tmp_path / "site"
    root.mkdir()
    (root / "big.md").write_text("z" * 1_000_000 + "\n")
    (root / "small.md").write_text("kept\n")
    page = root / "page.mdx"
    body = "<include>small.md</include>\n" + "<include>big.md</include>\n" * 1_000
    site = Site(Fumadocs(), None, root, None, None)  # type: ignore[arg-type]
    out = Fumadocs().expand(site, page, body, within=root)
    assert out.startswith("kept\n")
    assert len(out) <= MAX_EXPANDED + len(body)


MODULE_SOURCE = """\
import { loader } from 'fumadocs-core/source';
import { docsRoute } from '../shared';
export const source = loader(
  {
    docs: docs.toFumadocsSource(),
    openapi: await openapi.staticSource({ baseDir: 'openapi/(generated)', meta: {} }),
  },
  { baseUrl: docsRoute, plugins: [icons()] },
);
export const blog = loader(posts.toFumadocsSource(), { baseUrl: '/blog' });
"""


def test_the_loaders_options_after_its_sources_in_a_source_module_folder(
    tmp_path: Path,
) -> None:
    # `lib/source/index.tsx` is `lib/source`; the options follow the sources (Fumadocs 15+):
    # the docs at /docs, the blog's loader a route.
    files = {"lib/source.ts": "", "lib/source/index.tsx": MODULE_SOURCE}
    root = _site(tmp_path, files)
    (root / "lib/source.ts").unlink()
    source = load_markdown_tree(root)
    assert [w.message.split("'")[1] for w in source.warnings] == ["/docs/gone"]
    body = next(d for d in source.documents if d.id == "index").load_body(LINKS)
    assert "[setup](knowledge://tester/demo/guides/setup#line=" in body
