"""Small text helpers shared by the indexes: their FTS5 tokenizer and identifier splitting.

Query terms come from :mod:`gezel_knowledge.query`, the same rules as the catalogs'."""

from __future__ import annotations

import re

__all__ = ["FTS_TOKENIZER", "split_identifier_words"]

FTS_TOKENIZER = "unicode61 remove_diacritics 2"
"""The FTS5 tokenizer of every index table: Unicode word characters, case and accent folded."""

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_identifier_words(name: str) -> str:
    """``parseConfigFile`` -> ``parse Config File``: camelCase parts as separate words, so a
    keyword query for "config" finds the symbol (snake_case is split by the FTS tokenizer)."""
    return " ".join(_CAMEL.findall(name))
