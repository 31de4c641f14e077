"""The README's Python example runs as written, from the repository root."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_has_a_python_example() -> None:
    assert _python_blocks()


@pytest.mark.parametrize("block", _python_blocks())
def test_readme_python_example_runs(
    block: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    exec(compile(block, "README.md", "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    assert "handbook.gezk" in out
    assert "knowledge://gezel-knowledge/gezel-handbook/" in out
