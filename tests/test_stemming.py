"""The shared Snowball map: tags resolve by primary subtag; other languages stay unstemmed."""

from __future__ import annotations

import pytest

from gezel_knowledge.stemming import snowball_algorithm, stemmer_for


@pytest.mark.parametrize(
    ("tag", "algorithm"),
    [("en", "english"), ("en-GB", "english"), ("pt_BR", "portuguese"), ("NB", "norwegian")],
)
def test_tags_resolve_by_primary_subtag(tag: str, algorithm: str) -> None:
    assert snowball_algorithm(tag) == algorithm


@pytest.mark.parametrize("tag", [None, "", "ja", "zh-Hans", "und"])
def test_languages_without_a_stemmer_have_none(tag: str | None) -> None:
    assert snowball_algorithm(tag) is None
    assert stemmer_for(tag) is None


def test_english_groups_inflections() -> None:
    stem = stemmer_for("en")
    assert stem is not None
    assert stem("attenuators") == stem("attenuator")
    assert stem("running") == stem("runs") == "run"
    assert stem("signing") != stem("singing")


def test_french_and_german_stem_their_own_words() -> None:
    fr, de = stemmer_for("fr"), stemmer_for("de")
    assert fr is not None
    assert de is not None
    assert fr("catalogues") == fr("catalogue")
    assert de("Kataloge".lower()) == de("katalog")
