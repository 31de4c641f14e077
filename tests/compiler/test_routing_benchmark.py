"""benchmarks/routing.py runs end to end on a small clustered corpus."""

from __future__ import annotations

import json

import pytest

from gezel_knowledge.compiler.passes import kmeans
from tests.benchmark_modules import load_benchmark


def test_routing_benchmark_small_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The benchmark scales the routing centroids; keep the module's constant for other tests.
    monkeypatch.setattr(kmeans, "CENTROID_CHUNKS_PER", kmeans.CENTROID_CHUNKS_PER)
    module = load_benchmark("routing", monkeypatch)
    args = ["--clusters", "8", "--documents", "12", "--sections", "2", "--queries", "3"]
    assert module.main([*args, "--shard-target", "24", "--budgets", "1,2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["queries"] == 24
    for run in report["runs"]:
        assert run["documents"] == 96
        assert run["shards"] > 6  # more than the explicit budget: evaluate compares them
        budgets = run["budgets"]
        assert [b["budget"] for b in budgets] == [1, 2, run["shards"]]
        every = budgets[-1]
        assert every["overlap_at_10"] == 1.0
        assert every["recall_at_10"] == run["every_shard_recall_at_10"]
        recalls = [b["recall_at_10"] for b in budgets]
        assert recalls == sorted(recalls)  # a bigger budget never finds less
