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
    # Hash vectors are unrelated unless the texts are identical: unrelated top-1 cosines over a
    # 200,000-passage shard stay below 0.25, the text's own passage scores above 0.95.
    "test-hash-embed@1": 0.35,
}
"""Measured floors by embedding profile id."""


def cosine_floor(profile: EmbeddingProfile) -> float | None:
    """The floor for ``profile``'s vector space, or ``None`` when none was measured."""
    return COSINE_FLOORS.get(profile.id)
