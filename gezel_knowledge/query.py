"""The query side of every search: its keyword terms, its FTS5 expression and its vectors.

Catalogs, the workspace content index and the memory index all turn user text into keyword
terms here, so hits that are later merged were found by the same rules (spec section 9, keyword
retrieval; the indexes' FTS5 tables use the catalogs' ``unicode61 remove_diacritics 2``).

User text never reaches FTS5 syntax: it is NFKC-normalised and split into word tokens as the
``unicode61`` tokenizer sees them (letters, digits, marks, private use), and each term is sent as
a double-quoted string, so quotes, ``*``, ``:``, ``^``, parentheses, ``NEAR`` and the bareword
operators ``AND``/``OR``/``NOT`` are just words. Tokens joined by connector punctuation
(``parse_config``) stay together as one phrase term, as an identifier should. Terms are OR-ed so
a question sharing only some words with a passage still finds it; BM25 ranks the passages that
share the most distinctive ones first. Function words (``the``, ``how``, ``please``...) are
dropped unless the query consists of nothing else, so filler cannot decide the ranking.

A term keeps the case it was written in: FTS5 folds it with the table's own tokenizer, which
Python's case folding does not match (``casefold`` turns ``ß`` into ``ss``; ``unicode61`` keeps
``ß``).

:class:`QueryVectors` is the other half: one query's embeddings, computed at most once per
embedder, so several sources searched for one question embed it once per model.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge._untrusted import check_text
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput

__all__ = [
    "MAX_QUERY_TERMS",
    "STOPWORDS",
    "QueryVectors",
    "check_min_similarity",
    "fts_match_expression",
    "query_term_counts",
    "query_terms",
    "query_vectors_for",
    "terms_all_expression",
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


def _is_token_char(ch: str) -> bool:
    # The unicode61 tokenizer's token characters: letters, numbers, marks and private use.
    category = unicodedata.category(ch)
    return category[0] in "LNM" or category == "Co"


def _word_follows(text: str, start: int) -> bool:
    """Whether ``text`` has a token of two characters or more at ``start``."""
    return all(_is_token_char(ch) for ch in text[start : start + 2]) and len(text) >= start + 2


def _terms(text: str) -> list[str]:
    """Word tokens; tokens joined by connector punctuation (``_``), or by a full stop between
    two tokens of two characters or more (``prettier.format``, ``build.target``, ``11.10``),
    form one phrase: a dotted name in a question is a name, which FTS5 indexes as the same
    tokens side by side, so the phrase finds the passages that write it rather than every
    passage saying either word. A full stop ending a sentence (``end. Next``) still separates,
    and so does one after a single letter: initials and abbreviations (``H.C.``, ``e.g.``,
    ``U.S.``) are not names."""
    terms: list[str] = []
    phrase: list[str] = []
    token: list[str] = []
    for i, ch in enumerate(text):
        if _is_token_char(ch):
            token.append(ch)
            continue
        dotted = ch == "." and len(token) > 1 and _word_follows(text, i + 1)
        if token:
            phrase.append("".join(token))
            token = []
        if ch == "_" or unicodedata.category(ch) == "Pc" or dotted:
            continue  # the phrase goes on after the connector
        if phrase:
            terms.append(" ".join(phrase))
            phrase = []
    if token:
        phrase.append("".join(token))
    if phrase:
        terms.append(" ".join(phrase))
    return terms


def query_term_counts(text: str, limit: int | None = MAX_QUERY_TERMS) -> list[tuple[str, int]]:
    """The distinct keyword terms of ``text`` with how often the text says each (case aside),
    in order of first use: stopwords removed unless that empties it, at most ``limit``
    (``None``: all); a term is one word, or a phrase for ``snake_case`` words.

    The counts are BM25's query side: a word a question repeats weighs that many times.
    """
    seen: dict[str, str] = {}
    counts: Counter[str] = Counter()
    for term in _terms(unicodedata.normalize("NFKC", text)):
        key = term.lower()
        seen.setdefault(key, term)
        counts[key] += 1
    content = [(t, counts[key]) for key, t in seen.items() if key not in STOPWORDS]
    found = content or [(t, counts[key]) for key, t in seen.items()]
    return found if limit is None else found[:limit]


def query_terms(text: str) -> list[str]:
    """The distinct keyword terms of ``text``: stopwords removed unless that empties it, at most
    :data:`MAX_QUERY_TERMS`; a term is one word, or a phrase for ``snake_case`` words."""
    return [term for term, _ in query_term_counts(text)]


def terms_match_expression(terms: Sequence[str]) -> str | None:
    """An FTS5 ``MATCH`` expression OR-ing :func:`query_terms` output; ``None`` if empty."""
    if not terms:
        return None
    # Terms hold only token characters and spaces, so no quote can occur inside one.
    return " OR ".join(f'"{t}"' for t in terms)


def terms_all_expression(terms: Sequence[str]) -> str | None:
    """An FTS5 ``MATCH`` expression requiring every one of ``terms``; ``None`` if empty."""
    if not terms:
        return None
    return " AND ".join(f'"{t}"' for t in terms)


def fts_match_expression(text: str) -> str | None:
    """The FTS5 ``MATCH`` expression of user text; ``None`` when it has no words."""
    return terms_match_expression(query_terms(text))


class QueryVectors:
    """One query's vectors, embedded at most once per embedder object.

    The sources searched for one question (catalogs of one vector space, the workspace, the
    library, memory) can share one, so the query is embedded once per model instead of once per
    source.
    """

    def __init__(self, query: str) -> None:
        self.query = query
        self._found: dict[int, tuple[Embedder, NDArray[np.float32]]] = {}

    def of(self, embedder: Embedder) -> NDArray[np.float32]:
        """``embedder``'s vector of :attr:`query`, embedded on first use."""
        found = self._found.get(id(embedder))
        if found is None:
            vector = np.asarray(embedder.embed_queries([self.query])[0], dtype=np.float32)
            # Keeping the embedder alive keeps its id from naming another object later.
            found = self._found[id(embedder)] = (embedder, vector)
        return found[1]


def query_vectors_for(query: str, given: QueryVectors | None) -> QueryVectors:
    """``given`` when it is for ``query`` (a fresh one when ``None``); refuses another query's,
    and a query that is not valid Unicode (``invalid-unicode``: a tokenizer cannot take it)."""
    check_text(query, "the search query")
    if given is None:
        return QueryVectors(query)
    if given.query != query:
        raise InvalidInput(
            f"query vectors of {given.query!r} were given for the query {query!r}",
            reason="query-mismatch",
        )
    return given


def check_min_similarity(value: float | None) -> None:
    """Refuse a cosine floor outside ``[-1, 1]``: above 1 nothing could ever qualify, and a
    silent empty result would hide the mistake (``None`` keeps the source's own floor)."""
    if value is not None and not (math.isfinite(value) and -1.0 <= value <= 1.0):
        raise InvalidInput(
            f"min_similarity is a cosine from -1 to 1, got {value!r}",
            reason="invalid-similarity",
            subject=str(value),
        )
