"""Nextra sites: the content or pages folder a next.config using nextra names, each folder's
_meta order and titles (JSON, or JavaScript with JSX read as no title), hidden and linked
entries, Nextra 2's locale files, [#id] heading ids and routes from the site root."""

from __future__ import annotations

import time
from pathlib import Path

from gezel_knowledge.compiler import LinkBase
from gezel_knowledge.compiler.generators import fumadocs, nextra
from gezel_knowledge.compiler.generators.nextra import _without_jsx
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.test_vitepress_site import toc_order
from tests.compiler.trees import write_tree
from tests.faults import assert_linear_time

LINKS = LinkBase("tester", "demo")

CONFIG = """\
import nextra from 'nextra'

const withNextra = nextra({ contentDirBasePath: '/docs' })

export default withNextra({ reactStrictMode: true })
"""

LAYOUT = """\
export const metadata = { title: { template: '%s – Gizmo' } }
export default function Layout({ children }) {
  return (
    <html lang="en" dir="ltr">
      <Navbar projectLink="https://github.com/acme/gizmo" />
      {children}
    </html>
  )
}
"""

ROOT_META = """\
import { Icon } from 'icons'

export default {
  index: <b><Icon /> Home</b>,
  guide: { title: 'The guide' },
  '-- More': { type: 'separator', title: 'More' },
  github: { title: 'GitHub', href: 'https://github.com/acme/gizmo' },
  secret: { display: 'hidden' },
  api: 'API reference',
  // faq: { display: 'hidden' },
}
"""


def _page(title: str, body: str = "") -> str:
    return f"---\ntitle: {title}\n---\n\n{body}"


def _site(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "site",
        {
            "docs/next.config.mjs": CONFIG,
            "docs/app/layout.tsx": LAYOUT,
            "docs/content/_meta.tsx": ROOT_META,
            "docs/content/index.mdx": _page(
                "Gizmo",
                "Read [the start](/docs/guide/start#first-steps), [the API](./api) and "
                "[nothing](/docs/nowhere).\n",
            ),
            "docs/content/faq.mdx": _page("FAQ"),
            "docs/content/secret.mdx": _page("Secret"),
            "docs/content/api.mdx": _page("API"),
            "docs/content/guide/_meta.js": "export default { start: 'Start here', '2': 'Two' }\n",
            "docs/content/guide/index.mdx": _page("Guide"),
            "docs/content/guide/start.mdx": _page("Start", "## The first steps [#first-steps]\n"),
            "docs/content/guide/2.mdx": _page("Second"),
            "docs/content/guide/zeta.md": _page("Zeta"),
            "docs/content/_partial.mdx": "Not a page.\n",
        },
        catalog=None,
    )


def test_meta_files_give_nextras_order_and_titles(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path))
    assert source.site == "nextra"
    # An index page the _meta does not name first, then _meta order (integer-like keys first,
    # as JavaScript orders them), then unlisted entries by name; separators and links are no
    # pages; the hidden page follows the navigation; a commented-out entry is no entry.
    assert toc_order(source) == [
        "index",
        "guide/index",
        "guide/2",
        "guide/start",
        "guide/zeta",
        "api",
        "faq",
        "secret",
    ]
    assert [t.name for t in source.topics][-1] == "The guide"
    titles = {d.id: d.title for d in source.documents}
    assert titles["guide/start"] == "Start here"
    assert titles["api"] == "API reference"
    assert source.metadata.name == "Gizmo"
    assert source.metadata.language == "en"
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.name == "acme"


def test_links_from_the_content_base_path_and_custom_heading_ids(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path))
    assert [w.message.split("'")[1] for w in source.warnings] == ["/docs/nowhere"]
    body = next(d for d in source.documents if d.id == "index").load_body(LINKS)
    assert "[the start](knowledge://tester/demo/guide/start#line=" in body
    assert "[the API](knowledge://tester/demo/api)" in body


def test_nextra_2_reads_the_default_locales_files(tmp_path: Path) -> None:
    config = (
        "const withNextra = require('nextra')({ theme: 'nextra-theme-docs' })\n"
        "module.exports = withNextra({ i18n: { locales: ['en-US', 'fr-FR'], "
        "defaultLocale: 'en-US' } })\n"
    )
    theme = "export default { useNextSeoProps() { return { titleTemplate: '%s | Tool' } } }\n"
    root = write_tree(
        tmp_path / "site",
        {
            "next.config.js": config,
            "theme.config.jsx": theme,
            "pages/_app.mdx": "App.\n",
            "pages/_meta.en-US.json": '{"index": "Intro", "blog": {"type": "page"}}',
            "pages/_meta.fr-FR.json": '{"blog": "Blogue", "index": "Accueil"}',
            "pages/index.en-US.mdx": _page("Intro", "See [the post](/blog/post).\n"),
            "pages/index.fr-FR.mdx": _page("Accueil"),
            "pages/blog.en-US.mdx": _page("Blog"),
            "pages/blog/post.en-US.mdx": _page("Post", "Back [home](/) or [to a route](/demo).\n"),
            "pages/demo.tsx": "export default function Demo() { return null }\n",
            "pages/api/hello.ts": "export default function handler() {}\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert toc_order(source) == ["index.en-US", "blog.en-US", "blog/post.en-US"]
    assert source.warnings == ()
    assert source.metadata.name == "Tool"
    assert source.metadata.language == "en-US"
    body = next(d for d in source.documents if d.id == "index.en-US").load_body(LINKS)
    assert "[the post](knowledge://tester/demo/blog/post.en-US)" in body


def test_unclosed_jsx_in_a_meta_file_is_read_in_linear_time() -> None:
    # Thousands of values opening an element that never closes: each scan is bounded and a
    # scanned stretch is not scanned again.
    text = "export default {\n" + "a: <b x='1'\n" * 60_000 + "}\n"
    start = time.perf_counter()
    out = _without_jsx(text)
    assert time.perf_counter() - start < 5
    assert out == text
    closed = "export default { a: <b><Icon /> Home</b>, c: 'C' }\n"
    assert _without_jsx(closed) == "export default { a: null, c: 'C' }\n"


def test_the_html_lang_of_a_layout_is_found_in_linear_time() -> None:
    # Nextra's and Fumadocs' layouts are searched for `<html lang="...">`: each of many
    # `<html` openings that never close must not be scanned to the end of the file again.
    size = 60_000
    text = "<html " * (size // 6)
    for pattern in (nextra._HTML_LANG, fumadocs._HTML_LANG):
        assert_linear_time(lambda p=pattern: p.search(text), size, seconds_per_mb=10, what="lang")
        found = pattern.search('<body/><html className="x" lang={"pt-BR"}>')
        assert found is not None
        assert found.group(1) == "pt-BR"


GLOBAL_META = """\
import type { MetaRecord } from 'nextra'
import { Badge } from '../components/badge'

const GUIDE: MetaRecord = {
  _: { type: 'separator', title: 'Basics' },
  setup: '',
  usage: { title: <Badge>Usage</Badge> },
  more: { title: 'More', href: 'https://example.com' },
}

export default {
  index: { type: 'page', display: 'hidden' },
  docs: {
    type: 'page',
    title: 'Documentation',
    items: {
      guide: { title: 'The guide', items: GUIDE },
      index: '',
      reference: 'Reference',
    },
  },
  about: { type: 'page' },
}
"""


def _app_site(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "site",
        {
            "next.config.ts": "import nextra from 'nextra'\nexport default nextra({})({})\n",
            "app/layout.tsx": LAYOUT,
            "app/page.tsx": "export default function Home() { return null }\n",
            "app/_meta.global.tsx": GLOBAL_META,
            "app/about/page.mdx": _page("About"),
            "app/docs/page.mdx": _page("Introduction", "See [usage](./docs/guide/usage).\n"),
            "app/docs/reference/page.mdx": _page(
                "Reference", "Read [the setup](./guide/setup#install) and [a tab](/docs/tabs).\n"
            ),
            "app/docs/(basics)/guide/page.mdx": _page("Guide"),
            "app/docs/(basics)/guide/old.mdx": "An imported part, no page.\n",
            "app/docs/(basics)/guide/setup/page.mdx": _page("Setup", "## Install\n"),
            "app/docs/(basics)/guide/usage/page.mdx": _page(
                "Usage", "See [the reference](../reference).\n"
            ),
            "app/docs/(basics)/guide/zeta/page.md": _page("Zeta"),
            "app/docs/_private/page.mdx": _page("Private"),
            "app/docs/[name]/page.tsx": "export default function Built() { return null }\n",
        },
        catalog=None,
    )


def test_an_app_router_site_reads_page_files_and_its_global_meta(tmp_path: Path) -> None:
    source = load_markdown_tree(_app_site(tmp_path))
    assert source.site == "nextra"
    # Pages are the page.mdx/page.md files at their folder's route (a route group is no
    # level; a private folder and other .mdx files are no pages); _meta.global gives each
    # folder its `items` in order, unlisted entries following by name, a folder's own page
    # (its index) first when the items do not name it.
    assert toc_order(source) == [
        "docs/guide",
        "docs/guide/setup",
        "docs/guide/usage",
        "docs/guide/zeta",
        "docs",
        "docs/reference",
        "about",
    ]
    titles = {d.id: d.title for d in source.documents}
    assert titles["docs/reference"] == "Reference"
    assert "The guide" in [t.name for t in source.topics]
    assert source.metadata.name == "Gizmo"
    assert source.metadata.language == "en"


def test_an_app_router_pages_links_resolve_from_its_route(tmp_path: Path) -> None:
    # A page is its folder's route, its links URL-relative: `/docs/reference` links
    # `./guide/setup` to `/docs/guide/setup`, `/docs/guide/usage` links `../reference` to
    # `/docs/reference`; `/docs/tabs` is a page of the dynamic `[name]` route.
    source = load_markdown_tree(_app_site(tmp_path))
    assert source.warnings == ()
    body = next(d for d in source.documents if d.id == "docs/reference").load_body(LINKS)
    assert "[the setup](knowledge://tester/demo/docs/guide/setup#line=" in body
    body = next(d for d in source.documents if d.id == "docs/guide/usage").load_body(LINKS)
    assert "[the reference](knowledge://tester/demo/docs/reference)" in body


def test_an_app_routers_linked_folder_is_not_read(tmp_path: Path) -> None:
    # A folder linked from inside app/ (to outside the tree, or to app/ itself) holds no page
    # of the catalog and is never walked.
    outside = write_tree(tmp_path / "outside", {"secret/page.mdx": _page("Secret")}, catalog=None)
    root = _app_site(tmp_path)
    (root / "app" / "docs" / "linked").symlink_to(outside / "secret", target_is_directory=True)
    (root / "app" / "docs" / "loop").symlink_to(root / "app", target_is_directory=True)
    source = load_markdown_tree(root)
    assert "docs/linked" not in {d.id for d in source.documents}
    assert not any(d.id.startswith("docs/loop") for d in source.documents)
