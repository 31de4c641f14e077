"""benchmarks/search.py and benchmarks/floors.py run end to end on small inputs."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", ROOT / "benchmarks" / f"{name}.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_search_benchmark_reports_every_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _load("search")
    argv = ["--chunks", "3000", "--queries", "4", "--workdir", str(tmp_path), "--json"]
    assert bench.main(argv) == 0
    results = {r["kind"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    assert set(results) == {"random", "clustered"}
    for r in results.values():
        assert r["chunks"] == 3000
        assert r["candidates"] == 1024
        assert r["hybrid_ms_p95"] >= r["hybrid_ms_p50"] > 0
        assert 0.0 <= r["recall_at_10"] <= r["int8_exhaustive_recall_at_10"] + 1e-9
    # Document-like clusters: the two stages find each query's cluster.
    assert results["clustered"]["recall_at_10"] == 1.0
    assert results["clustered"]["shortlist_recall_at_10"] == 1.0


def test_floors_benchmark_backs_the_configured_floors(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load("floors")
    assert bench.main(["--hash-rows", "5000", "--hash-queries", "20", "--json"]) == 0
    for r in json.loads(capsys.readouterr().out):
        assert r["current_floor"] is not None, r["profile"]
        assert r["current_floor"] >= r["suggested_floor"] - 0.051
        assert r["related_kept"] == 1.0
        assert r["unrelated_top1"]["max"] < r["current_floor"] <= r["related"]["min"]
