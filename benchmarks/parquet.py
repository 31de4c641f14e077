"""Parquet companion export and Parquet document lists on a synthetic corpus.

For each scale, a deterministic document list (JSON Lines, and the same rows as Parquet) is
built once with ``test-hash-embed@1``; then, each in a fresh child process so every peak RSS is
that step's alone:

- ``export_parquet`` of the catalog: CPU seconds, chunks per CPU second, peak RSS;
- the reference in the same run: the naive export (every chunk row fetched into Python, one
  Arrow table, one ``write_table``), whose memory grows with the shard;
- ``load_source`` of the JSON Lines list and of the Parquet list (the Parquet adapter stages
  rows as JSON Lines for the JSON Lines adapter): CPU seconds side by side.

The companion streams row groups, so its peak RSS should stay about flat across scales while
the naive export's grows with the chunks.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from gezel_knowledge.compiler import BuildOptions, compile_catalog, load_source
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.export import export_parquet
from gezel_knowledge.opening import open_catalog

# The shared text generator sits beside this file: importable however this file was loaded.
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synthetic import vocabulary, words

CATALOG_YAML = """\
id: parquet-bench
version: "1.0.0"
name: Parquet benchmark catalog
language: en
publisher: {id: bench, name: Benchmark}
license: {name: CC0 1.0, spdx: CC0-1.0, attributionRequired: false}
"""


def write_lists(folder: Path, documents: int, sections: int, seed: int) -> tuple[Path, Path]:
    """The same documents as ``docs.jsonl`` and ``docs.parquet``, with catalog.yaml etc."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "catalog.yaml").write_text(CATALOG_YAML, encoding="utf-8")
    (folder / "README.md").write_text("# Parquet benchmark\n", encoding="utf-8")
    (folder / "LICENSE").write_text("CC0 1.0 Universal\n", encoding="utf-8")
    rng = random.Random(seed)
    vocab = vocabulary(rng, 4000)
    jsonl = folder / "docs.jsonl"
    schema = pa.schema(
        [
            ("id", pa.string()),
            ("title", pa.string()),
            ("topicPath", pa.list_(pa.string())),
            ("markdown", pa.string()),
        ]
    )
    batch: list[dict[str, Any]] = []
    with (
        jsonl.open("w", encoding="utf-8") as fh,
        pq.ParquetWriter(folder / "docs.parquet", schema) as writer,
    ):
        for i in range(documents):
            body = "\n".join(
                f"## Section {s + 1}\n\n{words(rng, vocab, 250).capitalize()}.\n"
                for s in range(sections)
            )
            doc = {
                "id": f"doc-{i:07d}",
                "title": f"Document {i}",
                "topicPath": [f"topic-{i % 40:02d}"],
                "markdown": body,
            }
            fh.write(json.dumps(doc) + "\n")
            batch.append(doc)
            if len(batch) == 1000:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
    return jsonl, folder / "docs.parquet"


def _usage() -> tuple[float, int]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def _naive_export(catalog: Path, out: Path) -> int:
    """Every chunk row in Python at once, one table, one write: the reference."""
    with open_catalog(catalog) as handle:
        router = handle.root / "index" / "router.db"
    conn = sqlite3.connect(router.as_uri() + "?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT c.id, c.chunk_uid, c.document_id, c.text, q.v, b.v FROM chunks c "
        "JOIN chunk_vectors_int8 q ON q.chunk_id = c.id "
        "JOIN chunk_vectors_bit b ON b.chunk_id = c.id ORDER BY c.id"
    ).fetchall()
    conn.close()
    columns = list(zip(*rows, strict=True))
    table = pa.table(
        {
            "id": columns[0],
            "chunk_uid": columns[1],
            "document_id": columns[2],
            "text": columns[3],
            "embedding": pa.array(columns[4], pa.binary()),
            "embedding_bit": pa.array(columns[5], pa.binary()),
        }
    )
    pq.write_table(table, out / "chunks.parquet", compression="zstd")
    return len(rows)


def _child(step: str, folder: Path) -> int:
    cpu_before, _ = _usage()
    catalog = folder / "catalog.gezk"
    result: dict[str, Any] = {}
    if step == "build":
        built = compile_catalog(
            folder / "docs.jsonl",
            catalog,
            BuildOptions(embedder=HashEmbedder(), created_at="2026-12-01T00:00:00Z"),
        )
        with open_catalog(catalog):  # verify and extract once, outside the measured steps
            pass
        result = {"documents": built.documents, "chunks": built.chunks, "shards": built.shards}
    elif step == "export":
        out = Path(tempfile.mkdtemp(dir=folder)) / "companion"
        exported = export_parquet(catalog, out)
        result = {
            "rows": exported.rows("chunks"),
            "bytes": sum(f.size_bytes for f in exported.files),
        }
    elif step == "naive":
        out = Path(tempfile.mkdtemp(dir=folder))
        result = {"rows": _naive_export(catalog, out)}
    else:  # load-jsonl / load-parquet
        source = load_source(folder / ("docs.jsonl" if step == "load-jsonl" else "docs.parquet"))
        result = {"rows": len(source.documents)}
    cpu_after, peak = _usage()
    result.update(cpu_seconds=cpu_after - cpu_before, peak_rss_bytes=peak)
    print(json.dumps(result))
    return 0


def _run(step: str, folder: Path) -> dict[str, Any]:
    completed = subprocess.run(
        [sys.executable, __file__, "--child", step, str(folder)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0", "GEZEL_HOME": str(folder / "home")},
    )
    data: dict[str, Any] = json.loads(completed.stdout)
    return data


def main(argv: list[str] | None = None) -> int:
    """Generate each scale, build it, measure every step in a child process, print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--documents", type=int, default=6_000, help="documents at full scale")
    parser.add_argument("--sections", type=int, default=4, help="sections (chunks) per document")
    parser.add_argument("--scales", default="0.25,1", help="comma-separated fractions")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child(args.child[0], Path(args.child[1]))

    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gezk-parquet-bench-") as tmp:
        for scale in (float(s) for s in args.scales.split(",")):
            n = max(1, round(args.documents * scale))
            folder = Path(tmp) / f"n{n}"
            write_lists(folder, n, args.sections, args.seed)
            run: dict[str, Any] = {"build": _run("build", folder)}
            for step in ("export", "naive", "load-jsonl", "load-parquet"):
                run[step] = _run(step, folder)
            runs.append(run)
    report = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
        "pyarrow": pa.__version__,
        "runs": runs,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"Parquet export and input ({report['machine']}, Python {report['python']})")
    print(
        f"{'docs':>7} {'chunks':>7} {'export CPU s':>13} {'chunks/CPU s':>13} "
        f"{'peak MiB':>9} {'naive peak MiB':>15} {'companion MiB':>14} "
        f"{'load jsonl CPU s':>17} {'load parquet CPU s':>19}"
    )
    for run in runs:
        built, export, naive = run["build"], run["export"], run["naive"]
        print(
            f"{built['documents']:>7} {built['chunks']:>7} {export['cpu_seconds']:>13.2f} "
            f"{built['chunks'] / export['cpu_seconds']:>13,.0f} "
            f"{export['peak_rss_bytes'] / 2**20:>9.1f} {naive['peak_rss_bytes'] / 2**20:>15.1f} "
            f"{export['bytes'] / 2**20:>14.1f} {run['load-jsonl']['cpu_seconds']:>17.2f} "
            f"{run['load-parquet']['cpu_seconds']:>19.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
