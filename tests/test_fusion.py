"""Reciprocal rank fusion and rank-anchored relevance (gezel_knowledge.fusion)."""

from __future__ import annotations

import pytest

from gezel_knowledge.fusion import RRF_K, reciprocal_rank_fusion, relevance


def test_scores_sum_weighted_reciprocal_ranks() -> None:
    fused = dict(reciprocal_rank_fusion([["a", "b"], ["b", "c"]], [1.0, 0.5]))
    assert fused["a"] == pytest.approx(1.0 / (RRF_K + 1))
    assert fused["b"] == pytest.approx(1.0 / (RRF_K + 2) + 0.5 / (RRF_K + 1))
    assert fused["c"] == pytest.approx(0.5 / (RRF_K + 2))


def test_best_first_and_ties_keep_the_order_of_first_appearance() -> None:
    # x and y tie (each first in one list, same weight); z and w tie lower down.
    fused = reciprocal_rank_fusion([["y", "z"], ["x", "w"]])
    assert [key for key, _ in fused] == ["y", "x", "z", "w"]
    fused = reciprocal_rank_fusion([["x", "w"], ["y", "z"]])
    assert [key for key, _ in fused] == ["x", "y", "w", "z"]


def test_a_key_repeated_within_one_list_counts_at_its_first_position() -> None:
    fused = dict(reciprocal_rank_fusion([["a", "b", "a"]], k=10))
    assert fused == {"a": pytest.approx(1 / 11), "b": pytest.approx(1 / 12)}


def test_one_weight_per_list_is_required() -> None:
    with pytest.raises(ValueError, match="one weight per ranked list"):
        reciprocal_rank_fusion([["a"], ["b"]], [1.0])
    assert reciprocal_rank_fusion([]) == []


def test_relevance_is_anchored_on_the_zero_based_rank() -> None:
    assert relevance(0) == 1.0
    assert relevance(11) == 0.5
    with pytest.raises(ValueError, match="rank must be >= 0"):
        relevance(-1)
