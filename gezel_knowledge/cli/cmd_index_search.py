"""``gezel-knowledge index-search PATH QUERY``: search a workspace's content index."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._hits import RELEVANCE_HELP, result_lines
from gezel_knowledge.cli._index_args import (
    add_embedder_argument,
    add_home_argument,
    resolve_embedder,
)
from gezel_knowledge.cli._output import emit
from gezel_knowledge.indexes import search_workspace
from gezel_knowledge.results import SEARCH_MODES


def register(subparsers: Any) -> None:
    """Add the ``index-search`` subcommand."""
    parser = add_command(
        subparsers,
        "index-search",
        description="Hybrid search of a workspace indexed with 'gezel-knowledge index': vector "
        "neighbours plus keyword matches over symbols, names, summaries and passages, fused by "
        "rank. " + RELEVANCE_HELP,
    )
    parser.add_argument("path", type=Path, help="the workspace folder")
    parser.add_argument("query", help="what to look for")
    parser.add_argument(
        "-k", "--limit", type=int, default=10, metavar="N", dest="k", help="hits to return (10)"
    )
    parser.add_argument("--mode", choices=SEARCH_MODES, default="hybrid", help="ranked lists")
    parser.add_argument(
        "--per-path", type=int, default=3, help="at most this many results per file (default 3)"
    )
    parser.add_argument(
        "--min-similarity",
        type=float,
        help="drop vector neighbours below this cosine (floors differ by model; none by default)",
    )
    parser.add_argument("--db", type=Path, help="index database path (default: under the home)")
    add_home_argument(parser)
    add_embedder_argument(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Search and print the hits, best first."""
    embedder = resolve_embedder(args.embedder, quiet=args.json)
    result = search_workspace(
        args.path,
        args.query,
        k=args.k,
        mode=args.mode,
        min_similarity=args.min_similarity,
        embedder=embedder,
        per_path=args.per_path,
        db_path=args.db,
        home=args.home,
    )
    emit(result, as_json=args.json, text=result_lines)
    return 0
