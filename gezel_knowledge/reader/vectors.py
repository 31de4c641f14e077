"""Two-stage semantic search over one catalog's shards (seed "Two-stage catalog vector search").

Routing scores every routing centroid against the unit query and ranks shards by their best
centroid (spec section 8.4). In each routed shard, stage 1 scans the shard's sign bits held in
memory: by default the asymmetric lookup-table scan of the float query (``query - center`` for a
``centered-sign`` profile), or the spec's binary-query Hamming baseline. It keeps
``min(4096, max(1024, 32 * final_k), eligible)`` candidates; stage 2 reads only their int8 rows
and reranks them against the original, uncentered float query. Eligibility masks (radius search)
are applied before the stage-1 top-K, so a closer neighbour outside the mask never displaces an
eligible one. Sign-bit matrices are kept per catalog handle in an LRU cache with a byte budget.
"""

from __future__ import annotations

import json
import sqlite3
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.errors import IntegrityFailure
from gezk.quantize import (
    PackedBits,
    QueryTables,
    hamming_topk,
    lut_topk,
    pack_sign_bits,
    rerank_int8,
)

__all__ = [
    "DEFAULT_BIT_CACHE_BYTES",
    "DEFAULT_FINAL_K",
    "EXPLICIT_SHARD_BUDGET",
    "PROACTIVE_SHARD_BUDGET",
    "BitCache",
    "ShardHit",
    "candidate_count",
    "load_sign_bits",
    "rank_shards",
    "search_shard",
]

DEFAULT_FINAL_K = 24
"""Passages kept per shard after the int8 rerank."""

EXPLICIT_SHARD_BUDGET = 6
"""Shards scanned for an explicit search."""

PROACTIVE_SHARD_BUDGET = 3
"""Shards scanned for proactive (unsolicited) retrieval."""

DEFAULT_BIT_CACHE_BYTES = 256 * 1024 * 1024
"""Resident sign-bit budget per catalog handle."""


def candidate_count(final_k: int, eligible: int) -> int:
    """Stage-1 shortlist size: ``min(4096, max(1024, 32 * final_k), eligible)``."""
    return min(4096, max(1024, 32 * final_k), eligible)


@dataclass(frozen=True, slots=True)
class ShardHit:
    """One reranked passage of a shard: its chunk id and stage-2 cosine."""

    shard_id: int
    chunk_id: int
    score: float


class BitCache:
    """Per-handle LRU of shards' packed sign bits, evicting beyond a byte budget."""

    def __init__(self, budget_bytes: int = DEFAULT_BIT_CACHE_BYTES) -> None:
        self.budget_bytes = budget_bytes
        self._entries: OrderedDict[int, PackedBits] = OrderedDict()

    def get(self, shard_id: int, load: Callable[[], PackedBits]) -> PackedBits:
        """The shard's bits, loading them on a miss; the entry becomes most recently used."""
        entry = self._entries.get(shard_id)
        if entry is None:
            entry = load()
            self._entries[shard_id] = entry
        self._entries.move_to_end(shard_id)
        return entry

    def trim(self) -> None:
        """Evict least recently used shards until within budget (the newest always stays)."""
        while len(self._entries) > 1 and self.resident_bytes > self.budget_bytes:
            self._entries.popitem(last=False)

    @property
    def resident_bytes(self) -> int:
        """Bytes currently held across cached shards."""
        return sum(e.nbytes for e in self._entries.values())

    def shard_ids(self) -> list[int]:
        """Cached shards, least recently used first."""
        return list(self._entries)

    def clear(self) -> None:
        """Drop every cached shard."""
        self._entries.clear()


def load_sign_bits(
    conn: sqlite3.Connection, shard_id: int, chunk_count: int, dimensions: int
) -> PackedBits:
    """Read a shard's ``chunk_vectors_bit`` into one contiguous matrix, checking alignment."""
    width = -(-dimensions // 8)
    n, lo, hi = conn.execute(
        "SELECT COUNT(*), MIN(chunk_id), MAX(chunk_id) FROM chunk_vectors_bit"
    ).fetchone()
    bad = conn.execute(
        "SELECT COUNT(*) FROM chunk_vectors_bit WHERE length(v) != ? OR typeof(v) != 'blob'",
        (width,),
    ).fetchone()[0]
    n8 = conn.execute("SELECT COUNT(*) FROM chunk_vectors_int8").fetchone()[0]
    if n != chunk_count or n8 != chunk_count or (n and (lo != 1 or hi != n)) or bad:
        raise IntegrityFailure(
            f"shard {shard_id} vectors are not aligned with its {chunk_count} chunks "
            f"({n} bit rows, {n8} int8 rows, ids {lo}..{hi}, {bad} of the wrong width)",
            reason="vectors-misaligned",
            subject=f"shard {shard_id}",
        )
    data = b"".join(v for (v,) in conn.execute("SELECT v FROM chunk_vectors_bit ORDER BY chunk_id"))
    matrix = np.frombuffer(data, dtype=np.uint8).reshape(n, width)
    return PackedBits.from_matrix(matrix)


def rank_shards(
    centroid_shards: NDArray[np.int64], centroids: NDArray[np.float32], query: NDArray[np.float32]
) -> list[tuple[int, float]]:
    """Shards by their best centroid cosine, best first (ties by shard id)."""
    if centroids.shape[0] == 0:
        return []
    scores = centroids @ query
    order = np.lexsort((centroid_shards, -scores))
    best: dict[int, float] = {}
    for i in order:
        shard = int(centroid_shards[i])
        if shard not in best:
            best[shard] = float(scores[i])
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))


def _int8_rows(
    conn: sqlite3.Connection, chunk_ids: NDArray[np.int64], dimensions: int, shard_id: int
) -> NDArray[np.int8]:
    ids = sorted(int(c) for c in chunk_ids)
    rows = sorted(
        conn.execute(
            "SELECT v.chunk_id, v.v FROM json_each(?) j"
            " JOIN chunk_vectors_int8 v ON v.chunk_id = j.value",
            (json.dumps(ids),),
        ).fetchall()
    )
    if [r[0] for r in rows] != ids or any(len(r[1]) != dimensions for r in rows):
        raise IntegrityFailure(
            f"shard {shard_id} int8 vectors are missing or of the wrong width",
            reason="vectors-misaligned",
            subject=f"shard {shard_id}",
        )
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.int8).reshape(
        len(ids), dimensions
    )
    # Rows back in the caller's order.
    position = {c: i for i, c in enumerate(ids)}
    return matrix[[position[int(c)] for c in chunk_ids]]


def search_shard(
    conn: sqlite3.Connection,
    shard_id: int,
    bits: PackedBits,
    query: NDArray[np.float32],
    *,
    final_k: int,
    center: NDArray[np.float32] | None,
    stage1: str,
    tables: QueryTables | None = None,
    mask: NDArray[np.bool_] | None = None,
) -> list[ShardHit]:
    """Stage 1 over the shard's bits, stage 2 int8 rerank; the best ``final_k`` passages."""
    eligible = bits.rows if mask is None else int(np.count_nonzero(mask))
    k = candidate_count(final_k, eligible)
    if k <= 0:
        return []
    if stage1 == "hamming":
        shortlist = hamming_topk(bits, pack_sign_bits(query, center), k, mask=mask)
    else:
        prepared = tables if tables is not None else QueryTables.build(query, center)
        shortlist = lut_topk(bits, prepared, k, mask=mask)
    chunk_ids = shortlist.chunk_ids
    if chunk_ids.shape[0] == 0:
        return []
    rows = _int8_rows(conn, chunk_ids, query.shape[0], shard_id)
    # dot(q, q8 / 127): the query is never quantized (spec section 6.2).
    scores = rerank_int8(rows, query)
    order = np.lexsort((chunk_ids, -scores))[:final_k]
    return [ShardHit(shard_id, int(chunk_ids[i]), float(scores[i])) for i in order]
