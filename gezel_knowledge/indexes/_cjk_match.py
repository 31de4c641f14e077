"""The local indexes' FTS5 expression of a question, with its CJK words found inside longer runs.

The memory and workspace indexes search their own FTS5 tables (``unicode61``, as the catalogs'),
where a run of Chinese, Japanese or Korean characters is one token, so a question's run
matches only a passage holding exactly that run. A question holding CJK characters is
therefore widened with the tables' own vocabulary: each bigram of its CJK words
(``gezel_knowledge.cjk``) stands for the indexed tokens holding that bigram, and each of its
other words also for the tokens joining that word to CJK characters (``redis集成``). FTS5 then
ranks by BM25 over those tokens. A question without CJK characters gets the expression it
always got, and the tables and their schema are unchanged: the vocabulary is read when such a
question comes (``fts5vocab``, a few milliseconds at these indexes' size).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from gezel_knowledge.cjk import CJK_GLOB, JOINED, has_cjk, term_units, token_keys
from gezel_knowledge.query import query_terms, terms_match_expression

__all__ = ["MAX_TOKENS_PER_KEY", "keyword_match"]

MAX_TOKENS_PER_KEY = 256
"""Indexed tokens one key of the question stands for at most (the first in vocabulary order)."""


def _cjk_tokens(conn: sqlite3.Connection, tables: Sequence[str]) -> list[str]:
    """The tables' indexed tokens holding a CJK character."""
    found: dict[str, None] = {}
    for table in tables:
        vocab = f"temp.{table}_cjk_vocab"
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {vocab} USING fts5vocab(main, {table}, row)"
        )
        rows = conn.execute(f"SELECT term FROM {vocab} WHERE term GLOB ?", (CJK_GLOB,))
        found.update(dict.fromkeys(str(t) for (t,) in rows))
    return list(found)


def keyword_match(conn: sqlite3.Connection, tables: Sequence[str], text: str) -> str | None:
    """The FTS5 ``MATCH`` expression of ``text`` over ``tables`` (``None`` when it has no
    words): :func:`gezel_knowledge.query.fts_match_expression`, widened for CJK words."""
    terms = query_terms(text)
    if not any(has_cjk(t) for t in terms):
        return terms_match_expression(terms)
    tokens = [(t, token_keys(t, mark_joined=True)) for t in _cjk_tokens(conn, tables)]
    words: dict[str, None] = {}
    for term in terms:
        for unit in term_units(term):
            words[unit] = None
            if " " in unit:
                continue  # a snake_case phrase: its tokens as written
            # unicode61 folds other words' letters to lower case (diacritics aside).
            key = unit if has_cjk(unit) else JOINED + unit.lower()
            holding = [t for t, keys in tokens if key in keys]
            words.update(dict.fromkeys(holding[:MAX_TOKENS_PER_KEY]))
    return terms_match_expression(list(words))
