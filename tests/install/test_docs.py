"""docs/install.md runs as written: its Python and console blocks, in order.

Console blocks: each ``$ gezel-knowledge ...`` line runs through the CLI and must exit 0
(``$NAME`` is expanded from the environment, which the page's Python blocks may set); the
lines after it are expected output. Each must appear in what the command printed; ``…`` stands
for text that varies (paths, digests), and the fragments around it must appear in order.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.fusion import DEFAULT_FUSION, KEYWORD, VECTOR

PAGE = Path(__file__).resolve().parents[2] / "docs" / "install.md"
_BLOCK = re.compile(r"^```(python|console)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def _expect(line: str, output: str) -> None:
    position = 0
    for fragment in (f.strip() for f in line.split("…")):
        if not fragment:
            continue
        found = output.find(fragment, position)
        assert found >= 0, f"expected {fragment!r} (from {line!r}) in:\n{output}"
        position = found + len(fragment)


def _console(block: str, capsys: pytest.CaptureFixture[str]) -> int:
    ran = 0
    output = ""
    for line in block.splitlines():
        if line.startswith("$ gezel-knowledge "):
            argv = shlex.split(os.path.expandvars(line[2:]))
            code = main(argv[1:])
            output = capsys.readouterr().out
            assert code == 0, f"{line} exited {code}"
            ran += 1
        elif line.strip():
            _expect(line, output)
    return ran


def test_install_page_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "gezel-home"))
    text = PAGE.read_text(encoding="utf-8")
    commands = 0
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    saved = dict(os.environ)
    try:
        for language, block in _BLOCK.findall(text):
            if language == "python":
                exec(compile(block, f"{PAGE.name}:python", "exec"), namespace)
                capsys.readouterr()
            else:
                commands += _console(block, capsys)
    finally:
        # The page sets variables as a reader's shell would; none outlives the test.
        os.environ.clear()
        os.environ.update(saved)
    assert commands >= 12


def test_the_page_names_the_fusion_find_uses() -> None:
    # find fuses with the catalogs' default preset; the page once kept the seed's k = 60 after
    # the default moved (a merge seam).
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert DEFAULT_FUSION.method == "score"
    vector, other = DEFAULT_FUSION.weight(VECTOR), DEFAULT_FUSION.weight(KEYWORD)
    assert (
        f"`{DEFAULT_FUSION.name}` preset: each list's scores divided by that list's best, "
        f"vector {vector:g} and every other list {other:g}"
    ) in text
    assert "`rrf10` preset" not in text
    assert "1 / 1 / 0.5" not in text
