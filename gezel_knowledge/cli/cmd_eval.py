"""``gezel-knowledge eval SOURCE``: search quality (nDCG@10, recall, MRR, latency) per mode.

SOURCE is a BEIR-layout folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``),
whose corpus is compiled into a catalog once and cached, or an existing catalog (a ``.gezk``
file, an extracted directory or an installed catalog) with ``--queries`` and ``--qrels``.
``--compare A.json --against B.json`` compares two saved reports question by question instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gezel_knowledge._atomic import write_atomic
from gezel_knowledge._files import check_output_file
from gezel_knowledge.cli._catalog import open_catalog_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import TerminalProgress, note, print_json, to_jsonable
from gezel_knowledge.embedders import (
    Embedder,
    default_embedder,
    load_embedder,
)
from gezel_knowledge.evaluate import (
    DEFAULT_K,
    EvalReport,
    ModeReport,
    evaluate_beir,
    evaluate_catalog,
    load_judgements,
)
from gezel_knowledge.evaluate.compare import (
    Comparison,
    compare_results,
    load_per_query,
    pick_result,
)
from gezel_knowledge.evaluate.corpus import default_eval_cache_dir
from gezel_knowledge.evaluate.run import BASELINES
from gezel_knowledge.evaluate.searching import MODES
from gezel_knowledge.fusion import FUSION_PRESETS
from gezk.profiles import embedding_profile


def register(subparsers: Any) -> None:
    """Add the ``eval`` subcommand."""
    parser = add_command(
        subparsers,
        "eval",
        description=(
            "Run judged questions through every search mode and print nDCG@10, recall@10, "
            "recall@100, MRR@10 and query latency. SOURCE is a BEIR folder (its corpus is "
            "built into a catalog once and cached) or a catalog with --queries and --qrels."
        ),
    )
    parser.add_argument(
        "source",
        metavar="SOURCE",
        nargs="?",
        help="a BEIR folder, a .gezk, a catalog directory or id (not with --compare)",
    )
    parser.add_argument("--split", metavar="NAME", help="qrels split (test, dev, train)")
    parser.add_argument("--queries", type=Path, metavar="FILE", help="queries JSON Lines")
    parser.add_argument("--qrels", type=Path, metavar="FILE", help="relevance judgements (TSV)")
    parser.add_argument(
        "--mode",
        action="append",
        choices=MODES,
        dest="modes",
        help="evaluate only this mode (repeatable; default: every mode)",
    )
    parser.add_argument(
        "--fusion",
        action="append",
        choices=tuple(FUSION_PRESETS),
        dest="fusions",
        default=[],
        help="run hybrid mode once more with this fusion preset (repeatable; hybrid:<name>)",
    )
    parser.add_argument(
        "--baseline",
        action="append",
        choices=BASELINES,
        dest="baselines",
        default=[],
        help="add a reference ranking of the same documents (repeatable)",
    )
    parser.add_argument("--bm25", action="store_true", help="add the BM25 baseline (bm25s)")
    parser.add_argument(
        "--exact-dense", action="store_true", help="add the exact float-vector baseline"
    )
    parser.add_argument(
        "--rrf60",
        action="store_true",
        help="add RRF(60) of stemmed BM25 and exact cosine (with both as baselines)",
    )
    parser.add_argument(
        "--per-query", action="store_true", help="print every question's nDCG@10 per result"
    )
    parser.add_argument(
        "--output", type=Path, metavar="FILE", help="also write the JSON report to FILE"
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="A.json",
        help="compare a saved report (eval --json or --output) with --against",
    )
    parser.add_argument("--against", type=Path, metavar="B.json", help="the report to compare with")
    parser.add_argument(
        "--result",
        default="hybrid",
        metavar="NAME",
        help="the result of A to compare (default hybrid)",
    )
    parser.add_argument(
        "--against-result", metavar="NAME", help="the result of B to compare (default --result)"
    )
    parser.add_argument(
        "--top", type=int, default=10, metavar="N", help="questions listed by --compare (10)"
    )
    parser.add_argument(
        "-k",
        type=int,
        default=DEFAULT_K,
        metavar="N",
        help=f"documents asked of each search ({DEFAULT_K}, at least 100)",
    )
    parser.add_argument(
        "--embedder", metavar="PROFILE", help="embedding profile to build a BEIR corpus with"
    )
    parser.add_argument("--model-dir", metavar="DIR", help="where the embedding model files are")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help=f"where built corpus catalogs are kept (default {default_eval_cache_dir()})",
    )
    parser.add_argument(
        "--shard-target", type=int, metavar="N", help="passages per shard when building"
    )
    parser.add_argument(
        "--shard-fill",
        choices=("semantic", "topic"),
        default="semantic",
        help="how the build fills shards: k-means (semantic, default) or corpus order",
    )
    parser.add_argument("--rebuild", action="store_true", help="build the corpus catalog again")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run, parser=parser)


def _is_beir(source: str) -> bool:
    return (Path(source) / "corpus.jsonl").is_file()


def _build_embedder(args: argparse.Namespace) -> Embedder:
    if args.embedder is None:
        return default_embedder()
    return load_embedder(embedding_profile(args.embedder), model_dir=args.model_dir)


def _baselines(args: argparse.Namespace) -> list[str]:
    extra = ["bm25-stemmed", "exact-dense", "rrf60"] if args.rrf60 else []
    return list(dict.fromkeys([*args.baselines, *extra]))


def run(args: argparse.Namespace) -> int:
    """Evaluate and print a table per mode (or JSON); or compare two saved reports."""
    if args.compare is not None or args.against is not None:
        return _run_compare(args)
    if args.source is None:
        args.parser.error("SOURCE is required (or --compare A.json --against B.json)")
    beir = _is_beir(args.source)
    if not beir and (args.queries is None or args.qrels is None):
        where = "no such file or folder" if not Path(args.source).exists() else "no corpus.jsonl"
        args.parser.error(
            f"{args.source} is not a BEIR folder ({where}); a catalog needs --queries and --qrels"
        )
    progress = TerminalProgress(quiet=args.quiet or args.json)
    try:
        if beir:
            report = evaluate_beir(
                args.source,
                split=args.split,
                embedder=_build_embedder(args),
                queries=args.queries,
                qrels=args.qrels,
                cache_dir=args.cache_dir,
                shard_target=args.shard_target,
                shard_fill=args.shard_fill,
                rebuild=args.rebuild,
                modes=args.modes,
                k=args.k,
                bm25=args.bm25,
                exact_dense=args.exact_dense,
                baselines=_baselines(args),
                fusions=args.fusions,
                progress=progress,
            )
        else:
            report = _evaluate_catalog(args, progress)
    finally:
        progress.close()
    if args.output is not None:
        target = check_output_file(args.output, "the eval report")
        text = json.dumps(to_jsonable(report), ensure_ascii=False, indent=2) + "\n"
        write_atomic(target, text.encode("utf-8"))
    if args.json:
        print_json(report)
        return 0
    print_report(report)
    if args.per_query:
        print()
        print_per_query(report)
    return 0


def _run_compare(args: argparse.Namespace) -> int:
    if args.compare is None or args.against is None:
        args.parser.error("--compare and --against go together")
    if args.source is not None:
        args.parser.error("--compare takes two reports, not SOURCE")
    a = load_per_query(args.compare)
    b = load_per_query(args.against)
    name_b = args.against_result or args.result
    comparison = compare_results(
        pick_result(a, args.result, str(args.compare)),
        pick_result(b, name_b, str(args.against)),
        names=(f"{args.compare}:{args.result}", f"{args.against}:{name_b}"),
    )
    if args.json:
        print_json(comparison)
        return 0
    print_comparison(comparison, top=args.top)
    return 0


def _evaluate_catalog(args: argparse.Namespace, progress: TerminalProgress) -> EvalReport:
    judgements = load_judgements(args.queries, args.qrels, split=args.split)
    # The query embedder is given when the catalog is opened (as on every search surface), not
    # assigned to the handle afterwards.
    with open_catalog_argument(args.source, embedder="auto", model_dir=args.model_dir) as catalog:
        embedder, _, message = catalog.query_embedder()
        if embedder is None and message:
            note(f"semantic search unavailable: {message}")
        return evaluate_catalog(
            catalog,
            judgements,
            modes=args.modes,
            k=args.k,
            bm25=args.bm25,
            exact_dense=args.exact_dense,
            baselines=_baselines(args),
            fusions=args.fusions,
            progress=progress,
        )


_HEADER = (
    f"{'mode':<18} {'nDCG@10':>7} {'R@10':>6} {'R@100':>6} {'MRR@10':>6} {'docs/q':>6}"
    f" {'p50 ms':>7} {'p95 ms':>7} {'cpu p50':>7}"
)


def _row(r: ModeReport) -> str:
    s = r.scores
    line = (
        f"{r.name:<18} {s.ndcg_at_10:>7.3f} {s.recall_at_10:>6.3f} {s.recall_at_100:>6.3f}"
        f" {s.mrr_at_10:>6.3f} {r.mean_documents:>6.1f}"
    )
    if r.latency is not None:
        lat = r.latency
        line += f" {lat.p50_ms:>7.1f} {lat.p95_ms:>7.1f} {lat.cpu_p50_ms:>7.1f}"
    return line


def print_report(report: EvalReport) -> None:
    """Print the report as the ``eval`` command does: a header, a table, then remarks."""
    split = f" (split {report.split})" if report.split else ""
    where = f"  {report.catalog_path}" if report.catalog_path else ""
    cached = {True: " (cached)", False: " (built)", None: ""}[report.cached]
    print(f"catalog {report.catalog}{cached}{where}")
    print(
        f"{report.documents:,} documents, {report.passages:,} passages, {report.shards} shard"
        f"{'s' if report.shards != 1 else ''}, profile {report.profile}; "
        f"{report.queries:,} queries{split}, k = {report.k}"
    )
    print()
    print(_HEADER)
    for r in report.results:
        print(_row(r))
    print()
    for r in report.results:
        if r.short_queries:
            print(
                f"{r.name}: {r.short_queries} of {report.queries} queries got fewer than "
                f"{min(report.k, report.documents)} documents"
            )
        if r.note:
            print(f"{r.name}: {r.note}")
        if r.routing is not None:
            every = r.routing.every_shard
            print(
                f"{r.name}: routed ({r.routing.budget} of {r.routing.shards} shards) vs every "
                f"shard: R@10 {r.scores.recall_at_10:.3f} vs {every.recall_at_10:.3f}, "
                f"R@100 {r.scores.recall_at_100:.3f} vs {every.recall_at_100:.3f}, "
                f"nDCG@10 {r.scores.ndcg_at_10:.3f} vs {every.ndcg_at_10:.3f}; "
                f"overlap@10 {r.routing.overlap_at_10:.3f}, @100 {r.routing.overlap_at_100:.3f}"
            )
    check = report.dense_check
    if check is not None:
        print(
            f"exact-dense: {check.passages:,} passages, {check.from_cache:,} vectors from the "
            f"vector cache, {check.embedded:,} embedded now, {check.int8_mismatches:,} differ "
            "from the catalog's int8 vectors"
        )
    if report.shards <= report.shard_budget:
        print(
            f"routing: {report.shards} shard{'s' if report.shards != 1 else ''} within the "
            f"budget of {report.shard_budget}, so routed search scans every shard"
        )
    if report.judged_missing:
        print(
            f"warning: {report.judged_missing} judged-relevant documents are not in the catalog",
            file=sys.stderr,
        )


def print_per_query(report: EvalReport) -> None:
    """Every question's nDCG@10, one row a question, one column a result."""
    names = [r.name for r in report.results]
    print("query".ljust(16) + " ".join(f"{n[:14]:>14}" for n in names))
    queries = list(report.results[0].per_query) if report.results else []
    for q in queries:
        cells = " ".join(f"{r.per_query.get(q, float('nan')):>14.3f}" for r in report.results)
        print(f"{q[:15]:<16}{cells}")


def print_comparison(c: Comparison, *, top: int) -> None:
    """A comparison as ``eval --compare`` prints it: the means, the test, the largest changes."""
    print(f"A {c.a}")
    print(f"B {c.b}")
    print(
        f"{c.queries} questions in common: nDCG@10 A {c.mean_a:.3f}, B {c.mean_b:.3f}, "
        f"A - B {c.mean_difference:+.3f}"
    )
    print(
        f"A better on {c.wins}, worse on {c.losses}, equal on {c.ties}; paired randomization "
        f"test p = {c.p_value:.4f}"
    )
    if top > 0 and c.differences:
        print()
        print(f"{'query':<16} {'A':>6} {'B':>6} {'A - B':>7}")
        for d in c.differences[:top]:
            print(f"{d.query[:15]:<16} {d.a:>6.3f} {d.b:>6.3f} {d.difference:>+7.3f}")
