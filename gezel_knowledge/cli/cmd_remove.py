"""``gezel-knowledge remove CATALOG``: forget an installed catalog and delete its files."""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._installed import add_catalog_command, catalog_row, state_from
from gezel_knowledge.cli._output import emit


def register(subparsers: Any) -> None:
    """Add the ``remove`` subcommand."""
    add_catalog_command(subparsers, "remove", run)


def run(args: argparse.Namespace) -> int:
    """Remove the catalog and say what went."""
    removed = state_from(args).remove(args.catalog)
    versions = ", ".join(v.version for v in removed.versions) or "no versions"
    emit(
        catalog_row(removed),
        as_json=args.json,
        text=lambda _: [f"removed {removed.key} ({versions})"],
    )
    return 0
