"""``gezel-knowledge enable CATALOG``: search an installed catalog again."""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._installed import add_home_option, catalog_line, catalog_row, home_from
from gezel_knowledge.cli._output import print_json


def register(subparsers: Any) -> None:
    """Add the ``enable`` subcommand."""
    parser = subparsers.add_parser("enable", help="search an installed catalog again")
    parser.add_argument(
        "catalog", metavar="CATALOG", help="publisher/catalog or a unique catalog id"
    )
    add_home_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Enable the catalog and print its new state."""
    catalog = home_from(args).enable(args.catalog)
    if args.json:
        print_json(catalog_row(catalog))
    else:
        print(catalog_line(catalog))
    return 0
