"""A site that states no name (an empty ``title``) is named after its landing page, unless that
page's title is a generic word; then the one flag asked for is ``--name`` (issue 21)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.compiler import MetadataError
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import build, write_tree

CATALOG = (
    "language: en\npublisher: {id: t, name: T}\n"
    "license: {name: MIT, spdx: MIT, attributionRequired: true}\n"
)


def _site(root: Path, landing: str) -> Path:
    return write_tree(
        root,
        {
            "mkdocs.yml": 'site_name: ""\nnav:\n  - Start: index.md\n  - Use: use.md\n',
            "docs/index.md": f"# {landing}\n\nWelcome.\n",
            "docs/use.md": "# Use\n\nUse it.\n",
        },
        catalog=CATALOG,
    )


def test_an_empty_title_falls_back_to_the_landing_pages_own_title(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path / "s", "The `Kettle` Handbook"))
    assert source.metadata.name == "The Kettle Handbook"


@pytest.mark.parametrize("landing", ["Introduction", "README", "Home"])
def test_a_generic_landing_title_names_no_site_and_only_the_name_is_asked(
    tmp_path: Path, landing: str
) -> None:
    with pytest.raises(MetadataError) as err:
        build(_site(tmp_path / "s", landing), tmp_path / "s.gezk")
    assert [p.field for p in err.value.problems] == ["name"]
    assert "--name" in str(err.value)
