"""``gezel-knowledge remove CATALOG``: forget an installed catalog and delete its files."""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._installed import add_home_option, catalog_row, home_from
from gezel_knowledge.cli._output import print_json


def register(subparsers: Any) -> None:
    """Add the ``remove`` subcommand."""
    parser = subparsers.add_parser(
        "remove", help="remove an installed catalog (your reference and its private files)"
    )
    parser.add_argument(
        "catalog", metavar="CATALOG", help="publisher/catalog or a unique catalog id"
    )
    add_home_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Remove the catalog and say what went."""
    removed = home_from(args).remove(args.catalog)
    if args.json:
        print_json(catalog_row(removed))
    else:
        versions = ", ".join(v.version for v in removed.versions) or "no versions"
        print(f"removed {removed.key} ({versions})")
    return 0
