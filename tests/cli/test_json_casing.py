"""Every ``--json`` is camelCase (issue 10 point 5): one casing, like the spec's documents."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.cli._output import camel_case, to_jsonable
from tests.compiler.trees import write_tree

CAMEL = re.compile(r"^[a-z][a-zA-Z0-9]*$")


def _keys(value: Any, path: str = "$") -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield path, key
            yield from _keys(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from _keys(inner, f"{path}[{i}]")


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    assert code in (0, 1), argv
    return json.loads(out)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    source = write_tree(
        tmp_path / "src",
        {"a.md": "# Alpha lattice\n\nText about alpha.\n", "b/c.md": "# Gamma\n\nLattice.\n"},
    )
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.md").write_text("# Lattice notes\n\nsome_function here\n")
    return source


def test_every_json_output_is_camel_case(
    world: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = str(tmp_path / "demo.gezk")
    hash_embedder = ["--embedder", "test-hash-embed@1"]
    ws = str(tmp_path / "ws")
    commands: list[list[str]] = [
        ["build", str(world), "-o", archive, *hash_embedder, "--created-at", "2026-12-01"],
        ["install", archive],
        ["inspect", archive],
        ["validate", archive],
        ["topics", archive],
        ["list", archive],
        ["list"],
        ["search", archive, "lattice"],
        ["read", archive, "a"],
        ["find", "lattice"],
        ["status"],
        ["disable", "demo"],
        ["enable", "demo@1.0.0"],
        ["index", ws, *hash_embedder],
        ["index-search", ws, "lattice", *hash_embedder],
        ["memory", "add", "the lattice is blue", *hash_embedder],
        ["memory", "search", "lattice", *hash_embedder],
        ["memory", "rebuild", *hash_embedder],
        ["models"],
        ["version"],
        ["keygen", str(tmp_path / "k.pem")],
        ["sign", archive, "--key", str(tmp_path / "k.pem"), "-o", str(tmp_path / "s.gezk")],
    ]
    bad: list[str] = []
    for argv in commands:
        document = _json(capsys, *argv)
        manifest = document.get("manifest") if isinstance(document, dict) else None
        for where, key in _keys(document):
            # manifest.json is emitted verbatim; the spec defines its keys (also camelCase).
            inside_manifest = manifest is not None and where.startswith("$.manifest")
            if not CAMEL.match(key) and not inside_manifest:
                bad.append(f"{argv[0]} {where}.{key}")
    assert bad == []


@dataclass(frozen=True)
class _Hit:
    line_start: int
    meta: dict[str, int]


def test_dataclass_fields_are_renamed_and_mapping_keys_kept() -> None:
    assert to_jsonable(_Hit(3, {"free_form": 1})) == {"lineStart": 3, "meta": {"free_form": 1}}
    assert camel_case("p50_ms") == "p50Ms"
    assert camel_case("already") == "already"
