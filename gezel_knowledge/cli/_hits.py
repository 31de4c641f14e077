"""How every search command prints hits: one block per hit, the same for ``search``, ``find``,
``index-search`` and ``memory search``.

A block says what a newcomer needs to judge and open a result: the rank and title, where the
passage is (section and line range), which ranked lists found it and at what rank there (with
the cosine similarity when meaning matched), a preview, and the citation to ``read``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from gezel_knowledge.cli._output import excerpt, plural
from gezel_knowledge.display import score_text
from gezel_knowledge.fusion import KEYWORD, KEYWORD_ONLY, TITLE, VECTOR
from gezel_knowledge.hits import SearchHit, Signal
from gezel_knowledge.reader.hybrid import NAMED
from gezel_knowledge.results import SearchResult

__all__ = [
    "LEGEND",
    "RELEVANCE_HELP",
    "WORDS_ONLY",
    "hit_lines",
    "result_lines",
    "signal_text",
    "vector_floor_note",
]

RELEVANCE_HELP = (
    "Each hit says which ranked lists found it and its rank in each: 'meaning' (passages close "
    "to the question, with their cosine similarity, -1 to 1, higher is closer), 'title' "
    "(document titles, summaries and aliases) and 'keywords' (passages sharing the query's "
    "words). Hits are ordered by fusing those ranks. Each hit's score is the cosine of its "
    "passage to the question (a cutoff can act on it; '-' where no cosine was measured, as in "
    "keyword mode); the relevance in --json, 11/(11+position), describes the position only, "
    "not the probability that a passage is right."
)
"""What the ranking and relevance mean, for the search commands' ``--help``."""

_LABELS = {VECTOR: "meaning", TITLE: "title", KEYWORD: "keywords", NAMED: "title named"}


def signal_text(signal: Signal) -> str:
    """``meaning #1 (cosine 0.66)``, ``keywords #3``: a list's name and the hit's rank there;
    only a cosine is shown as a score (BM25 values mean nothing to a reader). The
    ``keyword-only`` mark is no list: it says no passage close in meaning supported the hit."""
    if signal.name == KEYWORD_ONLY:
        return f"words only (cosine {signal.score:.2f}, below the floor)"
    text = f"{_LABELS.get(signal.name, signal.name)} #{signal.rank}"
    if signal.name == VECTOR:
        text += f" (cosine {signal.score:.2f})"
    return text


def _distance(meters: float) -> str:
    return f"{meters:,.0f} m" if meters < 1000 else f"{meters / 1000:,.1f} km"


def _place(hit: SearchHit, *, show_source: bool) -> str:
    parts = [hit.document_id]
    if show_source:
        prov = hit.provenance
        parts.insert(0, f"{hit.source}@{prov.version}" if prov is not None else hit.source)
    if hit.line_start is not None:
        end = hit.line_end if hit.line_end is not None else hit.line_start
        parts.append(f"lines {hit.line_start}-{end}" if end != hit.line_start else f"line {end}")
    if hit.date is not None and hit.date not in (hit.title + hit.document_id):
        parts.append(hit.date)  # a memory day file already says its date in its name
    if hit.distance_meters is not None:
        where = f" from {hit.matched_location}" if hit.matched_location else ""
        parts.append(f"{_distance(hit.distance_meters)}{where}")
    return ", ".join(parts)


LEGEND = (
    "'score' is the cosine similarity of the passage to the question (1 = the same meaning; "
    "'-': not measured), which a cutoff can act on. 'matched' says how each result was found: "
    "by meaning, by title, by keywords, or by a title the question names ('title named'); "
    "#1 is the best of that list."
)


WORDS_ONLY = "'words only' means the question's words matched but nothing close in meaning did."
"""Added to the legend when a hit carries the ``keyword-only`` mark."""


def _legend(hits: Sequence[SearchHit]) -> str:
    marked = any(s.name == KEYWORD_ONLY for hit in hits for s in hit.signals)
    return f"{LEGEND} {WORDS_ONLY}" if marked else LEGEND


def _preview(hit: SearchHit, width: int) -> str:
    # A passage starts with its own heading, which the block's first line already shows.
    text = excerpt(hit.text, 100_000)
    heading = (hit.heading_path or (hit.title,))[-1]
    if heading and text.startswith(heading + " "):
        text = text[len(heading) + 1 :]
    return excerpt(text, width)


def hit_lines(hit: SearchHit, *, show_source: bool = False, width: int = 200) -> Iterator[str]:
    """The block of one hit."""
    title = (
        " > ".join((hit.title, *hit.section_path)) if hit.title else " > ".join(hit.heading_path)
    )
    yield f"{hit.rank + 1}. {title or hit.citation}  ({_place(hit, show_source=show_source)})"
    score = f"   score {score_text(hit.score)}"
    if hit.signals:
        yield f"{score}; matched: " + ", ".join(signal_text(s) for s in hit.signals)
    else:
        yield score
    if hit.text:
        yield f"   {_preview(hit, width)}"
    yield f"   {hit.citation}"


def result_lines(
    result: SearchResult,
    *,
    show_source: bool = False,
    header: str | None = None,
    read: str | None = None,
    why_empty: str | None = None,
) -> Iterator[str]:
    """Every hit's block, blank lines between them, after ``header``; ``no results`` when there
    are none. After them: the count, what "matched" means, and (with ``read``, the command that
    opens a citation) how to read the first result in full. ``why_empty`` follows "no results"
    when the command knows why there are none."""
    hits: Sequence[SearchHit] = result.hits
    if not hits:
        yield f"no results for {result.query!r}" if result.query.strip() else "no results"
        if why_empty:
            yield why_empty
        return
    if header:
        yield header
        yield ""
    for i, hit in enumerate(hits):
        if i:
            yield ""
        yield from hit_lines(hit, show_source=show_source)
    yield ""
    yield f"{plural(len(hits), 'result')}. {_legend(hits)}"
    if read:
        yield f"Read the first in full: {read} '{hits[0].citation}'"


def vector_floor_note(
    result: SearchResult, floor: float | None, *, can_lower: bool = True
) -> str | None:
    """Why a vector search that ran found nothing: every passage fell below the cosine floor
    (``can_lower``: the command takes ``--min-similarity``)."""
    if result.hits or result.mode != "vector":
        return None
    if not any(r.semantic == "used" for r in result.sources):
        return None
    level = "the profile's cosine floor" if floor is None else f"the cosine floor, {floor:.2f}"
    lower = "--min-similarity C lowers it; " if can_lower else ""
    return (
        f"No passage is close enough in meaning: vector mode keeps only passages at or above "
        f"{level}. {lower}--mode hybrid adds keyword matches."
    )
