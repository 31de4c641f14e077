"""Per-question comparison of two eval results, the paired randomization test, the stemmed and
RRF(60) baselines, fusion presets and saved reports (``eval --compare``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.evaluate import evaluate_beir
from gezel_knowledge.evaluate.compare import (
    PERMUTATION_ROUNDS,
    compare_results,
    load_per_query,
    paired_permutation_test,
    pick_result,
)


def test_identical_results_have_p_one_and_no_difference() -> None:
    scores = {"q1": 0.5, "q2": 1.0, "q3": 0.0}
    c = compare_results(scores, dict(scores))
    assert (c.mean_difference, c.p_value, c.wins, c.losses, c.ties) == (0.0, 1.0, 0, 0, 3)


def test_a_consistent_gain_on_twenty_questions_is_significant() -> None:
    # Twenty equal gains: only the two all-same-sign flips of 2**20 reach the observed mean, so
    # almost no random flip does and p is at its floor of 1 / (rounds + 1) or just above.
    a = {f"q{i}": 0.6 for i in range(20)}
    b = {f"q{i}": 0.5 for i in range(20)}
    c = compare_results(a, b, names=("new", "old"))
    assert c.mean_difference == pytest.approx(0.1)
    assert c.wins == 20
    assert c.p_value < 5 / (PERMUTATION_ROUNDS + 1)
    assert c.p_value >= 1 / (PERMUTATION_ROUNDS + 1)


def test_one_gain_among_ties_is_not_significant() -> None:
    # A single non-zero difference: every flip's mean has the observed magnitude, so p = 1.
    a = {"q0": 1.0, **{f"q{i}": 0.5 for i in range(1, 10)}}
    b = {f"q{i}": 0.5 for i in range(10)}
    assert compare_results(a, b).p_value == 1.0


def test_the_test_is_symmetric_and_repeatable() -> None:
    diffs = [0.3, -0.1, 0.2, 0.05, -0.02, 0.4, 0.0, 0.1]
    p = paired_permutation_test(diffs)
    assert p == paired_permutation_test([-d for d in diffs])
    assert p == paired_permutation_test(diffs)
    assert 0 < p < 1


def test_only_common_questions_count_and_differences_lead_by_size() -> None:
    a = {"q1": 1.0, "q2": 0.2, "q3": 0.5, "only-a": 1.0}
    b = {"q1": 0.5, "q2": 0.4, "q3": 0.5, "only-b": 0.0}
    c = compare_results(a, b)
    assert c.queries == 3
    assert [(d.query, d.difference) for d in c.differences] == [
        ("q1", 0.5),
        ("q2", pytest.approx(-0.2)),
        ("q3", 0.0),
    ]
    assert (c.wins, c.losses, c.ties) == (1, 1, 1)
    with pytest.raises(InvalidInput) as info:
        compare_results({"x": 1.0}, {"y": 1.0})
    assert info.value.reason == "eval-report-mismatch"


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("not json", "not JSON"),
        ('{"catalog": "x"}', "no results"),
        ('{"results": [{"kind": "mode"}]}', "without a name"),
        ('{"results": [{"name": "hybrid"}]}', "no per-query scores"),
        ('{"results": [{"name": "hybrid", "perQuery": {"q": 1.5}}]}', "bad score"),
        ('{"results": [{"name": "hybrid", "perQuery": {"q": true}}]}', "bad score"),
    ],
)
def test_a_file_that_is_not_a_report_is_a_typed_error(
    tmp_path: Path, content: str, why: str
) -> None:
    path = tmp_path / "report.json"
    path.write_text(content)
    with pytest.raises(InvalidInput, match=why) as info:
        load_per_query(path)
    assert info.value.reason == "eval-invalid-report"
    assert info.value.subject == str(path)


def test_a_missing_result_names_the_others() -> None:
    with pytest.raises(NotFound, match="results: hybrid, bm25") as info:
        pick_result({"hybrid": {}, "bm25": {}}, "vector", "a.json")
    assert info.value.reason == "mode-not-found"


def _stemming_folder(root: Path) -> Path:
    """Three documents and questions whose words match the answers only once stemmed."""
    (root / "qrels").mkdir(parents=True)
    docs = [
        ("bread", "Bread", "Knead the dough for ten minutes."),
        ("roses", "Roses", "Prune the rose bush in late winter."),
        ("tea", "Tea", "Warm the teapot before brewing."),
    ]
    (root / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, t, x in docs)
    )
    questions = {"q-knead": "kneading", "q-prune": "pruning roses", "q-brew": "brews"}
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in questions.items())
    )
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq-knead\tbread\t1\nq-prune\troses\t1\nq-brew\ttea\t1\n"
    )
    return root


def test_stemmed_bm25_finds_inflections_that_plain_bm25_misses(tmp_path: Path) -> None:
    folder = _stemming_folder(tmp_path / "beir")
    report = evaluate_beir(
        folder,
        embedder=HashEmbedder(),
        cache_dir=tmp_path / "cache",
        modes=["keyword"],
        baselines=["bm25", "bm25-stemmed", "rrf60"],
    )
    assert [r.name for r in report.results] == ["keyword", "bm25", "bm25-stemmed", "rrf60"]
    plain = report.result("bm25").per_query
    stemmed = report.result("bm25-stemmed").per_query
    # Unstemmed, only "roses" matches (the title "Roses"); stemmed, every answer comes first.
    assert plain == {"q-knead": 0.0, "q-prune": 1.0, "q-brew": 0.0}
    assert stemmed == {"q-knead": 1.0, "q-prune": 1.0, "q-brew": 1.0}
    assert "Snowball en" in (report.result("bm25-stemmed").note or "")
    # The hash embedder finds nothing by meaning: RRF(60) keeps the stemmed BM25 answers first
    # (each fused list puts the answer at rank 1 or not at all ahead of it).
    rrf60 = report.result("rrf60")
    assert rrf60.kind == "baseline"
    assert rrf60.scores.recall_at_100 == 1.0


def test_fusion_presets_run_hybrid_again_under_their_names(tmp_path: Path) -> None:
    folder = _stemming_folder(tmp_path / "beir")
    report = evaluate_beir(
        folder,
        embedder=HashEmbedder(),
        cache_dir=tmp_path / "cache",
        modes=["hybrid"],
        fusions=["gezel", "confidence", "gezel"],
    )
    assert [r.name for r in report.results] == ["hybrid", "hybrid:gezel", "hybrid:confidence"]
    assert report.default_fusion == "score"
    assert report.result("hybrid:gezel").note == "fusion preset gezel"
    assert report.result("hybrid:gezel").latency is not None
    with pytest.raises(InvalidInput) as info:
        evaluate_beir(folder, embedder=HashEmbedder(), cache_dir=tmp_path, fusions=["nope"])
    assert info.value.reason == "unknown-fusion"
    with pytest.raises(InvalidInput) as info:
        evaluate_beir(folder, embedder=HashEmbedder(), cache_dir=tmp_path, baselines=["x"])
    assert info.value.reason == "invalid-baseline"


def test_saved_reports_compare_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _stemming_folder(tmp_path / "beir")
    saved = tmp_path / "runs" / "a.json"
    common = ["--embedder", "test-hash-embed@1", "--cache-dir", str(tmp_path / "cache")]
    run = ["eval", str(folder), *common, "--mode", "keyword", "--rrf60", "--bm25"]
    code = main([*run, "--output", str(saved), "--per-query"])
    out = capsys.readouterr().out
    assert code == 0
    assert "q-knead" in out.split("query", 1)[1]  # the per-query table follows the summary
    data = json.loads(saved.read_text())
    # Keyword mode groups words by their stems, so "kneading" and "brewed" find their passages.
    assert data["results"][0]["perQuery"] == {"q-knead": 1.0, "q-prune": 1.0, "q-brew": 1.0}
    assert list(saved.parent.iterdir()) == [saved]  # written by rename, no temporary left

    both = ["eval", "--compare", str(saved), "--against", str(saved)]
    code = main([*both, "--result", "bm25-stemmed", "--against-result", "bm25"])
    out = capsys.readouterr().out
    assert code == 0
    assert "3 questions in common: nDCG@10 A 1.000, B 0.333, A - B +0.667" in out
    assert "A better on 2, worse on 0, equal on 1; paired randomization test p = " in out
    code = main([*both, "--result", "keyword", "--json"])
    assert code == 0
    comparison = json.loads(capsys.readouterr().out)
    assert (comparison["meanDifference"], comparison["pValue"]) == (0.0, 1.0)

    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert main(["eval", "--compare", str(bad), "--against", str(saved)]) == 1
    assert "is not an eval report: no results" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["eval", "--compare", str(saved)])
