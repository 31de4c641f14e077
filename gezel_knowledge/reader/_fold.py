"""Query terms folded exactly as the catalogs' FTS5 tokenizer folds indexed text.

The derived keyword index is keyed by the tokens ``unicode61 remove_diacritics 2`` produced
(lower case, diacritics removed by SQLite's own tables). Python's case folding differs from
them (``casefold`` turns ``ß`` into ``ss``), so a term is folded by the tokenizer itself: a
private in-memory FTS5 table tokenizes it and ``fts5vocab`` reads the token back.
"""

from __future__ import annotations

import sqlite3
import threading

__all__ = ["fold_term"]

_local = threading.local()
_CACHE_LIMIT = 65_536


def _connection() -> tuple[sqlite3.Connection, dict[str, tuple[str, ...]]]:
    found = getattr(_local, "state", None)
    if found is None:
        conn = sqlite3.connect(":memory:")
        conn.execute(
            "CREATE VIRTUAL TABLE fold USING fts5(t, tokenize = 'unicode61 remove_diacritics 2')"
        )
        conn.execute("CREATE VIRTUAL TABLE fold_tokens USING fts5vocab(fold, instance)")
        found = _local.state = (conn, {})
    return found


def fold_term(term: str) -> tuple[str, ...]:
    """The tokens FTS5 indexes for ``term``, in order (one for a word, several for a phrase)."""
    if term.isascii():
        # unicode61 folds ASCII letters to lower case and nothing else; non-token characters
        # never reach here (query terms hold only token characters and spaces).
        return tuple(term.lower().split())
    conn, cache = _connection()
    tokens = cache.get(term)
    if tokens is None:
        with conn:
            conn.execute("INSERT INTO fold(rowid, t) VALUES (1, ?)", (term,))
            rows = conn.execute("SELECT term FROM fold_tokens ORDER BY offset").fetchall()
            conn.execute("DELETE FROM fold")
        tokens = tuple(str(r[0]) for r in rows)
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[term] = tokens
    return tokens
