"""Per-shard vector search state: hot shards, resident int8 rows, the cache budget, eviction.

A shard's first search runs gezk's numpy kernels and fetches int8 rows from SQLite; later ones
run the compiled kernels on resident rows. Whatever path runs, the hits must be the same.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import IntegrityFailure
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import vectors as reader_vectors
from gezel_knowledge.reader.vectors import (
    KERNELS_ENV,
    BitCache,
    ShardHit,
    ShardVectors,
    compiled_kernels_available,
    load_sign_bits,
    search_shard,
)
from gezk.hashembed import hash_embed
from gezk.quantize import PackedBits, QueryTables, pack_sign_bits, quantize_int8

D = 384
N = 3000  # more rows than the 1,024 stage-1 candidates, so stage 1 decides what is reranked


def _shard(n: int, seed: int) -> tuple[sqlite3.Connection, np.ndarray, np.ndarray]:
    """An in-memory shard's two vector tables; vectors with near-duplicates (ties)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, D))
    x[rng.integers(0, n, size=n // 5)] = x[rng.integers(0, n, size=n // 5)]
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE chunk_vectors_bit(chunk_id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
    conn.execute("CREATE TABLE chunk_vectors_int8(chunk_id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
    bits, q8 = pack_sign_bits(x), quantize_int8(x)
    conn.executemany(
        "INSERT INTO chunk_vectors_bit VALUES (?, ?)",
        [(i + 1, b.tobytes()) for i, b in enumerate(bits)],
    )
    conn.executemany(
        "INSERT INTO chunk_vectors_int8 VALUES (?, ?)",
        [(i + 1, v.tobytes()) for i, v in enumerate(q8)],
    )
    return conn, x, q8


@pytest.fixture(scope="module")
def shard() -> Iterator[tuple[sqlite3.Connection, np.ndarray, np.ndarray]]:
    conn, x, q8 = _shard(N, 1)
    yield conn, x, q8
    conn.close()


def _queries(x: np.ndarray, count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(2)
    out = []
    for i in range(count):
        q = x[i * 97] + 0.3 * rng.standard_normal(D)  # near a stored vector: real neighbours
        out.append((q / np.linalg.norm(q)).astype(np.float32))
    return out


def _search(
    conn: sqlite3.Connection,
    bits: PackedBits,
    q: np.ndarray,
    stage1: str,
    mask: np.ndarray | None = None,
) -> list[ShardHit]:
    tables = QueryTables.build(q) if stage1 == "lut" else None
    return search_shard(
        conn, 0, bits, q, final_k=24, center=None, stage1=stage1, tables=tables, mask=mask
    )


@pytest.mark.parametrize("stage1", ["lut", "hamming"])
def test_hot_shard_hits_equal_first_search_hits(
    shard: tuple[sqlite3.Connection, np.ndarray, np.ndarray], stage1: str
) -> None:
    conn, x, _ = shard
    compiled_kernels_available()  # hot searches use them once prepared (when numba is here)
    mask = np.random.default_rng(3).random(N) < 0.6
    for q in _queries(x, 6):
        for m in (None, mask):
            # Reference: a plain PackedBits is never hot: numpy kernels, rows from SQLite.
            expected = _search(
                conn, PackedBits.from_matrix(load_sign_bits(conn, 0, N, D).matrix()), q, stage1, m
            )
            cache = BitCache()
            bits = cache.get(0, lambda: load_sign_bits(conn, 0, N, D))
            first = _search(conn, bits, q, stage1, m)
            assert cache.resident_int8_bytes == 0
            hot = [_search(conn, bits, q, stage1, m) for _ in range(3)]
            assert cache.resident_int8_bytes == N * D
            assert first == expected
            assert all(h == expected for h in hot)


def test_hot_shards_run_the_compiled_kernels_unless_told_not_to(
    shard: tuple[sqlite3.Connection, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("numba", reason="numba is not installed on this platform")
    conn, x, _ = shard
    calls: list[str] = []

    def spy(name: str, real: object) -> object:
        def wrapper(*args: object, **kwargs: object) -> object:
            calls.append(name)
            return real(*args, **kwargs)  # type: ignore[operator]

        return wrapper

    monkeypatch.setattr(reader_vectors, "lut_topk", spy("numpy", reader_vectors.lut_topk))
    assert compiled_kernels_available()
    bits = BitCache().get(0, lambda: load_sign_bits(conn, 0, N, D))
    q = _queries(x, 1)[0]
    _search(conn, bits, q, "lut")
    _search(conn, bits, q, "lut")
    assert calls == ["numpy"]  # only the first search of the shard
    monkeypatch.setenv(KERNELS_ENV, "numpy")
    assert not compiled_kernels_available()
    _search(conn, bits, q, "lut")
    assert calls == ["numpy", "numpy"]


def test_without_numba_hot_shards_keep_the_numpy_kernels(
    shard: tuple[sqlite3.Connection, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    conn, x, _ = shard

    def missing(name: str) -> None:
        raise ImportError(f"No module named 'numba' (importing {name})")

    compiled = reader_vectors._Compiled
    for attribute in ("_thread", "kernels", "error"):
        monkeypatch.setattr(compiled, attribute, None)
    monkeypatch.setattr(reader_vectors.importlib, "import_module", missing)
    assert not compiled_kernels_available()
    assert isinstance(compiled.error, ImportError)
    bits = BitCache().get(0, lambda: load_sign_bits(conn, 0, N, D))
    q = _queries(x, 1)[0]
    first = _search(conn, bits, q, "lut")
    assert [_search(conn, bits, q, "lut") for _ in range(2)] == [first, first]


def test_a_kernel_failure_is_logged_once_and_reported_by_the_status(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(name: str) -> None:
        raise RuntimeError(f"LLVM cannot compile {name}")

    compiled = reader_vectors._Compiled
    for attribute in ("_thread", "kernels", "error"):
        monkeypatch.setattr(compiled, attribute, None)
    monkeypatch.setattr(reader_vectors.importlib, "import_module", broken)
    with caplog.at_level(logging.WARNING, logger="gezel_knowledge"):
        statuses = [compiled_kernels_available() for _ in range(3)]
    assert all(not s and not s.available for s in statuses)
    assert isinstance(statuses[0].error, RuntimeError)
    assert "LLVM cannot compile" in statuses[0].message
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].name.startswith("gezel_knowledge")
    assert "RuntimeError: LLVM cannot compile" in warnings[0].getMessage()


def test_the_status_says_the_kernels_were_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KERNELS_ENV, "numpy")
    status = compiled_kernels_available()
    assert not status
    assert status.error is None
    assert f"{KERNELS_ENV}=numpy" in status.message


def test_int8_rows_stay_in_sqlite_when_the_budget_has_no_room(
    shard: tuple[sqlite3.Connection, np.ndarray, np.ndarray],
) -> None:
    conn, x, _ = shard
    bits_bytes = N * 48
    cache = BitCache(budget_bytes=bits_bytes + N * D - 1)  # one byte short of both
    bits = cache.get(0, lambda: load_sign_bits(conn, 0, N, D))
    q = _queries(x, 1)[0]
    expected = _search(conn, bits, q, "lut")
    for _ in range(3):
        assert _search(conn, bits, q, "lut") == expected
        cache.trim()
    assert cache.resident_int8_bytes == 0
    assert cache.resident_bytes == bits_bytes <= cache.budget_bytes


def _entry(n: int) -> ShardVectors:
    """A shard of n rows of 384 bits as a search leaves it: n * 48 bytes of layout."""
    conn, _, _ = _shard(n, n)
    entry = load_sign_bits(conn, 0, n, D)
    entry.words64()
    conn.close()
    return entry


def test_cache_accounts_bits_and_int8_and_evicts_int8_first() -> None:
    # 100 rows: bits 4,800 bytes, int8 38,400 bytes.
    cache = BitCache(budget_bytes=100_000)
    for shard_id in (0, 1):
        cache.get(shard_id, lambda: _entry(100))
    assert cache.resident_bytes == 2 * 4_800
    # Hot shard 0 loads its int8 rows: they fit, and count against the budget.
    entry0 = cache.get(0, lambda: _entry(100))
    assert isinstance(entry0, ShardVectors)
    entry0.searches = 2
    conn, _, _ = _shard(100, 100)
    entry0.int8_rows(conn, np.array([5, 1]), D, 0)
    assert cache.resident_int8_bytes == 38_400
    assert cache.resident_bytes == 2 * 4_800 + 38_400
    # Shard 1 too: 86,400 bytes held, still within 100,000.
    entry1 = cache.get(1, lambda: _entry(100))
    assert isinstance(entry1, ShardVectors)
    entry1.searches = 2
    entry1.int8_rows(conn, np.array([1]), D, 1)
    assert cache.resident_bytes == 2 * (4_800 + 38_400)
    # A third shard's int8 rows would not fit: they stay in SQLite, nothing is evicted for them.
    entry2 = cache.get(2, lambda: _entry(100))
    assert isinstance(entry2, ShardVectors)
    entry2.searches = 2
    rows = entry2.int8_rows(conn, np.array([3]), D, 2)
    assert rows.shape == (1, D)
    assert entry2.int8_nbytes == 0
    conn.close()
    # Over budget (shrunk): the least recently used shard's int8 rows go before any bits.
    cache.budget_bytes = 60_000
    cache.trim()
    assert cache.shard_ids() == [0, 1, 2]
    assert (entry0.int8_nbytes, entry1.int8_nbytes) == (0, 38_400)
    cache.budget_bytes = 15_000
    cache.trim()
    assert cache.shard_ids() == [0, 1, 2]
    assert cache.resident_int8_bytes == 0
    assert cache.resident_bytes == 3 * 4_800
    # Then whole shards, least recently used first; the newest always stays.
    cache.budget_bytes = 10_000
    cache.trim()
    assert cache.shard_ids() == [1, 2]
    cache.budget_bytes = 1
    cache.trim()
    assert cache.shard_ids() == [2]
    assert cache.resident_bytes == 4_800


def test_resident_bytes_never_exceed_the_budget_across_a_search_sequence(
    sharded_catalog: Path,
) -> None:
    budget = 20_000
    with open_catalog(sharded_catalog, embedder=HashEmbedder(), bit_cache_bytes=budget) as c:
        vector = hash_embed(["lattice ember"])[0]
        seen = []
        for shards in ([0], [0], [1], [0, 1], [2], [2], [0, 1, 2], [0, 1, 2]):
            c.search_with_vector("lattice ember", vector, mode="vector", shards=shards)
            seen.append(c.resident_vector_bytes)
        assert max(seen) <= budget
        assert c._vectors.bits.resident_int8_bytes > 0  # small shards: their int8 rows fit


def test_catalog_search_results_are_the_same_cold_and_hot(sharded_catalog: Path) -> None:
    texts = ["lattice ember", "copper beacon harbor", "quartz willow", "saffron"]
    vectors = hash_embed(texts)
    with open_catalog(sharded_catalog, embedder=HashEmbedder()) as c:
        for stage1 in ("lut", "hamming"):
            first = [
                c.vector_passages(v, stage1=stage1, shards=[0, 1, 2])  # type: ignore[arg-type]
                for v in vectors
            ]
            again = [
                c.vector_passages(v, stage1=stage1, shards=[0, 1, 2])  # type: ignore[arg-type]
                for v in vectors
            ]
            assert [[(p.row.chunk_uid, p.score) for p in r] for r in again] == [
                [(p.row.chunk_uid, p.score) for p in r] for r in first
            ]
        assert c._vectors.bits.resident_int8_bytes > 0


def test_shards_outside_a_handle_never_turn_hot(
    shard: tuple[sqlite3.Connection, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A validator probes many times with bits it loaded itself: numpy kernels, SQLite rows.
    conn, x, _ = shard
    monkeypatch.setattr(reader_vectors._Compiled, "get", _no_compiled_kernels)
    bits = load_sign_bits(conn, 0, N, D)
    q = _queries(x, 1)[0]
    for _ in range(3):
        _search(conn, bits, q, "lut")
    assert bits.searches == 3
    assert not bits.hot
    assert bits.int8_nbytes == 0


def _no_compiled_kernels(*, wait: bool) -> None:
    raise AssertionError("a shard outside a handle asked for the compiled kernels")


def test_a_wrong_width_int8_row_is_refused_when_rows_become_resident() -> None:
    conn, _, _ = _shard(50, 9)
    conn.execute("UPDATE chunk_vectors_int8 SET v = zeroblob(383) WHERE chunk_id = 17")
    cache = BitCache()
    bits = cache.get(0, lambda: load_sign_bits(conn, 0, 50, D))
    assert isinstance(bits, ShardVectors)
    bits.searches = 2
    with pytest.raises(IntegrityFailure) as info:
        bits.int8_rows(conn, np.array([1]), D, 0)
    assert info.value.reason == "vectors-misaligned"
    conn.close()


def test_candidate_int8_rows_from_sqlite_come_back_in_the_callers_order() -> None:
    conn, _, q8 = _shard(50, 10)
    bits = load_sign_bits(conn, 0, 50, D)  # outside a handle: rows always come from SQLite
    chunk_ids = np.array([17, 3, 50, 1, 29, 3], dtype=np.int64)
    rows = bits.int8_rows(conn, chunk_ids, D, 0)
    assert rows.dtype == np.int8
    assert rows.tobytes() == q8[chunk_ids - 1].tobytes()
    assert bits.int8_rows(conn, chunk_ids[:0], D, 0).shape == (0, D)


@pytest.mark.parametrize(
    "damage",
    [
        "DELETE FROM chunk_vectors_int8 WHERE chunk_id = 29",
        "UPDATE chunk_vectors_int8 SET v = zeroblob(383) WHERE chunk_id = 29",
        "UPDATE chunk_vectors_int8 SET v = zeroblob(385) WHERE chunk_id = 29",
        f"UPDATE chunk_vectors_int8 SET v = '{'x' * D}' WHERE chunk_id = 29",
    ],
)
def test_a_missing_or_malformed_candidate_int8_row_is_refused(damage: str) -> None:
    conn, _, _ = _shard(50, 11)
    bits = load_sign_bits(conn, 0, 50, D)
    conn.execute(damage)
    with pytest.raises(IntegrityFailure) as info:
        bits.int8_rows(conn, np.array([17, 29, 3]), D, 0)
    assert info.value.reason == "vectors-misaligned"
    assert bits.int8_rows(conn, np.array([17, 3]), D, 0).shape == (2, D)
