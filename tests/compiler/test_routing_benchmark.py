"""benchmarks/routing.py runs end to end on a small clustered corpus."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from gezel_knowledge.compiler import kmeans

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "routing.py"


def test_routing_benchmark_small_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The benchmark scales the routing centroids; keep the module's constant for other tests.
    monkeypatch.setattr(kmeans, "CENTROID_CHUNKS_PER", kmeans.CENTROID_CHUNKS_PER)
    spec = importlib.util.spec_from_file_location("bench_routing", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look themselves up
    spec.loader.exec_module(module)
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
