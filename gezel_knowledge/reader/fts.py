"""Turning user text into safe FTS5 queries (spec section 9, keyword retrieval).

User text never reaches FTS5 syntax: it is NFKC-normalised, split into Unicode word tokens
(letters and digits, as the ``unicode61`` tokenizer sees them), and each token is emitted as a
double-quoted string, so quotes, ``*``, ``:``, ``^``, parentheses, ``NEAR`` and the bareword
operators ``AND``/``OR``/``NOT`` are all just words. Tokens are joined with ``OR`` so a question
that shares only some words with a passage still finds it; BM25 ranks the passages that share
the most distinctive ones first. Function words (``the``, ``how``, ``please``...) are dropped
unless the query consists of nothing else, so filler cannot decide the ranking.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

__all__ = [
    "MAX_QUERY_TERMS",
    "STOPWORDS",
    "fts_match_expression",
    "query_terms",
    "terms_match_expression",
]

MAX_QUERY_TERMS = 32
"""More distinct terms than this are ignored: a pasted page is not a better query."""


_STOPWORD_TEXT = """
    a an the this that these those some any all each every both either neither other such
    i me my mine we us our ours you your yours he him his she her hers it its they them their
    am is are was were be been being have has had having do does did doing done
    can could will would shall should may might must
    what which who whom whose when where why how
    of in on at to for from by with about into onto over under between through during without
    within along across after before above below up down out off than then there here
    and or but nor so yet if as because while until though although
    not no yes please tell show give get got let make need want help find know explain
    just also very really quite only more most much many few lot lots
    hi hello hey thanks thank okay ok
    s t d ll m re ve don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn
"""

STOPWORDS: frozenset[str] = frozenset(_STOPWORD_TEXT.split())
"""English function and request words dropped from keyword queries (lower-case)."""


def _tokens(text: str) -> list[str]:
    # The unicode61 tokenizer's token characters: letters, numbers, marks and private use.
    tokens: list[str] = []
    current: list[str] = []
    for ch in text:
        category = unicodedata.category(ch)
        if category[0] in "LNM" or category == "Co":
            current.append(ch)
        elif current:
            tokens.append("".join(current))
            current = []
    if current:
        tokens.append("".join(current))
    return tokens


def query_terms(text: str) -> list[str]:
    """The distinct lower-case word tokens of ``text``, stopwords removed unless that empties it."""
    seen: list[str] = []
    for token in _tokens(unicodedata.normalize("NFKC", text)):
        word = token.casefold()
        if word not in seen:
            seen.append(word)
    content = [w for w in seen if w not in STOPWORDS]
    return (content or seen)[:MAX_QUERY_TERMS]


def terms_match_expression(terms: Sequence[str]) -> str | None:
    """An FTS5 ``MATCH`` expression OR-ing :func:`query_terms` output; ``None`` if empty."""
    if not terms:
        return None
    # Tokens contain only letters and digits, so no quote can occur inside one.
    return " OR ".join(f'"{t}"' for t in terms)


def fts_match_expression(text: str) -> str | None:
    """An FTS5 ``MATCH`` expression OR-ing every term as a quoted string; ``None`` if none."""
    return terms_match_expression(query_terms(text))
