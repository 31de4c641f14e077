"""``gezel-knowledge remove CATALOG``: forget an installed catalog and delete its files."""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._installed import add_catalog_command, catalog_row, state_from
from gezel_knowledge.cli._output import print_json


def register(subparsers: Any) -> None:
    """Add the ``remove`` subcommand."""
    add_catalog_command(subparsers, "remove", run)


def run(args: argparse.Namespace) -> int:
    """Remove the catalog and say what went."""
    removed = state_from(args).remove(args.catalog)
    if args.json:
        print_json(catalog_row(removed))
    else:
        versions = ", ".join(v.version for v in removed.versions) or "no versions"
        print(f"removed {removed.key} ({versions})")
    return 0
