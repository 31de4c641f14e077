"""``benchmarks/stage1.py`` runs, checks its kernels against the numpy reference, and reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "stage1.py"


def test_stage1_benchmark_small_run_reports_every_kernel() -> None:
    args = ["--n", "3000", "--d", "100", "--k", "64", "--repeat", "2", "--json"]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=True
    )
    report = json.loads(done.stdout)
    assert (report["n"], report["d"], report["k"], report["threads"]) == (3000, 100, 64, 1)
    kernels = {
        "floor",
        "LUT top-K (numpy)",
        "hamming top-K (numpy)",
        "LUT operands",
        "LUT numpy tables",
        "float32 matmul top-K",
    }
    if report["compiled"]:
        kernels |= {"LUT top-K (compiled)", "hamming top-K (compiled)"}
        assert report["check"]["compiled_equal_numpy"] is True
    assert set(report["kernels"]) == kernels
    assert all(isinstance(row["cpu_median_ms"], float) for row in report["kernels"].values())
    assert isinstance(report["lut_vs_floor"], float)
    assert report["check"]["hamming_rows_equal_reference"] is True
    check = report["check"]
    assert 0 < check["lut_max_abs_score_error"] <= check["lut_score_error_bound"]


def test_stage1_benchmark_has_help() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, check=True
    )
    assert "--repeat" in done.stdout
    assert "--json" in done.stdout
