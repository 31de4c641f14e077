"""benchmarks/hybrid.py and benchmarks/floors.py --beir run end to end on small inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gezel_knowledge.embedders import HashEmbedder
from tests.benchmark_modules import load_benchmark


def test_hybrid_benchmark_times_both_modes_on_a_sharded_catalog(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_benchmark("hybrid")
    argv = ["--chunks", "4000", "--shards", "2", "--queries", "5"]
    assert bench.main([*argv, "--workdir", str(tmp_path), "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert (run["chunks"], run["shards"]) == (4000, 2)
    for mode in ("vector", "hybrid", "keyword"):
        assert run[mode]["wall_p95"] >= run[mode]["wall_p50"] > 0
    assert run["ratio_cpu_p95"] == pytest.approx(
        run["hybrid"]["cpu_p95"] / run["vector"]["cpu_p95"]
    )
    assert len(list((tmp_path / "c4000-s2" / "index" / "shards").glob("*.db"))) == 2


def test_hybrid_benchmark_in_chinese_writes_a_chinese_catalog_and_asks_chinese_questions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_benchmark("hybrid")
    argv = ["--chunks", "400", "--queries", "3", "--language", "zh", "--workdir", str(tmp_path)]
    assert bench.main([*argv, "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert run["keyword_index_bytes"] > 0
    root = tmp_path / "c400-s1-zh"
    assert json.loads((root / "manifest.json").read_text())["language"] == "zh"
    rng = bench.np.random.default_rng(0)
    (text,) = bench._zh_texts(rng, bench._zh_vocabulary(), 1, 120)
    # No spaces: an FTS5 term is a whole clause; 120 words, six to a clause.
    assert " " not in text
    assert text.count("，") + text.count("。") == 20
    assert all("\u4e00" <= ch <= "\u9fff" for ch in text.replace("，", "").replace("。", ""))


def test_floors_on_a_corpus_count_relevant_and_off_topic_questions(tmp_path: Path) -> None:
    bench = load_benchmark("floors")
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    docs = [{"_id": f"d{i}", "title": f"Doc {i}", "text": f"Text number {i}."} for i in range(5)]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    # The hash embedder scores a passage's own embed input 1.0: d1's question is its text.
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q", "text": "Doc 1\nText number 1."}))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq\td1\t1\n")
    result = bench.measure_beir(HashEmbedder(), folder, None, cache_dir=tmp_path / "cache")
    assert result["relevant_documents"] == 1
    assert result["off_topic_questions"] >= 50
    by_floor = {row["floor"]: row for row in result["floors"]}
    assert by_floor[0.35]["relevant_kept"] == 1.0
    # Random hash vectors: no off-topic question reaches 0.35.
    assert by_floor[0.35]["off_topic_with_a_hit"] == 0.0
