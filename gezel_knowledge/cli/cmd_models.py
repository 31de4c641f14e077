"""``gezel-knowledge models``: registered embedding profiles and whether their files are here."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit, warn
from gezel_knowledge.embedders import models_report
from gezel_knowledge.embedders.status import ModelStatus


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
    emit(
        {"profiles": statuses, "packageProblems": problems},
        as_json=args.json,
        text=lambda _: _lines(statuses, verbose=args.verbose),
    )
    if not args.json:
        for problem in problems:
            warn(problem)
    return 0


def _lines(statuses: Sequence[ModelStatus], *, verbose: bool) -> Iterator[str]:
    width = max(len(s.profile_id) for s in statuses)
    for status in statuses:
        if status.available:
            state = "verified" if status.verified else "available"
            where = f"{status.source} {status.origin}"
            yield f"{status.profile_id:<{width}}  {state:<13} {where}"
        else:
            yield f"{status.profile_id:<{width}}  {status.reason:<13} {status.message}"
            if verbose and status.details:
                yield f"{'':<{width}}  {'':<13} {status.details}"
