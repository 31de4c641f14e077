"""The examples in docs/search.md, docs/cite.md and docs/security.md run and print what they say."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from gezel_knowledge.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def _fences(page: str) -> list[tuple[str, str]]:
    return FENCE.findall((DOCS / page).read_text(encoding="utf-8"))


def _console(block: str) -> list[tuple[list[str], list[str]]]:
    """Each ``$ gezel-knowledge ...`` command with the output lines shown under it."""
    out: list[tuple[list[str], list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            out.append((shlex.split(line[2:]), []))
        elif out:
            out[-1][1].append(line)
    return out


@pytest.mark.parametrize("page", ["search.md", "cite.md", "security.md"])
def test_page_examples_run_as_written(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    fences = _fences(page)
    assert any(kind == "python" for kind, _ in fences)
    assert any(kind == "console" for kind, _ in fences)
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    printed: str | None = None
    for kind, body in fences:
        if kind == "python":
            capsys.readouterr()
            exec(compile(body, f"{page}:python", "exec"), namespace)
            printed = capsys.readouterr().out
        elif kind == "text" and printed is not None:
            # A text block right after a python block shows what it printed.
            assert printed == body, f"{page}: printed output differs from the page"
            printed = None
        elif kind == "console":
            for argv, expected in _console(body):
                assert argv[0] == "gezel-knowledge"
                code = main(argv[1:])
                out = capsys.readouterr().out
                assert code == 0, " ".join(argv)
                if expected:
                    assert out.splitlines() == expected, " ".join(argv)


_REASON = re.compile(
    r"(?:ctx\.add|scan\.add|scan\.fatal|Finding|ZipProblem)\(\s*\"([a-z0-9-]+)\"|"
    r"reason\s*=\s*\"([a-z0-9-]+)\"",
    re.DOTALL,
)
_NOT_REFUSALS = {
    # Caller mistakes and lookups, documented in search.md and cite.md rather than here.
    "archive-not-found",
    "asset-not-found",
    "catalog-closed",
    "catalog-not-found",
    "chunk-not-found",
    "destination-exists",
    "dimension-mismatch",
    "document-not-found",
    "empty-query",
    "invalid-limit",
    "invalid-mode",
    "invalid-order",
    "invalid-page",
    "invalid-reference",
    "invalid-stage1",
    "invalid-vector",
    "line-out-of-range",
    "other-catalog",
    "topic-not-found",
    "unknown-shard",
    "vector-search-unavailable",
    "invalid-shard-path",
}


def test_security_page_lists_every_refusal_reason() -> None:
    text = (DOCS / "security.md").read_text(encoding="utf-8")
    found: set[str] = set()
    for package in ("archive", "validate", "reader", "opening", "install"):
        for source in (ROOT / "gezel_knowledge" / package).rglob("*.py"):
            if source.name == "writer.py":  # the compiler's archive writer
                continue
            for match in _REASON.finditer(source.read_text(encoding="utf-8")):
                found.add(match.group(1) or match.group(2))
    missing = sorted(r for r in found - _NOT_REFUSALS if f"`{r}`" not in text)
    assert missing == []
    listed = set(re.findall(r"^\| `([a-z0-9-]+)`", text, flags=re.MULTILINE))
    for extra in re.findall(r"^\| `[a-z0-9-]+` / `([a-z0-9-]+)`", text, flags=re.MULTILINE):
        listed.add(extra)
    code = "\n".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "gezel_knowledge").rglob("*.py")
    ) + "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "gezk").rglob("*.py"))
    unknown = sorted(r for r in listed if f'"{r}"' not in code)
    assert unknown == []
