"""Snowball stemmers by catalog language, shared by keyword search and ``eval``'s baselines.

The format's FTS5 tables hold unstemmed tokens (spec section 7); stemming is a reader-side view
of them, so one language-to-algorithm map serves every place that groups words by stem. The
stemmers come from ``snowballstemmer``: the Snowball project's own generated Python, pure and
small, with no data files and no native code.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import lru_cache

import snowballstemmer

__all__ = ["SNOWBALL_ALGORITHMS", "snowball_algorithm", "stemmer_for"]

SNOWBALL_ALGORITHMS: dict[str, str] = {
    "ar": "arabic",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "eo": "esperanto",
    "es": "spanish",
    "et": "estonian",
    "eu": "basque",
    "fa": "persian",
    "fi": "finnish",
    "fr": "french",
    "ga": "irish",
    "hi": "hindi",
    "hu": "hungarian",
    "hy": "armenian",
    "id": "indonesian",
    "it": "italian",
    "lt": "lithuanian",
    "nb": "norwegian",
    "ne": "nepali",
    "nl": "dutch",
    "nn": "norwegian",
    "no": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "st": "sesotho",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}
"""BCP 47 primary language subtag -> Snowball algorithm name."""

_LOCK = threading.Lock()


def snowball_algorithm(language: str | None) -> str | None:
    """The Snowball algorithm for a BCP 47 tag (``en-GB`` -> ``english``); ``None`` if none."""
    if not language:
        return None
    return SNOWBALL_ALGORITHMS.get(language.split("-", 1)[0].split("_", 1)[0].lower())


@lru_cache(maxsize=64)
def stemmer_for(language: str | None) -> Callable[[str], str] | None:
    """A function stemming one lowercased word in ``language``; ``None`` without a stemmer.

    Languages without a Snowball algorithm keep unstemmed keyword search.
    """
    algorithm = snowball_algorithm(language)
    if algorithm is None:
        return None
    # Snowball stemmer objects keep per-call state, so each language gets its own and callers
    # that stem from several threads take the lock below.
    stemmer = snowballstemmer.stemmer(algorithm)
    cache: dict[str, str] = {}

    def stem(word: str) -> str:
        found = cache.get(word)
        if found is None:
            with _LOCK:
                found = stemmer.stemWord(word)
            if len(cache) < 200_000:
                cache[word] = found
        return found

    return stem
