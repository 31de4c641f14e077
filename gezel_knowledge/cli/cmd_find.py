"""``gezel-knowledge find [QUERY] [--near LAT,LON,R]``: search every installed, enabled catalog.

This is the user's own search surface: it does not apply the catalog policy of the project the
command happens to run in. ``--near`` restricts every catalog to documents about a place within
the radius (spec 5.2.2); without a query it lists them across catalogs, nearest first.
"""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._installed import add_home_option, state_from
from gezel_knowledge.cli._output import excerpt, note, print_json
from gezel_knowledge.cli._query import add_query_arguments, query_and_near
from gezel_knowledge.results import SEARCH_MODES, SearchResult
from gezel_knowledge.search import KnowledgeSearch


def register(subparsers: Any) -> None:
    """Add the ``find`` subcommand."""
    parser = add_command(subparsers, "find")
    add_query_arguments(parser)
    parser.add_argument("-k", type=int, default=10, metavar="N", help="number of results (10)")
    parser.add_argument("--mode", choices=SEARCH_MODES, default="hybrid", help="ranked lists")
    parser.add_argument(
        "--catalog",
        action="append",
        metavar="CATALOG",
        help="only this installed catalog (publisher/catalog or unique id; repeatable)",
    )
    add_home_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def _distance(meters: float) -> str:
    return f"{meters:,.0f} m" if meters < 1000 else f"{meters / 1000:,.1f} km"


def _print(results: SearchResult) -> None:
    if not results.hits:
        print("no results")
    for hit in results.hits:
        prov = hit.provenance
        where = f"{hit.source}@{prov.version}" if prov is not None else hit.source
        distance = "" if hit.distance_meters is None else f"  {_distance(hit.distance_meters)}"
        print(f"{hit.rank + 1}. {hit.title}  [{where}]{distance}")
        print(f"   {hit.citation}")
        if hit.text:
            print(f"   {excerpt(hit.text, 160)}")


def _notes(results: SearchResult) -> None:
    for report in results.sources:
        if report.semantic == "unavailable":
            note(f"{report.source}: keyword search only ({report.message or report.reason})")
        elif report.status == "quarantined":
            note(f"{report.source} was quarantined ({report.reason})")


def run(args: argparse.Namespace) -> int:
    """Search and print fused hits with citations."""
    query, near = query_and_near(args)
    with KnowledgeSearch(state_from(args)) as search:
        results = search.search(query, k=args.k, mode=args.mode, catalogs=args.catalog, near=near)
    if args.json:
        print_json(results)
    else:
        _print(results)
    _notes(results)
    return 0
