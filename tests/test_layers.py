"""The layers point one way: import-linter's contracts (pyproject.toml) hold, and no module
hides an import of the project's own code inside a function to dodge a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gezk", "gezel_knowledge")


def test_the_import_contracts_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    cli = pytest.importorskip(
        "importlinter.cli", reason="import-linter (the dev extra) checks the contracts"
    )
    monkeypatch.chdir(ROOT)
    assert cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def _deferred_own_imports(source: str, where: str) -> list[str]:
    """``where:line module`` of every import of gezk/gezel_knowledge inside a function."""
    tree = ast.parse(source)
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom):
                names = [inner.module or ""] if inner.level == 0 else ["<relative>"]
            elif isinstance(inner, ast.Import):
                names = [alias.name for alias in inner.names]
            else:
                continue
            for name in names:
                if name == "<relative>" or name.split(".")[0] in PACKAGES:
                    found.append(f"{where}:{inner.lineno} {name}")
    return found


def test_no_module_defers_an_import_of_the_project_itself() -> None:
    # A deferred import of a heavy optional third-party module (onnxruntime) is fine; one of
    # our own modules would be a cycle (or a layer breach) that the contracts cannot see.
    found = [
        hit
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for hit in _deferred_own_imports(
            path.read_text(encoding="utf-8"), str(path.relative_to(ROOT))
        )
    ]
    assert found == []


def test_the_deferred_import_check_sees_a_deferred_import() -> None:
    source = (
        "import numpy\n"
        "def f() -> None:\n"
        "    import onnxruntime\n"
        "    from gezel_knowledge.install import home\n"
        "    from . import sibling\n"
    )
    assert _deferred_own_imports(source, "m.py") == [
        "m.py:4 gezel_knowledge.install",
        "m.py:5 <relative>",
    ]
