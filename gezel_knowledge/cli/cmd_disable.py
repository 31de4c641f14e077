"""``gezel-knowledge disable CATALOG``: stop searching an installed catalog."""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._installed import add_catalog_command, print_catalog, state_from


def register(subparsers: Any) -> None:
    """Add the ``disable`` subcommand."""
    add_catalog_command(subparsers, "disable", run)


def run(args: argparse.Namespace) -> int:
    """Disable the catalog and print its new state."""
    return print_catalog(state_from(args).disable(args.catalog), as_json=args.json)
