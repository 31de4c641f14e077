"""End-to-end evaluations of the tiny corpus with the hash embedder (answers worked out by hand
in ``conftest.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from gezel_knowledge import open_catalog
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.evaluate import (
    EvalReport,
    build_corpus_catalog,
    evaluate_beir,
    evaluate_catalog,
    load_judgements,
)
from gezel_knowledge.evaluate._rate import RateProgress, format_seconds
from gezel_knowledge.evaluate.baselines import exact_dense_rankings
from gezel_knowledge.progress import ProgressEvent
from tests.evaluate.conftest import write_beir


@pytest.fixture
def report(beir_folder: Path, tmp_path: Path) -> EvalReport:
    return evaluate_beir(
        beir_folder,
        embedder=HashEmbedder(),
        cache_dir=tmp_path / "cache",
        bm25=True,
        exact_dense=True,
    )


def test_every_mode_and_both_baselines_are_reported(report: EvalReport) -> None:
    assert [r.name for r in report.results] == [
        "hybrid",
        "vector",
        "keyword",
        "bm25",
        "exact-dense",
    ]
    assert [r.kind for r in report.results] == ["mode"] * 3 + ["baseline"] * 2
    assert (report.documents, report.passages, report.shards, report.queries) == (8, 8, 1, 3)
    assert (report.k, report.split, report.judged_missing) == (100, "test", 0)
    assert report.profile == "test-hash-embed@1"
    assert report.cached is False


@pytest.mark.parametrize("name", ["hybrid", "keyword", "bm25"])
def test_word_matching_rankings_put_each_answer_first(report: EvalReport, name: str) -> None:
    # Each question shares a word with its one relevant document only (or, for q-roses, far
    # more words with it than with any other), so the answer is first: every metric is 1.
    # q-long's answer is stored under a mapped id, and the judgement follows the mapping.
    scores = report.result(name).scores
    assert (scores.ndcg_at_10, scores.recall_at_10, scores.recall_at_100, scores.mrr_at_10) == (
        pytest.approx(1.0),
        1.0,
        1.0,
        1.0,
    )


def test_vector_mode_finds_only_the_exact_embed_input(report: EvalReport) -> None:
    # Hash vectors: q-roses is the roses passage's embed input (cosine 1); the other two
    # questions score near 0 against everything, under the 0.35 floor, so they get nothing.
    vector = report.result("vector")
    assert vector.scores.ndcg_at_10 == pytest.approx(1 / 3)
    assert vector.scores.recall_at_100 == pytest.approx(1 / 3)
    assert vector.scores.mrr_at_10 == pytest.approx(1 / 3)
    assert vector.mean_documents == pytest.approx(1 / 3)
    assert vector.short_queries == 3  # fewer than the 8 documents the catalog holds
    assert vector.note is None


def test_exact_dense_ranks_every_document_and_matches_the_catalog(report: EvalReport) -> None:
    dense = report.result("exact-dense")
    assert dense.mean_documents == 8
    assert dense.scores.recall_at_100 == 1.0
    assert dense.latency is None
    check = report.dense_check
    assert check is not None
    # The build left every passage vector in the vector cache, and the rebuilt embed inputs
    # quantize to the catalog's own int8 rows.
    assert (check.passages, check.from_cache, check.embedded, check.int8_mismatches) == (
        8,
        8,
        0,
        0,
    )


def test_exact_dense_puts_an_exact_match_first(beir_folder: Path, tmp_path: Path) -> None:
    built = build_corpus_catalog(
        beir_folder / "corpus.jsonl", embedder=HashEmbedder(), cache_dir=tmp_path
    )
    judged = load_judgements(beir_folder / "queries.jsonl", beir_folder / "qrels" / "test.tsv")
    roses = [q for q in judged.queries if q.id == "q-roses"]
    with open_catalog(built.path) as catalog:
        rankings, check = exact_dense_rankings(catalog, HashEmbedder(), roses, 3)
    assert rankings[0][0] == "roses"
    assert len(rankings[0]) == 3
    assert check.int8_mismatches == 0


def test_latency_is_measured_for_modes_only(report: EvalReport) -> None:
    for r in report.results:
        if r.kind == "mode":
            assert r.latency is not None
            assert 0 <= r.latency.p50_ms <= r.latency.p95_ms
            assert 0 <= r.latency.cpu_p50_ms <= r.latency.cpu_p95_ms
        else:
            assert r.latency is None


def test_one_shard_has_no_routing_comparison(report: EvalReport) -> None:
    assert report.shard_budget == 6
    assert all(r.routing is None for r in report.results)


def test_routed_and_every_shard_results_are_compared(beir_folder: Path, tmp_path: Path) -> None:
    # One passage per shard: 8 shards, more than the budget of 6, so routing chooses.
    report = evaluate_beir(
        beir_folder,
        embedder=HashEmbedder(),
        cache_dir=tmp_path / "cache",
        shard_target=1,
        modes=["vector", "keyword"],
    )
    assert report.shards == 8
    vector = report.result("vector")
    assert vector.routing is not None
    assert (vector.routing.shards, vector.routing.budget) == (8, 6)
    # The roses shard's centroid is the roses vector itself, so routing keeps it: routed and
    # every-shard vector results agree.
    assert vector.routing.every_shard == vector.scores
    assert vector.routing.overlap_at_10 == 1.0
    assert vector.routing.overlap_at_100 == 1.0
    assert report.result("keyword").routing is None  # keyword mode always scans every shard


def test_judged_documents_missing_from_the_catalog_are_counted(tmp_path: Path) -> None:
    folder = write_beir(
        tmp_path / "b", qrels=[("q-tulip", "tulips", 1), ("q-tulip", "not-in-corpus", 1)]
    )
    report = evaluate_beir(
        folder, embedder=HashEmbedder(), cache_dir=tmp_path / "c", modes=["keyword"]
    )
    assert report.judged_missing == 1
    assert report.result("keyword").scores.recall_at_10 == 0.5


def test_a_catalog_without_its_query_embedder_says_why(beir_folder: Path, tmp_path: Path) -> None:
    built = build_corpus_catalog(
        beir_folder / "corpus.jsonl", embedder=HashEmbedder(), cache_dir=tmp_path
    )
    judged = load_judgements(beir_folder / "queries.jsonl", beir_folder / "qrels" / "test.tsv")
    with open_catalog(built.path, embedder=None) as catalog:
        report = evaluate_catalog(catalog, judged, modes=["vector"], exact_dense=True)
    vector = report.result("vector")
    assert vector.scores.ndcg_at_10 == 0.0
    assert vector.note is not None
    assert vector.note.startswith("semantic search unavailable")
    dense = report.result("exact-dense")
    assert dense.note is not None
    assert "query embedder" in dense.note
    assert report.dense_check is None


def test_the_catalog_path_scores_as_the_beir_path(beir_folder: Path, tmp_path: Path) -> None:
    via_folder = evaluate_beir(beir_folder, embedder=HashEmbedder(), cache_dir=tmp_path)
    assert via_folder.catalog_path is not None
    judged = load_judgements(beir_folder / "queries.jsonl", beir_folder / "qrels" / "test.tsv")
    with open_catalog(via_folder.catalog_path, embedder=HashEmbedder()) as catalog:
        direct = evaluate_catalog(catalog, judged)
    assert [r.scores for r in direct.results] == [r.scores for r in via_folder.results]


def test_bad_arguments_are_typed_errors(beir_folder: Path, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as small:
        evaluate_beir(beir_folder, embedder=HashEmbedder(), cache_dir=tmp_path, k=10)
    assert small.value.reason == "invalid-limit"
    with pytest.raises(InvalidInput) as mode:
        evaluate_beir(beir_folder, embedder=HashEmbedder(), cache_dir=tmp_path, modes=["fuzzy"])
    assert mode.value.reason == "invalid-mode"


def test_progress_reports_each_mode_to_the_end(beir_folder: Path, tmp_path: Path) -> None:
    events: list[ProgressEvent] = []
    evaluate_beir(
        beir_folder,
        embedder=HashEmbedder(),
        cache_dir=tmp_path,
        bm25=True,
        exact_dense=True,
        progress=events.append,
    )
    last = {e.step: e for e in events if e.job == "eval"}
    assert set(last) == {"hybrid", "vector", "keyword", "bm25", "exact dense"}
    for step in ("hybrid", "vector", "keyword"):
        assert (last[step].done, last[step].total, last[step].unit) == (3, 3, "queries")
    for step in ("bm25", "exact dense"):
        assert (last[step].done, last[step].total) == (1, 1)
    assert any(e.job == "build" for e in events)


def test_rate_progress_adds_rate_and_time_left() -> None:
    seen: list[ProgressEvent] = []
    clock = iter([100.0, 102.0, 104.0])
    rate = RateProgress(seen.append, clock=lambda: next(clock))
    rate(ProgressEvent("eval", "hybrid", 0, 30, "queries"))
    rate(ProgressEvent("eval", "hybrid", 10, 30, "queries", "warm"))
    rate(ProgressEvent("eval", "hybrid", 30, 30, "queries"))
    # 10 queries in 2 s: 5 a second, 20 left take 4 s; then 30 in 4 s, nothing left.
    assert [e.message for e in seen] == [
        "",
        "warm; 5.0 queries/s, 4s left",
        "7.5 queries/s, 0s left",
    ]


def test_format_seconds() -> None:
    assert [format_seconds(s) for s in (4.4, 185, 3720)] == ["4s", "3m05s", "1h02m"]


def test_exact_dense_embeds_passages_the_cache_lacks(
    beir_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = build_corpus_catalog(
        beir_folder / "corpus.jsonl", embedder=HashEmbedder(), cache_dir=tmp_path / "eval"
    )
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "another-home"))  # an empty vector cache
    judged = load_judgements(beir_folder / "queries.jsonl", beir_folder / "qrels" / "test.tsv")
    with open_catalog(built.path) as catalog:
        _, first = exact_dense_rankings(catalog, HashEmbedder(), judged.queries, 100)
        _, second = exact_dense_rankings(catalog, HashEmbedder(), judged.queries, 100)
    assert (first.from_cache, first.embedded, first.int8_mismatches) == (0, 8, 0)
    assert (second.from_cache, second.embedded) == (8, 0)  # the first call filled the cache


class _OtherVectors(HashEmbedder):
    """The hash profile, but passage vectors that are not the ones the catalog was built with."""

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return super().embed_passages([t + " (changed)" for t in texts])


def test_exact_dense_reports_vectors_that_differ_from_the_catalog(
    beir_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = build_corpus_catalog(
        beir_folder / "corpus.jsonl", embedder=HashEmbedder(), cache_dir=tmp_path / "eval"
    )
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "another-home"))
    judged = load_judgements(beir_folder / "queries.jsonl", beir_folder / "qrels" / "test.tsv")
    with open_catalog(built.path, embedder=_OtherVectors()) as catalog:
        report = evaluate_catalog(catalog, judged, modes=["keyword"], exact_dense=True)
    assert report.dense_check is not None
    assert report.dense_check.int8_mismatches == 8
    note = report.result("exact-dense").note
    assert note is not None
    assert "8 of 8 passages differ from the catalog's int8 vectors" in note
