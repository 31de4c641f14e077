"""``gezel-knowledge status``: installed catalogs, quarantines and embedding readiness."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._installed import add_home_option, catalog_line, catalog_row, state_from
from gezel_knowledge.cli._output import emit, plural
from gezel_knowledge.install.status import HomeStatus, home_status


def register(subparsers: Any) -> None:
    """Add the ``status`` subcommand."""
    parser = add_command(subparsers, "status")
    parser.add_argument(
        "--check",
        action="store_true",
        help="mount every enabled catalog now (quarantining failures), re-check quarantined "
        "ones, and remove what killed or refused installs left behind",
    )
    add_home_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the status; exit 0 even when something is quarantined (that is information)."""
    status = home_status(state_from(args, handbook=True), check=args.check)
    view = {
        "home": status.home,
        "catalogs": [catalog_row(c) for c in status.catalogs],
        "embedding": status.embedding,
        "partialDownloads": status.partial_downloads,
        "sharedStore": None
        if status.shared_store is None
        else {"path": status.shared_store, "problem": status.shared_store_problem},
        "cleaned": status.cleaned,
    }
    emit(view, as_json=args.json, text=lambda _: _lines(status))
    return 0


def _lines(status: HomeStatus) -> Iterator[str]:
    for name in status.cleaned:
        yield f"removed leftover {name}"
    yield f"home: {status.home}"
    if status.shared_store is not None:
        problem = "" if status.shared_store_problem is None else f" ({status.shared_store_problem})"
        yield f"shared store: {status.shared_store}{problem}"
    yield (f"catalogs: {len(status.catalogs):,} installed, {len(status.quarantined):,} quarantined")
    for catalog in status.catalogs:
        yield f"  {catalog_line(catalog)}"
        if catalog.quarantine is not None:
            yield f"    {catalog.quarantine.message} (since {catalog.quarantine.at})"
    yield "embedding:"
    if not status.embedding:
        yield "  (no catalogs to embed for)"
    for r in status.embedding:
        state = "ready" if r.ready else f"unavailable ({r.reason}): {r.message}"
        yield f"  {r.profile}: {state}  [{', '.join(r.catalogs)}]"
    for p in status.partial_downloads:
        yield (
            f"partial download: {p.name} ({plural(p.bytes, 'byte')}, resumes on the next install)"
        )
