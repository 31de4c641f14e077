"""What a Next.js site publishes besides its pages (generators/_next.py): the app's routes,
dynamic segments when asked, and next.config's redirect sources in their written shapes."""

from __future__ import annotations

import time
from pathlib import Path

from gezel_knowledge.compiler.generators._next import next_routes
from tests.compiler.trees import write_tree

CONFIG = """\
const nextConfig = withNextra({
  redirects: () => [
    { source: '/docs/guide/:slug(typescript|latex)', destination: '/docs/advanced/:slug' },
    { source: '/old/:path*', destination: '/docs' },
    { source: '/docs/theme-configuration', destination: '/docs/layout', permanent: true },
  ],
})
export default nextConfig
"""


def _project(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "site",
        {
            "next.config.ts": CONFIG,
            "app/about/page.mdx": "# About\n",
            "app/og/route.tsx": "export function GET() {}\n",
            "app/api/[name]/page.tsx": "export default function Api() { return null }\n",
        },
        catalog=None,
    )


def test_redirects_an_arrow_returns_are_routes_a_listed_parameter_each_word(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    routes = next_routes(root, root / "next.config.ts", root)
    # `:slug(typescript|latex)` matches those two words only; `:path*` all below `old/`.
    assert routes == (
        "about",
        "og",
        "docs/guide/typescript",
        "docs/guide/latex",
        "old/",
        "docs/theme-configuration",
    )


def test_a_dynamic_folder_stands_for_what_is_below_its_static_part_when_asked(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    assert "api/" not in next_routes(root, None, root)
    assert "api/" in next_routes(root, None, root, dynamic=True)


def test_a_long_parameter_list_is_read_in_bounded_time(tmp_path: Path) -> None:
    words = "|".join(f"w{i}" for i in range(5000))
    redirect = f"{{ source: '/a/:s({words}', destination: '/' }}"
    config = f"module.exports = {{ redirects: () => [{redirect}] }}\n"
    root = write_tree(tmp_path / "site", {"next.config.js": config}, catalog=None)
    started = time.perf_counter()
    routes = next_routes(root, root / "next.config.js", root)
    assert time.perf_counter() - started < 2.0
    assert routes == ("a/",)  # an unclosed list is no list of words: all below `a/`
