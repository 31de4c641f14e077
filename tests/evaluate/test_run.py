"""End-to-end evaluations of the tiny corpus with the hash embedder (answers worked out by hand
in ``conftest.py``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from gezel_knowledge import open_catalog
from gezel_knowledge import progress as progress_module
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import IntegrityFailure, InvalidInput
from gezel_knowledge.evaluate import EvalReport, evaluate_beir, evaluate_catalog, load_judgements
from gezel_knowledge.evaluate import run as run_module
from gezel_knowledge.evaluate.baselines import exact_dense_rankings
from gezel_knowledge.evaluate.corpus import build_corpus_catalog
from gezel_knowledge.evaluate.searching import Retrieved, search_documents
from gezel_knowledge.progress import ProgressEvent, ProgressMeter, ProgressSink
from gezel_knowledge.reader import Catalog
from gezel_knowledge.reader.vectors import KERNELS_ENV, compiled_kernels_available
from tests.compiler.trees import extract
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


def test_exact_dense_reads_shards_through_the_readers_checks(
    beir_folder: Path, tmp_path: Path
) -> None:
    built = build_corpus_catalog(
        beir_folder / "corpus.jsonl", embedder=HashEmbedder(), cache_dir=tmp_path, shard_target=1
    )
    root = extract(built.path, tmp_path / "extracted")
    judged = load_judgements(beir_folder / "queries.jsonl", beir_folder / "qrels" / "test.tsv")
    with open_catalog(root) as catalog:
        shard = root.joinpath(*catalog.shards[-1].path.split("/"))
        conn = sqlite3.connect(shard)
        conn.execute("PRAGMA application_id = 0")  # no longer a gezk catalog database
        conn.close()
        with pytest.raises(IntegrityFailure) as caught:
            exact_dense_rankings(catalog, HashEmbedder(), judged.queries, 100)
    assert (caught.value.reason, caught.value.subject) == ("not-a-catalog-database", str(shard))


def test_latency_is_measured_for_modes_only(report: EvalReport) -> None:
    for r in report.results:
        if r.kind == "mode":
            assert r.latency is not None
            assert 0 <= r.latency.p50_ms <= r.latency.p95_ms
            assert 0 <= r.latency.cpu_p50_ms <= r.latency.cpu_p95_ms
        else:
            assert r.latency is None


def test_timing_starts_once_every_shard_is_hot_and_the_kernels_are_ready(
    beir_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def search(catalog: Catalog, query: str, **kwargs: Any) -> Retrieved:
        calls.append(f"{kwargs['mode']} {'every shard' if kwargs['every_shard'] else 'routed'}")
        return search_documents(catalog, query, **kwargs)

    def kernels() -> bool:
        calls.append("wait for kernels")
        return compiled_kernels_available()

    monkeypatch.setattr(run_module, "search_documents", search)
    monkeypatch.setattr(run_module, "compiled_kernels_available", kernels)
    report = evaluate_beir(
        beir_folder,
        embedder=HashEmbedder(),
        cache_dir=tmp_path,
        modes=["vector", "keyword"],
        shard_target=1,
    )
    # Two untimed searches of every shard (the second turns each one hot), then the wait for
    # the compiled kernels, then the three timed questions; keyword search uses no kernels.
    warm = ["vector every shard"] * 2 + ["wait for kernels"]
    assert calls[:6] == [*warm, "vector routed", "vector routed", "vector routed"]
    assert calls[6:9] == ["vector every shard"] * 3  # the every-shard comparison, also warm
    assert calls[9:] == ["keyword every shard"] * 2 + ["keyword routed"] * 3
    expected = "compiled" if compiled_kernels_available() else "numpy"
    vector, keyword = report.result("vector"), report.result("keyword")
    assert vector.latency is not None
    assert keyword.latency is not None
    assert (vector.latency.kernels, keyword.latency.kernels) == (expected, None)


def test_kernels_say_numpy_when_the_compiled_ones_are_switched_off(
    beir_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KERNELS_ENV, "numpy")
    report = evaluate_beir(
        beir_folder, embedder=HashEmbedder(), cache_dir=tmp_path, modes=["hybrid"]
    )
    latency = report.result("hybrid").latency
    assert latency is not None
    assert latency.kernels == "numpy"


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


class _Designed(HashEmbedder):
    """The hash profile with chosen vectors: every query is the axis e0; six decoy passages
    lie at cosine 0.9 to it, the answer at 0.6 (above the 0.35 floor), another at 0."""

    def _vector(self, text: str) -> NDArray[np.float32]:
        v = np.zeros(self.profile.dimensions, dtype=np.float32)
        if text.startswith("Decoy "):
            v[0], v[int(text.split()[1])] = 0.9, np.sqrt(1 - 0.9**2)
        elif text.startswith("Answer"):
            v[0], v[7] = 0.6, 0.8
        else:
            v[8] = 1.0
        return v

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return np.stack([self._vector(t) for t in texts])

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        queries = np.zeros((len(texts), self.profile.dimensions), dtype=np.float32)
        queries[:, 0] = 1.0
        return queries


def test_routing_that_loses_the_answer_scores_below_every_shard(tmp_path: Path) -> None:
    # One passage per shard, so a shard's centroid is its passage: the six decoy shards
    # (cosine 0.9) fill the budget of 6 and the answer's shard (0.6) is never scanned, while a
    # scan of every shard finds the answer seventh.
    documents = [(f"decoy-{i}", f"Decoy {i}", f"decoy passage number {i}") for i in range(1, 7)]
    documents += [("answer", "Answer", "the passage asked about"), ("other", "Other", "unrelated")]
    folder = write_beir(tmp_path / "b", qrels=[("q-answer", "answer", 1)])
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for doc_id, title, text in documents:
            fh.write(json.dumps({"_id": doc_id, "title": title, "text": text}))
            fh.write("\n")
    (folder / "queries.jsonl").write_text(
        json.dumps({"_id": "q-answer", "text": "which passage is the answer"}) + "\n"
    )
    report = evaluate_beir(
        folder, embedder=_Designed(), cache_dir=tmp_path / "c", shard_target=1, modes=["vector"]
    )
    assert report.shards == 8
    vector = report.result("vector")
    assert vector.routing is not None
    routed, every = vector.scores, vector.routing.every_shard
    assert (routed.recall_at_10, routed.recall_at_100) == (0.0, 0.0)
    assert (every.recall_at_10, every.recall_at_100) == (1.0, 1.0)
    assert every.ndcg_at_10 > routed.ndcg_at_10
    assert vector.routing.overlap_at_10 == pytest.approx(6 / 7)  # the decoys, not the answer
    assert vector.routing.overlap_at_10 < 1


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


def test_eval_progress_carries_one_typed_rate_and_time_left(
    beir_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ticks = iter(range(1_000_000))

    class Meter(ProgressMeter):  # a clock moving a second per reading: every step has a pace
        def __init__(self, sink: ProgressSink | None) -> None:
            super().__init__(sink, clock=lambda: float(next(ticks)))

    monkeypatch.setattr(progress_module, "ProgressMeter", Meter)
    events: list[ProgressEvent] = []
    evaluate_beir(beir_folder, embedder=HashEmbedder(), cache_dir=tmp_path, progress=events.append)
    queries = [e for e in events if e.job == "eval" and e.unit == "queries"]
    assert queries
    # The meter stamps the pace on the event; nothing writes a second pace into the message.
    assert all(e.message == "" for e in events if e.job == "eval")
    assert not any("/s" in e.message or " left" in e.message for e in events)
    paced = [e for e in queries if e.rate is not None]
    assert paced
    assert all(e.eta_seconds is not None for e in paced)
    assert all(e.eta_seconds == 0.0 for e in queries if e.done == e.total)


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
