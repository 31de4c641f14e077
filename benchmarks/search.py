"""Catalog search at shard scale: stage 1, rerank, end-to-end hybrid latency, and recall.

Builds (once, cached under ``--workdir``) a catalog whose single shard holds ``--chunks``
passages (200,000 by default: one full shard), written directly with ``gezk.ddl`` and
``gezk.quantize`` rather than through the compiler, for two kinds of vectors:

- ``random``: each passage's ``test-hash-embed@1`` vector (uniformly random directions);
- ``clustered``: passages in clusters of ``--cluster-size`` (10: a document's passages)
  around random centres, ``centre + spread * noise`` normalised (centres and noise are
  hash-embedder vectors); queries fall near a centre, so their neighbours form a cluster.

Then, through the real reader (``gezel_knowledge.reader``), per query (median and p95 wall ms):

- ``stage 1``: LUT top-K over the cached sign bits (K = 1024, the default candidate count), and
  the Hamming baseline for comparison;
- ``rerank``: fetching the K int8 rows from SQLite and scoring them against the float query;
- ``hybrid``: a whole explicit ``Catalog.search`` (query embedding, routing, both stages,
  document and passage FTS, fusion, hits), warm;
- ``recall@10``: the two-stage top 10 against an exact float32 scan of the same float vectors,
  the plain numpy reference (whose own time is reported too).

``python benchmarks/search.py --chunks 20000`` is a quick smoke run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import brotli
import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog, candidate_count
from gezel_knowledge.reader.vectors import _int8_rows, load_sign_bits
from gezk.ddl import create_schema, seal, write_meta
from gezk.hashembed import hash_embed
from gezk.ids import chunk_uid, content_hash
from gezk.profiles import MARKDOWN_CHUNKS_2, TEST_HASH_EMBED_1
from gezk.quantize import (
    QueryTables,
    hamming_topk,
    lut_topk,
    pack_sign_bits,
    quantize_int8,
    rerank_int8,
)

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
    _manifest(root, n, n_docs, k)
    return root


def _manifest(root: Path, n: int, n_docs: int, k: int) -> None:
    (root / "README.md").write_text("# bench\n")
    (root / "LICENSES").mkdir(exist_ok=True)
    (root / "LICENSES" / "catalog.txt").write_text("CC0\n")
    files = []
    for rel in ("LICENSES/catalog.txt", "README.md", "index/router.db"):
        data = (root / rel).read_bytes()
        files.append(
            {"path": rel, "sizeBytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        )
    router_sha = files[2]["sha256"]
    manifest = {
        "kind": "gezk-catalog",
        "formatVersion": "0.7",
        "indexSchemaVersion": 4,
        "id": "bench",
        "version": "1",
        "name": "bench",
        "language": "en",
        "publisher": {"id": "bench", "name": "bench"},
        "createdAt": "2026-01-01T00:00:00.000Z",
        "license": {
            "name": "CC0",
            "noticePath": "LICENSES/catalog.txt",
            "attributionRequired": False,
        },
        "embedding": TEST_HASH_EMBED_1.to_json(),
        "chunking": MARKDOWN_CHUNKS_2.to_json(),
        "topics": [{"id": "all", "name": "All", "sortKey": "all"}],
        "router": {
            "shardTargetChunks": 200000,
            "totalCentroids": k,
            "shards": [
                {
                    "id": 0,
                    "path": "index/router.db",
                    "chunks": n,
                    "documents": n_docs,
                    "centroids": k,
                    "sha256": router_sha,
                }
            ],
        },
        "counts": {"documents": n_docs, "chunks": n, "shards": 1, "assets": 0},
        "files": files,
        "spatial": {
            "schema": "document-points@1",
            "crs": "EPSG:4326",
            "distanceModel": "sphere-6371000",
            "locationCount": 0,
            "locatedDocuments": 0,
            "coverage": [],
        },
        "requires": {"formatVersion": "0.7", "features": []},
    }
    (root / "manifest.json").write_text(json.dumps(manifest))


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _timed(fn: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.thread_time()
    out = fn()
    return out, (time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000


def _rerank(conn: Any, shortlist: Any, q: Floats, final_k: int) -> Any:
    """Stage 2 as the reader runs it: fetch the candidates' int8 rows, score, keep final_k."""
    rows = _int8_rows(conn, shortlist.chunk_ids, q.shape[0], 0)
    scores = rerank_int8(rows, q)
    return shortlist.rows[np.lexsort((shortlist.chunk_ids, -scores))[:final_k]]


def measure(catalog: Catalog, vectors: Floats, queries: Floats, texts: list[str]) -> dict[str, Any]:
    """Time the stages and the whole search; compute recall@10 against an exact scan."""
    final_k = 24
    conn = catalog._conn(catalog.shards[0])
    n = vectors.shape[0]
    bits, load_ms, _ = _timed(lambda: load_sign_bits(conn, 0, n, vectors.shape[1]))
    k = candidate_count(final_k, n)
    q8 = quantize_int8(vectors)
    names = (
        "stage1_wall",
        "stage1_cpu",
        "hamming_wall",
        "rerank_wall",
        "exact_wall",
        "hybrid_wall",
        "hybrid_cpu",
        "recall",
        "shortlist_recall",
        "int8_ceiling",
    )
    cols: dict[str, list[float]] = {name: [] for name in names}
    catalog.search_with_vector(texts[0], queries[0])  # warm: caches, FTS pages
    shortlists = []
    for q, text in zip(queries, texts, strict=True):
        shortlist, wall, cpu = _timed(lambda q=q: lut_topk(bits, QueryTables.build(q), k))
        shortlists.append(shortlist)
        cols["stage1_wall"].append(wall)
        cols["stage1_cpu"].append(cpu)
        _, wall, _ = _timed(lambda q=q: hamming_topk(bits, pack_sign_bits(q), k))
        cols["hamming_wall"].append(wall)
        _, wall, _ = _timed(lambda q=q, s=shortlist: _rerank(conn, s, q, final_k))
        cols["rerank_wall"].append(wall)
        _, wall, cpu = _timed(lambda q=q, text=text: catalog.search_with_vector(text, q))
        cols["hybrid_wall"].append(wall)
        cols["hybrid_cpu"].append(cpu)
    # Recall in a second pass: its full-matrix products would disturb the timings above.
    dequantized = q8.astype(np.float32)
    for q, shortlist in zip(queries, shortlists, strict=True):
        ranked = _rerank(conn, shortlist, q, final_k)

        def exact(q: Floats = q) -> Any:
            sims = vectors @ q
            top = np.argpartition(-sims, 10)[:10]
            return top[np.argsort(-sims[top])]

        truth, wall, _ = _timed(exact)
        cols["exact_wall"].append(wall)
        want = set(truth.tolist())
        cols["recall"].append(len(set(ranked[:10].tolist()) & want) / 10)
        cols["shortlist_recall"].append(len(set(shortlist.rows.tolist()) & want) / 10)
        ceiling = np.argsort(-(dequantized @ q), kind="stable")[:10]
        cols["int8_ceiling"].append(len(set(ceiling.tolist()) & want) / 10)
    med = {name: statistics.median(v) for name, v in cols.items()}
    return {
        "chunks": n,
        "candidates": k,
        "bits_load_ms": load_ms,
        "stage1_lut_ms_p50": med["stage1_wall"],
        "stage1_lut_cpu_ms_p50": med["stage1_cpu"],
        "stage1_hamming_ms_p50": med["hamming_wall"],
        "rerank_ms_p50": med["rerank_wall"],
        "hybrid_ms_p50": med["hybrid_wall"],
        "hybrid_ms_p95": _pct(cols["hybrid_wall"], 0.95),
        "hybrid_cpu_ms_p50": med["hybrid_cpu"],
        "hybrid_cpu_ms_p95": _pct(cols["hybrid_cpu"], 0.95),
        "exact_float32_ms_p50": med["exact_wall"],
        "recall_at_10": float(np.mean(cols["recall"])),
        "shortlist_recall_at_10": float(np.mean(cols["shortlist_recall"])),
        "int8_exhaustive_recall_at_10": float(np.mean(cols["int8_ceiling"])),
    }


_COLUMNS = (
    ("LUT wall", "stage1_lut_ms_p50", "ms"),
    ("LUT cpu", "stage1_lut_cpu_ms_p50", "ms"),
    ("hamming", "stage1_hamming_ms_p50", "ms"),
    ("rerank", "rerank_ms_p50", "ms"),
    ("hybrid p50", "hybrid_ms_p50", "ms"),
    ("hybrid p95", "hybrid_ms_p95", "ms"),
    ("cpu p95", "hybrid_cpu_ms_p95", "ms"),
    ("exact f32", "exact_float32_ms_p50", "ms"),
    ("recall@10", "recall_at_10", ""),
    ("shortlist", "shortlist_recall_at_10", ""),
    ("int8 ceil", "int8_exhaustive_recall_at_10", ""),
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
            results.append({"kind": kind, **measure(catalog, vectors, queries, texts)})
    if args.json:
        report = {"machine": platform.machine(), "python": platform.python_version()}
        print(json.dumps({**report, "results": results}, indent=2))
        return 0
    print(f"{'data':<10}" + "".join(f"{title:>11}" for title, _, _ in _COLUMNS))
    for r in results:
        cells = [f"{r[key]:.2f}{unit}" if unit else f"{r[key]:.3f}" for _, key, unit in _COLUMNS]
        print(f"{r['kind']:<10}" + "".join(f"{c:>11}" for c in cells))
    first = results[0]
    print(
        f"({first['chunks']} chunks, {first['candidates']} stage-1 candidates, sign bits "
        f"loaded in {first['bits_load_ms']:.0f} ms; medians over the queries unless p95)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
