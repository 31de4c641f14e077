"""``gezel-knowledge find [QUERY] [--near LAT,LON,R]``: search every installed, enabled catalog.

This is the user's own search surface: it does not apply the catalog policy of the project the
command happens to run in. ``--near`` restricts every catalog to documents about a place within
the radius (spec 5.2.2); without a query it lists them across catalogs, nearest first.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._hits import RELEVANCE_HELP, result_lines, vector_floor_note
from gezel_knowledge.cli._installed import add_home_option, state_from
from gezel_knowledge.cli._output import emit, note
from gezel_knowledge.cli._query import add_query_arguments, query_and_near
from gezel_knowledge.results import SEARCH_MODES, SearchResult
from gezel_knowledge.search import KnowledgeSearch

if TYPE_CHECKING:
    from gezel_knowledge.install import HomeState


def register(subparsers: Any) -> None:
    """Add the ``find`` subcommand."""
    parser = add_command(
        subparsers,
        "find",
        description="Search every installed, enabled catalog, the bundled Handboek included, "
        "and fuse the results. " + RELEVANCE_HELP,
    )
    add_query_arguments(parser)
    parser.add_argument(
        "-k", "--limit", type=int, default=10, metavar="N", dest="k", help="hits to return (10)"
    )
    parser.add_argument(
        "--mode",
        choices=SEARCH_MODES,
        default="hybrid",
        help="hybrid: meaning and keywords (default); vector: meaning only; keyword: words only",
    )
    parser.add_argument(
        "--catalog",
        action="append",
        metavar="CATALOG",
        help="only this installed catalog (publisher/catalog or unique id; repeatable)",
    )
    add_home_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


_READ = "gezel-knowledge read"
"""The command that opens a citation of an installed catalog."""


def _notes(results: SearchResult) -> None:
    for report in results.sources:
        if report.semantic == "unavailable":
            note(f"{report.source}: keyword search only ({report.message or report.reason})")
        elif report.status == "quarantined":
            note(f"{report.source} was quarantined ({report.reason})")


def run(args: argparse.Namespace) -> int:
    """Search and print fused hits with citations."""
    query, near = query_and_near(args)
    state = state_from(args, handbook=True)
    with KnowledgeSearch(state) as search:
        results = search.search(query, k=args.k, mode=args.mode, catalogs=args.catalog, near=near)
    header = (
        f"Results for {query!r} in the installed catalogs, best first:" if query.strip() else None
    )
    emit(
        results,
        as_json=args.json,
        text=lambda r: result_lines(
            r,
            show_source=True,
            header=header,
            read="gezel-knowledge read",
            why_empty=vector_floor_note(r, None, can_lower=False),
        ),
    )
    _notes(results)
    _disabled_notes(state, args.catalog or ())
    return 0


def _disabled_notes(state: HomeState, named: Sequence[str]) -> None:
    # A catalog named with --catalog but disabled is left out like any disabled one; say so,
    # or an explicit request reads as "nothing matched".
    snapshot = state.snapshot()
    for ref in named:
        catalog = snapshot.find(ref)
        if not catalog.enabled:
            note(
                f"{catalog.key} is disabled: 'gezel-knowledge enable {catalog.key}' searches it "
                "again"
            )
