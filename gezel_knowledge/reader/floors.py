"""Cosine floors: below them a vector neighbour is not evidence (seed "Hybrid ranking").

Nearest-neighbour search always has a nearest result, even for an unrelated question, and cosine
ranges differ between models, so each embedding profile gets its own measured floor. The values
come from ``benchmarks/floors.py`` (see ``docs/search.md`` for the method and the figures): the
floor sits above the best cosine that unrelated queries reach against a corpus and below the
cosines of queries the corpus answers. The bge-small and E5 values are the reference
implementation's calibration, adopted until they can be re-measured here. A profile without a
floor applies none.

Unsolicited (proactive) retrieval is stricter: :data:`PROACTIVE_COSINE_FLOORS` sit above the
best cosine that everyday off-topic questions (``benchmarks/data/off_topic_questions.json``)
reach against a real corpus of thousands of passages, where the explicit floor lets a few
through. A profile without a proactive floor uses its explicit one.
"""

from __future__ import annotations

from gezk.profiles import EmbeddingProfile

__all__ = ["COSINE_FLOORS", "PROACTIVE_COSINE_FLOORS", "cosine_floor", "proactive_floor"]

COSINE_FLOORS: dict[str, float] = {
    # all-MiniLM-L6-v2 (int8 graph): unrelated questions reached at most 0.32 against the
    # floors corpus, paraphrased questions scored their passage 0.39 or more. On SciFact
    # (12,435 passages, training split) 0.35 keeps the best passage of 98.6% of the judged
    # relevant documents; 5 of 64 off-topic questions still reach a passage above it.
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


PROACTIVE_COSINE_FLOORS: dict[str, float] = {
    # SciFact, training split: the 64 off-topic questions reach at most 0.391, so none passes
    # 0.40, which keeps the best passage of 97.3% of the judged relevant documents.
    "all-minilm-l6-v2-int8@1": 0.40,
    "test-hash-embed@1": 0.35,
}
"""Stricter floors for unsolicited (proactive) retrieval, by embedding profile id."""


def proactive_floor(profile: EmbeddingProfile) -> float | None:
    """The proactive floor for ``profile``: its own when measured, else its explicit floor."""
    return PROACTIVE_COSINE_FLOORS.get(profile.id, cosine_floor(profile))
