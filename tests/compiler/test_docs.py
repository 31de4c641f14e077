"""The examples in docs/build.md run as written, against examples/handbook."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.compiler import load_catalog_yaml
from tests.compiler.trees import entries

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "build.md"


def _blocks(language: str) -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for example in ("handbook", "kettle-docs"):
        shutil.copytree(ROOT / "examples" / example, tmp_path / "examples" / example)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    return tmp_path


def test_console_examples_run(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = [
        line[2:]
        for block in _blocks("console")
        for line in block.splitlines()
        if line.startswith("$ gezel-knowledge ")
    ]
    assert len(commands) == 9
    for command in commands:
        argv = shlex.split(command)[1:]
        assert main(argv) == 0, command
    out = capsys.readouterr().out
    assert "valid (deep checks)" in out
    assert "building/signing" in out
    assert (workdir / "handbook.gezk").is_file()
    assert (workdir / "resigned.gezk").read_bytes() == (workdir / "signed.gezk").read_bytes()
    # The handbook is built with the default model; the signed rebuild takes every vector from
    # the cache the first build filled (in GEZEL_HOME).
    first, second = re.findall(
        r"built \S*(?:handbook|signed)\.gezk .*; (\d+) embedded, (\d+) cached", out
    )
    assert first[0] == second[1] != "0"
    assert (first[1], second[0]) == ("0", "0")
    manifest = json.loads(entries(workdir / "handbook.gezk")["manifest.json"])
    assert manifest["embedding"]["id"] == "all-minilm-l6-v2-int8@1"
    assert (workdir / "home" / "cache" / "embeddings").is_dir()
    # The MkDocs example builds as it is: its outline is its nav, its metadata its mkdocs.yml.
    assert "built " in out
    assert "kettle.gezk (kettle 2026.12.1): 5 documents" in out
    assert "Kettle  [kettle]  1 document\nGuide  [guide]  3 documents\n" in out
    assert "Reference  [reference]  1 document\n" in out
    assert "wrote kettle-catalog.yaml (mkdocs, outline mkdocs)\n" in out
    kettle = json.loads(entries(workdir / "kettle.gezk")["manifest.json"])
    assert (kettle["publisher"]["id"], kettle["license"]["spdx"]) == ("gezel-examples", "CC-BY-4.0")
    assert not (workdir / "examples" / "kettle-docs" / "catalog.yaml").exists()


def test_python_example_prints_what_the_page_says(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    myst, code = _blocks("python")
    (expected,) = _blocks("text")
    exec(compile(code, str(PAGE), "exec"), {"__name__": "__doc_example__"})
    assert capsys.readouterr().out == expected
    assert "conf.py" in myst


def test_myst_labels_example_runs() -> None:
    myst, _ = _blocks("python")
    # its own asserts check a Sphinx site's label link resolves, with no warning
    exec(compile(myst, str(PAGE), "exec"), {"__name__": "__doc_example__"})


def test_catalog_yaml_example_parses(tmp_path: Path) -> None:
    (example,) = _blocks("yaml")
    (tmp_path / "catalog.yaml").write_text(example, encoding="utf-8")
    metadata = load_catalog_yaml(tmp_path / "catalog.yaml")
    assert metadata.id == "gezel-handbook"
    assert metadata.version == "2026.12.1"
    assert metadata.outline == "auto"
    assert metadata.chunking == "markdown-chunks@2"
    assert metadata.root_topic is not None
    assert metadata.root_topic.id == "handbook"
    assert metadata.topics is not None
    assert metadata.topics[0].order == 1
