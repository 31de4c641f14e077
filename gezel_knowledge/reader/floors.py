"""Cosine floors: below them a vector neighbour is not evidence (seed "Hybrid ranking").

Nearest-neighbour search always has a nearest result, even for an unrelated question, and cosine
ranges differ between models, so each embedding profile gets its own measured floor. The values
come from ``benchmarks/floors.py`` (see ``docs/search.md`` for the method and the figures): the
floor sits above the best cosine that unrelated queries reach against a corpus and below the
cosines of queries the corpus answers. A profile without a measured floor applies none.
"""

from __future__ import annotations

from gezk.profiles import EmbeddingProfile

__all__ = ["COSINE_FLOORS", "cosine_floor"]

COSINE_FLOORS: dict[str, float] = {
    # all-MiniLM-L6-v2 (int8 graph): unrelated questions reached at most 0.32 against the
    # floors corpus, paraphrased questions scored their passage 0.39 or more.
    "all-minilm-l6-v2-int8@1": 0.35,
    # Hash vectors are unrelated unless the texts are identical: the best unrelated score over
    # a 200,000-passage shard was 0.28 (200 queries); a text's own passage scores above 0.99.
    # Rounded up to leave room for catalogs of several shards.
    "test-hash-embed@1": 0.35,
}
"""Measured floors by embedding profile id."""


def cosine_floor(profile: EmbeddingProfile) -> float | None:
    """The floor for ``profile``'s vector space, or ``None`` when none was measured."""
    return COSINE_FLOORS.get(profile.id)
