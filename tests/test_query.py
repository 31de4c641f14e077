"""The one query-terms function: FTS5-safe for any text, the same rules for every source."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gezel_knowledge.query import (
    MAX_QUERY_TERMS,
    fts_match_expression,
    query_terms,
    terms_match_expression,
)

# The tokenizer of the catalogs' fts_chunks (spec DDL) and of every index table.
TOKENIZER = "unicode61 remove_diacritics 2"


@pytest.fixture(scope="module")
def fts() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{TOKENIZER}')")
    conn.executemany(
        "INSERT INTO t (body) VALUES (?)",
        [
            ("Die Straße ist lang",),
            ("def parse_config(path): read the configuration",),
            ("parse the config later",),
            ("Café au lait",),
        ],
    )
    yield conn
    conn.close()


def _matches(conn: sqlite3.Connection, text: str) -> list[str]:
    match = fts_match_expression(text)
    if match is None:
        return []
    rows = conn.execute("SELECT body FROM t WHERE t MATCH ? ORDER BY rowid", (match,))
    return [str(r[0]) for r in rows]


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_arbitrary_text_never_makes_an_fts5_syntax_error(
    fts: sqlite3.Connection, text: str
) -> None:
    match = fts_match_expression(text)
    if match is not None:
        fts.execute("SELECT count(*) FROM t WHERE t MATCH ?", (match,)).fetchone()


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=400))
def test_terms_are_distinct_bounded_and_quote_free(text: str) -> None:
    terms = query_terms(text)
    assert len(terms) <= MAX_QUERY_TERMS
    assert len({t.lower() for t in terms}) == len(terms)
    assert all(t and '"' not in t and t == t.strip() for t in terms)


def test_a_sharp_s_query_finds_its_word(fts: sqlite3.Connection) -> None:
    # casefold() would send "strasse", which unicode61 never produces from "Straße".
    assert _matches(fts, "Straße") == ["Die Straße ist lang"]
    assert _matches(fts, "STRASSE") == []


def test_accents_and_case_follow_the_tokenizer(fts: sqlite3.Connection) -> None:
    assert _matches(fts, "CAFE") == ["Café au lait"]


def test_snake_case_is_one_phrase_term(fts: sqlite3.Connection) -> None:
    assert query_terms("parse_config") == ["parse config"]
    assert _matches(fts, "parse_config") == ["def parse_config(path): read the configuration"]
    # Separate words are separate terms: both passages share one of them.
    assert len(_matches(fts, "parse config")) == 2


def test_a_dotted_name_is_one_phrase_term(fts: sqlite3.Connection) -> None:
    assert query_terms("How do I call prettier.format from code?") == [
        "call",
        "prettier format",
        "code",
    ]
    assert query_terms("version 11.10") == ["version", "11 10"]
    # A full stop that ends a word, or a sentence, separates as before.
    assert query_terms("the end. Next") == ["end", "Next"]
    assert query_terms("trailing.") == ["trailing"]
    # Initials and abbreviations are not dotted names.
    assert query_terms("papers by H.C. Lucas, e.g. on U.S. banks") == [
        "papers",
        "H",
        "C",
        "Lucas",
        "e",
        "g",
        "U",
        "banks",  # "s" is a stopword
    ]
    assert query_terms("version 2.5 of os.path") == ["version", "2", "5", "os path"]
    assert _matches(fts, "parse.config") == ["def parse_config(path): read the configuration"]


def test_stopwords_are_dropped_unless_nothing_else_remains() -> None:
    assert query_terms("How do I prune the roses?") == ["prune", "roses"]
    assert query_terms("what is this") == ["what", "is", "this"]
    assert query_terms("Rose rose ROSE") == ["Rose"]


def test_operators_and_syntax_are_plain_words() -> None:
    assert query_terms('NEAR(x y, 3) title:lattice "q" *') == [
        "NEAR",
        "x",
        "y",
        "3",
        "title",
        "lattice",
        "q",
    ]
    assert terms_match_expression(["a", "b c"]) == '"a" OR "b c"'
    assert terms_match_expression([]) is None
    assert fts_match_expression(" \t🙂 ") is None
