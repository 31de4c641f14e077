"""Recall over the memory index (seed, "Memory recall has an additional time dimension").

FTS5 keyword matches and ``vec_mem`` neighbours are fused by
:func:`gezel_knowledge.fusion.fuse` (the ``rrf`` preset by default). For automatic recall,
``status`` notes decay with age, ``weight = 0.5 ** (age_days / STATUS_HALF_LIFE_DAYS)``, while
facts, decisions and preferences keep their full weight; an explicit search ranks without decay.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import date

from gezel_knowledge._rows import Row, fetch_all
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.fusion import KEYWORD, VECTOR, Fused, FusionPreset, Ranked, fuse, relevance
from gezel_knowledge.hits import SearchHit
from gezel_knowledge.indexes._cjk_match import keyword_match
from gezel_knowledge.indexes._memory_format import DURABLE_KINDS
from gezel_knowledge.indexes._vectors import vector_list
from gezel_knowledge.query import QueryVectors
from gezel_knowledge.reader.floors import cosine_floor
from gezel_knowledge.results import SearchMode, SearchResult, Semantic, SourceReport

__all__ = ["STATUS_HALF_LIFE_DAYS", "MemoryQuery", "decay_weight", "search_memory"]

STATUS_HALF_LIFE_DAYS = 7.0
"""Half-life of a status note's weight in automatic recall: a week-old note counts half."""


def decay_weight(kind: str, entry_date: str, today: date) -> float:
    """The automatic-recall weight of a note: 1 for durable kinds, a half-life decay for
    ``status`` (a note dated in the future counts as today's)."""
    if kind in DURABLE_KINDS:
        return 1.0
    age = max(0, (today - date.fromisoformat(entry_date)).days)
    return float(0.5 ** (age / STATUS_HALF_LIFE_DAYS))


@dataclass(frozen=True, slots=True)
class MemoryQuery:
    """One recall: the query, its filters, and ``today`` when status notes decay."""

    text: str
    vectors: QueryVectors
    k: int
    mode: SearchMode
    fusion: FusionPreset
    embedder: Embedder | None = None
    min_similarity: float | None = None
    scopes: frozenset[str] | None = None
    kinds: frozenset[str] | None = None
    today: date | None = None
    """The day automatic recall decays from; ``None`` for an explicit search."""


@dataclass(frozen=True, slots=True)
class _Entry:
    """A ``mem`` row."""

    id: int
    date: str
    kind: str
    scope: str
    text: str
    line_start: int
    line_end: int

    @classmethod
    def from_row(cls, r: Row) -> _Entry:
        return cls(
            int(r["id"]),
            str(r["date"]),
            str(r["kind"]),
            str(r["scope"]),
            str(r["text"]),
            int(r["line_start"]),
            int(r["line_end"]),
        )


Lists = dict[str, list[Ranked[int, None]]]


def _entries(conn: sqlite3.Connection, ids: list[int]) -> dict[int, _Entry]:
    out: dict[int, _Entry] = {}
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        marks = ",".join("?" * len(part))
        for r in fetch_all(
            conn,
            "SELECT id, date, kind, scope, text, line_start, line_end FROM mem"
            f" WHERE id IN ({marks})",
            part,
        ):
            entry = _Entry.from_row(r)
            out[entry.id] = entry
    return out


def _ranked(
    conn: sqlite3.Connection, fused: list[Fused[int, None]], q: MemoryQuery
) -> list[tuple[_Entry, Fused[int, None], float]]:
    """The fused entries that pass the filters, re-ranked by their decay weight."""
    entries = _entries(conn, [f.key for f in fused])
    scored: list[tuple[float, int, _Entry, Fused[int, None], float]] = []
    for order, f in enumerate(fused):
        entry = entries.get(f.key)
        if entry is None:
            continue
        if q.scopes is not None and entry.scope not in q.scopes:
            continue
        if q.kinds is not None and entry.kind not in q.kinds:
            continue
        weight = 1.0 if q.today is None else decay_weight(entry.kind, entry.date, q.today)
        scored.append((-f.score * weight, order, entry, f, weight))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [(entry, f, weight) for _, _, entry, f, weight in scored[: q.k]]


def _floor(q: MemoryQuery) -> float | None:
    """The caller's floor, else the profile's measured one: the nearest entry is near even when
    unrelated, and neighbours under the floor are no evidence."""
    if q.min_similarity is not None or q.embedder is None:
        return q.min_similarity
    return cosine_floor(q.embedder.profile)


def _hit(
    folder: str, position: int, entry: _Entry, fused: Fused[int, None], weight: float
) -> SearchHit:
    name = f"{entry.date}.md"
    return SearchHit(
        source_kind="memory",
        source=folder,
        document_id=name,
        title=f"{entry.date} {entry.kind} ({entry.scope})",
        text=entry.text,
        citation=f"memory/{name}#line={entry.line_start}-{entry.line_end}",
        rank=position,
        relevance=relevance(position) * weight,
        line_start=entry.line_start,
        line_end=entry.line_end,
        signals=tuple(sorted(fused.signals, key=lambda s: s.name)),
        date=entry.date,
        scope=entry.scope,
        kind=entry.kind,
    )


def search_memory(conn: sqlite3.Connection, folder: str, q: MemoryQuery) -> SearchResult:
    """Run ``q`` against an open memory index whose files live in ``folder``."""
    n = max(8 * q.k, 80)
    lists: Lists = {}
    match = keyword_match(conn, ("mem_fts",), q.text)
    if q.mode != "vector" and match is not None:
        rows = fetch_all(
            conn,
            "SELECT rowid AS id, bm25(mem_fts, 1.0, 0.2) AS score FROM mem_fts "
            "WHERE mem_fts MATCH ? ORDER BY bm25(mem_fts, 1.0, 0.2) LIMIT ?",
            (match, n),
        )
        lists[KEYWORD] = [Ranked(int(r["id"]), -float(r["score"])) for r in rows]
    semantic = Semantic("off")
    if q.mode != "keyword":
        found, semantic = vector_list(
            conn,
            "vec_mem",
            "memory",
            embedder=q.embedder,
            vectors=q.vectors,
            n=n,
            min_similarity=_floor(q),
            holder="memory",
        )
        if semantic.state == "used":
            lists[VECTOR] = found
    ranked = _ranked(conn, fuse(lists, q.fusion), q)
    hits = tuple(_hit(folder, i, *item) for i, item in enumerate(ranked))
    report = SourceReport.from_semantic(
        folder, "memory", semantic, signals=tuple(lists), hits=len(hits)
    )
    return SearchResult(q.text, q.mode, hits, (report,))
