"""Collisions never stop a build: same-named sections and repeated pages (issue 21)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.compiler import CatalogSource, SourceError
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import write_tree


def _topics(source: CatalogSource) -> dict[str, tuple[str, str | None]]:
    return {t.id: (t.name, t.parent_id) for t in source.topics}


def _placed(source: CatalogSource) -> dict[str, tuple[str, ...]]:
    return {d.id: d.topic_path for d in source.documents}


def test_same_named_folders_under_different_parents_get_path_ids(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "c",
        {
            "guide/configuration/a.md": "# A\n",
            "reference/configuration/b.md": "# B\n",
            "reference/other/c.md": "# C\n",
        },
    )
    source = load_markdown_tree(root)
    assert _topics(source) == {
        "guide": ("Guide", None),
        "guide-configuration": ("Configuration", "guide"),
        "reference": ("Reference", None),
        "reference-configuration": ("Configuration", "reference"),
        "other": ("Other", "reference"),
    }
    assert _placed(source)["guide/configuration/a"] == ("guide", "guide-configuration")
    assert _placed(source)["reference/configuration/b"] == ("reference", "reference-configuration")
    assert source.warnings == ()


def test_names_that_fold_alike_collide_and_are_qualified(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "c", {"a/Shared Name/x.md": "# X\n", "b/shared-name/y.md": "# Y\n"}
    )
    ids = {t.id for t in load_markdown_tree(root).topics}
    assert {"a-shared-name", "b-shared-name"} <= ids
    assert "shared-name" not in ids


def test_outline_folders_collide_too_and_build(tmp_path: Path) -> None:
    catalog = "outline: folders\n" + (
        "id: demo\nversion: '1'\nname: Demo\ndescription: d\nlanguage: en\n"
        "publisher: {id: t, name: T}\nlicense: {name: MIT, spdx: MIT}\n"
    )
    root = write_tree(
        tmp_path / "f",
        {"01-setup/02-usage/a.md": "# A\n", "02-api/01-usage/b.md": "# B\n"},
        catalog=catalog,
    )
    source = load_markdown_tree(root)
    assert source.outline == "folders"
    assert {t.id for t in source.topics} == {"setup", "setup-usage", "api", "api-usage"}


def test_same_named_sections_of_an_outline_file_get_path_ids(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "book",
        {
            "SUMMARY.md": (
                "# Summary\n\n"
                "- [Guide](guide.md)\n"
                "  - [Examples](g-ex.md)\n"
                "    - [One](g-one.md)\n"
                "- [Reference](ref.md)\n"
                "  - [Examples](r-ex.md)\n"
                "    - [Two](r-two.md)\n"
            ),
            **{f"{n}.md": f"# {n}\n" for n in ("guide", "g-ex", "g-one", "ref", "r-ex", "r-two")},
        },
    )
    source = load_markdown_tree(root)
    topics = _topics(source)
    assert topics["guide-examples"] == ("Examples", "guide")
    assert topics["reference-examples"] == ("Examples", "reference")
    assert _placed(source)["r-two"] == ("reference", "reference-examples")


def test_a_section_named_like_the_root_topic_is_qualified(tmp_path: Path) -> None:
    # The root topic is named after the catalog (id demo): a folder "demo" may not take it.
    root = write_tree(tmp_path / "r", {"top.md": "# Top\n", "demo/a.md": "# A\n"})
    source = load_markdown_tree(root)
    assert _topics(source) == {"demo": ("Demo catalog", None), "demo-2": ("Demo", None)}
    assert _placed(source) == {"top": ("demo",), "demo/a": ("demo-2",)}


def test_ids_of_colliding_sections_are_stable_across_unrelated_edits(tmp_path: Path) -> None:
    files = {"x/api/a.md": "# A\n", "y/api/b.md": "# B\n"}
    before = {t.id for t in load_markdown_tree(write_tree(tmp_path / "1", files)).topics}
    files["a-new-folder/page.md"] = "# New\n"
    after = {t.id for t in load_markdown_tree(write_tree(tmp_path / "2", files)).topics}
    assert before == {"x", "x-api", "y", "y-api"}
    assert after == before | {"a-new-folder"}


def test_explicit_ids_given_twice_are_still_refused(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "t",
        {
            "a/_topic.yaml": "id: same\nname: A\n",
            "a/p.md": "# P\n",
            "b/_topic.yaml": "id: same\nname: B\n",
            "b/q.md": "# Q\n",
        },
    )
    with pytest.raises(SourceError) as err:
        load_markdown_tree(root)
    assert err.value.reason == "topic-id-collision"


def test_a_page_listed_twice_under_one_section_is_placed_once_with_a_warning(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "r", {"SUMMARY.md": "## Part\n* [A](a.md)\n* [A again](a.md)\n", "a.md": "# A\n"}
    )
    source = load_markdown_tree(root)
    # README.md is the GitBook space's first page; a.md is the page listed twice.
    (doc,) = [d for d in source.documents if d.id == "a"]
    assert (doc.topic_path, doc.toc_references) == (("part",), ())
    (warning,) = source.warnings
    assert (warning.reason, warning.path, warning.line) == ("repeated-placement", "SUMMARY.md", 3)


def test_a_page_listed_under_two_sections_gets_a_shared_placement(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "r",
        {"SUMMARY.md": "## One\n* [A](a.md)\n\n## Two\n* [A](a.md)\n", "a.md": "# A\n"},
    )
    source = load_markdown_tree(root)
    (doc,) = [d for d in source.documents if d.id == "a"]
    assert doc.topic_path == ("one",)
    assert [r.topic_path for r in doc.toc_references] == [("two",)]
    assert source.warnings == ()


def test_an_untitled_mkdocs_section_is_named_after_its_first_page_not_a_path(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "mk",
        {
            "mkdocs.yml": 'nav:\n  - Home: index.md\n  - "":\n      - Setup: setup.md\n',
            "docs/index.md": "# Home\n",
            "docs/setup.md": "# Setting up\n",
        },
    )
    source = load_markdown_tree(root)
    names = {t.name for t in source.topics}
    assert "Setup" in names
    assert not any("/" in n or "mkdocs.yml" in n for n in names)
