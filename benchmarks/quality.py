"""Search quality on the SciFact training split: every mode, BM25 and the exact float scan.

Runs what ``gezel-knowledge eval FOLDER --bm25 --exact-dense`` runs, on the BEIR folder
``../shared/eval/scifact`` beside the repository (``--folder`` or ``GEZEL_EVAL_SCIFACT``
overrides it), and prints the table with the machine's load before and after. The first run
compiles the corpus (about 5,000 abstracts) with the default embedder, which takes minutes;
the catalog is cached (``<GEZEL_HOME>/cache/eval``, or ``--cache-dir``) and passage vectors go
to the shared vector cache, so later runs only search. ``--shard-target 1000`` builds
1,000-passage shards so that routing applies and routed results are set against every shard.
On demand only; the test suite runs it on a tiny corpus.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from gezel_knowledge._version import __version__
from gezel_knowledge.cli._output import TerminalProgress, to_jsonable
from gezel_knowledge.cli.cmd_eval import print_report
from gezel_knowledge.embedders import default_embedder, load_embedder
from gezel_knowledge.evaluate import evaluate_beir
from gezel_knowledge.evaluate.searching import MODES
from gezk.profiles import embedding_profile

DEFAULT_FOLDER = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "scifact"


def _folder(arg: Path | None) -> Path:
    if arg is not None:
        return arg
    env = os.environ.get("GEZEL_EVAL_SCIFACT")
    return Path(env) if env else DEFAULT_FOLDER


def _machine() -> dict[str, Any]:
    return {
        "cores": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "library": __version__,
    }


def main(argv: list[str] | None = None) -> int:
    """Evaluate the folder and print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--folder", type=Path, help=f"BEIR folder (default {DEFAULT_FOLDER})")
    parser.add_argument("--split", help="qrels split (the folder's only one by default)")
    parser.add_argument("--embedder", metavar="PROFILE", help="profile (default model)")
    parser.add_argument("--cache-dir", type=Path, help="where the built catalog is kept")
    parser.add_argument("--shard-target", type=int, help="passages per shard when building")
    parser.add_argument("--shard-fill", choices=("semantic", "topic"), default="semantic")
    parser.add_argument("--mode", action="append", choices=MODES, dest="modes")
    parser.add_argument("--no-baselines", action="store_true", help="skip BM25 and exact dense")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    folder = _folder(args.folder)
    if not (folder / "corpus.jsonl").is_file():
        print(
            f"no BEIR folder at {folder}: pass --folder or set GEZEL_EVAL_SCIFACT", file=sys.stderr
        )
        return 2
    embedder = (
        load_embedder(embedding_profile(args.embedder)) if args.embedder else default_embedder()
    )
    before = _machine()
    wall, cpu = time.perf_counter(), time.process_time()
    progress = TerminalProgress(quiet=args.json)
    try:
        report = evaluate_beir(
            folder,
            split=args.split,
            embedder=embedder,
            cache_dir=args.cache_dir,
            shard_target=args.shard_target,
            shard_fill=args.shard_fill,
            modes=args.modes,
            bm25=not args.no_baselines,
            exact_dense=not args.no_baselines,
            progress=progress,
        )
    finally:
        progress.close()
    seconds = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
    after = _machine()
    if args.json:
        out = {"machine_before": before, "machine_after": after, "seconds": seconds}
        out["report"] = to_jsonable(report)
        print(json.dumps(out, indent=2))
        return 0
    print_report(report)
    print()
    print(
        f"machine: {before['cores']} cores, load average {before['load_average']} before, "
        f"{after['load_average']} after; {seconds['wall']:.0f} s wall, {seconds['cpu']:.0f} s "
        f"CPU; Python {before['python']}, gezel-knowledge {before['library']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
