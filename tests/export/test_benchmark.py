"""benchmarks/parquet.py runs end to end on a tiny corpus."""

from __future__ import annotations

import json

import pytest

from tests.benchmark_modules import load_benchmark


def test_parquet_benchmark_small_run(capsys: pytest.CaptureFixture[str]) -> None:
    module = load_benchmark("parquet")
    assert module.main(["--documents", "20", "--sections", "2", "--scales", "1", "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert (run["build"]["documents"], run["build"]["chunks"]) == (20, 40)
    assert run["export"]["rows"] == run["naive"]["rows"] == 40
    assert run["load-jsonl"]["rows"] == run["load-parquet"]["rows"] == 20
    assert run["export"]["peak_rss_bytes"] > 0
    assert run["export"]["bytes"] > 0
