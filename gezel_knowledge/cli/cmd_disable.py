"""``gezel-knowledge disable CATALOG``: stop searching an installed catalog."""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._installed import add_home_option, catalog_line, catalog_row, home_from
from gezel_knowledge.cli._output import print_json


def register(subparsers: Any) -> None:
    """Add the ``disable`` subcommand."""
    parser = subparsers.add_parser(
        "disable", help="stop searching an installed catalog (it stays installed)"
    )
    parser.add_argument(
        "catalog", metavar="CATALOG", help="publisher/catalog or a unique catalog id"
    )
    add_home_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Disable the catalog and print its new state."""
    catalog = home_from(args).disable(args.catalog)
    if args.json:
        print_json(catalog_row(catalog))
    else:
        print(catalog_line(catalog))
    return 0
