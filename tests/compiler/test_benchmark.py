"""benchmarks/compile.py runs end to end on a tiny corpus."""

from __future__ import annotations

import json

import pytest

from tests.benchmark_modules import load_benchmark


def test_compile_benchmark_small_run(capsys: pytest.CaptureFixture[str]) -> None:
    module = load_benchmark("compile")
    assert module.main(["--documents", "40", "--sections", "2", "--scales", "0.5,1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    small, large = report["runs"]
    assert (small["documents"], large["documents"]) == (20, 40)
    assert large["chunks"] == 2 * large["documents"]  # one chunk per section
    assert large["vector_bytes"] == large["chunks"] * 384 * 4
    assert 0 < large["outside_embedder_share"] < 1
    assert report["reference_hash_embed"]["inputs"] > 0
    assert report["rss_ratio"] == large["peak_rss_bytes"] / small["peak_rss_bytes"] > 0
    assert large["scratch_peak_bytes"] >= 0
    assert large["jobs"] == 1
