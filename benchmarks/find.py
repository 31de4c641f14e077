"""Install and find: installing catalogs and searching several of them at once.

Generates ``--catalogs`` deterministic catalogs of ``--docs`` documents each (a document list of
made-up words over ten topics), compiles them (``test-hash-embed@1`` by default, or the default
model with ``--embedder default``), installs them into a temporary Gezel home, then measures:

- ``install``: the whole install job per catalog (digest, archive checks, extraction, deep
  validation, publish, register);
- ``find, first query``: a new ``KnowledgeSearch`` answering its first query with the shared
  embedders cleared (mount every catalog, load and verify the query model, embed, search);
- ``find, warm``: the same handle answering ``--queries`` queries, p50/p95;
- ``find, CLI``: ``python -m gezel_knowledge find`` as a process, wall time (interpreter start,
  imports, everything above);
- ``numpy reference``: an exact scan of every catalog's dequantized int8 vectors held in memory
  (a plain ``X @ q`` and ``argpartition``), and the share of its top-10 documents that the routed
  two-stage ``find --mode vector`` also returns in its top 10.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from gezel_knowledge.compiler import BuildOptions, compile_catalog
from gezel_knowledge.embedders import (
    Embedder,
    HashEmbedder,
    clear_shared_embedders,
    default_embedder,
)
from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.search import KnowledgeSearch

# The shared text generator sits beside this file: importable however this file was loaded.
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synthetic import vocabulary, words


def _sentence(rng: random.Random, vocab: list[str], n: int) -> str:
    return words(rng, vocab, n).capitalize() + "."


def write_source(root: Path, catalog_id: str, docs: int, seed: int) -> list[str]:
    """A document-list catalog source; returns sample sentences to use as queries."""
    rng = random.Random(seed)
    vocab = vocabulary(rng, 4000)
    root.mkdir(parents=True)
    (root / "catalog.yaml").write_text(
        f'id: {catalog_id}\nversion: "1.0.0"\nname: Bench {catalog_id}\nlanguage: en\n'
        "publisher: {id: bench, name: Bench}\n"
        "license: {name: CC0, attributionRequired: false}\n"
    )
    (root / "README.md").write_text(f"# Bench {catalog_id}\n")
    (root / "LICENSE").write_text("CC0\n")
    samples: list[str] = []
    with (root / "documents.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(docs):
            paragraphs = [
                " ".join(_sentence(rng, vocab, rng.randint(6, 14)) for _ in range(4))
                for _ in range(rng.randint(8, 16))
            ]
            if i % 50 == 0:
                samples.append(" ".join(paragraphs[0].split()[:6]))
            title = " ".join(rng.choice(vocab) for _ in range(3)).title()
            fh.write(
                json.dumps(
                    {
                        "id": f"d{i:06d}",
                        "title": title,
                        "topicPath": [f"t{i % 10}"],
                        "markdown": f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n",
                    }
                )
                + "\n"
            )
    return samples


def _int8_matrix(root: Path) -> tuple[np.ndarray, list[str]]:
    """All dequantized int8 vectors of an installed catalog with their document ids."""
    blocks: list[np.ndarray] = []
    docs: list[str] = []
    for db in sorted((root / "index").rglob("*.db")):
        conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
        try:
            rows = conn.execute(
                "SELECT c.document_id, v.v FROM chunks c JOIN chunk_vectors_int8 v"
                " ON v.chunk_id = c.id ORDER BY c.id"
            ).fetchall()
        except sqlite3.OperationalError:
            rows = []  # a router that holds no shard tables
        conn.close()
        if rows:
            docs += [r[0] for r in rows]
            raw = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.int8)
            blocks.append(raw.reshape(len(rows), -1).astype(np.float32) / 127.0)
    return np.vstack(blocks), docs


def _ms(milliseconds: float) -> str:
    return f"{milliseconds:.2f} ms"


def _build_and_install(
    args: argparse.Namespace, work: Path, home: KnowledgeHome, embedder: Embedder
) -> tuple[list[str], list[float], int]:
    """Build and install the catalogs; return their queries, install times and chunk count."""
    queries: list[str] = []
    installs: list[float] = []
    chunks = 0
    for c in range(args.catalogs):
        cid = f"bench{c}"
        src = work / f"src-{cid}"
        queries += write_source(src, cid, args.docs, seed=c + 1)
        built = compile_catalog(
            src / "documents.jsonl",
            work / f"{cid}.gezk",
            BuildOptions(embedder=embedder, created_at="2026-12-01T00:00:00Z"),
        )
        chunks += built.chunks
        started = time.perf_counter()
        home.install(work / f"{cid}.gezk")
        installs.append(time.perf_counter() - started)
    return queries, installs, chunks


def _time_searches(
    home: KnowledgeHome, queries: list[str]
) -> tuple[list[float], list[float], list[list[tuple[str, str]]]]:
    """First-search and warm-search times, and each query's vector-only top ten."""
    cold: list[float] = []
    for q in queries[:5]:
        clear_shared_embedders()
        started = time.perf_counter()
        with KnowledgeSearch(home) as search:
            search.search(q)
        cold.append(time.perf_counter() - started)

    warm: list[float] = []
    vector_hits: list[list[tuple[str, str]]] = []
    with KnowledgeSearch(home) as search:
        search.search(queries[0])
        for q in queries:
            started = time.perf_counter()
            result = search.search(q, k=10)
            warm.append(time.perf_counter() - started)
            assert result.hits, q
        for q in queries:
            # Without a cosine floor: hash vectors of unrelated text sit below any floor.
            vec = search.search(q, k=10, mode="vector", min_similarity=-1.0)
            vector_hits.append([(h.source, h.document_id) for h in vec.hits])
    return cold, warm, vector_hits


def _time_cli(home: KnowledgeHome, queries: list[str]) -> list[float]:
    """Wall time of one ``gezel-knowledge find`` process per query."""
    cli: list[float] = []
    env = {**os.environ, "GEZEL_HOME": str(home.root)}
    for q in queries:
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "gezel_knowledge", "find", q],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        cli.append(time.perf_counter() - started)
    return cli


def _numpy_reference(
    home: KnowledgeHome,
    embedder: Embedder,
    queries: list[str],
    vector_hits: list[list[tuple[str, str]]],
) -> tuple[list[float], list[float]]:
    """Exact int8 scan times over every installed chunk, and the vector search's recall@10."""
    mats: list[np.ndarray] = []
    owners: list[tuple[str, str]] = []
    for catalog in home.installed():
        assert catalog.active is not None
        mat, docs = _int8_matrix(home.path_of(catalog.active))
        mats.append(mat)
        owners += [(catalog.key, d) for d in docs]
    matrix = np.ascontiguousarray(np.vstack(mats))
    ref_times: list[float] = []
    recalls: list[float] = []
    qvecs = embedder.embed_queries(queries)
    for qv, found in zip(qvecs, vector_hits, strict=True):
        started = time.perf_counter()
        scores = matrix @ qv
        depth = min(200, len(scores) - 1)
        top = np.argpartition(-scores, depth)[: depth + 1]
        top = top[np.argsort(-scores[top], kind="stable")]
        ref_times.append(time.perf_counter() - started)
        exact: list[tuple[str, str]] = []
        for i in top:
            if owners[i] not in exact:
                exact.append(owners[i])
            if len(exact) == 10:
                break
        recalls.append(len(set(exact) & set(found)) / len(exact))
    return ref_times, recalls


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Build, install and measure in ``work``; return the figures."""
    work.mkdir(parents=True, exist_ok=True)
    home = KnowledgeHome(work / "home")
    embedder: Embedder = HashEmbedder() if args.embedder == "hash" else default_embedder()
    queries, installs, chunks = _build_and_install(args, work, home, embedder)
    rng = random.Random(7)
    rng.shuffle(queries)
    queries = queries[: args.queries]
    cold, warm, vector_hits = _time_searches(home, queries)
    cli = _time_cli(home, queries[: args.cli_runs])
    ref_times, recalls = _numpy_reference(home, embedder, queries, vector_hits)

    def pct(values: list[float], p: float) -> float:
        return float(np.percentile(values, p))

    return {
        "machine": (
            f"{platform.machine()}, {os.cpu_count()} cpus, Python {platform.python_version()}"
        ),
        "embedder": embedder.profile.id,
        "catalogs": args.catalogs,
        "documents": args.catalogs * args.docs,
        "chunks": chunks,
        "install_s": installs,
        "find_first_ms": statistics.median(cold) * 1000,
        "find_warm_p50_ms": pct(warm, 50) * 1000,
        "find_warm_p95_ms": pct(warm, 95) * 1000,
        "find_cli_ms": statistics.median(cli) * 1000,
        "numpy_exact_p50_ms": pct(ref_times, 50) * 1000,
        "vector_recall_at_10": statistics.mean(recalls),
    }


def main() -> int:
    """Parse arguments, run, print a table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalogs", type=int, default=3, help="catalogs to install (3)")
    parser.add_argument("--docs", type=int, default=2000, help="documents per catalog (2000)")
    parser.add_argument("--queries", type=int, default=40, help="warm queries (40)")
    parser.add_argument(
        "--embedder",
        choices=("hash", "default"),
        default="hash",
        help="hash: test-hash-embed@1 (fast); default: the default model (slow to build)",
    )
    parser.add_argument("--cli-runs", type=int, default=3, help="CLI processes to time (3)")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-find-"))
    try:
        figures = run(args, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    rows = [
        ("machine", figures["machine"]),
        ("embedder", figures["embedder"]),
        (
            "corpus",
            f"{figures['catalogs']} catalogs, {figures['documents']} documents, "
            f"{figures['chunks']} chunks",
        ),
        ("install (per catalog)", ", ".join(f"{s:.2f} s" for s in figures["install_s"])),
        ("find, first query", _ms(figures["find_first_ms"])),
        (
            "find, warm p50 / p95",
            f"{figures['find_warm_p50_ms']:.1f} / {figures['find_warm_p95_ms']:.1f} ms",
        ),
        ("find, CLI process", _ms(figures["find_cli_ms"])),
        ("numpy exact scan p50", _ms(figures["numpy_exact_p50_ms"])),
        ("vector recall@10 vs exact", f"{figures['vector_recall_at_10']:.3f}"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
