"""Per-document fusion of a catalog's ranked lists (seed "Hybrid ranking").

Vector passages, document title/summary/alias matches and chunk keyword matches are each turned
into a ranking of documents (a document's rank is where its first, best item appears; in the
vector list its second passage above the cosine floor adds :data:`SECOND_PASSAGE_SHARE` of its
cosine there, and its opening passage :data:`OPENING_SHARE`) and fused by
:func:`gezel_knowledge.fusion.fuse` (by default
:data:`~gezel_knowledge.fusion.DEFAULT_FUSION`, ``score``: each list's scores divided by its
best, vector 0.7, every other list 0.3). A fourth
list, documents whose title the query names (:mod:`gezel_knowledge.reader._titles`), weighs
:data:`NAMED_SHARE` of the title list's weight in any preset. Documents left tied go first by
their standing in score (each list's raw score divided by its best). Hybrid search weighs a
dated page (a blog post, a changelog: :mod:`gezel_knowledge.reader.dated`), and for a how-to
question an API reference or a landing page (:mod:`gezel_knowledge.reader.howto`), a little
less and
lists copies of a page after the other pages (:func:`copies_last`). A fused document keeps its
best passage: the best vector passage when it has one, else its best
keyword passage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from gezel_knowledge.fusion import (
    DEFAULT_FUSION,
    KEYWORD,
    TITLE,
    VECTOR,
    Fused,
    FusionPreset,
    Ranked,
    fuse,
)
from gezel_knowledge.hits import Signal
from gezel_knowledge.reader._rows import ChunkRow
from gezel_knowledge.reader.dated import DATED_WEIGHT
from gezel_knowledge.reader.howto import HOWTO_WEIGHT

__all__ = [
    "NAMED",
    "NAMED_SHARE",
    "OPENING_SHARE",
    "SECOND_PASSAGE_SHARE",
    "RankedDocument",
    "RankedPassage",
    "copies_last",
    "fuse_documents",
    "with_cosines",
]

NAMED = "named-title"
"""The ranked list of documents whose title the query names (raw score: negated BM25)."""

NAMED_SHARE = 0.25
"""The weight of the named-title list, as a share of the title list's weight.

A title the question names is a hint, not a verdict: a one-word title ("Options",
"Responses") is named by many questions it does not answer. At a quarter of the title list's
weight it settles the documents the passage lists leave tied or a rank apart, and cannot
outvote a document that both passage lists put first. On the 25 trees of
``benchmarks/realdocs.py``, a half let generic titles win eight questions more than a quarter
did (docs/quality.md)."""


SECOND_PASSAGE_SHARE = 0.2
"""How much a document's second passage in the vector list adds to its best cosine, per unit
of cosine above the embedding profile's cosine floor.

A page about the question's subject has several passages near it; a long page that touches
everything (release notes, a usage guide, an overview) often has one. The vector list ranks a
document by ``best + SECOND_PASSAGE_SHARE * max(0, second - floor)``: a second passage at or
below the cosine floor adds nothing, so a document with one passage is never marked down. On
the 56 trees of ``benchmarks/realdocs.py`` this moved the answer page first for 8 questions and
away from it for none (docs/quality.md)."""


OPENING_SHARE = 0.1
"""How much a document's opening passage adds to its standing in the vector list, per unit of
cosine above the embedding profile's cosine floor, when it is not the document's best passage.

A page's opening passage (its title and introduction: ordinal 0) says what the page is about. A
page about the question's subject opens near it; a broad page (a README, an API reference, a
usage guide) that answers in one deep section opens on something else. The vector list ranks a
document by ``best + SECOND_PASSAGE_SHARE * max(0, second - floor) + OPENING_SHARE * max(0,
opening - floor)``, the last part only when the best passage is not the opening one (it is
counted already). On the 80 documentation trees of ``benchmarks/realdocs.py`` this put the
answer first for three questions more and one fewer; on 42 trees nobody had searched before,
five more and one fewer (docs/quality.md)."""


@dataclass(frozen=True, slots=True)
class RankedPassage:
    """A passage in a ranked list with that list's raw score (higher is better)."""

    row: ChunkRow
    score: float


@dataclass(frozen=True, slots=True)
class RankedDocument:
    """A document in the title/summary/alias list with its raw score (higher is better)."""

    document_id: str
    score: float


def _by_document(
    items: Sequence[RankedPassage] | Sequence[RankedDocument],
) -> list[Ranked[str, ChunkRow]]:
    """A document ranking: each document at its first (best) item, keeping that passage."""
    out: dict[str, Ranked[str, ChunkRow]] = {}
    for item in items:
        if isinstance(item, RankedPassage):
            out.setdefault(item.row.document_id, Ranked(item.row.document_id, item.score, item.row))
        else:
            out.setdefault(item.document_id, Ranked(item.document_id, item.score))
    return list(out.values())


def _vector_documents(
    passages: Sequence[RankedPassage],
    evidence: float | None,
    openings: Mapping[str, float] | None = None,
) -> tuple[list[Ranked[str, ChunkRow]], dict[str, float]]:
    """The vector list as documents ranked by best cosine plus the share
    (:data:`SECOND_PASSAGE_SHARE`) of their second passage's cosine above ``evidence`` and the
    share (:data:`OPENING_SHARE`) of their opening passage's cosine above it (``openings``, by
    document; when the best passage is not the opening one), by best cosine alone when
    ``evidence`` is ``None``; and each document's best cosine."""
    best: dict[str, RankedPassage] = {}
    second: dict[str, float] = {}
    for p in passages:
        document = p.row.document_id
        if document not in best:
            best[document] = p
        elif document not in second:
            second[document] = p.score
    share = 0.0 if evidence is None else SECOND_PASSAGE_SHARE
    opening_share = 0.0 if evidence is None or openings is None else OPENING_SHARE
    zero = max(0.0, evidence or 0.0)

    def opening(d: str, p: RankedPassage) -> float:
        found = openings.get(d) if openings is not None and p.row.ordinal != 0 else None
        # An opening at least as near as the best passage is the best: counted already.
        return zero if found is None or found >= p.score else found

    ranked = [
        Ranked(
            d,
            p.score
            + share * max(0.0, second.get(d, zero) - zero)
            + opening_share * max(0.0, opening(d, p) - zero),
            p.row,
        )
        for d, p in best.items()
    ]
    # Stable: documents of equal standing keep the list's order.
    ranked.sort(key=lambda r: -r.score)
    return ranked, {d: p.score for d, p in best.items()}


def _cosine_signals(
    fused: Fused[str, ChunkRow], cosines: Mapping[str, float], floor: float | None
) -> Fused[str, ChunkRow]:
    """``fused`` with its vector signal's raw score the best passage's cosine, and no vector
    signal when that cosine is below the floor (the hit is then marked ``keyword-only``)."""
    signals: list[Signal] = []
    for s in fused.signals:
        if s.name != VECTOR:
            signals.append(s)
            continue
        cosine = cosines[fused.key]
        if floor is None or cosine >= floor:
            signals.append(Signal(VECTOR, s.rank, cosine))
    return replace(fused, signals=tuple(signals))


def fuse_documents(
    lists: Mapping[str, Sequence[RankedPassage] | Sequence[RankedDocument]],
    preset: FusionPreset = DEFAULT_FUSION,
    floor: float | None = None,
    evidence: float | None = None,
    dated: Callable[[str], bool] | None = None,
    *,
    openings: Mapping[str, float] | None = None,
    broad: Callable[[str], bool] | None = None,
) -> list[Fused[str, ChunkRow]]:
    """Fuse the vector, title, keyword and named-title lists (each best first) into
    documents, best first.

    Lists are fused vector first, so a document's vector passage wins over its keyword passage.
    A document's standing in the vector list counts its second passage above ``evidence``
    (:data:`SECOND_PASSAGE_SHARE`; hybrid search passes the profile's cosine floor, 0 without
    one, and vector search ``None``: its documents stay in cosine order) and, given
    ``openings`` (each document's opening passage's cosine), its opening passage
    (:data:`OPENING_SHARE`); a vector passage
    below ``floor`` (the cosine of a document only the keyword list found) still ranks its
    document, but is not reported as a vector signal. Documents the fused ranks leave tied
    (first in one list and second in another, against the other way round) are ordered by
    their standing in score (:func:`_standing`): the one whose list put it further ahead of the
    rest goes first, rather than the vector list's. A document for which ``dated`` is true (a
    blog post, a changelog: :func:`gezel_knowledge.reader.dated.is_dated`; hybrid search also
    counts an older documentation version's page, :mod:`gezel_knowledge.reader.versions`) has
    its fused score multiplied by :data:`~gezel_knowledge.reader.dated.DATED_WEIGHT`, and one
    for which ``broad`` is true (an API reference or a landing page, for a question asking how to
    do something: :mod:`gezel_knowledge.reader.howto`) by
    :data:`~gezel_knowledge.reader.howto.HOWTO_WEIGHT`.
    """
    ordered: dict[str, list[Ranked[str, ChunkRow]]] = {}
    cosines: dict[str, float] = {}
    for name in (VECTOR, TITLE, KEYWORD, NAMED):
        if name not in lists:
            continue
        items = lists[name]
        if name == VECTOR:
            passages = [p for p in items if isinstance(p, RankedPassage)]
            ordered[name], cosines = _vector_documents(passages, evidence, openings)
        else:
            ordered[name] = _by_document(items)
    weights = {**preset.weights, NAMED: preset.weight(TITLE) * NAMED_SHARE}
    fused = fuse(ordered, replace(preset, weights=MappingProxyType(weights)))
    if dated is not None:
        # A dated page goes after a documentation page that answers as well (reader.dated).
        fused = [replace(f, score=f.score * DATED_WEIGHT) if dated(f.key) else f for f in fused]
    if broad is not None:
        # A task's page goes before a broad page that answers a how-to question as well.
        fused = [replace(f, score=f.score * HOWTO_WEIGHT) if broad(f.key) else f for f in fused]
    fused.sort(key=lambda f: (-round(f.score, TIE_DIGITS), -_standing(f, ordered)))
    return [_cosine_signals(f, cosines, floor) if f.key in cosines else f for f in fused]


def with_cosines(
    fused: Sequence[Fused[str, ChunkRow]], passages: Sequence[RankedPassage], floor: float | None
) -> list[Fused[str, ChunkRow]]:
    """``fused`` with each vector signal's raw score its document's best cosine in ``passages``
    (a vector list whose scores are cosines), and no vector signal when that is below the floor:
    for a fusion of a vector list scored otherwise (pseudo-relevance feedback, reader.feedback)."""
    cosines: dict[str, float] = {}
    for p in passages:
        cosines.setdefault(p.row.document_id, p.score)
    return [_cosine_signals(f, cosines, floor) if f.key in cosines else f for f in fused]


def copies_last(fused: Sequence[Fused[str, ChunkRow]]) -> list[Fused[str, ChunkRow]]:
    """``fused`` with every copy of a document ranked above it moved after the documents that are
    no copies, each part in its order.

    A copy is a document whose kept passage has the same title and text as the kept passage of
    a document before it: the same page in another version of the documentation
    (``v3.5/how-to-watch-keys`` and ``v3.6/.../how-to-watch-keys``), or a page included twice.
    Copies would fill the first places with one answer; after the others they stay findable. A
    document without a kept passage is no copy.
    """
    seen: set[tuple[str, str]] = set()
    first: list[Fused[str, ChunkRow]] = []
    copies: list[Fused[str, ChunkRow]] = []
    for f in fused:
        key = None if f.item is None else (f.item.title, f.item.text)
        if key is not None and key in seen:
            copies.append(f)
            continue
        if key is not None:
            seen.add(key)
        first.append(f)
    return first + copies


TIE_DIGITS = 12
"""Fused scores equal to this many decimals are a tie (sums of ``1 / (k + rank)`` taken in
another order may differ in their last bits)."""


def _standing(
    fused: Fused[str, ChunkRow], lists: Mapping[str, Sequence[Ranked[str, ChunkRow]]]
) -> float:
    """How near the head of its lists a document stands by score: the sum over the lists it
    is in of its raw score divided by that list's best (a cosine by the best cosine, a BM25
    score by the best BM25 score, so two scales are never compared)."""
    total = 0.0
    for signal in fused.signals:
        ranked = lists.get(signal.name)
        if ranked and ranked[0].score > 0:
            total += min(1.0, max(0.0, signal.score / ranked[0].score))
    return total
