"""benchmarks/search.py and benchmarks/floors.py run end to end on small inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmark_modules import load_benchmark


def test_search_benchmark_reports_every_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_benchmark("search")
    argv = ["--chunks", "3000", "--queries", "4", "--workdir", str(tmp_path), "--json"]
    argv += ["--faiss-k", "1024", "2048"]
    assert bench.main(argv) == 0
    results = {r["kind"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    assert set(results) == {"random", "clustered"}
    for r in results.values():
        assert r["chunks"] == 3000
        assert r["candidates"] == 1024
        paths = r["paths"]
        reader = {"reader hamming", "reader LUT", "reader LUT, numpy kernels"}
        assert reader | {"reader LUT, first search"} <= set(paths)
        for p in paths.values():
            assert isinstance(p["cpu_ms"], float)
            assert 0.0 <= p["recall_at_10"] <= 1.0
        # Compiled or numpy kernels, hot or first search: the same hits, so the same recall.
        assert len({paths[name]["recall_at_10"] for name in reader}) == 1
        assert paths["exact float32 scan (numpy)"]["recall_at_10"] == 1.0
        lut = paths["reader LUT"]["recall_at_10"]
        assert lut <= r["int8_exhaustive_recall_at_10"] + 1e-9
        assert lut <= r["shortlist_recall_at_10"] + 1e-9
        assert r["hybrid_ms_p95"] >= r["hybrid_ms_p50"]
        assert isinstance(r["lut_vs_floor"], float)
        assert len(r["load_average"]) == 6
        # Goal 7: within budget; a budget without room for int8 rows keeps only the bits.
        assert 0 < r["resident_int8_bytes"] < r["resident_bytes"] <= r["budget_bytes"]
        assert r["small_budget_resident_int8_bytes"] == 0
        assert r["small_budget_resident_bytes"] <= r["small_budget_bytes"]
        if r["faiss"]:
            assert {"faiss @1024", "faiss @2048"} <= set(paths)
            assert isinstance(r["hamming_vs_faiss"], float)
            assert r["lut_matching_faiss_k"] in (1024, 2048)
        else:
            assert not any(name.startswith("faiss") for name in paths)
            assert r["hamming_vs_faiss"] is None
    # Document-like clusters: the two stages find each query's cluster.
    assert results["clustered"]["paths"]["reader LUT"]["recall_at_10"] == 1.0
    assert results["clustered"]["shortlist_recall_at_10"] == 1.0


def test_search_benchmark_says_when_faiss_is_absent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = load_benchmark("search")
    monkeypatch.setattr(bench, "_faiss", lambda: None)
    argv = ["--chunks", "2000", "--queries", "2", "--kind", "random", "--workdir", str(tmp_path)]
    assert bench.main(argv) == 0
    out = capsys.readouterr().out
    assert "faiss: not installed (pip install -e '.[bench]')" in out
    assert "goal 1, reader hamming / faiss @1024: not measured" in out
    assert "goal 2, stage 1 LUT / floor:" in out
    assert "goal 7, handle holds" in out


def test_floors_benchmark_backs_the_configured_floors(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_benchmark("floors")
    assert bench.main(["--hash-rows", "5000", "--hash-queries", "20", "--json"]) == 0
    for r in json.loads(capsys.readouterr().out):
        assert r["current_floor"] is not None, r["profile"]
        assert r["current_floor"] >= r["suggested_floor"] - 0.051
        assert r["related_kept"] == 1.0
        assert r["unrelated_top1"]["max"] < r["current_floor"] <= r["related"]["min"]
