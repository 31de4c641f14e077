"""benchmarks/find.py runs on a small corpus and its exact numpy cross-check agrees."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tests.benchmark_modules import load_benchmark


def test_find_benchmark_small_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "gezel-home"))
    module = load_benchmark("find")
    args = argparse.Namespace(
        catalogs=3, docs=30, queries=4, embedder="hash", keep=None, cli_runs=1
    )
    result = module.run(args, tmp_path / "work")
    assert result["documents"] == 90
    assert result["chunks"] >= 90
    # At this size every chunk reaches the int8 rerank: routed search equals the exact scan.
    assert result["vector_recall_at_10"] == 1.0
    assert isinstance(result["find_warm_p50_ms"], float)
