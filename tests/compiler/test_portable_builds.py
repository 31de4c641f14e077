"""Where a tree is built, and whether it is a git clone or an unpacked ZIP, never shows in the
catalog: identical trees build byte-identical archives (issue 21)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gezel_knowledge.compiler import MetadataError
from gezel_knowledge.compiler.metadata.overrides import MetadataOverrides
from tests.compiler.trees import build, entries, write_tree

SITE = {
    "mkdocs.yml": (
        "site_name: Kettle\nsite_description: Boiling water.\n"
        "repo_url: https://github.com/kettle-works/kettle\n"
        'nav:\n  - Home: index.md\n  - "":\n      - Setup: setup/index.md\n'
        "  - Guide:\n      - Setup: guide/setup/index.md\n"
    ),
    "docs/index.md": "# Kettle\n\nSee [setup](setup/index.md) and ![logo](img/logo.png).\n",
    "docs/setup/index.md": "# Setting up\n\nFill it.\n",
    "docs/guide/setup/index.md": "# Guide setup\n\nBoil it. [Missing](nowhere.md).\n",
    "docs/img/logo.png": b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 17,
    "LICENSE": (
        "Copyright (c) 2024 Kettle Works\n\n"
        "Permission is hereby granted, free of charge, to any person obtaining a copy\n"
    ),
}


def _tree(root: Path) -> Path:
    return write_tree(root, SITE, catalog=None, notices=False)


def test_the_same_tree_at_two_absolute_paths_builds_the_same_bytes(tmp_path: Path) -> None:
    first = _tree(tmp_path / "a" / "kettle")
    second = _tree(tmp_path / "somewhere" / "much" / "deeper" / "other-name")
    one = build(first, tmp_path / "one.gezk")
    two = build(second, tmp_path / "two.gezk")
    assert one.path.read_bytes() == two.path.read_bytes()
    for name, data in entries(one.path).items():
        for where in (first, second, tmp_path):
            assert str(where).encode() not in data, f"{where} is in {name}"


def test_a_content_folder_built_at_two_paths_names_no_path(tmp_path: Path) -> None:
    # Pointed at docs/ of an MkDocs site (its mkdocs.yml above the source): the untitled
    # section once took the outline's absolute location as its name.
    first = _tree(tmp_path / "a" / "kettle") / "docs"
    second = _tree(tmp_path / "b" / "elsewhere") / "docs"
    for docs in (first, second):
        shutil.copy(docs.parent / "LICENSE", docs / "LICENSE")
    one = build(first, tmp_path / "one.gezk")
    two = build(second, tmp_path / "two.gezk")
    assert one.path.read_bytes() == two.path.read_bytes()
    assert str(tmp_path).encode() not in b"".join(entries(one.path).values())


def test_a_git_clone_and_a_zip_of_the_same_tree_build_the_same_bytes(tmp_path: Path) -> None:
    # The licence sits at the repository's root, above the site: named in both builds.
    clone = tmp_path / "clone"
    _tree(clone / "site")
    shutil.move(clone / "site" / "LICENSE", clone / "LICENSE")
    (clone / ".git" / "objects").mkdir(parents=True)
    (clone / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    unzipped = tmp_path / "kettle-main"
    shutil.copytree(clone, unzipped, ignore=shutil.ignore_patterns(".git"))
    built = [
        build(
            repo / "site",
            tmp_path / f"{repo.name}.gezk",
            metadata=MetadataOverrides(license_file=repo / "LICENSE"),
        )
        for repo in (clone, unzipped)
    ]
    assert built[0].path.read_bytes() == built[1].path.read_bytes()


def test_without_the_flag_a_clone_and_a_zip_stop_alike(tmp_path: Path) -> None:
    messages = []
    for name, git in (("clone", True), ("zip", False)):
        repo = tmp_path / name
        _tree(repo / "site")
        shutil.move(repo / "site" / "LICENSE", repo / "LICENSE")
        if git:
            (repo / ".git").mkdir()
        with pytest.raises(MetadataError) as err:
            build(repo / "site", tmp_path / f"{name}.gezk")
        messages.append(str(err.value).replace(str(repo), "REPO"))
    assert messages[0] == messages[1]
    assert "--license-file" in messages[0]
