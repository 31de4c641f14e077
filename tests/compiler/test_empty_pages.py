"""An empty section page is what generators list a section with; an empty leaf page is worth a
warning (issue 21: warnings worth reading)."""

from __future__ import annotations

from pathlib import Path

from tests.compiler.trees import build, write_tree


def test_an_empty_section_page_is_silent_and_an_empty_leaf_page_is_not(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "hugo.toml": 'title = "Site"\n',
            "content/_index.md": "---\ntitle: Home\n---\n",
            "content/guide/_index.md": "---\ntitle: Guide\n---\n",
            "content/guide/setup.md": "---\ntitle: Setup\n---\nBoil the water first.\n",
            "content/guide/blank.md": "---\ntitle: Blank\n---\n",
            "content/notes/index.md": "# Notes\n",
        },
    )
    result = build(root, tmp_path / "site.gezk")
    empty = sorted(w.document or "" for w in result.warnings if w.reason == "empty-document")
    assert empty == ["guide/blank"]
