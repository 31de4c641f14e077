"""Catalog compiler throughput and memory on a synthetic corpus (``test-hash-embed@1``, or the
default model with ``--embedder default``), locally or on a local Ray instance (``--ray``).

Writes a deterministic synthetic document list (by default 10,000 documents of four sections,
about 40,000 chunks of ``markdown-chunks@2``), then builds it with ``compile_catalog`` in a fresh
child process per scale so each peak RSS is that build's alone (``VmHWM`` where Linux has it,
since a child's ``ru_maxrss`` starts at its parent's high-water mark): the driver's, and with
``--jobs`` above 1 or ``--ray`` the largest worker process's. Prints documents/s, chunks/s, peak
RSS, the scratch folder's largest size, the float vectors' size for comparison, and the share of
wall time spent outside the embedder.

Two scales (default a quarter and the full corpus) show whether memory grows with the corpus:
documents, bodies, chunks and vectors are streamed through scratch files, so the peak should
barely move between the scales (``rss_ratio``, largest over smallest peak).

Reference, in the same run: the embedder alone (``hash_embed`` over the same embed inputs in
one call, plain numpy) for the floor the compiler cannot beat.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from gezel_knowledge.compiler import BuildOptions, compile_catalog
from gezel_knowledge.embedders import Embedder, HashEmbedder, default_embedder
from gezk.hashembed import hash_embed

CATALOG_YAML = """\
id: synthetic
version: "1.0.0"
name: Synthetic benchmark catalog
language: en
publisher: {id: bench, name: Benchmark}
license: {name: CC0 1.0, spdx: CC0-1.0, attributionRequired: false}
"""


def _vocabulary(rng: np.random.Generator, size: int = 4000) -> list[str]:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = set()
    while len(words) < size:
        n = int(rng.integers(3, 10))
        words.add("".join(rng.choice(letters, n)))
    return sorted(words)


def write_corpus(folder: Path, documents: int, sections: int, words: int, seed: int) -> Path:
    """A JSON Lines document list plus catalog.yaml, README.md and LICENSE in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "catalog.yaml").write_text(CATALOG_YAML, encoding="utf-8")
    (folder / "README.md").write_text(
        "# Synthetic\n\nGenerated for benchmarks.\n", encoding="utf-8"
    )
    (folder / "LICENSE").write_text("CC0 1.0 Universal\n", encoding="utf-8")
    rng = np.random.default_rng(seed)
    vocab = np.array(_vocabulary(rng))
    path = folder / "docs.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(documents):
            topic = f"topic-{i % 40:02d}"
            # No "# Document i" line: a heading with nothing under it is a chunk of its own
            # (as in the reference), which would add a two-token passage to every document.
            parts: list[str] = []
            for s in range(sections):
                parts.append(f"## Section {s + 1}\n")
                remaining = words
                while remaining > 0:
                    n = int(min(remaining, rng.integers(40, 90)))
                    sentence_lengths = rng.integers(6, 16, size=n // 6 + 1)
                    picks = vocab[rng.integers(0, len(vocab), size=n)]
                    sentences, pos = [], 0
                    for length in sentence_lengths:
                        chunk = picks[pos : pos + int(length)]
                        if not len(chunk):
                            break
                        sentences.append(" ".join(chunk).capitalize() + ".")
                        pos += int(length)
                    parts.append(" ".join(sentences) + "\n")
                    remaining -= n
            doc = {
                "id": f"{topic}/doc-{i:06d}",
                "title": f"Document {i}",
                "topicPath": [topic],
                "markdown": "\n".join(parts),
            }
            fh.write(json.dumps(doc) + "\n")
    return path


def _vm_hwm(status: Path) -> int | None:
    """``VmHWM`` (peak resident set of the process's own memory) from a ``/proc`` status file."""
    with contextlib.suppress(OSError, ValueError):
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return None


def _own_peak_rss() -> int:
    """This process's peak RSS. ``ru_maxrss`` of a process started by ``subprocess`` begins at
    its parent's high-water mark (Linux carries it across the exec), so ``VmHWM`` is read where
    there is one."""
    peak = _vm_hwm(Path("/proc/self/status"))
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class _Meter:
    """Sampled twice a second: the scratch folder's size, and the peak RSS of worker processes
    (this process's children, and Ray Data map workers)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.scratch = 0
        self.workers: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        me = str(os.getpid())
        while not self._stop.wait(0.5):
            size = 0
            for work in self.folder.glob(".out.gezk.build-*"):
                for path in work.rglob("*"):
                    with contextlib.suppress(OSError):
                        size += path.stat().st_size if path.is_file() else 0
            self.scratch = max(self.scratch, size)
            for proc in Path("/proc").glob("[0-9]*"):
                with contextlib.suppress(OSError):
                    stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
                    if stat[1] != me and b"MapWorker" not in (proc / "cmdline").read_bytes():
                        continue
                    peak = _vm_hwm(proc / "status")
                    if peak is not None:
                        self.workers[int(proc.name)] = peak

    def stop(self) -> tuple[int, int]:
        """The scratch folder's largest size and the largest worker's peak RSS."""
        self._stop.set()
        self._thread.join()
        return self.scratch, max(self.workers.values(), default=0)


def _embedder(name: str) -> Embedder:
    return HashEmbedder() if name == "hash" else default_embedder()


def _child(args: argparse.Namespace) -> int:
    source = Path(args.child)
    out = source.parent / "out.gezk"
    ray = None
    if args.ray:
        ray = importlib.import_module("ray")
        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
    embedder = _embedder(args.embedder)
    before = resource.getrusage(resource.RUSAGE_SELF)
    cpu_before = before.ru_utime + before.ru_stime
    meter = _Meter(source.parent)
    started = time.perf_counter()
    result = compile_catalog(
        source,
        out,
        BuildOptions(
            embedder=embedder,
            created_at="2026-12-01T00:00:00Z",
            jobs=args.jobs,
            ray=True if args.ray else None,
        ),
    )
    seconds = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    scratch, worker_peak = meter.stop()
    if ray is not None:
        ray.shutdown()
    print(
        json.dumps(
            {
                "documents": result.documents,
                "chunks": result.chunks,
                "shards": result.shards,
                "archive_bytes": result.size_bytes,
                "sha256": result.sha256,
                "seconds": seconds,
                "cpu_seconds": usage.ru_utime + usage.ru_stime - cpu_before,
                "worker_cpu_seconds": workers.ru_utime + workers.ru_stime,
                "worker_peak_rss_bytes": worker_peak,
                "jobs": args.jobs,
                "ray": args.ray,
                "embedder": args.embedder,
                "embed_seconds": result.embed_seconds,
                "peak_rss_bytes": _own_peak_rss(),
                "scratch_peak_bytes": scratch,
                "vector_bytes": result.chunks * 384 * 4,
            }
        )
    )
    out.unlink()
    return 0


def _reference(source: Path, limit: int) -> dict[str, float]:
    """Embed ``limit`` chunk-sized inputs with ``hash_embed`` in one call (the floor)."""
    texts = []
    with source.open(encoding="utf-8") as fh:
        for line in fh:
            body = json.loads(line)["markdown"]
            texts.extend(p for p in body.split("\n## ") if p)
            if len(texts) >= limit:
                break
    texts = texts[:limit]
    started = time.perf_counter()
    hash_embed(texts)
    seconds = time.perf_counter() - started
    return {"inputs": len(texts), "seconds": seconds, "per_second": len(texts) / seconds}


def main(argv: list[str] | None = None) -> int:
    """Generate, build at each scale in a child process, print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--documents", type=int, default=10_000, help="documents at full scale")
    parser.add_argument("--sections", type=int, default=4, help="sections per document")
    parser.add_argument("--words", type=int, default=330, help="words per section")
    parser.add_argument(
        "--scales", default="0.25,1", help="comma-separated fractions of --documents to build"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="processes chunking and embedding (default 1); with --ray, actors",
    )
    parser.add_argument(
        "--embedder",
        choices=("hash", "default"),
        default="hash",
        help="test-hash-embed@1 (default) or the default model (default-model extra)",
    )
    parser.add_argument(
        "--ray", action="store_true", help="build on a local Ray instance (the ray extra)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child(args)

    runs: list[dict[str, Any]] = []
    reference: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="gezk-compile-bench-") as tmp:
        for scale in (float(s) for s in args.scales.split(",")):
            n = max(1, round(args.documents * scale))
            source = write_corpus(Path(tmp) / f"n{n}", n, args.sections, args.words, args.seed)
            completed = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    str(source),
                    "--jobs",
                    str(args.jobs),
                    "--embedder",
                    args.embedder,
                    *(["--ray"] if args.ray else []),
                ],
                check=True,
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONHASHSEED": "0"},
            )
            # Ray's raylet may print to the child's stdout too: the report is the last line.
            run = json.loads(completed.stdout.strip().splitlines()[-1])
            run["input_bytes"] = source.stat().st_size
            runs.append(run)
            if scale == 1.0 or not reference:
                reference = _reference(source, min(run["chunks"], 20_000))
    for run in runs:
        run["documents_per_second"] = run["documents"] / run["seconds"]
        run["chunks_per_second"] = run["chunks"] / run["seconds"]
        run["chunks_per_cpu_second"] = run["chunks"] / (
            run["cpu_seconds"] + run["worker_cpu_seconds"]
        )
        run["chunks_per_second_per_worker"] = run["chunks_per_second"] / run["jobs"]
        run["outside_embedder_share"] = 1 - run["embed_seconds"] / run["seconds"]
    report = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
        "runs": runs,
        "reference_hash_embed": reference,
    }
    if len(runs) >= 2:
        small, large = runs[0], runs[-1]
        report["rss_growth_bytes"] = large["peak_rss_bytes"] - small["peak_rss_bytes"]
        report["vector_growth_bytes"] = large["vector_bytes"] - small["vector_bytes"]
        report["input_growth_bytes"] = large["input_bytes"] - small["input_bytes"]
        report["rss_ratio"] = large["peak_rss_bytes"] / small["peak_rss_bytes"]
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    where = "on a local Ray instance" if args.ray else "locally"
    print(
        f"compile_catalog with {args.embedder} embedder, {args.jobs} worker(s) {where} "
        f"({report['machine']}, Python {report['python']})"
    )
    header = (
        f"{'docs':>7} {'chunks':>7} {'MiB in':>7} {'s':>6} {'CPU s':>6} {'docs/s':>7} "
        f"{'chunks/s':>9} {'chunks/CPU s':>13} {'peak RSS MiB':>13} {'worker MiB':>11} "
        f"{'scratch MiB':>12} {'vectors MiB':>12} {'outside embed':>14}"
    )
    print(header)
    for run in runs:
        print(
            f"{run['documents']:>7} {run['chunks']:>7} {run['input_bytes'] / 2**20:>7.1f} "
            f"{run['seconds']:>6.1f} {run['cpu_seconds']:>6.1f} "
            f"{run['documents_per_second']:>7.0f} "
            f"{run['chunks_per_second']:>9.0f} {run['chunks_per_cpu_second']:>13.0f} "
            f"{run['peak_rss_bytes'] / 2**20:>13.1f} {run['worker_peak_rss_bytes'] / 2**20:>11.1f} "
            f"{run['scratch_peak_bytes'] / 2**20:>12.1f} "
            f"{run['vector_bytes'] / 2**20:>12.1f} {run['outside_embedder_share']:>13.0%}"
        )
    print(
        f"reference: hash_embed alone over {reference['inputs']:,} inputs: "
        f"{reference['per_second']:,.0f} inputs/s"
    )
    if "rss_growth_bytes" in report:
        print(
            f"peak RSS grew {report['rss_growth_bytes'] / 2**20:.1f} MiB "
            f"({report['rss_ratio']:.2f}x) from the smallest to the largest scale; vectors grew "
            f"{report['vector_growth_bytes'] / 2**20:.1f} MiB, input "
            f"{report['input_growth_bytes'] / 2**20:.1f} MiB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
