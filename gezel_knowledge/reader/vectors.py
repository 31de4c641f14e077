"""Two-stage semantic search over one catalog's shards (seed "Two-stage catalog vector search").

Routing scores every routing centroid against the unit query and ranks shards by their best
centroid (spec section 8.4). In each routed shard, stage 1 scans the shard's sign bits held in
memory: by default the asymmetric lookup-table scan of the float query (``query - center`` for a
``centered-sign`` profile), or the spec's binary-query Hamming baseline. It keeps
``min(4096, max(1024, 32 * final_k), eligible)`` candidates; stage 2 reads only their int8 rows
and reranks them against the original, uncentered float query. Eligibility masks (radius search)
are applied before the stage-1 top-K, so a closer neighbour outside the mask never displaces an
eligible one.

A catalog handle keeps each searched shard's vectors in a :class:`BitCache`, an LRU with a byte
budget (the seed's 256 MiB per handle). The first search of a shard pays only for its sign
bits and runs gezk's numpy kernels, fetching the candidates' int8 rows from SQLite. A shard
searched again is hot: its second search starts preparing the compiled kernels (numba, when
installed) on a background thread, and stage 1 runs them once they are ready (identical
shortlists, several times faster); and when the budget has room for them, the shard's int8 rows
are read once in chunk-id order and kept, so the rerank reads memory instead of SQLite.
Eviction drops int8 rows before sign bits, least recently used shard first. A one-shot search
(a CLI call) therefore imports no compiler and reads no more than it needs.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol, cast

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge._rows import fetch_columns
from gezel_knowledge.errors import IntegrityFailure
from gezel_knowledge.reader._kwindex import KeywordKernels
from gezk.quantize import (
    PackedBits,
    QueryTables,
    Shortlist,
    hamming_topk,
    lut_topk,
    pack_sign_bits,
    rerank_int8,
)

__all__ = [
    "DEFAULT_BIT_CACHE_BYTES",
    "DEFAULT_FINAL_K",
    "EXPLICIT_SHARD_BUDGET",
    "HOT_AFTER_SEARCHES",
    "KERNELS_ENV",
    "PROACTIVE_SHARD_BUDGET",
    "BitCache",
    "KernelStatus",
    "ShardHit",
    "ShardVectors",
    "candidate_count",
    "compiled_kernels_available",
    "compiled_keyword_kernel",
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
"""Resident vector budget per catalog handle (sign bits and any resident int8 rows)."""

KERNELS_ENV: Final = "GEZEL_KNOWLEDGE_KERNELS"
"""Environment variable: ``numpy`` keeps stage 1 on gezk's numpy kernels even for hot shards."""

_log = logging.getLogger("gezel_knowledge.reader")

HOT_AFTER_SEARCHES: Final = 2
"""From this many searches of a shard on, it is hot: compiled kernels, resident int8 rows."""
_INT8_BATCH_ROWS: Final = 8192


def candidate_count(final_k: int, eligible: int) -> int:
    """Stage-1 shortlist size: ``min(4096, max(1024, 32 * final_k), eligible)``."""
    return min(4096, max(1024, 32 * final_k), eligible)


@dataclass(frozen=True, slots=True)
class ShardHit:
    """One reranked passage of a shard: its chunk id and stage-2 cosine."""

    shard_id: int
    chunk_id: int
    score: float


class _Kernels(KeywordKernels, Protocol):
    """What :mod:`gezel_knowledge.reader._compiled` offers: gezk's shortlists, compiled."""

    def hamming_topk(
        self,
        bits: PackedBits,
        query_bits: NDArray[np.uint8],
        k: int,
        mask: NDArray[np.bool_] | None,
    ) -> Shortlist: ...

    def lut_topk(
        self, bits: PackedBits, tables: QueryTables, k: int, mask: NDArray[np.bool_] | None
    ) -> Shortlist: ...


class _Compiled:
    """The compiled kernels, prepared once per process on a background thread.

    Importing numba and compiling (or loading the cached machine code) takes from a fraction of
    a second to several seconds, so the first hot search starts the preparation and searches
    keep to the numpy kernels, which give the same shortlists, until it is done.
    """

    kernels: _Kernels | None = None
    error: BaseException | None = None
    _thread: threading.Thread | None = None
    _lock = threading.Lock()

    @classmethod
    def get(cls, *, wait: bool) -> _Kernels | None:
        if _kernels_disabled():
            return None
        with cls._lock:
            if cls._thread is None:
                cls._thread = threading.Thread(
                    target=cls._prepare, name="gezel-knowledge-kernels", daemon=True
                )
                cls._thread.start()
            thread = cls._thread
        if wait:
            thread.join()
        return cls.kernels

    @classmethod
    def _prepare(cls) -> None:
        try:
            # Imported on demand for its third-party dependency (numba, ~0.3 s to import), not
            # to hide a cycle: it imports nothing of gezel_knowledge (a test checks it).
            module = importlib.import_module("gezel_knowledge.reader._compiled")
            module.warm_up()
        except Exception as exc:  # an optional accelerator: any failure leaves numpy in charge
            cls.error = exc
            # Once per process (this runs once): the results stay the same, only slower.
            _log.warning(
                "compiled stage-1 kernels unavailable, hot shards keep the numpy kernels "
                "(same results, slower): %s",
                _one_line(exc),
            )
            return
        cls.kernels = cast(_Kernels, module)


def _kernels_disabled() -> bool:
    return os.environ.get(KERNELS_ENV, "").strip().lower() == "numpy"


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())


@dataclass(frozen=True, slots=True)
class KernelStatus:
    """Whether hot shards run the compiled stage-1 kernels; true when they do.

    ``message`` says which kernels run and why; ``error`` is the exception that stopped the
    compiled kernels from being prepared (numba missing or failing), if one did.
    """

    available: bool
    message: str
    error: BaseException | None = None

    def __bool__(self) -> bool:
        return self.available

    def __str__(self) -> str:
        return self.message


def compiled_kernels_available() -> KernelStatus:
    """Whether hot shards run the compiled kernels (and why not); prepares them now if not
    yet done.

    False when numba is not installed or failed (``error`` says how; the failure is also
    logged once as a warning), or when ``GEZEL_KNOWLEDGE_KERNELS=numpy``.
    """
    if _kernels_disabled():
        return KernelStatus(False, f"{KERNELS_ENV}=numpy keeps stage 1 on the numpy kernels")
    if _Compiled.get(wait=True) is not None:
        return KernelStatus(True, "hot shards run the numba-compiled stage-1 kernels")
    error = _Compiled.error
    why = _one_line(error) if error is not None else "they could not be prepared"
    return KernelStatus(False, f"hot shards run the numpy kernels: {why}", error)


def compiled_keyword_kernel() -> KeywordKernels | None:
    """The compiled keyword kernels when they are ready (their preparation starts now if it
    has not: the keyword index of a shard searched again calls this); ``None`` until then."""
    return _Compiled.get(wait=False)


class ShardVectors(PackedBits):
    """A shard's sign bits, how often it was searched, and its int8 rows once it is hot.

    Only a shard held by a handle's :class:`BitCache` becomes hot (a validator's one-off probes
    never do). The int8 matrix is loaded only when that cache has room for it within its
    budget; :attr:`nbytes` counts it, so the cache's accounting covers both.
    """

    __slots__ = ("_int8", "_owner", "searches")

    def __init__(self, bits: NDArray[np.uint8]) -> None:
        super().__init__(bits)
        self._int8: NDArray[np.int8] | None = None
        self._owner: BitCache | None = None
        self.searches = 0

    @property
    def nbytes(self) -> int:
        """Bytes held: the sign bits plus the resident int8 rows, if any."""
        return super().nbytes + self.int8_nbytes

    @property
    def hot(self) -> bool:
        """Searched before through the handle that caches it: worth compiled kernels and RAM."""
        return self._owner is not None and self.searches >= HOT_AFTER_SEARCHES

    @property
    def int8_nbytes(self) -> int:
        """Bytes of resident int8 rows (0 until the shard is hot and they fit the budget)."""
        return 0 if self._int8 is None else int(self._int8.nbytes)

    def drop_int8(self) -> int:
        """Release the resident int8 rows; the number of bytes freed."""
        freed = self.int8_nbytes
        self._int8 = None
        return freed

    def int8_rows(
        self, conn: sqlite3.Connection, chunk_ids: NDArray[np.int64], dimensions: int, shard: int
    ) -> NDArray[np.int8]:
        """The candidates' int8 rows in ``chunk_ids`` order, from memory once resident."""
        owner = self._owner
        wanted = self.rows * dimensions
        if self._int8 is None and self.hot and owner is not None and owner.has_room(wanted):
            self._int8 = _load_int8(conn, shard, self.rows, dimensions)
        if self._int8 is not None:
            rows: NDArray[np.int8] = self._int8[chunk_ids - 1]
            return rows
        return _int8_rows(conn, chunk_ids, dimensions, shard)


class BitCache:
    """Per-handle LRU of shards' vectors, evicting beyond a byte budget (int8 rows first)."""

    def __init__(self, budget_bytes: int = DEFAULT_BIT_CACHE_BYTES) -> None:
        self.budget_bytes = budget_bytes
        self._entries: OrderedDict[int, PackedBits] = OrderedDict()

    def get(self, shard_id: int, load: Callable[[], PackedBits]) -> PackedBits:
        """The shard's bits, loading them on a miss; the entry becomes most recently used."""
        entry = self._entries.get(shard_id)
        if entry is None:
            entry = load()
            if isinstance(entry, ShardVectors):
                entry._owner = self
            self._entries[shard_id] = entry
        self._entries.move_to_end(shard_id)
        return entry

    def has_room(self, extra_bytes: int) -> bool:
        """Whether ``extra_bytes`` more fit within the budget without evicting anything."""
        return self.resident_bytes + extra_bytes <= self.budget_bytes

    def trim(self) -> None:
        """Evict until within budget: int8 rows first, then least recently used shards.

        The most recently used shard's sign bits always stay.
        """
        excess = self.resident_bytes - self.budget_bytes
        for entry in self._entries.values():
            if excess <= 0:
                return
            if isinstance(entry, ShardVectors):
                excess -= entry.drop_int8()
        while len(self._entries) > 1 and self.resident_bytes > self.budget_bytes:
            _, evicted = self._entries.popitem(last=False)
            if isinstance(evicted, ShardVectors):
                evicted._owner = None

    @property
    def resident_bytes(self) -> int:
        """Bytes currently held across cached shards."""
        return sum(e.nbytes for e in self._entries.values())

    @property
    def resident_int8_bytes(self) -> int:
        """Of :attr:`resident_bytes`, the bytes of resident int8 rows."""
        return sum(e.int8_nbytes for e in self._entries.values() if isinstance(e, ShardVectors))

    def shard_ids(self) -> list[int]:
        """Cached shards, least recently used first."""
        return list(self._entries)

    def clear(self) -> None:
        """Drop every cached shard."""
        for entry in self._entries.values():
            if isinstance(entry, ShardVectors):
                entry._owner = None
        self._entries.clear()


def load_sign_bits(
    conn: sqlite3.Connection, shard_id: int, chunk_count: int, dimensions: int
) -> ShardVectors:
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
    return ShardVectors(matrix)


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
    """The candidates' int8 rows read from SQLite, in ``chunk_ids`` order."""
    wanted = np.unique(chunk_ids)  # ascending, each id once
    # No ORDER BY: SQLite sorting 4,096 joined rows with their blobs costs more than numpy
    # ordering their ids.
    columns = fetch_columns(
        conn,
        "SELECT v.chunk_id AS chunk_id, v.v AS v FROM json_each(?) j"
        " JOIN chunk_vectors_int8 v ON v.chunk_id = j.value"
        " WHERE length(v.v) = ? AND typeof(v.v) = 'blob'",
        (json.dumps(wanted.tolist()), dimensions),
    )
    found = np.array(columns["chunk_id"], dtype=np.int64)
    order = np.argsort(found)
    # Rows of the wrong width or type are left out by the query, so a gap betrays them too.
    if not np.array_equal(found[order], wanted):
        raise IntegrityFailure(
            f"shard {shard_id} int8 vectors are missing or of the wrong width",
            reason="vectors-misaligned",
            subject=f"shard {shard_id}",
        )
    matrix = np.frombuffer(b"".join(columns["v"]), dtype=np.int8).reshape(len(found), dimensions)
    # Rows back in the caller's order (and repeated where the caller repeats an id).
    return matrix[order[np.searchsorted(wanted, chunk_ids)]]


def _load_int8(
    conn: sqlite3.Connection, shard_id: int, chunk_count: int, dimensions: int
) -> NDArray[np.int8]:
    """A shard's whole ``chunk_vectors_int8`` in chunk-id order, read once, checking alignment."""
    n, lo, hi = conn.execute(
        "SELECT COUNT(*), MIN(chunk_id), MAX(chunk_id) FROM chunk_vectors_int8"
    ).fetchone()
    if n != chunk_count or (n and (lo != 1 or hi != n)):
        raise _misaligned_int8(shard_id, chunk_count)
    # One numpy allocation, filled in batches: no second copy of the shard, and numpy asks
    # for huge pages for large arrays, which makes the rerank's scattered row reads cheaper.
    matrix = np.empty((n, dimensions), dtype=np.int8)
    cursor = conn.execute(
        "SELECT v FROM chunk_vectors_int8 WHERE length(v) = ? AND typeof(v) = 'blob'"
        " ORDER BY chunk_id",
        (dimensions,),
    )
    filled = 0
    while batch := cursor.fetchmany(_INT8_BATCH_ROWS):
        # Rows of the wrong width are left out by the query, so a short count betrays them.
        if filled + len(batch) > n:
            raise _misaligned_int8(shard_id, chunk_count)
        data = b"".join(v for (v,) in batch)
        matrix[filled : filled + len(batch)] = np.frombuffer(data, np.int8).reshape(-1, dimensions)
        filled += len(batch)
    if filled != n:
        raise _misaligned_int8(shard_id, chunk_count)
    return matrix


def _misaligned_int8(shard_id: int, chunk_count: int) -> IntegrityFailure:
    return IntegrityFailure(
        f"shard {shard_id} int8 vectors are not aligned with its {chunk_count} chunks",
        reason="vectors-misaligned",
        subject=f"shard {shard_id}",
    )


def _stage1(
    bits: PackedBits,
    query: NDArray[np.float32],
    k: int,
    *,
    center: NDArray[np.float32] | None,
    stage1: str,
    tables: QueryTables | None,
    mask: NDArray[np.bool_] | None,
    hot: bool,
) -> Shortlist:
    compiled = _Compiled.get(wait=False) if hot else None
    if stage1 == "hamming":
        query_bits = pack_sign_bits(query, center)
        if compiled is not None:
            return compiled.hamming_topk(bits, query_bits, k, mask)
        return hamming_topk(bits, query_bits, k, mask=mask)
    prepared = tables if tables is not None else QueryTables.build(query, center)
    if compiled is not None:
        return compiled.lut_topk(bits, prepared, k, mask)
    return lut_topk(bits, prepared, k, mask=mask)


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
    hot = False
    if isinstance(bits, ShardVectors):
        bits.searches += 1
        hot = bits.hot
    shortlist = _stage1(
        bits, query, k, center=center, stage1=stage1, tables=tables, mask=mask, hot=hot
    )
    chunk_ids = shortlist.chunk_ids
    if chunk_ids.shape[0] == 0:
        return []
    dimensions = query.shape[0]
    if isinstance(bits, ShardVectors):
        rows = bits.int8_rows(conn, chunk_ids, dimensions, shard_id)
    else:
        rows = _int8_rows(conn, chunk_ids, dimensions, shard_id)
    # dot(q, q8 / 127): the query is never quantized (spec section 6.2).
    scores = rerank_int8(rows, query)
    order = np.lexsort((chunk_ids, -scores))[:final_k]
    return [ShardHit(shard_id, int(chunk_ids[i]), float(scores[i])) for i in order]
