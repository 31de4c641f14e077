"""Hybrid search against vector-only search on large catalogs (issue 13, goal 3: hybrid p95 at
most 2x the vector-only p95 on 200,000- and 500,000-passage catalogs).

Builds (once, cached under ``--workdir``) a catalog of ``--chunks`` passages in ``--shards``
shards, written directly with ``gezk.ddl`` rather than through the compiler: passages of 120
words drawn from a 20,000-word made-up vocabulary with Zipf frequencies (as in prose, a few words
are in most passages and most words are rare), four passages a document, a three-word title,
random unit vectors in the ``test-hash-embed@1`` space. Queries are eight words of a random
passage, so each mixes common and rare words as a question does.

Then, through the real reader, warm, one query at a time and alternating the two modes, it
times ``Catalog.search(query, k=10)`` in ``vector`` and in ``hybrid`` mode (every cosine
admitted, so both build ten hits) and prints the median and p95 wall and CPU milliseconds and
the hybrid/vector ratio of the p95s, next to the goal. The keyword side alone (title and
passage lists) is printed too.

``python benchmarks/hybrid.py --chunks 20000`` is a quick smoke run; the goal's catalogs are
``--chunks 200000 --shards 1`` and ``--chunks 500000 --shards 3`` (the defaults run both).

Real text: ``--text-model corpus.jsonl --claims queries.jsonl`` (a BEIR corpus and its
questions, e.g. SciFact's training claims) writes the passages with an order-2 word model
trained on the corpus (each word drawn after the two before it, as they follow each other
there), so word frequencies and co-occurrences are those of real prose, and asks the claims.
The catalog is in English, so keyword search groups words by stem.

Chinese: ``--language zh`` writes a catalog in Chinese, whose keyword index keys every CJK term by
its overlapping character pairs: words of one or two of 1,500 Han characters with the same Zipf
frequencies, six to a clause with no space between them, clauses ended by a comma or a full
stop (so an FTS5 term is a whole clause, as in real Chinese text); each query is two six-character
pieces of clauses of a random passage, written together.

Each catalog's shards get their derived keyword index before the timing (its build time and
size are printed); ``GEZEL_KNOWLEDGE_KEYWORD_INDEX=off`` measures FTS5 alone.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import brotli
import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezel_knowledge.reader.vectors import compiled_kernels_available
from gezk.ddl import create_schema, seal, write_meta
from gezk.ids import chunk_uid, content_hash
from gezk.profiles import MARKDOWN_CHUNKS_2, TEST_HASH_EMBED_1
from gezk.quantize import pack_sign_bits, quantize_int8

# The shared catalog files sit beside this file: importable however this file was loaded.
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from _catalog_files import ShardFile, percentile, write_manifest

GOAL = 2.0
_WORDS = 120
_VOCAB = 20_000
_PER_DOC = 4
_SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "ba", "do", "fe", "gu", "pi"]
_BATCH = 50_000


def _vocabulary() -> NDArray[np.str_]:
    words = []
    for i in range(_VOCAB):
        word, n = "", i + 1
        while n:
            n, r = divmod(n, len(_SYLLABLES))
            word += _SYLLABLES[r]
        words.append(word)
    return np.array(words)


def _zh_vocabulary() -> NDArray[np.str_]:
    # Base-1,500 numerals over Han characters spread across the unified block: words of one
    # character for the most frequent 1,500, two characters for the rest.
    han = [chr(0x4E00 + 13 * i) for i in range(1_500)]
    words = []
    for i in range(_VOCAB):
        word, n = "", i
        while True:
            n, r = divmod(n, len(han))
            word += han[r]
            if not n:
                break
        words.append(word)
    return np.array(words)


def _zh_texts(rng: np.random.Generator, vocab: NDArray[np.str_], n: int, words: int) -> list[str]:
    out = []
    for row in vocab[_zipf(rng, (n, words))]:
        clauses = ["".join(row[i : i + 6]) for i in range(0, len(row), 6)]
        out.append("".join(c + ("。" if k % 4 == 3 else "，") for k, c in enumerate(clauses)))
    return out


def _zipf(rng: np.random.Generator, shape: tuple[int, int]) -> NDArray[np.int64]:
    weights = 1.0 / np.arange(1, _VOCAB + 1)
    return rng.choice(_VOCAB, size=shape, p=weights / weights.sum())


def _texts(rng: np.random.Generator, vocab: NDArray[np.str_], n: int, words: int) -> list[str]:
    return [" ".join(row) for row in vocab[_zipf(rng, (n, words))]]


class TextModel:
    """An order-2 word model of a corpus: each word drawn after the two before it."""

    def __init__(self, corpus: Path) -> None:
        follow: dict[tuple[str, str], list[str]] = {}
        with open(corpus, encoding="utf-8") as fh:
            for line in fh:
                doc = json.loads(line)
                words = f"{doc.get('title', '')} {doc.get('text', '')}".split()
                for a, b, c in zip(words, words[1:], words[2:], strict=False):
                    follow.setdefault((a, b), []).append(c)
        self.follow = follow
        self.starts = sorted(follow)

    def texts(
        self, rng: np.random.Generator, _vocab: NDArray[np.str_], n: int, words: int
    ) -> list[str]:
        """``n`` passages of ``words`` words."""
        out = []
        for _ in range(n):
            a, b = self.starts[int(rng.integers(len(self.starts)))]
            text = [a, b]
            while len(text) < words:
                nexts = self.follow.get((a, b))
                if not nexts:
                    a, b = self.starts[int(rng.integers(len(self.starts)))]
                    text += [a, b]
                    continue
                c = nexts[int(rng.integers(len(nexts)))]
                text.append(c)
                a, b = b, c
            out.append(" ".join(text[:words]))
        return out


TextMaker = Callable[[np.random.Generator, NDArray[np.str_], int, int], list[str]]


def _unit_rows(rng: np.random.Generator, n: int, d: int) -> NDArray[np.float32]:
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _fill_shard(  # noqa: PLR0917 - one shard's parts
    conn: sqlite3.Connection,
    rng: np.random.Generator,
    vocab: NDArray[np.str_],
    first_doc: int,
    n: int,
    texts_of: TextMaker = _texts,
) -> NDArray[np.float32]:
    """Passages, vectors and FTS of one shard; returns its centroid."""
    total = np.zeros(TEST_HASH_EMBED_1.dimensions, np.float64)
    for start in range(0, n, _BATCH):
        count = min(_BATCH, n - start)
        texts = texts_of(rng, vocab, count, _WORDS)
        vectors = _unit_rows(rng, count, TEST_HASH_EMBED_1.dimensions)
        total += vectors.sum(axis=0)
        q8, bits = quantize_int8(vectors), pack_sign_bits(vectors)
        rows = []
        for i, text in enumerate(texts):
            index = start + i
            doc_id = f"doc-{first_doc + index // _PER_DOC:07d}"
            ordinal = index % _PER_DOC
            title = f"title {doc_id}"
            rows.append(
                (index + 1, chunk_uid(doc_id, ordinal, text), doc_id, ordinal, title, "[]", "",
                 ordinal + 1, ordinal + 1, _WORDS, content_hash(text), text)
            )  # fmt: skip
        conn.executemany(f"INSERT INTO chunks VALUES ({','.join('?' * 12)})", rows)
        conn.executemany(
            "INSERT INTO chunk_vectors_bit VALUES (?, ?)",
            [(start + i + 1, bits[i].tobytes()) for i in range(count)],
        )
        conn.executemany(
            "INSERT INTO chunk_vectors_int8 VALUES (?, ?)",
            [(start + i + 1, q8[i].tobytes()) for i in range(count)],
        )
    conn.execute("INSERT INTO fts_chunks(fts_chunks) VALUES ('rebuild')")
    centroid = total / max(1e-12, float(np.linalg.norm(total)))
    return centroid.astype("<f4")


def _sealed(path: Path, role: str, fill: Callable[[sqlite3.Connection], Any]) -> Any:
    work = path.with_suffix(".work")
    work.unlink(missing_ok=True)
    conn = sqlite3.connect(work)
    create_schema(conn, role, 4)  # type: ignore[arg-type]
    out = fill(conn)
    conn.commit()
    path.unlink(missing_ok=True)
    seal(conn, str(path))
    conn.close()
    work.unlink()
    return out


def build(
    root: Path, n: int, shards: int, texts_of: TextMaker = _texts, *, language: str = "en"
) -> Path:
    """Write the catalog: ``shards`` external shard databases, a router and a manifest."""
    rng = np.random.default_rng(11)
    vocab = _zh_vocabulary() if language == "zh" else _vocabulary()
    (root / "index" / "shards").mkdir(parents=True, exist_ok=True)
    common = {
        "format_version": "0.7",
        "index_schema_version": 4,
        "catalog_id": "bench-hybrid",
        "catalog_version": "1",
        "embedding_profile_id": TEST_HASH_EMBED_1.id,
        "chunking_profile_id": MARKDOWN_CHUNKS_2.id,
    }
    sizes = [n // shards + (1 if s < n % shards else 0) for s in range(shards)]
    sizes = [size - size % _PER_DOC for size in sizes]
    centroids: list[NDArray[np.float32]] = []
    first_doc = 0
    for s, size in enumerate(sizes):

        def fill(
            conn: sqlite3.Connection, s: int = s, size: int = size, first: int = first_doc
        ) -> Any:
            write_meta(conn, {**common, "shard_id": s, "chunk_count": size})
            return _fill_shard(conn, rng, vocab, first, size, texts_of)

        centroids.append(_sealed(root / "index" / "shards" / f"{s:03d}.db", "shard", fill))
        first_doc += size // _PER_DOC
    titles = texts_of(rng, vocab, first_doc, 3)

    def fill_router(conn: sqlite3.Connection) -> None:
        write_meta(
            conn,
            {
                **common,
                "shard_id": 0,
                "chunk_count": 0,
                "embedding_profile_json": json.dumps(TEST_HASH_EMBED_1.to_json()),
                "chunking_profile_json": json.dumps(MARKDOWN_CHUNKS_2.to_json()),
                "created_at": "2026-01-01T00:00:00.000Z",
            },
        )
        conn.execute("INSERT INTO topics VALUES ('all', NULL, 'All', NULL, 'all', ?)", (first_doc,))
        body = brotli.compress(b"A benchmark document.\n")
        docs, shard_of, d = [], [], 0
        for s, size in enumerate(sizes):
            shard_of += [s] * (size // _PER_DOC)
        for d, title in enumerate(titles):
            doc_id = f"doc-{d:07d}"
            docs.append((doc_id, title, doc_id, None, language, "all", None, shard_of[d], _PER_DOC,
                         None, None, None, None, None, "br", body))  # fmt: skip
        conn.executemany(f"INSERT INTO documents VALUES ({','.join('?' * 16)})", docs)
        conn.executemany(
            "INSERT INTO topic_documents VALUES ('all', ?, NULL)", [(r[0],) for r in docs]
        )
        conn.executemany(
            "INSERT INTO fts_documents(title, summary, aliases, document_id) VALUES (?, '', '', ?)",
            [(r[1], r[0]) for r in docs],
        )
        conn.executemany(
            "INSERT INTO route_centroids(shard_id, embedding, weight) VALUES (?, ?, ?)",
            [(s, c.tobytes(), sizes[s]) for s, c in enumerate(centroids)],
        )
        for s, size in enumerate(sizes):
            conn.execute(
                "INSERT INTO shards VALUES (?, ?, ?, ?, '[\"all\"]', 1, 0)",
                (s, f"index/shards/{s:03d}.db", size, size // _PER_DOC),
            )

    _sealed(root / "index" / "router.db", "router", fill_router)
    shard_files = [
        ShardFile(f"index/shards/{s:03d}.db", size, size // _PER_DOC, 1)
        for s, size in enumerate(sizes)
    ]
    write_manifest(root, "bench-hybrid", shard_files, first_doc, language=language)
    return root


def _queries(catalog: Catalog, count: int) -> list[str]:
    """Eight words of random passages (their words keep the corpus's frequencies)."""
    rng = np.random.default_rng(5)
    found = []
    shard = catalog.shards[0]
    conn = catalog._conn(shard)
    for chunk_id in rng.integers(1, shard.chunk_count + 1, size=count):
        (text,) = conn.execute("SELECT text FROM chunks WHERE id = ?", (int(chunk_id),)).fetchone()
        words = text.split()
        picks = rng.choice(len(words), size=8, replace=False)
        found.append(" ".join(words[i] for i in sorted(picks)))
    return found


def _zh_queries(catalog: Catalog, count: int) -> list[str]:
    """Two six-character pieces of clauses of random passages, written together."""
    rng = np.random.default_rng(5)
    found = []
    shard = catalog.shards[0]
    conn = catalog._conn(shard)
    for chunk_id in rng.integers(1, shard.chunk_count + 1, size=count):
        (text,) = conn.execute("SELECT text FROM chunks WHERE id = ?", (int(chunk_id),)).fetchone()
        clauses = [c for c in text.replace("。", "，").split("，") if len(c) >= 6]
        pieces = []
        for k in sorted(rng.choice(len(clauses), size=2, replace=False)):
            start = int(rng.integers(0, len(clauses[k]) - 5))
            pieces.append(clauses[k][start : start + 6])
        found.append("".join(pieces))
    return found


def _claims(path: Path, count: int) -> list[str]:
    """``count`` questions of a BEIR queries file, in a fixed random order."""
    with open(path, encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for line in fh if line.strip()]
    order = np.random.default_rng(5).permutation(len(texts))
    return [texts[i] for i in order[:count]]


def _index_files(catalog: Catalog) -> tuple[float, int, int]:
    """Seconds (CPU) to load or build every shard's keyword index, its bytes and the bytes
    of the shards' FTS5 tables."""
    started = time.process_time()
    catalog.prepare_keyword_index()
    seconds = time.process_time() - started
    keyword = catalog._store.keyword
    index_bytes = sum(
        keyword.path_of(s).stat().st_size for s in catalog.shards if keyword.path_of(s).is_file()
    )
    fts_bytes = 0
    for shard in catalog.shards:
        conn = catalog._conn(shard)
        rows = conn.execute(
            "SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'fts_chunks%'"
        ).fetchone()
        fts_bytes += int(rows[0] or 0)
    return seconds, index_bytes, fts_bytes


def measure(catalog: Catalog, queries: list[str]) -> dict[str, Any]:
    """Per-query wall and CPU ms of vector, hybrid and keyword search, alternating modes."""
    times: dict[str, tuple[list[float], list[float]]] = {
        m: ([], []) for m in ("vector", "hybrid", "keyword")
    }
    # The compiled kernels are prepared on a background thread whose CPU time (a cold numba
    # compile takes seconds) would land on whichever searches ran meanwhile: wait for them.
    kernels = compiled_kernels_available()
    print(f"stage-1 kernels: {kernels.message}", file=sys.stderr)
    for mode in times:  # warm: sign bits, connections, page cache
        catalog.search(queries[0], mode=mode, k=10, min_similarity=-1.0)  # type: ignore[arg-type]
    for query in queries:
        for mode, (wall, cpu) in times.items():
            w, c = time.perf_counter(), time.process_time()
            catalog.search(query, mode=mode, k=10, min_similarity=-1.0)  # type: ignore[arg-type]
            wall.append(1000 * (time.perf_counter() - w))
            cpu.append(1000 * (time.process_time() - c))
    out: dict[str, Any] = {}
    for mode, (wall, cpu) in times.items():
        out[mode] = {
            "wall_p50": statistics.median(wall),
            "wall_p95": percentile(wall, 0.95),
            "cpu_p50": statistics.median(cpu),
            "cpu_p95": percentile(cpu, 0.95),
        }
    out["ratio_wall_p95"] = out["hybrid"]["wall_p95"] / out["vector"]["wall_p95"]
    out["ratio_cpu_p95"] = out["hybrid"]["cpu_p95"] / out["vector"]["cpu_p95"]
    return out


def main(argv: list[str] | None = None) -> int:
    """Build (or reuse) each catalog, measure, print the table or JSON."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--chunks", type=int, action="append", help="passages (repeatable)")
    parser.add_argument("--shards", type=int, action="append", help="shards, one per --chunks")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/gezel-bench-hybrid"))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--text-model", type=Path, help="a BEIR corpus.jsonl to model text on")
    parser.add_argument("--claims", type=Path, help="a BEIR queries file to ask (real text)")
    parser.add_argument("--language", choices=["en", "zh"], default="en")
    args = parser.parse_args(argv)
    texts_of: TextMaker = _zh_texts if args.language == "zh" else _texts
    if args.language == "zh" and (args.text_model or args.claims):
        parser.error("--language zh writes its own text; --text-model and --claims are English")
    if args.text_model is not None:
        texts_of = TextModel(args.text_model).texts
    sizes = args.chunks or [200_000, 500_000]
    shard_counts = args.shards or ([1, 3] if not args.chunks else [1] * len(sizes))
    if len(shard_counts) != len(sizes):
        parser.error("give one --shards per --chunks")
    report: dict[str, Any] = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "load_before": [round(x, 2) for x in os.getloadavg()],
        "runs": [],
    }
    for n, shards in zip(sizes, shard_counts, strict=True):
        name = f"c{n}-s{shards}" + ("-text" if args.text_model is not None else "")
        name += "-zh" if args.language == "zh" else ""
        root = args.workdir / name
        if not (root / "manifest.json").is_file():
            started = time.perf_counter()
            build(root, n, shards, texts_of, language=args.language)
            print(f"built {root} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        with open_catalog(root, embedder=HashEmbedder()) as catalog:
            index_cpu, index_bytes, fts_bytes = _index_files(catalog)
            if args.claims is not None:
                queries = _claims(args.claims, args.queries)
            elif args.language == "zh":
                queries = _zh_queries(catalog, args.queries)
            else:
                queries = _queries(catalog, args.queries)
            figures = measure(catalog, queries)
        report["runs"].append(
            {
                "chunks": n,
                "shards": shards,
                "keyword_index_cpu_s": index_cpu,
                "keyword_index_bytes": index_bytes,
                "fts_bytes": fts_bytes,
                **figures,
            }
        )
    report["load_after"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"load average before {report['load_before']}, after {report['load_after']}")
    print(f"{'catalog':>18} {'mode':8} {'p50 ms':>8} {'p95 ms':>8} {'cpu p50':>8} {'cpu p95':>8}")
    for run in report["runs"]:
        name = f"{run['chunks']:,} / {run['shards']} sh"
        for mode in ("vector", "hybrid", "keyword"):
            f = run[mode]
            print(
                f"{name:>18} {mode:8} {f['wall_p50']:8.1f} {f['wall_p95']:8.1f}"
                f" {f['cpu_p50']:8.1f} {f['cpu_p95']:8.1f}"
            )
        print(
            f"{'':>18} hybrid/vector p95: wall {run['ratio_wall_p95']:.2f}x,"
            f" cpu {run['ratio_cpu_p95']:.2f}x (goal <= {GOAL:.0f}x)"
        )
        print(
            f"{'':>18} keyword index: {run['keyword_index_cpu_s']:.1f} s CPU to load or build,"
            f" {run['keyword_index_bytes'] / 2**20:.1f} MiB"
            f" ({run['keyword_index_bytes'] / max(1, run['fts_bytes']):.2f}x the FTS5 tables)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
