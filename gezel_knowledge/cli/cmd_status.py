"""``gezel-knowledge status``: installed catalogs, quarantines and embedding readiness."""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._installed import add_home_option, catalog_line, catalog_row, state_from
from gezel_knowledge.cli._output import print_json
from gezel_knowledge.install.status import home_status


def register(subparsers: Any) -> None:
    """Add the ``status`` subcommand."""
    parser = add_command(subparsers, "status")
    parser.add_argument(
        "--check",
        action="store_true",
        help="mount every enabled catalog now (quarantining failures) and re-check quarantined",
    )
    add_home_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the status; exit 0 even when something is quarantined (that is information)."""
    status = home_status(state_from(args), check=args.check)
    if args.json:
        print_json(
            {
                "home": status.home,
                "catalogs": [catalog_row(c) for c in status.catalogs],
                "embedding": status.embedding,
                "partialDownloads": status.partial_downloads,
                "sharedStore": None
                if status.shared_store is None
                else {"path": status.shared_store, "problem": status.shared_store_problem},
            }
        )
        return 0
    print(f"home: {status.home}")
    if status.shared_store is not None:
        note = "" if status.shared_store_problem is None else f" ({status.shared_store_problem})"
        print(f"shared store: {status.shared_store}{note}")
    print(f"catalogs: {len(status.catalogs)} installed, {len(status.quarantined)} quarantined")
    for catalog in status.catalogs:
        print(f"  {catalog_line(catalog)}")
        if catalog.quarantine is not None:
            print(f"    {catalog.quarantine.message} (since {catalog.quarantine.at})")
    print("embedding:")
    if not status.embedding:
        print("  (no catalogs to embed for)")
    for r in status.embedding:
        state = "ready" if r.ready else f"unavailable ({r.reason}): {r.message}"
        print(f"  {r.profile}: {state}  [{', '.join(r.catalogs)}]")
    for p in status.partial_downloads:
        print(f"partial download: {p.name} ({p.bytes} bytes, resumes on the next install)")
    return 0
