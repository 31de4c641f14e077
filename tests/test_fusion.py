"""Reciprocal rank fusion, the one signal-carrying fuse() and its presets, and rank-anchored
relevance (gezel_knowledge.fusion)."""

from __future__ import annotations

import pytest

from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.fusion import (
    CONFIDENCE,
    CONFIDENCE_SCORE,
    DEFAULT_FUSION,
    FUSION_PRESETS,
    GEZEL,
    KEYWORD,
    LONG_QUESTION_TERMS,
    RRF,
    RRF10,
    RRF_K,
    SCORE,
    TITLE,
    VECTOR,
    FusionPreset,
    Ranked,
    fuse,
    fusion_preset,
    reciprocal_rank_fusion,
    relevance,
)
from gezel_knowledge.hits import Signal


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


def _ranked(keys: str, items: str | None = None) -> list[Ranked[str, str]]:
    """A ranked list of one-letter keys, scores falling from 1, items optional."""
    return [
        Ranked(key, 1.0 - i / 10, None if items is None or items[i] == "-" else items[i])
        for i, key in enumerate(keys)
    ]


def test_fuse_scores_by_the_preset_and_records_each_lists_signal() -> None:
    lists = {VECTOR: _ranked("ab"), TITLE: _ranked("c"), KEYWORD: _ranked("bca")}
    fused = fuse(lists)  # the gezel preset
    scores = {f.key: f.score for f in fused}
    assert scores["a"] == pytest.approx(1 / 61 + 0.5 / 63)
    assert scores["b"] == pytest.approx(1 / 62 + 0.5 / 61)
    assert scores["c"] == pytest.approx(1 / 61 + 0.5 / 62)
    assert [f.key for f in fused] == ["c", "a", "b"]
    by_key = {f.key: f.signals for f in fused}
    assert by_key["b"] == (Signal(VECTOR, 2, 0.9), Signal(KEYWORD, 1, 1.0))
    assert by_key["c"] == (Signal(TITLE, 1, 1.0), Signal(KEYWORD, 2, 0.9))
    plain = {f.key: f.score for f in fuse(lists, RRF)}
    assert plain["a"] == pytest.approx(1 / 61 + 1 / 63)


def test_fuse_ranks_a_repeated_key_at_its_first_entry_and_matches_plain_rrf() -> None:
    lists = {"symbol": _ranked("aab"), KEYWORD: _ranked("ba")}
    fused = fuse(lists, GEZEL)
    expected = reciprocal_rank_fusion([list("aab"), list("ba")], [1.0, 0.5])
    assert [(f.key, f.score) for f in fused] == expected
    signals = {f.key: f.signals for f in fused}
    assert signals["b"] == (Signal("symbol", 3, pytest.approx(0.8)), Signal(KEYWORD, 1, 1.0))


def test_fuse_keeps_the_item_of_the_first_list_that_has_one() -> None:
    lists = {
        VECTOR: _ranked("a", "v"),
        TITLE: _ranked("ab"),
        KEYWORD: _ranked("ba", "kK"),
    }
    items = {f.key: f.item for f in fuse(lists)}
    assert items == {"a": "v", "b": "k"}  # a's vector passage wins over its keyword passage
    assert fuse({VECTOR: [], TITLE: []}) == []


def test_presets_are_named_and_the_gezel_preset_is_the_seeds() -> None:
    assert set(FUSION_PRESETS) == {
        "gezel",
        "rrf",
        "rrf10",
        "score",
        "score-feedback",
        "rank-score",
        "confidence",
        "confidence-score",
    }
    assert DEFAULT_FUSION is fusion_preset("score")
    assert DEFAULT_FUSION.feedback_documents == 0  # feedback is opt-in
    feedback = fusion_preset("score-feedback")
    assert (feedback.feedback_documents, feedback.feedback_share) == (3, 0.1)
    assert (feedback.method, feedback.weight(VECTOR), feedback.long_question) == ("score", 0.7, 30)
    # A long question keeps the feedback with the long-question weights.
    assert feedback.for_question(31).feedback_documents == 3
    assert DEFAULT_FUSION.method == "score"
    assert [DEFAULT_FUSION.weight(n) for n in (VECTOR, TITLE, KEYWORD)] == [0.7, 0.3, 0.3]
    rrf10 = fusion_preset("rrf10")
    assert (rrf10.method, rrf10.k) == ("rank", 10)
    assert {rrf10.weight(n) for n in (VECTOR, TITLE, KEYWORD)} == {1.0}
    confident = fusion_preset("confidence-score")
    assert confident is CONFIDENCE_SCORE
    assert (confident.confidence_rank, confident.confidence_depth) == (20, 100)
    assert {confident.weight(n) for n in (VECTOR, TITLE, KEYWORD)} == {1.0}
    gezel = fusion_preset("gezel")
    assert gezel is GEZEL
    assert (gezel.k, gezel.weight(VECTOR), gezel.weight(TITLE), gezel.weight(KEYWORD)) == (
        60,
        1.0,
        1.0,
        0.5,
    )
    assert gezel.weight("symbol") == 1.0
    assert {RRF.weight(n) for n in (VECTOR, TITLE, KEYWORD)} == {1.0}
    tuned = FusionPreset("tuned", k=20, weights={KEYWORD: 2.0})
    assert [f.key for f in fuse({TITLE: _ranked("a"), KEYWORD: _ranked("b")}, tuned)] == [
        "b",
        "a",
    ]
    with pytest.raises(InvalidInput) as info:
        fusion_preset("nope")
    assert info.value.reason == "unknown-fusion"


def _scored(*entries: tuple[str, float]) -> list[Ranked[str, str]]:
    return [Ranked(key, score) for key, score in entries]


def test_score_fusion_sums_scores_relative_to_each_lists_best() -> None:
    # A cosine list and a BM25 list on their own scales: each is divided by its own best.
    lists = {
        VECTOR: _scored(("a", 0.8), ("b", 0.4)),
        KEYWORD: _scored(("b", 20.0), ("c", 15.0), ("a", 1.0)),
    }
    fused = {f.key: f.score for f in fuse(lists, SCORE)}
    assert fused["a"] == pytest.approx(0.7 * 1.0 + 0.3 * (1.0 / 20.0))
    assert fused["b"] == pytest.approx(0.7 * 0.5 + 0.3 * 1.0)
    assert fused["c"] == pytest.approx(0.3 * 0.75)
    assert [f.key for f in fuse(lists, SCORE)] == ["a", "b", "c"]


def test_a_confident_list_outweighs_a_flat_one_where_plain_rrf_ties() -> None:
    # Two lists that disagree on the first place: plain rrf10 ties a and b; the keyword list's
    # head stands far above its tail, the vector list is nearly flat, so keywords win.
    vector = [("a", 0.60), ("b", 0.59)] + [(f"v{i}", 0.58 - i / 1000) for i in range(20)]
    keyword = [("b", 30.0), ("a", 2.0)] + [(f"k{i}", 1.9 - i / 100) for i in range(20)]
    lists = {VECTOR: _scored(*vector), KEYWORD: _scored(*keyword)}
    plain = {f.key: f.score for f in fuse(lists, fusion_preset("rrf10"))}
    assert plain["a"] == pytest.approx(plain["b"])
    confident = fuse(lists, CONFIDENCE)
    assert confident[0].key == "b"
    # Confidence of the keyword list: (30 - score at rank 10) / (30 - its last score).
    c_kw = (30.0 - 1.83) / (30.0 - 1.71)
    c_vec = (0.60 - 0.573) / (0.60 - 0.561)
    scores = {f.key: f.score for f in confident}
    assert scores["b"] == pytest.approx(c_vec / 12 + c_kw / 11)
    assert scores["a"] == pytest.approx(c_vec / 11 + c_kw / 12)


def test_confidence_of_a_short_list_is_full_and_of_a_flat_list_none() -> None:
    short = {KEYWORD: _scored(("a", 3.0), ("b", 1.0))}
    assert {f.key: f.score for f in fuse(short, CONFIDENCE)} == {
        "a": pytest.approx(1 / 11),
        "b": pytest.approx(1 / 12),
    }
    flat = {VECTOR: _scored(*[(f"d{i}", 0.5) for i in range(12)])}
    assert {f.score for f in fuse(flat, CONFIDENCE)} == {0.0}


def test_rank_score_mixes_reciprocal_rank_and_relative_score() -> None:
    preset = fusion_preset("rank-score")
    lists = {VECTOR: _scored(("a", 0.8), ("b", 0.6)), KEYWORD: _scored(("b", 10.0))}
    scores = {f.key: f.score for f in fuse(lists, preset)}
    assert scores["a"] == pytest.approx(0.6 * (0.5 * 1.0 + 0.5 * 1.0))
    assert scores["b"] == pytest.approx(0.6 * (0.5 * 11 / 12 + 0.5 * 0.75) + 0.4 * 1.0)


def test_a_list_without_positive_scores_counts_by_rank_in_score_fusion() -> None:
    lists = {"symbol": _scored(("a", 0.0), ("b", -1.0))}
    scores = {f.key: f.score for f in fuse(lists, SCORE)}
    assert scores == {"a": pytest.approx(0.3 * 1.0), "b": pytest.approx(0.3 * 11 / 12)}


def test_confidence_score_weighs_relative_scores_by_the_confidence_of_each_head() -> None:
    # The keyword list's head stands far above its tail, the vector list is nearly flat: the
    # keyword list's first place wins although both lists rank their own first equally.
    vector = [("a", 0.60), ("b", 0.59)] + [(f"v{i}", 0.58 - i / 1000) for i in range(120)]
    keyword = [("b", 30.0), ("a", 2.0)] + [(f"k{i}", 1.9 - i / 100) for i in range(120)]
    lists = {VECTOR: _scored(*vector), KEYWORD: _scored(*keyword)}
    fused = fuse(lists, CONFIDENCE_SCORE)
    assert fused[0].key == "b"
    # Confidence: (best - score at rank 20) / (best - score at rank 100), by hand.
    c_vec = (0.60 - 0.563) / (0.60 - 0.483)
    c_kw = (30.0 - 1.73) / (30.0 - 0.93)
    scores = {f.key: f.score for f in fused}
    assert scores["a"] == pytest.approx(c_vec * 1.0 + c_kw * 2.0 / 30.0)
    assert scores["b"] == pytest.approx(c_vec * 0.59 / 0.60 + c_kw * 1.0)
    assert scores["v0"] == pytest.approx(c_vec * 0.58 / 0.60)
    # A list shorter than rank 20 keeps its full weight; one of equal scores gets none.
    short = {TITLE: _scored(("a", 4.0), ("b", 1.0))}
    assert {f.key: f.score for f in fuse(short, CONFIDENCE_SCORE)} == {
        "a": pytest.approx(1.0),
        "b": pytest.approx(0.25),
    }
    flat = {VECTOR: _scored(*[(f"d{i}", 0.5) for i in range(30)])}
    assert {f.score for f in fuse(flat, CONFIDENCE_SCORE)} == {0.0}


def test_a_long_question_weighs_the_vector_list_less_in_score_fusion() -> None:
    assert LONG_QUESTION_TERMS == 30
    assert SCORE.for_question(LONG_QUESTION_TERMS) is SCORE
    long = SCORE.for_question(LONG_QUESTION_TERMS + 1)
    assert long.weight(VECTOR) == 0.4
    assert long.weight(KEYWORD) == pytest.approx(0.6)
    assert long.weight(TITLE) == pytest.approx(0.6)
    assert long.weight("named-title") == pytest.approx(0.6)
    assert long.name == "score"
    assert long.method == "score"
    # Its own long-question rule is spent: asking again changes nothing.
    assert long.for_question(1000) is long
    # Vector a 1.0, b 0.5; keyword b 10, a 2 (relative 1 and 0.2). Short question:
    # a = 0.7 + 0.3 * 0.2 = 0.76 ahead of b = 0.35 + 0.3 = 0.65. Long question:
    # a = 0.4 + 0.6 * 0.2 = 0.52 behind b = 0.2 + 0.6 = 0.8.
    lists = {
        VECTOR: [Ranked("a", 1.0), Ranked("b", 0.5)],
        KEYWORD: [Ranked("b", 10.0), Ranked("a", 2.0)],
    }
    short = [(f.key, round(f.score, 9)) for f in fuse(lists, SCORE.for_question(5))]
    assert short == [("a", 0.76), ("b", 0.65)]
    longer = [(f.key, round(f.score, 9)) for f in fuse(lists, long)]
    assert longer == [("b", 0.8), ("a", 0.52)]


def test_presets_without_a_long_question_rule_fuse_every_question_alike() -> None:
    for preset in (GEZEL, RRF, RRF10, CONFIDENCE, CONFIDENCE_SCORE):
        assert preset.for_question(10_000) is preset
