"""``gezel-knowledge models``: registered embedding profiles and whether their files are here."""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import print_json
from gezel_knowledge.embedders import models_report


def register(subparsers: Any) -> None:
    """Add the ``models`` subcommand."""
    parser = add_command(
        subparsers,
        "models",
        description="List the registered embedding profiles, where each one's model files "
        "were found (explicit directory, GEZEL_MODELS, GEZEL_HOME/models or an installed "
        "model package) and, when they were not, what is missing.",
    )
    parser.add_argument(
        "--verify", action="store_true", help="also check each file's SHA-256 against its pin"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print one line per profile (or JSON)."""
    statuses, problems = models_report(verify=args.verify)
    if args.json:
        print_json({"profiles": statuses, "packageProblems": problems})
        return 0
    width = max(len(s.profile_id) for s in statuses)
    for status in statuses:
        if status.available:
            state = "verified" if status.verified else "available"
            where = f"{status.source} {status.origin}"
            print(f"{status.profile_id:<{width}}  {state:<13} {where}")
        else:
            print(f"{status.profile_id:<{width}}  {status.reason:<13} {status.message}")
            if args.verbose and status.details:
                print(f"{'':<{width}}  {'':<13} {status.details}")
    for problem in problems:
        print(f"warning: {problem}")
    return 0
