"""Searching the content index (seed, "Mutable vector search").

Independently ranked lists, fused by :func:`gezel_knowledge.fusion.fuse` (the ``gezel`` preset
by default: every list weighs 1 but chunk keyword matches 0.5): vector neighbours in
``vec_text``, FTS5 over symbols, over file names/titles/summaries and over chunk text, and image
neighbours when an image embedder is given. A list entry is a chunk id, or a negated file id for
a whole file. Overlapping locations in one file are merged and each path contributes at most
``per_path`` results.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gezel_knowledge._rows import Row, fetch_all
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.fusion import KEYWORD, VECTOR, FusionPreset, Ranked, fuse, relevance
from gezel_knowledge.hits import SearchHit, Signal
from gezel_knowledge.indexes._cjk_match import keyword_match
from gezel_knowledge.indexes._content_schema import HEADING_SEPARATOR
from gezel_knowledge.indexes._content_types import ImageEmbedder
from gezel_knowledge.indexes._storage import read_stamp
from gezel_knowledge.indexes._vectors import vector_list
from gezel_knowledge.query import QueryVectors
from gezel_knowledge.results import SearchMode, SearchResult, Semantic, SourceReport

__all__ = ["ContentQuery", "search_content"]

SYMBOL = "symbol"
NAME = "name"
IMAGE = "image"

Lists = dict[str, list[Ranked[int, None]]]


@dataclass(frozen=True, slots=True)
class ContentQuery:
    """One search of a content index."""

    text: str
    vectors: QueryVectors
    k: int
    mode: SearchMode
    per_path: int
    fusion: FusionPreset
    embedder: Embedder | None = None
    image_embedder: ImageEmbedder | None = None
    min_similarity: float | None = None


def _image_list(
    conn: sqlite3.Connection, image_embedder: ImageEmbedder, query: str, n: int
) -> list[Ranked[int, None]]:
    stored = read_stamp(conn, "image")
    if stored is None or stored.stamp != image_embedder.stamp:
        return []
    rows = fetch_all(
        conn,
        "SELECT f.id, v.vector FROM files f JOIN image_vectors v "
        "ON v.content_hash = f.content_hash WHERE f.kind = 'image' ORDER BY f.id",
    )
    if not rows:
        return []
    data = b"".join(r["vector"] for r in rows)
    matrix = np.frombuffer(data, dtype=np.float32).reshape(len(rows), -1)
    q = np.asarray(image_embedder.embed_texts([query]), dtype=np.float32).reshape(-1)
    q = q / (np.linalg.norm(q) or 1.0)
    if q.shape[0] != matrix.shape[1]:
        return []
    scores = matrix @ q
    top = min(n, len(rows))
    best = np.argpartition(-scores, top - 1)[:top]
    best = best[np.lexsort((best, -scores[best]))]
    return [Ranked(-int(rows[i]["id"]), float(scores[i])) for i in best]


def _located(rows: list[Row]) -> list[Ranked[int, None]]:
    """Symbol or name matches: their chunk, else the whole file (a negated file id)."""
    return [
        Ranked(int(r["chunk"] if r["chunk"] is not None else -r["file_id"]), -float(r["score"]))
        for r in rows
    ]


def _keyword_lists(conn: sqlite3.Connection, match: str, n: int) -> Lists:
    symbols = fetch_all(
        conn,
        "SELECT s.file_id, (SELECT c.id FROM chunks c WHERE c.file_id = s.file_id "
        "AND c.line_start <= s.line_start AND c.line_end >= s.line_start "
        "ORDER BY c.line_start DESC LIMIT 1) AS chunk, bm25(symbols_fts) AS score "
        "FROM symbols_fts JOIN symbols s ON s.id = symbols_fts.rowid "
        "WHERE symbols_fts MATCH ? ORDER BY bm25(symbols_fts) LIMIT ?",
        (match, n),
    )
    names = fetch_all(
        conn,
        "SELECT files_fts.rowid AS file_id, (SELECT c.id FROM chunks c "
        "WHERE c.file_id = files_fts.rowid ORDER BY c.ordinal LIMIT 1) AS chunk, "
        "bm25(files_fts, 1.0, 2.0, 1.0) AS score FROM files_fts WHERE files_fts MATCH ? "
        "ORDER BY bm25(files_fts, 1.0, 2.0, 1.0) LIMIT ?",
        (match, n),
    )
    passages = fetch_all(
        conn,
        "SELECT rowid AS id, bm25(chunks_fts) AS score FROM chunks_fts WHERE chunks_fts MATCH ? "
        "ORDER BY bm25(chunks_fts) LIMIT ?",
        (match, n),
    )
    return {
        SYMBOL: _located(symbols),
        NAME: _located(names),
        KEYWORD: [Ranked(int(r["id"]), -float(r["score"])) for r in passages],
    }


@dataclass(slots=True)
class _Kept:
    path: str
    title: str
    text: str
    span: tuple[int, int] | None
    heading_path: tuple[str, ...]
    signals: list[Signal]


def _overlaps(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    """Whether two line spans overlap; a whole-file hit (``None``) overlaps everything."""
    if a is None or b is None:
        return True
    return a[0] <= b[1] and b[0] <= a[1]


def _in_batches(conn: sqlite3.Connection, sql: str, ids: list[int]) -> list[Row]:
    """``sql`` (with ``{marks}`` for the id list) over ``ids`` in batches of 500."""
    rows: list[Row] = []
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        rows += fetch_all(conn, sql.format(marks=",".join("?" * len(part))), part)
    return rows


def _locations(conn: sqlite3.Connection, keys: list[int]) -> dict[int, _Kept]:
    """Each fused key's file, title, text, span and heading path (signals filled later)."""
    out: dict[int, _Kept] = {}
    chunk_sql = (
        "SELECT c.id, f.path, f.title, c.heading, c.line_start, c.line_end, c.text "
        "FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})"
    )
    for r in _in_batches(conn, chunk_sql, [key for key in keys if key > 0]):
        heading = str(r["heading"])
        out[int(r["id"])] = _Kept(
            str(r["path"]),
            str(r["title"]),
            str(r["text"]),
            (int(r["line_start"]), int(r["line_end"])),
            tuple(heading.split(HEADING_SEPARATOR)) if heading else (),
            [],
        )
    file_sql = "SELECT id, path, title, summary FROM files WHERE id IN ({marks})"
    for r in _in_batches(conn, file_sql, [-key for key in keys if key < 0]):
        out[-int(r["id"])] = _Kept(str(r["path"]), str(r["title"]), str(r["summary"]), None, (), [])
    return out


def _kept(
    conn: sqlite3.Connection,
    keys: list[int],
    signals: dict[int, tuple[Signal, ...]],
    q: ContentQuery,
) -> list[_Kept]:
    """The fused keys as results: overlapping locations merged, ``per_path`` per file."""
    located = _locations(conn, keys)
    kept: list[_Kept] = []
    by_path: dict[str, list[_Kept]] = {}
    for key in keys:
        hit = located.get(key)
        if hit is None:
            continue
        existing = by_path.setdefault(hit.path, [])
        overlap = next((h for h in existing if _overlaps(h.span, hit.span)), None)
        if overlap is not None:
            # The same location found again: its signals support the hit already kept.
            names = {s.name for s in overlap.signals}
            overlap.signals.extend(s for s in signals.get(key, ()) if s.name not in names)
            continue
        if len(existing) >= q.per_path:
            continue
        hit.signals = list(signals.get(key, ()))
        existing.append(hit)
        kept.append(hit)
        if len(kept) >= q.k:
            break
    return kept


def _hit(workspace: str, position: int, hit: _Kept) -> SearchHit:
    span = hit.span
    return SearchHit(
        source_kind="workspace",
        source=workspace,
        document_id=hit.path,
        title=hit.title,
        text=hit.text,
        citation=hit.path if span is None else f"{hit.path}#line={span[0]}-{span[1]}",
        rank=position,
        relevance=relevance(position),
        heading_path=hit.heading_path,
        line_start=None if span is None else span[0],
        line_end=None if span is None else span[1],
        signals=tuple(sorted(hit.signals, key=lambda s: s.name)),
    )


def search_content(conn: sqlite3.Connection, workspace: Path, q: ContentQuery) -> SearchResult:
    """Run ``q`` against an open content index of ``workspace``."""
    n = max(4 * q.k, 40)
    lists: Lists = {}
    semantic = Semantic("off")
    if q.mode != "keyword":
        found, semantic = vector_list(
            conn,
            "vec_text",
            "text",
            embedder=q.embedder,
            vectors=q.vectors,
            n=n,
            min_similarity=q.min_similarity,
            holder="the workspace index",
        )
        if semantic.state == "used":
            lists[VECTOR] = found
    match = keyword_match(conn, ("symbols_fts", "files_fts", "chunks_fts"), q.text)
    if q.mode != "vector" and match is not None:
        lists.update(_keyword_lists(conn, match, n))
    if q.mode != "keyword" and q.image_embedder is not None:
        lists[IMAGE] = _image_list(conn, q.image_embedder, q.text, n)
    fused = fuse(lists, q.fusion)
    signals = {f.key: f.signals for f in fused}
    kept = _kept(conn, [f.key for f in fused], signals, q)
    hits = tuple(_hit(str(workspace), i, h) for i, h in enumerate(kept))
    report = SourceReport.from_semantic(
        str(workspace), "workspace", semantic, signals=tuple(lists), hits=len(hits)
    )
    return SearchResult(q.text, q.mode, hits, (report,))
