"""Workspace content index: structural pass, no-change re-index, enrichment and search latency.

Generates a deterministic workspace of ``--files`` files (Python, TypeScript, Markdown, text in
nested folders), then measures:

- ``structural pass``: the first ``ContentIndex.update()`` (discover, hash, extract symbols and
  headings, chunk, write) in files/s, next to a plain reference that only walks, reads and
  hashes every file (the floor any indexer pays);
- ``no-change re-index``: ``update()`` again with nothing changed (target: under 2 s);
- ``enrichment``: embedding every chunk into ``vec_text`` with ``test-hash-embed@1`` (the model
  cost is the embedder's, measured in ``benchmarks/embed.py``);
- ``search``: ``ContentIndex.search`` over ``--queries`` mixed queries (symbol names, words,
  phrases) with the hash embedder, p50/p95 (target p95: under 50 ms), and keyword-only;
- ``vector kNN``: sqlite-vec's ``vec_text`` top-40 next to a plain numpy float32 scan of the same
  vectors, with the share of identical top-10 lists.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.indexes import ContentIndex, sqlite_backend
from gezel_knowledge.indexes._vectors import knn, vec_table

# The shared text generator sits beside this file: importable however this file was loaded.
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synthetic import vocabulary, words


def generate_workspace(root: Path, files: int, seed: int = 1) -> list[str]:
    """Write ``files`` files under ``root``; return some symbol names for queries."""
    rng = random.Random(seed)
    vocab = vocabulary(rng, 3000)
    symbols: list[str] = []
    for i in range(files):
        folder = root / f"pkg{i % 40:02d}" / f"mod{(i // 40) % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        kind = i % 20
        if kind < 10:
            funcs = []
            for _ in range(rng.randint(2, 8)):
                name = f"{rng.choice(vocab)}_{rng.choice(vocab)}"
                symbols.append(name)
                body = words(rng, vocab, rng.randint(5, 30))
                funcs.append(f'def {name}(x):\n    """{body}"""\n    return x\n')
            (folder / f"file{i}.py").write_text("import os\n\n\n" + "\n\n".join(funcs))
        elif kind < 13:
            funcs = []
            for _ in range(rng.randint(2, 6)):
                name = rng.choice(vocab) + rng.choice(vocab).capitalize()
                symbols.append(name)
                funcs.append(
                    f"export function {name}(a: number) {{\n"
                    f"  // {words(rng, vocab, 12)}\n  return a;\n}}\n"
                )
            (folder / f"file{i}.ts").write_text('import { x } from "./x";\n' + "\n".join(funcs))
        elif kind < 18:
            parts = [f"# {words(rng, vocab, 3)}\n"]
            for _ in range(rng.randint(2, 10)):
                parts.append(f"\n## {words(rng, vocab, 2)}\n\n")
                for _ in range(rng.randint(1, 4)):
                    parts.append(words(rng, vocab, rng.randint(20, 120)) + "\n\n")
            (folder / f"file{i}.md").write_text("".join(parts))
        else:
            lines = [words(rng, vocab, rng.randint(5, 20)) for _ in range(rng.randint(5, 80))]
            (folder / f"file{i}.txt").write_text("\n".join(lines) + "\n")
    return symbols


def _reference_walk(root: Path) -> int:
    """The floor: walk, read and hash every file, nothing else."""
    count = 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            with open(os.path.join(dirpath, name), "rb") as fh:
                hashlib.sha256(fh.read()).hexdigest()
            count += 1
    return count


def _percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def _queries(index: ContentIndex, symbols: list[str], n: int) -> list[str]:
    """``n`` queries: a symbol, a passage's first words, or words from its middle, in turn."""
    rng = random.Random(7)
    rows = index._conn.execute("SELECT text FROM chunks ORDER BY random() LIMIT 200").fetchall()
    texts = [str(r[0]) for r in rows]
    query_set: list[str] = []
    for i in range(n):
        if i % 3 == 0:
            query_set.append(rng.choice(symbols))
        elif i % 3 == 1:
            query_set.append(" ".join(rng.choice(texts).split()[:3]))
        else:
            query_set.append(" ".join(rng.choice(texts).split()[5:12]) or "kano")
    return query_set


def _time_searches(index: ContentIndex, query_set: list[str]) -> tuple[list[float], list[float]]:
    """Milliseconds of each hybrid and each keyword search."""
    hybrid: list[float] = []
    keyword: list[float] = []
    index.search(query_set[0])  # warm-up
    for q in query_set:
        start = time.perf_counter()
        index.search(q)
        hybrid.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        index.search(q, mode="keyword")
        keyword.append((time.perf_counter() - start) * 1000)
    return hybrid, keyword


def _time_knn(
    index: ContentIndex, embedder: HashEmbedder, query_set: list[str]
) -> tuple[list[float], list[float], int]:
    """Milliseconds of sqlite-vec's KNN and of a plain numpy scan, and how often the top ten
    agree."""
    table = vec_table(index._conn, "vec_text")
    assert table is not None
    pairs = index._conn.execute("SELECT rowid, embedding FROM vec_text ORDER BY rowid").fetchall()
    ids = np.asarray([p[0] for p in pairs], dtype=np.int64)
    matrix = np.frombuffer(b"".join(p[1] for p in pairs), dtype=np.float32).reshape(len(pairs), -1)
    vec_ms: list[float] = []
    numpy_ms: list[float] = []
    agree = 0
    for qv in embedder.embed_queries(query_set):
        start = time.perf_counter()
        got, _ = knn(index._conn, table, qv, 40)
        vec_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        scores = matrix @ qv
        part = np.argpartition(-scores, 39)[:40]
        best = ids[part[np.argsort(-scores[part], kind="stable")]]
        numpy_ms.append((time.perf_counter() - start) * 1000)
        agree += int(np.array_equal(np.sort(got[:10]), np.sort(best[:10])))
    return vec_ms, numpy_ms, agree


def run(files: int, queries: int, workdir: Path) -> dict[str, Any]:
    """Build, re-index and search; return the figures."""
    ws = workdir / "ws"
    started = time.perf_counter()
    symbols = generate_workspace(ws, files)
    generate_seconds = time.perf_counter() - started

    start = time.perf_counter()
    walked = _reference_walk(ws)
    reference_seconds = time.perf_counter() - start

    index = ContentIndex(ws, db_path=workdir / "content.db")
    start = time.perf_counter()
    structural = index.update()
    structural_seconds = time.perf_counter() - start
    assert len(structural.processed) == files == walked

    nochange: list[float] = []
    reread = 0  # files a no-change pass read again (processed, or re-hashed after a touch)
    unchanged = files
    for _ in range(3):
        start = time.perf_counter()
        again = index.update()
        nochange.append(time.perf_counter() - start)
        reread = max(reread, len(again.processed) + len(again.touched))
        unchanged = min(unchanged, again.unchanged)

    embedder = HashEmbedder()
    start = time.perf_counter()
    enrichment = index.enrich(embedder, batch_size=256)
    enrich_seconds = time.perf_counter() - start
    status = index.status()

    query_set = _queries(index, symbols, queries)
    index.embedder = embedder
    hybrid, keyword = _time_searches(index, query_set)
    vec_ms, numpy_ms, agree = _time_knn(index, embedder, query_set)
    index.close()
    db_bytes = sum(p.stat().st_size for p in workdir.glob("content.db*"))
    return {
        "files": files,
        "chunks": status.chunks,
        "symbols": status.symbols,
        "database_mib": round(db_bytes / 2**20, 1),
        "generate_s": round(generate_seconds, 2),
        "reference_walk_files_per_s": round(walked / reference_seconds),
        "structural_files_per_s": round(files / structural_seconds),
        "structural_s": round(structural_seconds, 2),
        "nochange_reindex_s": round(statistics.median(nochange), 3),
        "nochange_reindex_reread": reread,
        "nochange_reindex_unchanged": unchanged,
        "enrich_chunks_per_s": round(enrichment.chunks_embedded / enrich_seconds),
        "search_hybrid_p50_ms": round(_percentile(hybrid, 50), 2),
        "search_hybrid_p95_ms": round(_percentile(hybrid, 95), 2),
        "search_keyword_p95_ms": round(_percentile(keyword, 95), 2),
        "vec0_knn_p95_ms": round(_percentile(vec_ms, 95), 2),
        "numpy_scan_p95_ms": round(_percentile(numpy_ms, 95), 2),
        "knn_top10_agreement": round(agree / len(query_set), 3),
        "queries": queries,
    }


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run, print a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=5000, help="workspace files (default 5000)")
    parser.add_argument("--queries", type=int, default=200, help="search queries (default 200)")
    parser.add_argument("--workdir", type=Path, help="keep the workspace and index here")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    temp = None
    if args.workdir is None:
        temp = tempfile.mkdtemp(prefix="gezel-index-bench-")
        workdir = Path(temp)
    else:
        workdir = args.workdir
        workdir.mkdir(parents=True, exist_ok=True)
    try:
        result = run(args.files, args.queries, workdir)
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
    result["machine"] = (
        f"{platform.machine()} {os.cpu_count()} cpu, Python {sys.version.split()[0]}"
    )
    result["sqlite"] = f"{sqlite_backend().name} {sqlite_backend().sqlite_version}"
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    targets = {"nochange_reindex_s": "< 2 s", "search_hybrid_p95_ms": "< 50 ms"}
    width = max(len(k) for k in result)
    for key, value in result.items():
        note = f"  (target {targets[key]})" if key in targets else ""
        print(f"{key:<{width}}  {value}{note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
