"""Rank fusion with signals, its named presets, and rank-anchored relevance.

Independently ranked lists (vector neighbours, title matches, keyword passages, symbols...) are
combined by position, ``score(d) = sum_i w_i / (k + rank_i(d))`` with 1-based ranks, or by each
list's scores relative to that list's own best, never by comparing a BM25 score with a cosine.
Every source fuses with
:func:`fuse`, which also records, per fused key, each list's :class:`~gezel_knowledge.hits.Signal`
(its name, the key's rank there and the list's raw score).

The method, the constant and the weights form a :class:`FusionPreset`. ``gezel`` is the seed's
"Hybrid ranking": ``k = 60``, vector passages and title matches weight 1, chunk keyword matches
0.5, any other list 1; ``rrf`` weighs every list 1; ``rrf10`` too, with ``k = 10``. Four presets
also weigh each list's raw scores, each within its own list (so a cosine is still never compared
with a BM25 score): ``score`` sums each list's scores divided by that list's best score,
``rank-score`` mixes that with the reciprocal rank, ``confidence`` scales each list's reciprocal
ranks by how far its head stands above the rest of it, and ``confidence-score`` scales
``score``'s relative scores so. Catalog search uses ``score`` by default (:data:`DEFAULT_FUSION`;
docs/quality.md measures them all). The fused
order maps to relevance ``11 / (11 + rank)`` with a zero-based rank: a statement about
position, not probability.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Generic, Literal, TypeVar

from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.hits import Signal

__all__ = [
    "CONFIDENCE",
    "CONFIDENCE_SCORE",
    "DEFAULT_FUSION",
    "FEEDBACK_DOCUMENTS",
    "FUSION_METHODS",
    "FUSION_PRESETS",
    "GEZEL",
    "KEYWORD",
    "KEYWORD_ONLY",
    "LONG_QUESTION_TERMS",
    "RANK_SCORE",
    "RRF",
    "RRF10",
    "RRF_K",
    "SCORE",
    "SCORE_FEEDBACK",
    "TITLE",
    "VECTOR",
    "Fused",
    "FusionMethod",
    "FusionPreset",
    "Ranked",
    "fuse",
    "fusion_preset",
    "reciprocal_rank_fusion",
    "relevance",
]

RRF_K = 60

FEEDBACK_DOCUMENTS = 3
"""The fused documents ``score-feedback`` takes as relevant (pseudo-relevance feedback)."""

LONG_QUESTION_TERMS = 30
"""Distinct content terms past which a question is a pasted paragraph rather than a question
(``score`` then weighs the vector list 0.4 instead of 0.7; docs/quality.md, fourth round)."""

VECTOR = "vector"
"""The ranked list of vector neighbours (its raw score is a cosine)."""
TITLE = "title"
"""A catalog's document title/summary/alias matches (raw score: negated BM25)."""
KEYWORD = "keyword"
"""Passage keyword matches (raw score: negated BM25)."""
KEYWORD_ONLY = "keyword-only"
"""Not a list but a mark: a hit the keyword lists found that no vector passage above the cosine
floor supports, although the vector list ran (rank 0; score: the cosine of the hit's passage)."""

K = TypeVar("K", bound=Hashable)
P = TypeVar("P")

FusionMethod = Literal["rank", "score", "rank-score", "confidence", "confidence-score"]
"""How a list's entries count (``w`` the list's weight, ``r`` an entry's 1-based rank, ``s`` its
raw score, ``s1`` the list's first score):

* ``rank``: ``w / (k + r)``, reciprocal rank fusion.
* ``score``: ``w * clip(s / s1, 0, 1)``, scores relative to the list's best (CombSUM of
  max-normalised scores); a list whose best score is not positive counts by rank,
  ``w * (k + 1) / (k + r)``.
* ``rank-score``: ``w * ((1 - mix) * (k + 1) / (k + r) + mix * clip(s / s1, 0, 1))``.
* ``confidence``: ``w * c / (k + r)``, where the list's confidence ``c`` is
  ``(s1 - s_m) / (s1 - s_d)`` clipped to 0..1, ``s_m`` the score at rank ``confidence_rank``
  and ``s_d`` the score at rank ``confidence_depth`` (or the list's last): a list whose head
  stands far above its tail weighs more; a list shorter than ``confidence_rank`` keeps ``c = 1``
  and a list of equal scores gets ``c = 0``.
* ``confidence-score``: ``w * c * clip(s / s1, 0, 1)``: ``score``'s relative scores, each list
  weighed by the confidence ``c`` of its head (as for ``confidence``).
"""

FUSION_METHODS: tuple[FusionMethod, ...] = (
    "rank",
    "score",
    "rank-score",
    "confidence",
    "confidence-score",
)


@dataclass(frozen=True, slots=True)
class FusionPreset:
    """How ranked lists are fused: the method, the RRF constant ``k`` and a weight per list."""

    name: str
    k: int = RRF_K
    weights: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    default_weight: float = 1.0
    """The weight of a list the preset does not name."""
    method: FusionMethod = "rank"
    mix: float = 0.5
    """``rank-score``: the share of the normalised score (the rest is the reciprocal rank)."""
    confidence_rank: int = 10
    confidence_depth: int = 100
    long_question: int | None = None
    """A question of more than this many distinct terms fuses with :attr:`long_vector_weight`
    (:meth:`for_question`); ``None``: every question fuses alike."""
    long_vector_weight: float = 0.4
    """The vector list's weight for a long question; every other list's weight is scaled so the
    two still add up as before (``score``: vector 0.4, every other list 0.6)."""
    feedback_documents: int = 0
    """Pseudo-relevance feedback (catalog hybrid search): the first fused documents whose kept
    passages' mean vector re-scores the vector list before a second fusion; 0: none."""
    feedback_share: float = 0.0
    """The feedback vector's share of the re-scoring query: ``(1 - share) * question + share *
    mean(feedback passages)`` (Rocchio's update, over the passages already gathered)."""

    def weight(self, signal: str) -> float:
        """The weight of the ranked list named ``signal``."""
        return self.weights.get(signal, self.default_weight)

    def for_question(self, terms: int) -> FusionPreset:
        """The preset a question of ``terms`` distinct content terms fuses with: this one, or for
        a long question (more than :attr:`long_question`) one that trusts the vector list less.

        A paragraph pasted as a question carries its own lexical evidence, many words the
        passages must share, while its one embedding blurs them into an average: on the dev
        halves of eight collections, CISI's, CACM's and LISA's long questions ranked better with
        the keyword lists weighing more (docs/quality.md, fourth round).
        """
        if self.long_question is None or terms <= self.long_question:
            return self
        vector = self.long_vector_weight
        rest = 1.0 - self.weight(VECTOR)

        def scaled(w: float) -> float:
            # (1 - vector) * (w / rest): a list weighing ``rest`` gets exactly 1 - vector.
            return (1.0 - vector) * (w / rest) if rest > 0 else w

        weights = {name: scaled(w) for name, w in self.weights.items() if name != VECTOR}
        return replace(
            self,
            weights=MappingProxyType({**weights, VECTOR: vector}),
            default_weight=scaled(self.default_weight),
            long_question=None,
        )


GEZEL = FusionPreset("gezel", RRF_K, MappingProxyType({VECTOR: 1.0, TITLE: 1.0, KEYWORD: 0.5}))
"""The seed's weights: vector 1, title 1, keyword 0.5 (others 1), ``k = 60``."""

RRF = FusionPreset("rrf", RRF_K)
"""Plain reciprocal rank fusion: every list weighs 1, ``k = 60``."""

RRF10 = FusionPreset("rrf10", 10)
"""Reciprocal rank fusion with ``k = 10``, every list weighing 1: the head of each list counts
more than with ``k = 60``. The catalogs' default until ``score``: on SciFact and on a second
corpus it ranked better than ``gezel`` and ``rrf`` (docs/quality.md)."""

SCORE = FusionPreset(
    "score",
    10,
    MappingProxyType({VECTOR: 0.7}),
    default_weight=0.3,
    method="score",
    long_question=LONG_QUESTION_TERMS,
    long_vector_weight=0.4,
)
"""Each list's raw scores divided by its best score, summed with vector 0.7 and every other
list 0.3 (a convex combination of max-normalised cosine and BM25); a question of more than
:data:`LONG_QUESTION_TERMS` distinct terms, vector 0.4 and every other list 0.6. The catalogs'
default: ahead of ``rrf10`` on the dev and the test halves of all four collections measured
(pooled over the test questions by 0.016 nDCG@10, paired p 0.0005) and on documentation trees
(docs/quality.md)."""

RANK_SCORE = FusionPreset(
    "rank-score",
    10,
    MappingProxyType({VECTOR: 0.6}),
    default_weight=0.4,
    method="rank-score",
    mix=0.5,
)
"""Half reciprocal rank (``k = 10``), half max-normalised score; vector 0.6, other lists 0.4."""

SCORE_FEEDBACK = replace(
    SCORE, name="score-feedback", feedback_documents=FEEDBACK_DOCUMENTS, feedback_share=0.1
)
"""``score`` with pseudo-relevance feedback in catalog hybrid search: the question's vector
moved a tenth of the way towards the mean of the first three fused documents' kept passages
re-scores the vector list, and the lists are fused again (``reader.feedback``). Opt-in: on the
dev halves of eight collections it helped abstracts with vocabulary mismatch and cost
collections with few relevant documents a question (docs/quality.md, sixth round)."""

CONFIDENCE = FusionPreset("confidence", 10, method="confidence")
"""``rrf10`` with each list weighed by the confidence of its head (rank 10 against rank 100)."""

CONFIDENCE_SCORE = FusionPreset(
    "confidence-score", 10, method="confidence-score", confidence_rank=20, confidence_depth=100
)
"""Each list's raw scores divided by its best, the list weighed by how far its head stands above
the rest of it (best - score at rank 20) / (best - score at rank 100), every list weighing 1
otherwise. On the dev halves of four collections it was at least 0.01 nDCG@10 above RRF(60) of
BM25 and cosine on every one, but on CISI's test half it fell below ``rrf10`` (docs/quality.md)."""

FUSION_PRESETS: Mapping[str, FusionPreset] = MappingProxyType(
    {
        p.name: p
        for p in (
            GEZEL,
            RRF,
            RRF10,
            SCORE,
            SCORE_FEEDBACK,
            RANK_SCORE,
            CONFIDENCE,
            CONFIDENCE_SCORE,
        )
    }
)
"""The named presets."""

DEFAULT_FUSION = SCORE
"""The preset a catalog search fuses with unless told otherwise (docs/quality.md)."""


def fusion_preset(name: str) -> FusionPreset:
    """The preset called ``name``; raises :class:`InvalidInput` (``unknown-fusion``) if none."""
    preset = FUSION_PRESETS.get(name)
    if preset is None:
        raise InvalidInput(
            f"unknown fusion preset {name!r}; presets are {', '.join(FUSION_PRESETS)}",
            reason="unknown-fusion",
            subject=name,
        )
    return preset


@dataclass(frozen=True, slots=True)
class Ranked(Generic[K, P]):
    """One entry of a ranked list: its key, the list's raw score (higher is better) and,
    optionally, the item the key stands for (a passage for a document key)."""

    key: K
    score: float
    item: P | None = None


@dataclass(frozen=True, slots=True)
class Fused(Generic[K, P]):
    """One fused key: its fusion score, the item of the first list that carried one, and the
    signal of every list it appeared in (in the lists' order)."""

    key: K
    score: float
    item: P | None
    signals: tuple[Signal, ...]


def reciprocal_rank_fusion(
    ranked_lists: Sequence[Sequence[K]],
    weights: Sequence[float] | None = None,
    *,
    k: int = RRF_K,
) -> list[tuple[K, float]]:
    """Fuse ranked key lists; return ``(key, score)`` best first, ties by first appearance.

    A key repeated within one list counts at its first (best) position only.
    """
    if weights is None:
        weights = [1.0] * len(ranked_lists)
    if len(weights) != len(ranked_lists):
        raise InvalidInput("one weight per ranked list is required", reason="invalid-argument")
    # A dict keeps keys in order of first appearance and sorted() is stable: equal scores stay
    # in that order without keeping it separately.
    scores: dict[K, float] = {}
    for weight, ranked in zip(weights, ranked_lists, strict=True):
        seen: set[K] = set()
        for position, key in enumerate(ranked, start=1):
            if key in seen:
                continue
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + weight / (k + position)
    return sorted(scores.items(), key=lambda item: -item[1])


def fuse(
    lists: Mapping[str, Sequence[Ranked[K, P]]], preset: FusionPreset = GEZEL
) -> list[Fused[K, P]]:
    """Fuse named ranked lists (each best first) by ``preset``; best first, with signals.

    A key's rank in a list is the 1-based position of its first entry there; later entries of
    the same key in that list are ignored. Ties keep the order of first appearance, lists taken
    in the mapping's order, which is also the order of each key's signals and of the lists an
    item is taken from.
    """
    names = [name for name, ranked in lists.items() if ranked]
    firsts: dict[str, dict[K, tuple[int, Ranked[K, P]]]] = {}
    for name in names:
        first: dict[K, tuple[int, Ranked[K, P]]] = {}
        for position, entry in enumerate(lists[name], start=1):
            first.setdefault(entry.key, (position, entry))
        firsts[name] = first
    if preset.method == "rank":
        fused = reciprocal_rank_fusion(
            [[entry.key for entry in lists[name]] for name in names],
            [preset.weight(name) for name in names],
            k=preset.k,
        )
    else:
        fused = _score_fusion([lists[name] for name in names], names, preset)
    out: list[Fused[K, P]] = []
    for key, score in fused:
        signals: list[Signal] = []
        item: P | None = None
        for name in names:
            found = firsts[name].get(key)
            if found is None:
                continue
            position, entry = found
            signals.append(Signal(name, position, entry.score))
            if item is None:
                item = entry.item
        out.append(Fused(key, score, item, tuple(signals)))
    return out


def _normalised(score: float, best: float) -> float:
    return min(1.0, max(0.0, score / best))


def _confidence(ranked: Sequence[Ranked[K, P]], preset: FusionPreset) -> float:
    """How far a list's head stands above the rest of it, 0..1 (see :data:`FusionMethod`)."""
    if len(ranked) < preset.confidence_rank:
        return 1.0
    top = ranked[0].score
    low = ranked[min(preset.confidence_depth, len(ranked)) - 1].score
    if top - low <= 1e-12:
        return 0.0
    return min(1.0, max(0.0, (top - ranked[preset.confidence_rank - 1].score) / (top - low)))


def _score_fusion(
    ranked_lists: Sequence[Sequence[Ranked[K, P]]], names: Sequence[str], preset: FusionPreset
) -> list[tuple[K, float]]:
    """Fuse by a score-aware method of :data:`FusionMethod`; ties by first appearance."""
    k = preset.k
    scores: dict[K, float] = {}
    for name, ranked in zip(names, ranked_lists, strict=True):
        weight = preset.weight(name)
        best = ranked[0].score
        if preset.method in ("confidence", "confidence-score"):
            weight *= _confidence(ranked, preset)
        seen: set[K] = set()
        for position, entry in enumerate(ranked, start=1):
            if entry.key in seen:
                continue
            seen.add(entry.key)
            by_rank = (k + 1) / (k + position)
            if preset.method == "confidence":
                value = 1 / (k + position)
            elif preset.method in ("score", "confidence-score"):
                value = _normalised(entry.score, best) if best > 0 else by_rank
            else:
                by_score = _normalised(entry.score, best) if best > 0 else by_rank
                value = (1 - preset.mix) * by_rank + preset.mix * by_score
            scores[entry.key] = scores.get(entry.key, 0.0) + weight * value
    return sorted(scores.items(), key=lambda item: -item[1])


def relevance(rank: int) -> float:
    """Rank-anchored relevance ``11 / (11 + rank)`` for a zero-based fused rank."""
    if rank < 0:
        raise ValueError("rank must be >= 0")
    return 11.0 / (11.0 + rank)
