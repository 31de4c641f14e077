"""Small text helpers shared by the indexes: FTS5 query building and identifier splitting."""

from __future__ import annotations

import re

__all__ = ["FTS_TOKENIZER", "fts_query", "split_identifier_words"]

FTS_TOKENIZER = "unicode61 remove_diacritics 2"
"""The FTS5 tokenizer of every index table: Unicode word characters, case and accent folded."""

_WORD = re.compile(r"\w+", re.UNICODE)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_MAX_TERMS = 32


def fts_query(text: str) -> str | None:
    """An FTS5 ``MATCH`` expression for free text: each word run becomes a quoted term (FTS
    splits ``parse_config`` into the phrase "parse config") and terms are OR-ed, so BM25 ranks
    passages with more of them first. ``None`` when the text has no word characters."""
    terms = list(dict.fromkeys(m.group(0).lower() for m in _WORD.finditer(text)))
    if not terms:
        return None
    return " OR ".join(f'"{t}"' for t in terms[:_MAX_TERMS])


def split_identifier_words(name: str) -> str:
    """``parseConfigFile`` -> ``parse Config File``: camelCase parts as separate words, so a
    keyword query for "config" finds the symbol (snake_case is split by the FTS tokenizer)."""
    return " ".join(_CAMEL.findall(name))
