"""The layers point one way: import-linter's contracts (pyproject.toml) hold, and no module
hides an import of the project's own code inside a function, or behind ``importlib``, to dodge
a cycle."""

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


# Where a module may import by name at run time, and what: import-linter cannot see these, so
# each is listed here with why it hides no cycle. ``<dynamic>``: a name computed at run time.
_DYNAMIC_IMPORTS_ALLOWED = {
    # Package faces resolve their names on first use (PEP 562); the names are in each _LAZY.
    ("gezk/_lazy.py", "<dynamic>"),
    # Imports only the invoked subcommand's module, for start-up time; cli is the top layer.
    ("gezel_knowledge/cli/__init__.py", "<dynamic>"),
    # The numba kernels, only once a shard turns hot; the module imports nothing of
    # gezel_knowledge (test_the_compiled_module_imports_nothing_of_gezel_knowledge).
    ("gezel_knowledge/reader/vectors.py", "gezel_knowledge.reader._compiled"),
    # Optional third-party extras, named by the caller (pyarrow, bm25s, the frameworks).
    ("gezel_knowledge/extras.py", "<dynamic>"),
    # The SQLite binding the indexes use: sqlite3 or pysqlite3.
    ("gezel_knowledge/indexes/_storage.py", "<dynamic>"),
}

_IMPORT_FUNCTIONS = {"import_module", "__import__"}


def _dynamic_own_imports(source: str, where: str) -> set[tuple[str, str]]:
    """``(where, module)`` of every ``importlib.import_module``/``__import__`` call that names
    a gezk/gezel_knowledge module or a relative one, and ``(where, "<dynamic>")`` of every one
    whose name is not a string literal; literal third-party names are fine."""
    found: set[tuple[str, str]] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name not in _IMPORT_FUNCTIONS:
            continue
        target = node.args[0]
        if not isinstance(target, ast.Constant) or not isinstance(target.value, str):
            found.add((where, "<dynamic>"))
        elif target.value.startswith(".") or target.value.split(".")[0] in PACKAGES:
            found.add((where, target.value))
    return found


def test_every_import_by_name_of_the_project_is_on_the_allow_list() -> None:
    found = {
        hit
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for hit in _dynamic_own_imports(
            path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix()
        )
    }
    assert found - _DYNAMIC_IMPORTS_ALLOWED == set(), "a hidden import: list it with a reason"
    assert _DYNAMIC_IMPORTS_ALLOWED - found == set(), "an allow-list entry no longer needed"


def test_the_dynamic_import_check_sees_imports_by_name() -> None:
    source = (
        "import importlib\n"
        "from importlib import import_module\n"
        "importlib.import_module('numpy')\n"
        "def f(name: str) -> None:\n"
        "    importlib.import_module('gezel_knowledge.install.home')\n"
        "    import_module('.sibling', 'gezk')\n"
        "    __import__('gezk.ids')\n"
        "    importlib.import_module(f'gezel_knowledge.cli.{name}')\n"
        "    importlib.import_module(name)\n"
    )
    assert _dynamic_own_imports(source, "m.py") == {
        ("m.py", "gezel_knowledge.install.home"),
        ("m.py", ".sibling"),
        ("m.py", "gezk.ids"),
        ("m.py", "<dynamic>"),
    }
