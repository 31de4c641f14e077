"""Ranking metrics on tiny hand-made judgements whose answers are worked out here by hand."""

from __future__ import annotations

import math

import pytest

from gezel_knowledge.evaluate import Query
from gezel_knowledge.evaluate.metrics import mrr_at_k, ndcg_at_k, percentile, recall_at_k
from gezel_knowledge.evaluate.run import score_rankings

# Three relevant documents (b, d, e); the ranking finds b at rank 2 and d at rank 4.
RANKING = ["a", "b", "c", "d"]
GRADES = {"b": 1, "d": 1, "e": 1, "z": 0}


def test_ndcg_binary_by_hand() -> None:
    # DCG: b at rank 2 and d at rank 4 -> 1/log2(3) + 1/log2(5).
    # Ideal: three relevant at ranks 1-3 -> 1/log2(2) + 1/log2(3) + 1/log2(4) = 1 + 0.6309 + 0.5.
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3) + 0.5
    assert ndcg_at_k(RANKING, GRADES, 10) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(RANKING, GRADES, 10) == pytest.approx(0.498189, abs=1e-6)


def test_ndcg_cut_at_k_keeps_only_the_first_k() -> None:
    # k = 2: DCG 1/log2(3); ideal two relevant at ranks 1-2: 1 + 1/log2(3).
    expected = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert ndcg_at_k(RANKING, GRADES, 2) == pytest.approx(expected)


def test_ndcg_uses_linear_gain_for_grades() -> None:
    # x (grade 1) first, y (grade 2) second: DCG 1 + 2/log2(3); ideal y first: 2 + 1/log2(3).
    expected = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert ndcg_at_k(["x", "y"], {"x": 1, "y": 2}, 10) == pytest.approx(expected)
    assert ndcg_at_k(["y", "x"], {"x": 1, "y": 2}, 10) == pytest.approx(1.0)


def test_recall_by_hand() -> None:
    assert recall_at_k(RANKING, GRADES, 10) == pytest.approx(2 / 3)
    assert recall_at_k(RANKING, GRADES, 2) == pytest.approx(1 / 3)
    assert recall_at_k(RANKING, GRADES, 1) == 0.0


def test_mrr_by_hand() -> None:
    assert mrr_at_k(RANKING, GRADES, 10) == 0.5
    assert mrr_at_k(RANKING, GRADES, 1) == 0.0
    assert mrr_at_k(["d"], GRADES, 10) == 1.0


def test_a_repeated_document_counts_once_at_its_first_place() -> None:
    assert mrr_at_k(["b", "b", "a"], {"a": 1}, 10) == 0.5
    assert recall_at_k(["b", "b", "a"], {"a": 1}, 2) == 1.0


def test_no_relevant_or_empty_ranking_scores_zero() -> None:
    for metric in (ndcg_at_k, recall_at_k, mrr_at_k):
        assert metric(RANKING, {"a": 0}, 10) == 0.0
        assert metric([], GRADES, 10) == 0.0


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="k must be positive"):
        ndcg_at_k(RANKING, GRADES, 0)


def test_percentile_interpolates_between_order_statistics() -> None:
    # Sorted 1, 2, 3, 4: the median lies halfway between 2 and 3; p95 at position 2.85.
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    assert percentile([4.0, 1.0, 3.0, 2.0], 95) == pytest.approx(3.85)
    assert percentile([5.0], 95) == 5.0
    assert math.isnan(percentile([], 50))


def test_score_rankings_averages_over_queries() -> None:
    queries = [Query("q1", "first"), Query("q2", "second")]
    qrels = {"q1": {"a": 1}, "q2": {"b": 1, "c": 1}}
    # q1: a first -> nDCG 1, R@10 1, MRR 1.  q2: c at rank 2, b missing ->
    # nDCG (1/log2(3)) / (1 + 1/log2(3)), R@10 1/2, MRR 1/2.
    scores = score_rankings([["a"], ["x", "c"]], queries, qrels)
    q2_ndcg = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert scores.ndcg_at_10 == pytest.approx((1 + q2_ndcg) / 2)
    assert scores.recall_at_10 == pytest.approx(0.75)
    assert scores.recall_at_100 == pytest.approx(0.75)
    assert scores.mrr_at_10 == pytest.approx(0.75)
