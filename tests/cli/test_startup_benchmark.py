"""benchmarks/startup.py runs and prints each ratio next to its goal (behaviour, not timings)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from tests.compiler.trees import write_tree

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "startup.py"


def test_startup_benchmark_small_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = write_tree(tmp_path / "src", {"a.md": "# Signing\n\nSign a catalog with a key.\n"})
    catalog = tmp_path / "small.gezk"
    argv = ["build", str(source), "-o", str(catalog), "--embedder", "test-hash-embed@1"]
    assert main([*argv, "--created-at", "2026-12-01", "--quiet"]) == 0
    spec = importlib.util.spec_from_file_location("bench_startup", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look themselves up
    spec.loader.exec_module(module)
    result = module.run(argparse.Namespace(runs=1, catalog=str(catalog)))
    rows = {r["name"]: r for r in result["rows"]}
    assert rows["gezel-knowledge search"]["goal"] == 3.0
    assert rows["gezel-knowledge --help"]["goal"] == 1.5
    assert rows["gezel-knowledge search"]["reference"] == "python -c 'import numpy, onnxruntime'"
    assert all(r["cpu_s"] > 0 for r in result["rows"])
    uncached = rows["search, caller's bytecode settings"]
    assert (uncached["goal"], uncached["met"]) == (None, None)
    assert uncached["reference"] == "python -c 'import numpy, onnxruntime'"
    capsys.readouterr()
    module.print_table(result)
    out = capsys.readouterr().out
    assert "load average before" in out
    assert "gezel-knowledge version" in out
    assert "(no goal)" in out
