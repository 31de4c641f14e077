"""Pages directly under a section keep the generator's order among its subsections: the
positions of pages (ordinals) and subsections (numeric sort keys) are one order (issue 21)."""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler import CatalogSource
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from gezk.ids import sort_key_for_order
from tests.compiler.trees import write_tree


def _merged(source: CatalogSource, topic: str) -> list[str]:
    """A topic's pages and subtopics in one order, as a reader merging positions lists them."""
    items: list[tuple[int, str]] = [
        (d.ordinal, d.id)
        for d in source.documents
        if d.topic_path[-1] == topic and d.ordinal is not None
    ]
    for t in source.topics:
        if t.parent_id == topic:
            items.append((int(t.sort_key) - 2**31, f"{t.id}/"))
    return [name for _, name in sorted(items)]


def test_an_ordered_outline_interleaves_pages_and_subsections(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "mk",
        {
            "mkdocs.yml": (
                "nav:\n  - Guide:\n      - Start: guide/start.md\n"
                "      - Advanced:\n          - Tuning: guide/tuning.md\n"
                "      - Wrap-up: guide/end.md\n"
            ),
            **{f"docs/guide/{n}.md": f"# {n}\n" for n in ("start", "tuning", "end")},
        },
    )
    source = load_markdown_tree(root)
    assert _merged(source, "guide") == ["guide/start", "advanced/", "guide/end"]


def test_a_hugo_folder_lists_pages_and_sections_by_weight_then_title(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "Site"\n',
            "content/_index.md": "---\ntitle: Home\n---\n",
            "content/docs/_index.md": "---\ntitle: Docs\nweight: 1\n---\nAll docs.\n",
            "content/docs/code-blocks.md": "---\ntitle: Code blocks\n---\n",
            "content/docs/dark-mode/_index.md": "---\ntitle: Dark mode\n---\nDark.\n",
            "content/docs/icon-sets.md": "---\ntitle: Icon sets\n---\n",
            "content/docs/theming/_index.md": "---\ntitle: Theming\n---\nThemes.\n",
            "content/docs/zz-first.md": "---\ntitle: Zz first\nweight: 1\n---\n",
        },
    )
    source = load_markdown_tree(root)
    assert _merged(source, "docs") == [
        "docs/_index",
        "docs/zz-first",
        "docs/code-blocks",
        "dark-mode/",
        "docs/icon-sets",
        "theming/",
    ]
    assert {t.id: t.sort_key for t in source.topics}["dark-mode"] == sort_key_for_order(3)


def test_a_plain_folder_lists_its_subfolders_after_its_pages(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"a/z.md": "# Z\n", "a/b/y.md": "# Y\n"})
    source = load_markdown_tree(root)
    assert {t.id: t.sort_key for t in source.topics}["b"] == sort_key_for_order(1)
    assert {d.id: d.ordinal for d in source.documents}["a/z"] == 0
