"""benchmarks/index.py runs on a small workspace, its numpy cross-check agrees, and its
no-change re-index reads nothing again."""

from __future__ import annotations

from pathlib import Path

from tests.benchmark_modules import load_benchmark


def test_index_benchmark_small_run(tmp_path: Path) -> None:
    module = load_benchmark("index")
    result = module.run(60, 9, tmp_path)
    assert result["files"] == 60
    assert result["chunks"] > 60
    assert result["knn_top10_agreement"] == 1.0
    # A re-index with nothing changed reads no file again and keeps every file.
    assert result["nochange_reindex_reread"] == 0
    assert result["nochange_reindex_unchanged"] == 60
    assert isinstance(result["nochange_reindex_s"], float)
