"""benchmarks/quality.py runs end to end on the tiny corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmark_modules import load_benchmark


def test_quality_benchmark_reports_modes_and_baselines(
    beir_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_benchmark("quality")
    argv = ["--folder", str(beir_folder), "--embedder", "test-hash-embed@1"]
    argv += ["--cache-dir", str(tmp_path), "--json"]
    assert bench.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    names = [r["name"] for r in out["report"]["results"]]
    assert names == ["hybrid", "vector", "keyword", "bm25", "exact-dense"]
    assert out["machine_before"]["cores"] >= 1
    assert len(out["machine_after"]["load_average"]) == 3
    assert isinstance(out["seconds"]["wall"], float)


def test_quality_benchmark_prints_the_table_and_the_load(
    beir_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_benchmark("quality")
    argv = ["--folder", str(beir_folder), "--embedder", "test-hash-embed@1"]
    assert bench.main([*argv, "--cache-dir", str(tmp_path), "--no-baselines"]) == 0
    out = capsys.readouterr().out
    assert "nDCG@10" in out
    assert "exact-dense" not in out
    assert "load average" in out.splitlines()[-1]


def test_quality_benchmark_without_the_folder_says_where_to_point_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert load_benchmark("quality").main(["--folder", str(tmp_path)]) == 2
    assert "--folder" in capsys.readouterr().err
