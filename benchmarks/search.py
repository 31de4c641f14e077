"""Vector search at shard scale against faiss, and the memory a catalog handle keeps.

Builds (once, cached under ``--workdir``) a catalog whose single shard holds ``--chunks``
passages (200,000 by default: one full shard), written directly with ``gezk.ddl`` and
``gezk.quantize`` rather than through the compiler, for two kinds of vectors:

- ``random``: each passage's ``test-hash-embed@1`` vector (uniformly random directions);
- ``clustered``: passages in clusters of ``--cluster-size`` (10: a document's passages)
  around random centres, ``centre + spread * noise`` normalised (centres and noise are
  hash-embedder vectors); queries fall near a centre, so their neighbours form a cluster.

Then, in one process on one thread (BLAS/OpenMP threads set to 1 before numpy is imported;
``OPENBLAS_CORETYPE`` is left as the machine sets it), per query and interleaved so that a
change of machine load touches every path alike, the thread CPU time (and wall time) of:

- ``reader hamming`` / ``reader LUT``: ``search_shard`` on a hot shard, as a long-lived catalog
  handle runs it from a shard's second search on: the compiled stage 1 (numba) and the rerank
  of the 1,024 candidates' int8 rows held in memory, down to the final 24 hits;
- ``reader LUT, numpy kernels``: the same with gezk's numpy kernels (numba missing);
- ``reader LUT, first search``: a shard's first search (numpy kernels, int8 rows from SQLite);
- ``faiss @K`` (when ``faiss-cpu`` is installed: ``pip install -e '.[bench]'``):
  ``IndexBinaryFlat`` top-K over the same sign bits, then the same int8 rerank of its K
  candidates (rows from memory, ``rerank_int8``, the same ordering and hits), for K from 1,024
  to 16,384;
- ``exact float32 scan (numpy)``: the plain numpy reference, every float vector against the
  query (it defines recall@10, so its own is 1);
- ``stage 1 LUT``: the compiled LUT top-1,024 alone, and ``floor``, one read of the shard's
  sign-bit table (``np.bitwise_or.reduce`` over the layout the kernels scan);
- ``hybrid``: a whole warm ``Catalog.search_with_vector`` (embedding, routing, both stages,
  document and passage FTS, fusion, hits).

recall@10 of every path is its top 10 against an exact float32 scan of the original vectors;
two diagnostics say where the rest is lost: the share of the exact top 10 among the LUT's
candidates, and the recall@10 of an exhaustive int8 rerank of every passage (the ceiling of
any candidate count, set by the int8 encoding).
The ratios of issue 13 are printed next to their goals: goal 1, the reader's hamming path at
most 2x faiss @1,024 and its LUT path at most 2x faiss at the smallest K whose recall@10 reaches
the LUT's; goal 2, the LUT stage 1 at most 4x the floor; goal 7, the handle's resident vectors
(sign bits and int8 rows) within the 256 MiB budget, and what a handle keeps when the budget
has no room for the int8 rows. The machine's load average is printed with them.

``python benchmarks/search.py --chunks 20000`` is a quick smoke run.
"""

from __future__ import annotations

import os

for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import brotli  # noqa: E402
import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

from gezel_knowledge.embedders import HashEmbedder  # noqa: E402
from gezel_knowledge.opening import open_catalog  # noqa: E402
from gezel_knowledge.reader import Catalog  # noqa: E402
from gezel_knowledge.reader.vectors import (  # noqa: E402
    DEFAULT_BIT_CACHE_BYTES,
    KERNELS_ENV,
    BitCache,
    ShardHit,
    candidate_count,
    compiled_kernels_available,
    load_sign_bits,
    search_shard,
)
from gezk.ddl import create_schema, seal, write_meta  # noqa: E402
from gezk.hashembed import hash_embed  # noqa: E402
from gezk.ids import chunk_uid, content_hash  # noqa: E402
from gezk.profiles import MARKDOWN_CHUNKS_2, TEST_HASH_EMBED_1  # noqa: E402
from gezk.quantize import (  # noqa: E402
    PackedBits,
    QueryTables,
    lut_topk,
    pack_sign_bits,
    quantize_int8,
    rerank_int8,
)

# The shared catalog files sit beside this file: importable however this file was loaded.
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from _catalog_files import ShardFile, percentile, write_manifest  # noqa: E402

Floats = NDArray[np.float32]

_CHUNKS_PER_DOC = 4
_WORDS = 40
_VOCAB = 5000


def _vocabulary() -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "ba", "do", "fe", "gu"]
    out = []
    for i in range(_VOCAB):
        word, n = "", i + 1
        while n:
            n, r = divmod(n, len(syllables))
            word += syllables[r]
        out.append(word)
    return out


def _unit(x: Floats) -> Floats:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


def _vectors(kind: str, n: int, cluster_size: int, spread: float) -> tuple[Floats, Floats]:
    """Passage vectors and the cluster centres (empty for random data)."""
    noise = hash_embed([f"passage {i}" for i in range(n)])
    if kind == "random":
        return noise, np.zeros((0, noise.shape[1]), np.float32)
    clusters = -(-n // cluster_size)
    centres = hash_embed([f"centre {j}" for j in range(clusters)])
    assign = np.arange(n) // cluster_size
    return _unit(centres[assign] + spread * noise), centres


def _texts(n: int, rng: np.random.Generator) -> list[str]:
    vocab = np.array(_vocabulary())
    # Zipf-like word frequencies, as in prose: a few words everywhere, most words rare.
    weights = 1.0 / np.arange(1, _VOCAB + 1)
    picks = rng.choice(_VOCAB, size=(n, _WORDS), p=weights / weights.sum())
    return [" ".join(row) + "." for row in vocab[picks]]


def build(root: Path, kind: str, n: int, cluster_size: int, spread: float) -> Path:
    """Write the synthetic catalog (router with the embedded shard) and its manifest."""
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    vectors, _ = _vectors(kind, n, cluster_size, spread)
    texts = _texts(n, rng)
    q8 = quantize_int8(vectors)
    bits = pack_sign_bits(vectors)
    n_docs = -(-n // _CHUNKS_PER_DOC)
    db_path = root / "index" / "router.db"
    db_path.parent.mkdir(parents=True, exist_ok=True)
    work = root / "router.work"
    work.unlink(missing_ok=True)
    conn = sqlite3.connect(work)
    create_schema(conn, "router+shard", 4)
    profile = TEST_HASH_EMBED_1
    write_meta(
        conn,
        {
            "format_version": "0.7",
            "index_schema_version": 4,
            "catalog_id": "bench",
            "catalog_version": "1",
            "embedding_profile_id": profile.id,
            "chunking_profile_id": MARKDOWN_CHUNKS_2.id,
            "shard_id": 0,
            "chunk_count": n,
            "embedding_profile_json": json.dumps(profile.to_json()),
            "chunking_profile_json": json.dumps(MARKDOWN_CHUNKS_2.to_json()),
            "created_at": "2026-01-01T00:00:00.000Z",
        },
    )
    conn.execute("INSERT INTO topics VALUES ('all', NULL, 'All', NULL, 'all', ?)", (n_docs,))
    vocab = _vocabulary()
    docs = []
    for d in range(n_docs):
        doc_id = f"doc-{d:06d}"
        own = texts[d * _CHUNKS_PER_DOC : (d + 1) * _CHUNKS_PER_DOC]
        title = " ".join(vocab[(d * 7 + k * 13) % _VOCAB] for k in range(3))
        body = ("\n\n".join(own) + "\n").encode()
        docs.append(
            (
                doc_id,
                title,
                doc_id,
                None,
                "en",
                "all",
                None,
                0,
                len(own),
                None,
                None,
                None,
                None,
                None,
                "br",
                brotli.compress(body, quality=5),
            )
        )
    conn.executemany(f"INSERT INTO documents VALUES ({','.join('?' * 16)})", docs)
    conn.executemany("INSERT INTO topic_documents VALUES ('all', ?, NULL)", [(d[0],) for d in docs])
    conn.executemany(
        "INSERT INTO fts_documents(title, summary, aliases, document_id) VALUES (?, '', '', ?)",
        [(d[1], d[0]) for d in docs],
    )
    rows = []
    for i, text in enumerate(texts):
        doc_id, ordinal = f"doc-{i // _CHUNKS_PER_DOC:06d}", i % _CHUNKS_PER_DOC
        line = 2 * ordinal + 1
        rows.append(
            (
                i + 1,
                chunk_uid(doc_id, ordinal, text),
                doc_id,
                ordinal,
                docs[i // 4][1],
                "[]",
                "",
                line,
                line,
                _WORDS,
                content_hash(text),
                text,
            )
        )
    conn.executemany(f"INSERT INTO chunks VALUES ({','.join('?' * 12)})", rows)
    conn.executemany(
        "INSERT INTO chunk_vectors_bit VALUES (?, ?)",
        [(i + 1, bits[i].tobytes()) for i in range(n)],
    )
    conn.executemany(
        "INSERT INTO chunk_vectors_int8 VALUES (?, ?)", [(i + 1, q8[i].tobytes()) for i in range(n)]
    )
    conn.execute("INSERT INTO fts_chunks(fts_chunks) VALUES ('rebuild')")
    k = max(1, min(32, -(-n // 12500)))
    centroids = _unit(np.stack([vectors[j::k].mean(axis=0) for j in range(k)]))
    conn.executemany(
        "INSERT INTO route_centroids(shard_id, embedding, weight) VALUES (0, ?, ?)",
        [(c.astype("<f4").tobytes(), n // k) for c in centroids],
    )
    conn.execute(
        "INSERT INTO shards VALUES (0, 'index/router.db', ?, ?, '[\"all\"]', ?, 0)", (n, n_docs, k)
    )
    conn.commit()
    db_path.unlink(missing_ok=True)
    seal(conn, str(db_path))
    conn.close()
    work.unlink()
    np.save(root / "vectors.npy", vectors)
    write_manifest(root, "bench", [ShardFile("index/router.db", n, n_docs, k)], n_docs)
    return root


FINAL_K = 24
FAISS_KS = (1024, 2048, 4096, 8192, 16384)
GOAL_VS_FAISS = 2.0
GOAL_LUT_VS_FLOOR = 4.0
MIB = 1024 * 1024

Path_ = Callable[[Floats], list[ShardHit]]


def _faiss() -> Any:
    try:
        import faiss  # noqa: PLC0415 - optional peer, in the bench extra

        faiss.omp_set_num_threads(1)
        return faiss
    except ImportError:
        return None


def _faiss_path(index: Any, q8: NDArray[np.int8], k: int) -> Path_:
    """faiss top-k over the sign bits, then the reader's own stage 2 on those candidates."""

    def run(q: Floats) -> list[ShardHit]:
        _, found = index.search(pack_sign_bits(q)[None, :], k)
        chunk_ids = found[0][found[0] >= 0] + 1
        scores = rerank_int8(q8[chunk_ids - 1], q)
        order = np.lexsort((chunk_ids, -scores))[:FINAL_K]
        return [ShardHit(0, int(chunk_ids[i]), float(scores[i])) for i in order]

    return run


def _reader_path(
    conn: sqlite3.Connection, bits: PackedBits, stage1: str, *, numpy_kernels: bool = False
) -> Path_:
    def run(q: Floats) -> list[ShardHit]:
        if numpy_kernels:
            os.environ[KERNELS_ENV] = "numpy"
        try:
            return search_shard(
                conn, 0, bits, q, final_k=FINAL_K, center=None, stage1=stage1, tables=None
            )
        finally:
            os.environ.pop(KERNELS_ENV, None)

    return run


def _hot(conn: sqlite3.Connection, n: int, d: int, budget: int) -> tuple[BitCache, PackedBits]:
    """A shard as a long-lived handle holds it after two searches (int8 resident if it fits)."""
    cache = BitCache(budget)
    bits = cache.get(0, lambda: load_sign_bits(conn, 0, n, d))
    probe = np.zeros(d, dtype=np.float32)
    probe[0] = 1.0
    for _ in range(2):
        search_shard(conn, 0, bits, probe, final_k=FINAL_K, center=None, stage1="lut")
        cache.trim()
    return cache, bits


def _recall(hits: list[ShardHit], truth: set[int]) -> float:
    return len({h.chunk_id - 1 for h in hits[:10]} & truth) / 10


def _run_paths(
    paths: dict[str, Path_], queries: Floats, truths: list[set[int]]
) -> dict[str, dict[str, float]]:
    """Every path on every query, interleaved; medians of CPU and wall time, mean recall."""
    for run in paths.values():
        run(queries[0])  # warm-up: caches, compilation, faiss' first call
    cpu: dict[str, list[float]] = {name: [] for name in paths}
    wall: dict[str, list[float]] = {name: [] for name in paths}
    recall: dict[str, list[float]] = {name: [] for name in paths}
    for q, truth in zip(queries, truths, strict=True):
        for name, run in paths.items():
            c, w = time.thread_time_ns(), time.perf_counter_ns()
            hits = run(q)
            wall[name].append((time.perf_counter_ns() - w) / 1e6)
            cpu[name].append((time.thread_time_ns() - c) / 1e6)
            recall[name].append(_recall(hits, truth))
    return {
        name: {
            "cpu_ms": statistics.median(cpu[name]),
            "wall_ms": statistics.median(wall[name]),
            "recall_at_10": float(np.mean(recall[name])),
        }
        for name in paths
    }


def _stage1(bits: PackedBits, queries: Floats) -> dict[str, Any]:
    """The LUT top-1,024 alone (as the reader runs it for a hot shard) and the floor.

    The two alternate, query by query, so that both see the same machine load.
    """
    words = bits.words64()
    k = candidate_count(FINAL_K, bits.rows)
    compiled = None
    if compiled_kernels_available():
        from gezel_knowledge.reader import _compiled as compiled  # noqa: PLC0415 - numba

    def lut(q: Floats) -> object:
        if compiled is None:
            return lut_topk(bits, q, k)
        return compiled.lut_topk(bits, QueryTables.build(q), k, None)

    def floor(q: Floats) -> object:
        return np.bitwise_or.reduce(words, axis=None)

    times: dict[str, list[float]] = {"lut_ms": [], "floor_ms": []}
    for q in [queries[0], *queries]:
        for name, fn in (("floor_ms", floor), ("lut_ms", lut)):
            c = time.thread_time_ns()
            fn(q)
            times[name].append((time.thread_time_ns() - c) / 1e6)
    return {
        "lut_kernel": "numpy" if compiled is None else "compiled",
        **{name: statistics.median(values[1:]) for name, values in times.items()},
    }


def _hybrid(catalog: Catalog, queries: Floats, texts: list[str]) -> dict[str, float]:
    catalog.search_with_vector(texts[0], queries[0])
    catalog.search_with_vector(texts[0], queries[0])  # the shard is hot from here on
    wall, cpu = [], []
    for q, text in zip(queries, texts, strict=True):
        w, c = time.perf_counter_ns(), time.thread_time_ns()
        catalog.search_with_vector(text, q)
        wall.append((time.perf_counter_ns() - w) / 1e6)
        cpu.append((time.thread_time_ns() - c) / 1e6)
    return {
        "hybrid_ms_p50": statistics.median(wall),
        "hybrid_ms_p95": percentile(wall, 0.95),
        "hybrid_cpu_ms_p50": statistics.median(cpu),
        "hybrid_cpu_ms_p95": percentile(cpu, 0.95),
    }


def _memory(
    catalog: Catalog, conn: sqlite3.Connection, n: int, d: int, queries: Floats
) -> dict[str, Any]:
    """What the handle holds, and a handle whose budget has room for the sign bits only."""
    bits_bytes = -(-d // 64) * 8 * n
    small = bits_bytes + MIB
    cache, bits = _hot(conn, n, d, small)
    run = _reader_path(conn, bits, "lut")
    cpu = []
    for q in queries:
        c = time.thread_time_ns()
        run(q)
        cache.trim()
        cpu.append((time.thread_time_ns() - c) / 1e6)
    return {
        "budget_bytes": DEFAULT_BIT_CACHE_BYTES,
        "resident_bytes": catalog.resident_vector_bytes,
        "resident_int8_bytes": catalog._vectors.bits.resident_int8_bytes,
        "small_budget_bytes": small,
        "small_budget_resident_bytes": cache.resident_bytes,
        "small_budget_resident_int8_bytes": cache.resident_int8_bytes,
        "small_budget_lut_cpu_ms": statistics.median(cpu),
    }


def _exact_path(vectors: Floats) -> Path_:
    """The plain numpy reference: every float32 vector against the query."""

    def run(q: Floats) -> list[ShardHit]:
        sims = vectors @ q
        top = np.argpartition(-sims, FINAL_K)[:FINAL_K]
        top = top[np.lexsort((top, -sims[top]))]
        return [ShardHit(0, int(r) + 1, float(sims[r])) for r in top]

    return run


def _recall_diagnostics(
    bits: PackedBits, q8: NDArray[np.int8], queries: Floats, truths: list[set[int]]
) -> dict[str, float]:
    """Where recall is lost: in the LUT shortlist, or in the int8 encoding itself."""
    k = candidate_count(FINAL_K, bits.rows)
    dequantized = q8.astype(np.float32)
    shortlist, ceiling = [], []
    for q, truth in zip(queries, truths, strict=True):
        rows = set(lut_topk(bits, q, k).rows.tolist())
        shortlist.append(len(rows & truth) / 10)
        best = np.argsort(-(dequantized @ q), kind="stable")[:10]
        ceiling.append(len(set(best.tolist()) & truth) / 10)
    return {
        "shortlist_recall_at_10": float(np.mean(shortlist)),
        "int8_exhaustive_recall_at_10": float(np.mean(ceiling)),
    }


def measure(
    catalog: Catalog, vectors: Floats, queries: Floats, texts: list[str], faiss_ks: tuple[int, ...]
) -> dict[str, Any]:
    """Time every path, compute recall@10 against an exact scan, report the ratios."""
    conn = catalog._conn(catalog.shards[0])
    n, d = vectors.shape
    k = candidate_count(FINAL_K, n)
    compiled_kernels_available()  # prepared before timing (a handle does it in the background)
    truths = []
    for q in queries:
        sims = vectors @ q
        truths.append(set(np.argpartition(-sims, 10)[:10].tolist()))
    t = time.perf_counter()
    _, hot = _hot(conn, n, d, DEFAULT_BIT_CACHE_BYTES)
    hot_ms = (time.perf_counter() - t) * 1000
    q8 = quantize_int8(vectors)
    paths: dict[str, Path_] = {
        "reader hamming": _reader_path(conn, hot, "hamming"),
        "reader LUT": _reader_path(conn, hot, "lut"),
        "reader LUT, numpy kernels": _reader_path(conn, hot, "lut", numpy_kernels=True),
        "reader LUT, first search": _reader_path(conn, PackedBits.from_matrix(hot.matrix()), "lut"),
    }
    faiss = _faiss()
    if faiss is not None:
        index = faiss.IndexBinaryFlat(d)
        index.add(hot.matrix())
        for kk in faiss_ks:
            if kk <= n:
                paths[f"faiss @{kk}"] = _faiss_path(index, q8, kk)
    paths["exact float32 scan (numpy)"] = _exact_path(vectors)
    load_before = os.getloadavg()
    results = _run_paths(paths, queries, truths)
    stage1 = _stage1(hot, queries)
    hybrid = _hybrid(catalog, queries, texts)
    memory = _memory(catalog, conn, n, d, queries)
    load_after = os.getloadavg()
    report: dict[str, Any] = {
        "chunks": n,
        "candidates": k,
        "compiled": compiled_kernels_available().available,
        "faiss": faiss is not None,
        "hot_shard_ms": hot_ms,
        "paths": results,
        **stage1,
        **hybrid,
        **memory,
        **_recall_diagnostics(hot, q8, queries, truths),
        "load_average": [round(x, 2) for x in (*load_before, *load_after)],
    }
    report.update(_ratios(results, stage1))
    return report


def _ratios(results: dict[str, dict[str, float]], stage1: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"lut_vs_floor": stage1["lut_ms"] / stage1["floor_ms"]}
    out["hamming_vs_faiss"] = out["lut_vs_faiss"] = out["lut_matching_faiss_k"] = None
    faiss = {int(name[7:]): r for name, r in results.items() if name.startswith("faiss @")}
    if not faiss:
        return out
    if 1024 in faiss:
        out["hamming_vs_faiss"] = results["reader hamming"]["cpu_ms"] / faiss[1024]["cpu_ms"]
    lut = results["reader LUT"]
    matching = [kk for kk in sorted(faiss) if faiss[kk]["recall_at_10"] >= lut["recall_at_10"]]
    chosen = matching[0] if matching else max(faiss)
    out["lut_matching_faiss_k"] = chosen
    out["lut_matching_faiss_reached"] = bool(matching)
    out["lut_vs_faiss"] = lut["cpu_ms"] / faiss[chosen]["cpu_ms"]
    return out


def _verdict(ratio: float | None, goal: float) -> str:
    if ratio is None:
        return "not measured (faiss-cpu is not installed: pip install -e '.[bench]')"
    return f"{ratio:.2f}x (goal <= {goal:g}x): {'met' if ratio <= goal else 'NOT met'}"


def _print(kind: str, r: dict[str, Any]) -> None:
    print(
        f"\n{kind}: {r['chunks']:,} chunks, {r['candidates']:,} candidates, final_k {FINAL_K}; "
        f"compiled kernels {'on' if r['compiled'] else 'off (numba missing)'}"
    )
    print(f"  {'path':<28}{'cpu ms':>9}{'wall ms':>9}{'recall@10':>11}")
    for name, p in r["paths"].items():
        print(f"  {name:<28}{p['cpu_ms']:>9.3f}{p['wall_ms']:>9.3f}{p['recall_at_10']:>11.3f}")
    if not r["faiss"]:
        print("  faiss: not installed (pip install -e '.[bench]'); no faiss paths measured")
    print(
        f"  recall@10 of the LUT's 1,024 candidates {r['shortlist_recall_at_10']:.3f}; of an "
        f"exhaustive int8 rerank (the ceiling) {r['int8_exhaustive_recall_at_10']:.3f}"
    )
    print(
        f"  stage 1 LUT ({r['lut_kernel']}) {r['lut_ms']:.3f} ms cpu, sign-bit table read "
        f"(floor) {r['floor_ms']:.3f} ms cpu"
    )
    print(
        f"  hybrid search p50 {r['hybrid_ms_p50']:.2f} ms, p95 {r['hybrid_ms_p95']:.2f} ms wall "
        f"(cpu p50 {r['hybrid_cpu_ms_p50']:.2f}, p95 {r['hybrid_cpu_ms_p95']:.2f})"
    )
    print(
        f"  goal 1, reader hamming / faiss @1024: {_verdict(r['hamming_vs_faiss'], GOAL_VS_FAISS)}"
    )
    if r["lut_matching_faiss_k"] is not None:
        reached = "" if r["lut_matching_faiss_reached"] else " (no K reached it; largest K)"
        print(
            f"  goal 1, reader LUT / faiss @{r['lut_matching_faiss_k']} (recall-matched{reached}): "
            f"{_verdict(r['lut_vs_faiss'], GOAL_VS_FAISS)}"
        )
    else:
        print(f"  goal 1, reader LUT / faiss: {_verdict(None, GOAL_VS_FAISS)}")
    print(f"  goal 2, stage 1 LUT / floor: {_verdict(r['lut_vs_floor'], GOAL_LUT_VS_FLOOR)}")
    within = r["resident_bytes"] <= r["budget_bytes"]
    print(
        f"  goal 7, handle holds {r['resident_bytes'] / MIB:.1f} MiB (int8 rows "
        f"{r['resident_int8_bytes'] / MIB:.1f} MiB) of its {r['budget_bytes'] / MIB:.0f} MiB "
        f"budget: {'met' if within else 'NOT met'}; with a "
        f"{r['small_budget_bytes'] / MIB:.1f} MiB budget it holds "
        f"{r['small_budget_resident_bytes'] / MIB:.1f} MiB (int8 rows "
        f"{r['small_budget_resident_int8_bytes'] / MIB:.1f} MiB, read from SQLite: reader LUT "
        f"{r['small_budget_lut_cpu_ms']:.2f} ms cpu)"
    )
    la = r["load_average"]
    print(
        f"  load average (1, 5, 15 min): before {la[0]}, {la[1]}, {la[2]}; "
        f"after {la[3]}, {la[4]}, {la[5]}"
    )


def main(argv: list[str] | None = None) -> int:
    """Build (or reuse) the catalogs, measure, print a table or JSON."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--chunks", type=int, default=200_000, help="passages in the shard")
    parser.add_argument("--queries", type=int, default=50, help="queries per data kind")
    parser.add_argument("--kind", choices=("random", "clustered", "both"), default="both")
    parser.add_argument(
        "--cluster-size",
        type=int,
        default=10,
        help="passages per cluster for clustered data (10: document-like neighbourhoods)",
    )
    parser.add_argument(
        "--spread", type=float, default=0.6, help="noise scale around a cluster centre"
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(".bench-search"),
        help="where the synthetic catalogs are built and kept",
    )
    parser.add_argument(
        "--faiss-k",
        type=int,
        nargs="+",
        default=list(FAISS_KS),
        help="faiss candidate counts to sweep (default 1024 2048 4096 8192 16384)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    kinds = ["random", "clustered"] if args.kind == "both" else [args.kind]
    results = []
    embedder = HashEmbedder()
    vocab = _vocabulary()
    for kind in kinds:
        suffix = "" if kind == "random" else f"-{args.cluster_size}-{args.spread}"
        root = args.workdir / f"{kind}-{args.chunks}{suffix}"
        if not (root / "manifest.json").is_file():
            print(f"building {kind} catalog of {args.chunks} chunks in {root}", file=sys.stderr)
            t = time.perf_counter()
            build(root, kind, args.chunks, args.cluster_size, args.spread)
            print(f"  built in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        vectors = np.load(root / "vectors.npy")
        rng = np.random.default_rng(11)
        texts = [" ".join(rng.choice(vocab[:2000], size=4)) for _ in range(args.queries)]
        if kind == "random":
            queries = embedder.embed_queries(texts)
        else:
            # A query near a cluster centre: its true neighbours are that cluster's passages.
            _, centres = _vectors(kind, args.chunks, args.cluster_size, args.spread)
            picks = rng.integers(0, centres.shape[0], size=args.queries)
            noise = hash_embed([f"query {i}" for i in range(args.queries)])
            queries = _unit(centres[picks] + args.spread * noise)
        with open_catalog(root, embedder=embedder) as catalog:
            figures = measure(catalog, vectors, queries, texts, tuple(args.faiss_k))
            results.append({"kind": kind, **figures})
    if args.json:
        report = {"machine": platform.machine(), "python": platform.python_version()}
        print(json.dumps({**report, "results": results}, indent=2))
        return 0
    print(
        f"vector search, one thread, {args.queries} queries per data set; median thread CPU "
        "time per query (wall time beside it)"
    )
    for r in results:
        _print(r["kind"], r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
