"""The generator examples of docs/build.md (``py`` blocks) print what the page says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "build.md"


def test_generator_examples_print_what_the_page_says(capsys: pytest.CaptureFixture[str]) -> None:
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"^```py\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)
    # Hugo, Zola, Docusaurus, versioned Docusaurus, Docusaurus 1, Mintlify, Nextra, Nextra's
    # app router, VuePress, Rspress, a JavaScript site's generated pages, a Quarto book
    assert len(blocks) == 12
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    for code in blocks:
        expected = [line[2:] for line in code.splitlines() if line.startswith("# ")]
        exec(compile(code, str(PAGE), "exec"), namespace)
        assert capsys.readouterr().out.splitlines() == expected
