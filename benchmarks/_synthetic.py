"""Deterministic made-up text for the benchmarks: a syllable vocabulary and runs of its words.

Shared by ``find.py`` and ``index.py``; they import it from their own directory, whether they
run as scripts or are loaded from their file path (as the tests load them).
"""

from __future__ import annotations

import random

__all__ = ["SYLLABLES", "vocabulary", "words"]

SYLLABLES = ["ka", "ro", "mi", "tu", "ve", "lo", "sa", "ne", "di", "po", "gre", "bal", "tor"]


def vocabulary(rng: random.Random, size: int) -> list[str]:
    """``size`` distinct made-up words of two to four syllables, sorted."""
    found: set[str] = set()
    while len(found) < size:
        found.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(found)


def words(rng: random.Random, vocab: list[str], n: int) -> str:
    """``n`` words drawn from ``vocab``, separated by spaces."""
    return " ".join(rng.choice(vocab) for _ in range(n))
