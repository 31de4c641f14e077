"""The Python example in docs/quality.md runs and prints what the page says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def test_quality_page_example_prints_what_it_says(capsys: pytest.CaptureFixture[str]) -> None:
    fences = FENCE.findall((ROOT / "docs" / "quality.md").read_text(encoding="utf-8"))
    kinds = [kind for kind, _ in fences]
    python = kinds.index("python")
    assert kinds[python + 1] == "text"
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    exec(compile(fences[python][1], "quality.md:python", "exec"), namespace)
    assert capsys.readouterr().out == fences[python + 1][1]


def test_quality_page_is_in_the_readme_docs_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "[quality](docs/quality.md)" in readme
