"""The CJK keyword rule: a token holding CJK characters stands for its bigrams and its words."""

from __future__ import annotations

import sqlite3
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gezel_knowledge.cjk import (
    CJK_GLOB,
    JOINED,
    all_cjk,
    has_cjk,
    key_parts,
    term_units,
    token_keys,
    token_parts,
)
from gezel_knowledge.reader._kwkeys import term_keys


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("路由", True),  # Han
        ("ひらがな", True),
        ("カタカナ", True),
        ("한국어", True),  # Hangul syllables
        ("々", True),  # the ideographic iteration mark
        ("ｶﾀｶﾅ", True),  # halfwidth katakana, as a page may hold it
        ("\U00020000", True),  # Han extension B
        ("router", False),
        ("Straße", False),
        ("ไทย", False),  # Thai has no spaces either, but is not read this way
        ("123", False),
    ],
)
def test_cjk_characters_are_recognised(text: str, expected: bool) -> None:
    assert has_cjk(text) is expected
    # SQLite's GLOB filter (the vocabulary scans) agrees with the Python test.
    conn = sqlite3.connect(":memory:")
    assert bool(conn.execute("SELECT ? GLOB ?", (text, CJK_GLOB)).fetchone()[0]) is expected


def test_a_cjk_run_is_its_overlapping_bigrams() -> None:
    assert token_keys("路由拦截器") == ["路由", "由拦", "拦截", "截器"]


def test_a_run_of_one_character_is_that_character() -> None:
    assert token_keys("锁") == ["锁"]


def test_repeated_bigrams_repeat() -> None:
    assert token_keys("哈哈哈") == ["哈哈", "哈哈"]


def test_words_joined_to_cjk_split_at_the_script_boundary() -> None:
    assert token_parts("redis集成") == [("redis", False), ("集成", True)]
    assert token_parts("使用v2版本") == [("使用", True), ("v2", False), ("版本", True)]
    assert token_keys("用redis") == ["用", "redis"]


def test_joined_words_are_marked_and_stemmed_in_the_index() -> None:
    stem = {"caches": "cach"}.get
    assert key_parts("caches缓存", lambda w: stem(w) or w, mark_joined=True) == [
        (JOINED + "cach", False),
        ("缓存", True),
    ]
    # A token without CJK characters keeps its one key, never marked.
    assert token_keys("caches", lambda w: stem(w) or w, mark_joined=True) == ["cach"]


def test_kana_and_kanji_are_one_script() -> None:
    # Japanese mixes kanji and kana inside a word; pairs cross the boundary.
    assert token_keys("設定を") == ["設定", "定を"]


def test_query_units_keep_phrases_and_plain_words_whole() -> None:
    assert term_units("parse config") == ["parse config"]
    assert term_units("Redis") == ["Redis"]
    assert term_units("集成Redis") == ["集成", "Redis"]


def test_all_cjk_needs_every_character() -> None:
    assert [all_cjk(t) for t in ("路由", "サーバー", "서버", "redis集成", "")] == [
        True,
        True,
        True,
        False,
        False,
    ]


_ALPHABET = "路由拦截哈サーバ設定を서버를aZ1é\U00020000"


@given(st.lists(st.text(alphabet=_ALPHABET, min_size=1, max_size=7), max_size=40))
def test_the_index_keys_terms_as_the_rule_does(words: list[str]) -> None:
    # The index splits terms of CJK characters only with numpy; every term must get exactly
    # the keys, with the repeats, that token_keys gives it one by one.
    terms = sorted(set(words))
    stem = str.upper  # any stemmer: only words without CJK characters and joined words see it
    keys, pair_term, key_of, times = term_keys(terms, stem)
    got = sorted(
        (terms[t], keys[k], n)
        for t, k, n in zip(pair_term.tolist(), key_of.tolist(), times.tolist(), strict=True)
    )
    expected = sorted(
        (term, key, n)
        for term in terms
        for key, n in Counter(token_keys(term, stem, mark_joined=True)).items()
    )
    assert got == expected
    assert keys == sorted({k for _, k, _ in expected})
    # By key, then by term: a key's terms in vocabulary order.
    assert list(zip(key_of.tolist(), pair_term.tolist(), strict=True)) == sorted(
        zip(key_of.tolist(), pair_term.tolist(), strict=True)
    )
