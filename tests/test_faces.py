"""Package faces list each name once for the run time and once for type checkers, and the two
agree; every import of a face's name anywhere in the repository resolves; faces stay lazy."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import gezel_knowledge

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gezk", "gezel_knowledge")
FENCE = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def _faces() -> list[Path]:
    """Every package ``__init__`` built with ``lazy_face``."""
    return sorted(
        path
        for package in PACKAGES
        for path in (ROOT / package).rglob("__init__.py")
        if "lazy_face(" in path.read_text(encoding="utf-8")
    )


def _module_name(path: Path) -> str:
    return ".".join(path.parent.relative_to(ROOT).parts)


def _declared(path: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The ``(module, name)`` pairs of the face's type-checking imports and of its table."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typed: list[tuple[str, str]] = []
    table: list[tuple[str, str]] = []
    for node in tree.body:
        if not (isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"):
            continue
        for item in node.body:
            assert isinstance(item, ast.ImportFrom), ast.unparse(item)
            for alias in item.names:
                # ``Name as Name`` marks the name as re-exported for type checkers.
                assert alias.asname == alias.name, f"{path}: {ast.unparse(item)}"
                typed.append((str(item.module), alias.name))
        for item in ast.walk(ast.Module(body=node.orelse, type_ignores=[])):
            if isinstance(item, ast.Call) and ast.unparse(item.func) == "lazy_face":
                modules = item.args[2]
                assert isinstance(modules, ast.Dict)
                for key, value in zip(modules.keys, modules.values, strict=True):
                    assert isinstance(key, ast.Constant)
                    assert isinstance(value, ast.Tuple)
                    table += [(str(key.value), str(ast.literal_eval(e))) for e in value.elts]
    return typed, table


def test_every_lazy_face_uses_the_table_that_lists_names_once() -> None:
    older = [
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in (ROOT / package).rglob("__init__.py")
        if "lazy_exports(" in path.read_text(encoding="utf-8")
    ]
    assert older == [], "build these faces with gezk._lazy.lazy_face"


def test_there_are_faces_to_check() -> None:
    names = [_module_name(path) for path in _faces()]
    assert "gezel_knowledge" in names
    assert "gezk" in names
    assert "gezel_knowledge.install" in names


@pytest.mark.parametrize("path", _faces(), ids=_module_name)
def test_a_face_lists_each_name_once_for_the_run_time_and_once_for_type_checkers(
    path: Path,
) -> None:
    typed, table = _declared(path)
    names = [name for _, name in table]
    assert len(names) == len(set(names)), "a name is listed twice in the table"
    assert sorted(typed) == sorted(table), "the TYPE_CHECKING imports and the table differ"
    face = importlib.import_module(_module_name(path))
    assert face.__all__ == sorted(names)
    for module, name in table:
        assert getattr(face, name) is getattr(importlib.import_module(module), name), name
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = face.no_such_name
    # Importing a submodule sets it as the package's attribute, which would hide a name.
    submodules = {p.stem for p in path.parent.iterdir() if p.suffix == ".py" or p.is_dir()}
    assert sorted(set(names) & submodules) == []


def _face_imports() -> list[tuple[str, str, str]]:
    """``(where, face, name)`` of every ``from <package> import <name>`` in the repository."""
    sources: list[tuple[str, str]] = []
    for folder in (*PACKAGES, "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            sources.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    sources.append(("noxfile.py", (ROOT / "noxfile.py").read_text(encoding="utf-8")))
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for block in FENCE.findall(page.read_text(encoding="utf-8")):
            sources.append((str(page.relative_to(ROOT)), block))
    found: list[tuple[str, str, str]] = []
    packages = {_module_name(path) for p in PACKAGES for path in (ROOT / p).rglob("__init__.py")}
    for where, source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in packages:
                found += [(f"{where}:{node.lineno}", node.module, a.name) for a in node.names]
    return found


def test_every_import_from_a_package_face_resolves() -> None:
    imports = _face_imports()
    assert len(imports) > 100
    missing = []
    for where, face, name in imports:
        module = importlib.import_module(face)
        exported = getattr(module, "__all__", None)
        submodule = importlib.util.find_spec(f"{face}.{name}") is not None
        if not submodule and (exported is None or name not in exported):
            missing.append(f"{where}: {face} does not export {name}")
    assert missing == []


def test_importing_the_library_imports_only_its_faces() -> None:
    code = (
        "import sys, gezel_knowledge, gezk\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('gezk', 'gezel_knowledge')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['gezel_knowledge', 'gezk', 'gezk._lazy']"


def test_the_top_level_api_is_the_one_docs_architecture_lists() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The top-level API", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    listed = {name for row in rows for name in re.findall(r"`([A-Za-z_]+)`", row)}
    assert sorted(set(gezel_knowledge.__all__) - listed) == []
    assert sorted(listed - set(gezel_knowledge.__all__)) == []


def test_the_top_level_api_is_typed_and_documented() -> None:
    for name in gezel_knowledge.__all__:
        value = getattr(gezel_knowledge, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert value.__doc__, name
        if inspect.isfunction(value):
            hints = typing.get_type_hints(value)
            assert "return" in hints, name
            parameters = inspect.signature(value).parameters
            assert set(parameters) <= set(hints), name
