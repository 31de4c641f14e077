"""docs/browse.md: its Python example prints what the page says, and every screenshot it shows
was written by the browser tests and is in the repository."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "browse.md"


def _blocks() -> list[tuple[str, str]]:
    text = PAGE.read_text(encoding="utf-8")
    return re.findall(r"^```(\w+)\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def test_the_python_example_prints_what_the_page_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocks = _blocks()
    at = next(i for i, (language, _) in enumerate(blocks) if language == "python")
    code, (language, printed) = blocks[at][1], blocks[at + 1]
    assert language == "text"
    shutil.copytree(ROOT / "examples" / "handbook", tmp_path / "examples" / "handbook")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "browse.md:python", "exec"), {"__name__": "__doc_example__"})
    assert capsys.readouterr().out == printed


def test_every_screenshot_shown_is_in_the_repository_and_small() -> None:
    shown = re.findall(r"!\[[^\]]*\]\((browse/[^)]+\.png)\)", PAGE.read_text(encoding="utf-8"))
    assert {Path(p).stem for p in shown} == {
        "library", "catalog", "document", "search", "cite", "memory", "hostile"
    }  # fmt: skip
    browser_tests = (ROOT / "tests" / "browse" / "test_browser.py").read_text(encoding="utf-8")
    for path in shown:
        image = ROOT / "docs" / path
        assert image.read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), path
        assert image.stat().st_size < 200_000, path
        assert f'session.shot(page, "{image.stem}")' in browser_tests, path
