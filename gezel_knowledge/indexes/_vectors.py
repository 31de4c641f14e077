"""sqlite-vec vector tables of the mutable indexes (seed, "Mutable vector search"), and the one
vector list the content and memory indexes search them with.

New tables declare ``distance_metric=cosine``, so similarity is ``1 - distance``. Tables written
by older versions used sqlite-vec's default L2 metric; their distances are read by the table's
actual declaration in ``sqlite_master``: for unit vectors ``|a - b|^2 = 2 - 2 cos``, so
``cos = 1 - d^2 / 2``.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import KnowledgeError, Unsupported
from gezel_knowledge.fusion import Ranked
from gezel_knowledge.indexes._storage import read_stamp, stamp_text
from gezel_knowledge.query import QueryVectors
from gezel_knowledge.results import Semantic

__all__ = [
    "VecTable",
    "create_vec_table",
    "drop_vec_table",
    "knn",
    "similarity_from_distance",
    "store_pending_vectors",
    "vec_table",
    "vector_list",
]

Metric = Literal["cosine", "l2"]

_DIMS = re.compile(r"float\s*\[\s*(\d+)\s*\]", re.IGNORECASE)
_METRIC = re.compile(r"distance_metric\s*=\s*([A-Za-z0-9_]+)", re.IGNORECASE)
# sqlite-vec refuses k above 4096 in a KNN query.
_MAX_K = 4096


@dataclass(frozen=True, slots=True)
class VecTable:
    """A vec0 table as declared: its name, dimensions and distance metric."""

    name: str
    dimensions: int
    metric: Metric


def vec_table(conn: sqlite3.Connection, name: str) -> VecTable | None:
    """The declaration of vec0 table ``name``, or ``None`` when it does not exist."""
    row = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    if row is None:
        return None
    sql = str(row[0])
    dims = _DIMS.search(sql)
    if dims is None:
        raise Unsupported(
            f"vector table {name} has no float[N] column: {sql}",
            reason="vector-table-unsupported",
            subject=name,
        )
    metric_match = _METRIC.search(sql)
    metric = metric_match.group(1).lower() if metric_match else "l2"
    if metric not in ("cosine", "l2"):
        raise Unsupported(
            f"vector table {name} uses distance metric {metric}; only cosine and l2 are read",
            reason="vector-metric-unsupported",
            subject=name,
        )
    return VecTable(name=name, dimensions=int(dims.group(1)), metric=metric)  # type: ignore[arg-type]


def create_vec_table(conn: sqlite3.Connection, name: str, dimensions: int) -> VecTable:
    """Create vec0 table ``name`` with ``dimensions`` float32 columns and cosine distance."""
    conn.execute(
        f"CREATE VIRTUAL TABLE {name} USING vec0("
        f"embedding float[{int(dimensions)}] distance_metric=cosine)"
    )
    return VecTable(name=name, dimensions=int(dimensions), metric="cosine")


def drop_vec_table(conn: sqlite3.Connection, name: str) -> None:
    """Drop vec0 table ``name`` if it exists."""
    conn.execute(f"DROP TABLE IF EXISTS {name}")


def store_pending_vectors(
    conn: sqlite3.Connection,
    *,
    vec: str,
    table: str,
    columns: str,
    rows: Sequence[tuple[Any, ...]],
    vectors: NDArray[np.float32],
) -> int:
    """Store ``vectors[i]`` for ``rows[i]`` (``(id, *columns)`` as read from ``table``) where the
    row is still pending with that content; call inside the write transaction. Returns how many
    were stored.

    The rows were read, and embedded, outside the write lock: meanwhile another writer may have
    stored their vectors, or a sync replaced them (a rowid can come back with other text).
    Storing them again would duplicate vec0 rows; those rows are skipped, and a replaced one is
    embedded afresh by the caller's next pass.
    """
    ids = json.dumps([int(r[0]) for r in rows])
    current = {
        int(r[0]): tuple(r[1:])
        for r in conn.execute(
            f"SELECT id, {columns} FROM {table} "
            "WHERE embedded = 0 AND id IN (SELECT value FROM json_each(?))",
            (ids,),
        )
    }
    fresh = [(i, int(r[0])) for i, r in enumerate(rows) if current.get(int(r[0])) == tuple(r[1:])]
    conn.executemany(
        f"INSERT INTO {vec} (rowid, embedding) VALUES (?, ?)",
        [(rowid, vectors[i].tobytes()) for i, rowid in fresh],
    )
    conn.executemany(f"UPDATE {table} SET embedded = 1 WHERE id = ?", [(r,) for _, r in fresh])
    return len(fresh)


def similarity_from_distance(distances: NDArray[np.float64], metric: Metric) -> NDArray[np.float64]:
    """Cosine similarity from sqlite-vec distances of a table declared with ``metric``."""
    if metric == "cosine":
        return 1.0 - distances
    return 1.0 - distances * distances / 2.0


def knn(
    conn: sqlite3.Connection, table: VecTable, query: NDArray[np.float32], k: int
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The ``k`` nearest rows of ``table`` to ``query``: rowids and cosine similarities,
    best first."""
    k = max(1, min(int(k), _MAX_K))
    vector = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
    rows = conn.execute(
        f"SELECT rowid, distance FROM {table.name} WHERE embedding MATCH ? AND k = ? "
        "ORDER BY distance",
        (vector.tobytes(), k),
    ).fetchall()
    if not rows:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    data = np.asarray(rows, dtype=np.float64)
    return data[:, 0].astype(np.int64), similarity_from_distance(data[:, 1], table.metric)


def vector_list(
    conn: sqlite3.Connection,
    table: str,
    stamp_kind: str,
    *,
    embedder: Embedder | None,
    vectors: QueryVectors,
    n: int,
    min_similarity: float | None,
    holder: str,
) -> tuple[list[Ranked[int, None]], Semantic]:
    """The ``n`` nearest rows of vec0 ``table`` to the query, at or above ``min_similarity``,
    with :class:`Semantic` ``used``; or no rows and why vector search was unavailable.

    ``stamp_kind`` names the stamp of the vectors' space (``"text"``, ``"memory"``), and
    ``holder`` what holds them in messages (``"the workspace index"``, ``"memory"``).
    """
    if embedder is None:
        return [], Semantic("unavailable", "no-embedder", "no query embedder was given")
    declared = vec_table(conn, table)
    stored = read_stamp(conn, stamp_kind)
    if declared is None or stored is None:
        return [], Semantic("unavailable", "no-vectors", f"{holder} has no vectors yet")
    if stored.stamp != stamp_text(embedder):
        # Never compare across vector spaces.
        message = f"{holder} holds vectors of another embedder than {embedder.profile.id}"
        return [], Semantic("unavailable", "other-vector-space", message)
    try:
        query = vectors.of(embedder)
    except KnowledgeError as exc:
        return [], Semantic("unavailable", exc.reason, f"the query embedder failed: {exc}")
    ids, sims = knn(conn, declared, query, n)
    if min_similarity is not None:
        keep = sims >= min_similarity
        ids, sims = ids[keep], sims[keep]
    return [Ranked(int(i), float(s)) for i, s in zip(ids, sims, strict=True)], Semantic("used")
