"""``gezel-knowledge init``: a commented catalog.yaml to finish, that then builds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.compiler import MetadataError, SourceError
from gezel_knowledge.compiler.catalog_init import draft_catalog_yaml, init_catalog
from tests.compiler.trees import build, entries, write_tree

MKDOCS = {
    "mkdocs.yml": (
        "site_name: Widgets\nsite_description: All about widgets.\n"
        "repo_url: https://github.com/acme/widgets\nnav:\n  - index.md\n"
    ),
    "docs/index.md": "# Widgets\n\nHow widgets work.\n",
    "LICENSE": "Apache License\nVersion 2.0\nTERMS AND CONDITIONS FOR USE, REPRODUCTION...\n",
}


def test_init_fills_in_what_it_detects(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "site", MKDOCS, catalog=None)
    result = init_catalog(root)
    assert result.path == root / "catalog.yaml"
    draft = result.draft
    assert (draft.generator, draft.outline, draft.content_root) == ("mkdocs", "mkdocs", "docs")
    assert (draft.license_file, draft.readme, draft.missing) == ("LICENSE", True, ())
    text = result.path.read_text(encoding="utf-8")
    assert text.startswith("# catalog.yaml: what `gezel-knowledge build` needs")
    assert "#   licence notice: LICENSE, recognised as Apache-2.0\n" in text
    assert 'id: "widgets"' in text
    assert 'name: "acme"' in text
    # Everything is there: the folder builds as it is.
    manifest = json.loads(entries(build(root, tmp_path / "w.gezk").path)["manifest.json"])
    assert (manifest["id"], manifest["name"], manifest["publisher"]["id"]) == (
        "widgets",
        "Widgets",
        "acme",
    )
    assert manifest["license"]["spdx"] == "Apache-2.0"


def test_init_marks_what_is_left_and_the_build_names_exactly_that(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nText.\n"}, catalog=None)
    draft = init_catalog(root).draft
    assert draft.missing == (
        "id",
        "name",
        "language",
        "publisher.id",
        "publisher.name",
        "license.name",
        "license.attributionRequired",
    )
    text = (root / "catalog.yaml").read_text(encoding="utf-8")
    assert text.count("FILL IN") == 8  # seven fields, and the header's instruction
    with pytest.raises(MetadataError) as err:
        build(root, tmp_path / "n.gezk")
    assert {p.field for p in err.value.problems} >= {
        "publisher.id",
        "license.attributionRequired",
    }
    filled = _fill(
        text,
        [
            ("id", "notes"),
            ("name", "Notes"),
            ("language", "en"),
            ("id", "me"),
            ("name", "Me"),
            ("name", "CC0 1.0"),
            ("attributionRequired", "false"),
        ],
    )
    assert "FILL IN:" not in filled
    (root / "catalog.yaml").write_text(filled, encoding="utf-8")
    result = build(root, tmp_path / "n.gezk")
    assert (result.catalog_id, result.manifest.publisher.id) == ("notes", "me")


def _fill(text: str, values: list[tuple[str, str]]) -> str:
    """Fill the ``FILL IN`` fields in order, as an author would."""
    lines = text.split("\n")
    for key, value in values:
        at = next(
            i
            for i, line in enumerate(lines)
            if "# FILL IN" in line and line.strip().startswith(key)
        )
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        lines[at] = f"{indent}{key}: {value}"
    return "\n".join(lines)


def test_init_refuses_to_overwrite_unless_forced(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "site", MKDOCS, catalog="name: Mine\n")
    with pytest.raises(SourceError) as err:
        init_catalog(root)
    assert err.value.reason == "exists"
    assert (root / "catalog.yaml").read_text() == "name: Mine\n"
    init_catalog(root, force=True)
    assert (root / "catalog.yaml").read_text() == draft_catalog_yaml(root).text


def test_init_cli_writes_beside_or_elsewhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    root = write_tree(tmp_path / "site", MKDOCS, catalog=None)
    elsewhere = tmp_path / "out" / "widgets.yaml"
    assert main(["init", str(root), "-o", str(elsewhere), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["path"] == str(elsewhere)
    assert report["licenseFile"] == "../site/LICENSE"  # relative to the file's own folder
    assert not (root / "catalog.yaml").exists()  # the source stays as it was
    args = ["build", str(root), "-o", str(tmp_path / "w.gezk"), "--catalog", str(elsewhere)]
    assert main([*args, "--embedder", "test-hash-embed@1", "--no-cache", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["init", str(root), "-o", str(elsewhere)]) == 1
    assert "already exists; pass --force" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["site/catalog.yaml", "out/widgets.yaml"])
def test_the_build_the_file_suggests_runs_where_the_file_is(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    # Issue 25 item 12: the file written elsewhere suggested 'build .', which built nothing.
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    root = write_tree(tmp_path / "site", MKDOCS, catalog=None)
    written = tmp_path / where
    assert main(["init", str(root), "-o", str(written)]) == 0
    text = written.read_text(encoding="utf-8")
    suggested = next(
        line.removeprefix("#   ").split("   (")[0]
        for line in text.splitlines()
        if line.startswith("#   gezel-knowledge build ")
    )
    monkeypatch.chdir(written.parent)
    args = suggested.split()[1:]
    assert main([*args, "--embedder", "test-hash-embed@1", "--no-cache", "--quiet"]) == 0
    assert (written.parent / "widgets.gezk").is_file()
    capsys.readouterr()
