"""The examples in docs/index-workspace.md and docs/memory.md run as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from gezel_knowledge.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def _commands(text: str) -> list[list[str]]:
    return [
        shlex.split(line[2:])
        for block in _blocks(text, "console")
        for line in block.splitlines()
        if line.startswith("$ gezel-knowledge ")
    ]


@pytest.mark.parametrize("page", ["index-workspace.md", "memory.md"])
def test_doc_examples_run(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "gezel-home"))
    monkeypatch.delenv("GEZEL_EMBED_DIM", raising=False)
    python = _blocks(text, "python")
    assert python, f"{page} has no Python example"
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    for block in python:  # the Python examples create the files the CLI examples use
        exec(compile(block, f"{page}:python", "exec"), namespace)
    commands = _commands(text)
    assert commands, f"{page} has no command-line example"
    for argv in commands:
        assert argv[0] == "gezel-knowledge"
        assert main(argv[1:]) == 0, " ".join(argv)
    out = capsys.readouterr().out
    assert "error" not in out
