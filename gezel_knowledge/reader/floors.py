"""Cosine floors: below them a vector neighbour is not evidence (seed "Hybrid ranking").

Nearest-neighbour search always has a nearest result, even for an unrelated question, and cosine
ranges differ between models, so each embedding profile gets its own measured floor. The values
come from ``benchmarks/floors.py`` (see ``docs/search.md`` for the method and the figures): the
floor sits above the best cosine that unrelated queries reach against a corpus and below the
cosines of queries the corpus answers. The bge-small and E5 values are the reference
implementation's calibration, adopted until they can be re-measured here. A profile without a
floor applies none.
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
    # Not measurable here (the Xenova files are not on this machine): the reference
    # implementation's calibration of 2026-09-30, kept until benchmarks/floors.py re-measures
    # them. bge: the floor of its project index for the daemon's own embedder. e5: Wikipedia
    # Food & Drink answers scored >= 0.869 and the scale is compressed; both revisions share
    # the float space and int8 rerank, so they share the floor.
    "bge-small-en-v1.5@1": 0.55,
    "multilingual-e5-small@1": 0.865,
    "multilingual-e5-small@2": 0.865,
}
"""Floors by embedding profile id (see the comments for where each value comes from)."""


def cosine_floor(profile: EmbeddingProfile) -> float | None:
    """The floor for ``profile``'s vector space, or ``None`` when none was measured."""
    return COSINE_FLOORS.get(profile.id)
