"""smoke_query_hits: the one statement the compiler and deep validation check smoke queries with."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from gezel_knowledge.validate.smoke import SMOKE_TOP_N, smoke_query_hits


@pytest.fixture
def router() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE documents(id TEXT PRIMARY KEY);"
        "CREATE VIRTUAL TABLE fts_documents USING fts5(title, summary, aliases,"
        " document_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');"
    )
    rows = [
        ("in-summary", "Tools", "a brass lantern", ""),
        ("in-title", "Brass lantern", "", ""),
        ("in-alias", "Lamps", "", "brass lantern"),
        ("tie-b", "Kettle", "", ""),
        ("tie-a", "Kettle", "", ""),
        ("gone", "Brass lantern", "", ""),  # an FTS row whose document is not in the directory
    ]
    conn.executemany(
        "INSERT INTO fts_documents VALUES (?, ?, ?, ?)", [(*r[1:], r[0]) for r in rows]
    )
    conn.executemany("INSERT INTO documents VALUES (?)", [(r[0],) for r in rows if r[0] != "gone"])
    yield conn
    conn.close()


def test_titles_outrank_aliases_outrank_summaries(router: sqlite3.Connection) -> None:
    assert smoke_query_hits(router, "brass lantern") == ["in-title", "in-alias", "in-summary"]


def test_ties_go_to_the_lower_document_id(router: sqlite3.Connection) -> None:
    assert smoke_query_hits(router, "kettle") == ["tie-a", "tie-b"]


def test_top_n_limits_the_hits(router: sqlite3.Connection) -> None:
    assert smoke_query_hits(router, "brass lantern", top_n=1) == ["in-title"]
    assert SMOKE_TOP_N == 10


def test_a_query_without_words_finds_nothing(router: sqlite3.Connection) -> None:
    assert smoke_query_hits(router, "?! --") == []


def test_fts_syntax_in_a_query_is_only_words(router: sqlite3.Connection) -> None:
    # As FTS5 syntax this would exclude in-alias (its aliases say brass); as words it finds it.
    assert smoke_query_hits(router, 'lamps NOT "brass*')[0] == "in-alias"
