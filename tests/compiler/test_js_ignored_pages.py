"""Pages a JavaScript site's deploy writes before its generator runs, which its ``.gitignore``
keeps out of git: links into those folders are the site's routes, kept with no warning."""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler.generators._js_ignored import ignored_folders, routes_below
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import write_tree


def _unresolved(root: Path) -> list[str]:
    source = load_markdown_tree(root)
    return sorted(w.message.split("'")[1] for w in source.warnings)


def test_only_anchored_folder_patterns_are_read(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "repo",
        {
            ".gitignore": (
                "# generated\ndocs/tutorials/*\n!docs/tutorials/index.md\n/site/api/\n"
                "dist/\nnode_modules\n*.log\ndocs/*/cache/\nbuild/**\n"
            ),
            "site/.gitignore": "pages/gen/**\n",
        },
    )
    (root / "site").mkdir(exist_ok=True)
    found = ignored_folders(root / "site", root)
    # Unanchored patterns (dist/, node_modules) match at any depth: build output, not read;
    # a wildcard folder (docs/*/cache/) and a file pattern (*.log) neither.
    assert set(found) == {
        root / "docs" / "tutorials",
        root / "build",
        root / "site" / "api",
        root / "site" / "pages" / "gen",
    }
    assert routes_below(found, root / "docs") == ("tutorials/",)
    assert routes_below(found, root / "site") == ("pages/gen/", "api/")


def test_docusaurus_links_to_ignored_tutorials_are_routes(tmp_path: Path) -> None:
    tree = {
        ".gitignore": "docs/tutorials/*\n!docs/tutorials/index.md\n",
        "website/docusaurus.config.js": (
            "module.exports = { title: 'T', "
            "presets: [['classic', { docs: { path: '../docs' } }]] };\n"
        ),
        "docs/intro.md": (
            "# Intro\n\n[a](tutorials/fit) [b](/docs/tutorials/plot) [c](missing/page)\n"
        ),
        "docs/tutorials/index.md": "# Tutorials\n",
    }
    root = write_tree(tmp_path / "site", tree)
    # The tutorials the deploy writes are routes; a link to a folder git keeps still warns.
    assert _unresolved(root) == ["missing/page"]
    root = write_tree(tmp_path / "plain", {**tree, ".gitignore": "dist/\n"})
    assert _unresolved(root) == ["/docs/tutorials/plot", "missing/page", "tutorials/fit"]


def test_starlight_links_to_ignored_generated_pages_are_routes(tmp_path: Path) -> None:
    config = (
        "import starlight from '@astrojs/starlight';\n"
        "export default { integrations: [starlight({ title: 'K' })] };\n"
    )
    c = "src/content/docs/"
    root = write_tree(
        tmp_path / "site",
        {
            ".gitignore": (
                "dist/\nsrc/content/docs/reference/plugins/\n/src/content/docs/releases.md\n"
            ),
            "astro.config.mjs": config,
            c + "index.md": (
                "---\ntitle: K\n---\n\n[p](/reference/plugins/eslint/) [q](../nope/) "
                "[r](/releases/) [s](releases.md)\n"
            ),
            c + "reference/cli.md": "---\ntitle: CLI\n---\n\n[e](plugins/eslint.md)\n",
        },
    )
    assert _unresolved(root) == ["../nope/"]


def test_an_anchored_pattern_with_no_suffix_is_a_folder_too(tmp_path: Path) -> None:
    # Git ignores a file or a folder named by `/docs/api`: the API reference a plugin
    # generates there at build time. `/docs/notes.txt` names a file, not a folder.
    root = write_tree(tmp_path / "site", {".gitignore": "/docs/api\n/docs/notes.txt\n"})
    found = ignored_folders(root, root)
    assert found == (root / "docs" / "api",)
    tree = {
        ".gitignore": "/docs/api\n",
        "docusaurus.config.js": "module.exports = { title: 'T', presets: [['classic', {}]] };\n",
        "docs/intro.md": "# Intro\n\n[f](/docs/api/modules/core#fn) [m](/docs/apis/x)\n",
    }
    site = write_tree(tmp_path / "docusaurus", tree)
    assert _unresolved(site) == ["/docs/apis/x"]


def test_a_gitignore_beside_generated_pages_names_them(tmp_path: Path) -> None:
    # Tauri's src/content/docs/reference/.gitignore lists the pages its scripts write.
    c = "src/content/docs/"
    root = write_tree(
        tmp_path / "site",
        {
            "astro.config.mjs": (
                "import starlight from '@astrojs/starlight';\n"
                "export default { integrations: [starlight({ title: 'Kit' })] };\n"
            ),
            c + "reference/.gitignore": "config.md\nacl/*.md\njavascript/*\n!javascript/index.md\n",
            c + "release/.gitignore": "*.md\n",
            c + "reference/javascript/index.md": "---\ntitle: JS\n---\n",
            c + "index.md": (
                "---\ntitle: Kit\n---\n\n[a](/reference/config/) [b](/reference/acl/scope/) "
                "[c](/reference/javascript/fs/) [d](/release/v2/) [e](/reference/cli/)\n"
            ),
        },
        catalog=None,
    )
    # cli.md is not listed: the link to it still warns.
    assert _unresolved(root) == ["/reference/cli/"]
