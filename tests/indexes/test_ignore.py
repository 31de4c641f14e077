"""gitignore semantics of the workspace walk."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.indexes._discover import discover
from gezel_knowledge.indexes._ignore import IgnoreRules


def _rules(*lines: str) -> IgnoreRules:
    return IgnoreRules().with_file("", lines)


@pytest.mark.parametrize(
    ("patterns", "path", "is_dir", "ignored"),
    [
        (["*.log"], "a.log", False, True),
        (["*.log"], "deep/dir/a.log", False, True),
        (["*.log"], "a.logx", False, False),
        (["build/"], "build", True, True),
        (["build/"], "build", False, False),  # trailing slash: directories only
        (["/top.txt"], "top.txt", False, True),
        (["/top.txt"], "sub/top.txt", False, False),  # leading slash anchors
        (["doc/frotz"], "doc/frotz", False, True),
        (["doc/frotz"], "a/doc/frotz", False, False),  # inner slash anchors
        (["**/foo"], "x/y/foo", False, True),
        (["**/foo"], "foo", False, True),
        (["abc/**"], "abc/x/y", False, True),
        (["abc/**"], "abc", True, False),
        (["a/**/b"], "a/b", False, True),
        (["a/**/b"], "a/x/y/b", False, True),
        (["a?c"], "abc", False, True),
        (["a?c"], "a/c", False, False),
        (["[ab]x"], "bx", False, True),
        (["[!ab]x"], "cx", False, True),
        (["[!ab]x"], "ax", False, False),
        (["*.txt", "!keep.txt"], "keep.txt", False, False),
        (["*.txt", "!keep.txt"], "drop.txt", False, True),
        (["!keep.txt", "*.txt"], "keep.txt", False, True),  # last match wins
        (["# comment", ""], "# comment", False, False),
        (["\\#hash"], "#hash", False, True),
        (["\\!bang"], "!bang", False, True),
        (["trail  "], "trail", False, True),
    ],
)
def test_pattern(patterns: list[str], path: str, is_dir: bool, ignored: bool) -> None:
    assert _rules(*patterns).ignored(path, is_dir=is_dir) is ignored


def test_nested_ignore_files_apply_below_their_directory(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / ".gitignore").write_text("*.tmp\n")
    (tmp_path / "a" / ".gitignore").write_text("!keep.tmp\nsecret.md\n")
    for rel in ["x.tmp", "a/keep.tmp", "a/other.tmp", "a/b/secret.md", "secret.md", "a/b/ok.md"]:
        (tmp_path / rel).write_text("x")
    found = {f.path for f in discover(tmp_path)}
    assert found == {".gitignore", "a/.gitignore", "a/keep.tmp", "secret.md", "a/b/ok.md"}


def test_gezelignore_defaults_and_no_re_include_inside_ignored_dirs(tmp_path: Path) -> None:
    for rel in [".git/config", "node_modules/m/index.js", "logs/keep.txt", "src/a.py"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    (tmp_path / ".gezelignore").write_text("logs/\n!logs/keep.txt\n")
    found = {f.path for f in discover(tmp_path)}
    assert found == {".gezelignore", "src/a.py"}


def test_symlinks_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "file-link.txt").symlink_to(outside / "secret.txt")
    (root / "real.txt").write_text("x")
    assert [f.path for f in discover(root)] == ["real.txt"]
