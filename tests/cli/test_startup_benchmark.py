"""benchmarks/startup.py runs and prints each ratio next to its goal (behaviour, not timings)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from tests.benchmark_modules import load_benchmark
from tests.compiler.trees import write_tree


def test_startup_benchmark_small_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = write_tree(tmp_path / "src", {"a.md": "# Signing\n\nSign a catalog with a key.\n"})
    catalog = tmp_path / "small.gezk"
    argv = ["build", str(source), "-o", str(catalog), "--embedder", "test-hash-embed@1"]
    assert main([*argv, "--created-at", "2026-12-01", "--quiet"]) == 0
    module = load_benchmark("startup", monkeypatch)
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
