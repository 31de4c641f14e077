"""benchmarks/browse.py runs end to end on a small catalog."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmark_modules import load_benchmark


def test_browse_benchmark_times_pages_and_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_benchmark("browse")
    argv = ["--chunks", "2000", "--pages", "3", "--queries", "4", "--workdir", str(tmp_path)]
    assert bench.main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["chunks"] == 2000
    assert set(report["pages"]) == {"library", "catalog", "topic", "document", "document json",
                                    "cite"}  # fmt: skip
    for figures in report["pages"].values():
        assert figures["cpu_max"] >= figures["cpu_p50"] >= 0
    assert report["body"]["kib"] == 32
    assert report["body"]["cpu_p50"] > 0
    search = report["search"]
    assert search["ratio_p50"] == pytest.approx(
        search["browser_cpu_p50"] / search["library_cpu_p50"]
    )
