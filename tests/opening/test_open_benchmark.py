"""benchmarks/open.py runs end to end on a small archive and reports its ratio to the goal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmark_modules import load_benchmark


def test_open_benchmark_small_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    module = load_benchmark("open")
    argv = ["--docs", "20", "--size-mib", "2", "--reopens", "3", "--json", "--work", str(tmp_path)]
    assert module.main(argv) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["archive_bytes"] > 1.9 * 1024 * 1024
    assert figures["goal"] == 0.10
    assert figures["ratio_cpu"] == figures["reopen_cpu_s"] / figures["hash_cpu_s"]
    # The padded archive is a valid catalog: it was deeply validated and then reopened.
    assert len([p for p in (tmp_path / "cache").iterdir() if not p.name.startswith(".")]) == 1
