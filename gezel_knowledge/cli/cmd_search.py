"""``gezel-knowledge search CATALOG QUERY [--mode] [--near LAT,LON,R]``: ranked, cited passages.

Hybrid search needs the catalog profile's query embedder; when it is not available the keyword
lists still run and a note on stderr says why semantic search is off.
"""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._catalog import add_catalog_argument, open_catalog_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._hits import RELEVANCE_HELP, result_lines, vector_floor_note
from gezel_knowledge.cli._output import emit, note
from gezel_knowledge.cli._query import add_query_arguments, query_and_near
from gezel_knowledge.reader import DEFAULT_FINAL_K, EXPLICIT_SHARD_BUDGET, cosine_floor
from gezel_knowledge.results import SEARCH_MODES


def register(subparsers: Any) -> None:
    """Add the ``search`` subcommand."""
    parser = add_command(
        subparsers,
        "search",
        description="Search one catalog: a .gezk file, an extracted catalog directory or an "
        "installed catalog. " + RELEVANCE_HELP,
    )
    add_catalog_argument(parser)
    parser.add_argument(
        "--mode",
        choices=SEARCH_MODES,
        default="hybrid",
        help="hybrid: meaning and keywords (default); vector: meaning only (needs the model); "
        "keyword: words only",
    )
    add_query_arguments(parser)
    parser.add_argument(
        "-k", "--limit", type=int, default=10, metavar="N", dest="k", help="hits to return (10)"
    )
    parser.add_argument(
        "--shards",
        type=int,
        default=EXPLICIT_SHARD_BUDGET,
        metavar="S",
        help=f"how many shards vector routing may scan, at least 1 ({EXPLICIT_SHARD_BUDGET})",
    )
    parser.add_argument(
        "--final-k",
        type=int,
        default=DEFAULT_FINAL_K,
        metavar="K",
        help=f"passages kept per shard after the rerank ({DEFAULT_FINAL_K})",
    )
    parser.add_argument(
        "--stage1",
        choices=("lut", "hamming"),
        default="lut",
        help="stage-1 scan: asymmetric LUT (default) or the Hamming baseline",
    )
    parser.add_argument(
        "--min-similarity",
        "--min-cosine",
        type=float,
        metavar="C",
        dest="min_similarity",
        help="override the profile's cosine floor for vector evidence",
    )
    parser.add_argument("--model-dir", metavar="DIR", help="where the embedding model files are")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Search and print the hits with their citations."""
    query, near = query_and_near(args)
    semantic = args.mode != "keyword" and bool(query.strip())
    # The query embedder is given when the catalog is opened: its profile's, found on the
    # first semantic search (a vector search without one raises vector-search-unavailable).
    with open_catalog_argument(
        args.catalog, embedder="auto" if semantic else None, model_dir=args.model_dir
    ) as catalog:
        floor = args.min_similarity
        if floor is None:
            floor = cosine_floor(catalog.profile)
        result = catalog.search(
            query,
            mode=args.mode,
            k=args.k,
            near=near,
            shard_budget=args.shards,
            final_k=args.final_k,
            stage1=args.stage1,
            min_similarity=args.min_similarity,
        )
    if result.semantic_unavailable is not None and args.mode != "keyword":
        note(f"keyword search only: {result.semantic_unavailable}")
    header = f"Results for {query!r} in {args.catalog}, best first:" if query.strip() else None
    read = f"gezel-knowledge read {args.catalog}"
    empty = vector_floor_note(result, floor)
    emit(
        result,
        as_json=args.json,
        text=lambda r: result_lines(r, header=header, read=read, why_empty=empty),
    )
    return 0
