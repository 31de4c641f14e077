"""Reopening a ``.gezk`` by path against hashing it (issue 13 goal 4: at most 10%).

Builds a deterministic catalog of ``--docs`` documents (``test-hash-embed@1``), pads it with a
``sources/padding.bin`` of random bytes to about ``--size-mib`` MiB (the archive's size is what
hashing costs; a real catalog's bytes are mostly its databases), then measures in one process:

- ``hash``: SHA-256 of the whole archive (the best of three; the file is in the page cache);
- ``first open``: ``open_catalog`` on an empty cache (hash, archive checks, extraction, deep
  validation, the verdict);
- ``reopen``: ``open_catalog`` of the unchanged file again, ``--reopens`` times (median): a
  ``stat`` of the archive, its remembered digest and verdict, a ``stat`` of each extracted file,
  then the catalog handle;
- ``open_extracted``: the handle alone on the extracted directory (the floor of any open).

CPU time (``time.process_time``) and wall time are both printed; the ratio to the goal uses CPU
time, which a loaded machine disturbs least.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gezel_knowledge.archive import extract_archive, file_sha256
from gezel_knowledge.archive.writer import write_archive
from gezel_knowledge.compiler import BuildOptions, compile_catalog
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import open_extracted

# The shared text generator sits beside this file: importable however this file was loaded.
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synthetic import vocabulary, words

GOAL = 0.10


def write_source(root: Path, docs: int, seed: int = 1) -> Path:
    """A document-list catalog source of ``docs`` documents; returns the list's path."""
    rng = random.Random(seed)
    vocab = vocabulary(rng, 2000)
    root.mkdir(parents=True)
    (root / "catalog.yaml").write_text(
        'id: reopen\nversion: "1.0.0"\nname: Reopen\nlanguage: en\n'
        "publisher: {id: bench, name: Bench}\n"
        "license: {name: CC0, attributionRequired: false}\n"
    )
    (root / "README.md").write_text("# Reopen\n")
    (root / "LICENSE").write_text("CC0\n")
    with (root / "documents.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(docs):
            body = "\n\n".join(words(rng, vocab, 60).capitalize() + "." for _ in range(6))
            title = words(rng, vocab, 3).title()
            fh.write(
                json.dumps(
                    {
                        "id": f"d{i:06d}",
                        "title": title,
                        "topicPath": [f"t{i % 10}"],
                        "markdown": f"# {title}\n\n{body}\n",
                    }
                )
                + "\n"
            )
    return root / "documents.jsonl"


def padded(archive: Path, size_mib: int, work: Path) -> Path:
    """The archive with a ``sources/padding.bin`` bringing it to about ``size_mib`` MiB."""
    pad = max(0, size_mib * 1024 * 1024 - archive.stat().st_size)
    if pad == 0:
        return archive
    root = work / "extracted"
    extract_archive(archive, root)
    padding = root / "sources" / "padding.bin"
    padding.parent.mkdir()
    with padding.open("wb") as fh:
        rng = random.Random(7)
        left = pad
        while left:
            n = min(left, 1 << 20)
            fh.write(rng.randbytes(n))
            left -= n
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"].append(
        {"path": "sources/padding.bin", "sizeBytes": pad, "sha256": file_sha256(padding)}
    )
    manifest["files"].sort(key=lambda f: f["path"].encode("utf-8"))
    entries: dict[str, Path | bytes] = {
        f["path"]: root.joinpath(*f["path"].split("/")) for f in manifest["files"]
    }
    entries["manifest.json"] = json.dumps(manifest, indent=1).encode("utf-8")
    out = work / "padded.gezk"
    write_archive(out, entries)
    return out


def _timed(call: Callable[[], object]) -> tuple[float, float]:
    """``(cpu seconds, wall seconds)`` of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    call()
    return time.process_time() - cpu, time.perf_counter() - wall


def _open_close(archive: Path, cache: Path) -> None:
    open_catalog(archive, cache_dir=cache).close()


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Build the archive in ``work`` and measure; return the figures."""
    source = write_source(work / "src", args.docs)
    base = work / "base.gezk"
    compile_catalog(
        source, base, BuildOptions(embedder=HashEmbedder(), created_at="2026-12-01T00:00:00Z")
    )
    archive = padded(base, args.size_mib, work)
    cache = work / "cache"

    hashing = [_timed(lambda: file_sha256(archive)) for _ in range(3)]
    hash_cpu, hash_wall = min(c for c, _ in hashing), min(w for _, w in hashing)
    first_cpu, first_wall = _timed(lambda: _open_close(archive, cache))
    reopens = [_timed(lambda: _open_close(archive, cache)) for _ in range(args.reopens)]
    reopen_cpu = statistics.median(c for c, _ in reopens)
    reopen_wall = statistics.median(w for _, w in reopens)
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    floor = [_timed(lambda: open_extracted(cache / digest).close()) for _ in range(args.reopens)]
    return {
        "archive_bytes": archive.stat().st_size,
        "documents": args.docs,
        "hash_cpu_s": hash_cpu,
        "hash_wall_s": hash_wall,
        "first_open_cpu_s": first_cpu,
        "first_open_wall_s": first_wall,
        "reopen_cpu_s": reopen_cpu,
        "reopen_wall_s": reopen_wall,
        "open_extracted_cpu_s": statistics.median(c for c, _ in floor),
        "open_extracted_wall_s": statistics.median(w for _, w in floor),
        "ratio_cpu": reopen_cpu / hash_cpu,
        "ratio_wall": reopen_wall / hash_wall,
        "goal": GOAL,
        "load": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
    }


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:9.2f} ms"


def report(figures: dict[str, Any]) -> None:
    """Print the table."""
    print(
        f"archive: {figures['archive_bytes'] / 1024 / 1024:.1f} MiB, "
        f"{figures['documents']} documents; load {figures['load']}"
    )
    print(f"{'':28}{'CPU':>12}{'wall':>12}")
    for label, key in (
        ("hash (SHA-256)", "hash"),
        ("first open (validate)", "first_open"),
        ("reopen, unchanged", "reopen"),
        ("open_extracted (floor)", "open_extracted"),
    ):
        cpu, wall = figures[f"{key}_cpu_s"], figures[f"{key}_wall_s"]
        print(f"{label:28}{_ms(cpu):>12}{_ms(wall):>12}")
    verdict = "met" if figures["ratio_cpu"] <= figures["goal"] else "NOT met"
    print(
        f"reopen / hash: {figures['ratio_cpu']:.3f} CPU, {figures['ratio_wall']:.3f} wall "
        f"(goal <= {figures['goal']:.2f}: {verdict})"
    )


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--docs", type=int, default=2000, help="documents (default 2000)")
    parser.add_argument(
        "--size-mib", type=int, default=512, help="pad the archive to this size (default 512)"
    )
    parser.add_argument("--reopens", type=int, default=20, help="reopens to time (default 20)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--work", type=Path, help="keep the files here (default: a temp dir)")
    args = parser.parse_args(argv)
    if args.work is not None:
        figures = run(args, args.work)
    else:
        with tempfile.TemporaryDirectory(prefix="gezk-open-bench-") as tmp:
            os.environ.setdefault("GEZEL_HOME", str(Path(tmp) / "home"))
            figures = run(args, Path(tmp))
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        report(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
