"""``gezel-knowledge enable CATALOG``: search an installed catalog again."""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._installed import add_catalog_command, print_catalog, state_from


def register(subparsers: Any) -> None:
    """Add the ``enable`` subcommand."""
    add_catalog_command(subparsers, "enable", run)


def run(args: argparse.Namespace) -> int:
    """Enable the catalog and print its new state."""
    return print_catalog(state_from(args).enable(args.catalog), as_json=args.json)
