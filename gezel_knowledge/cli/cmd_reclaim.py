"""``gezel-knowledge reclaim``: delete shared-store catalogs that no Gezel home references."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit, plural
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.install.shared_store import ReclaimReport, shared_store_from


def register(subparsers: Any) -> None:
    """Add the ``reclaim`` subcommand."""
    parser = add_command(subparsers, "reclaim")
    parser.add_argument(
        "--store", metavar="DIR", help="the shared store (default: $GEZEL_SHARED_STORE)"
    )
    parser.add_argument(
        "--keep-unchecked",
        action="store_true",
        help="trust every reference record as it stands (do not read the homes' registries)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Reclaim and report what was freed."""
    store = shared_store_from(args.store)
    if store is None:
        raise InvalidInput(
            "no shared store is configured: pass --store DIR or set GEZEL_SHARED_STORE",
            reason="no-shared-store",
        )
    report = store.reclaim(check_homes=not args.keep_unchecked)
    emit(report, as_json=args.json, text=_lines)
    return 0


def _lines(report: ReclaimReport) -> Iterator[str]:
    for ref in report.dropped_references:
        yield f"dropped stale reference of {ref.home} to {ref.catalog}@{ref.version}"
    yield (
        f"reclaimed {plural(len(report.reclaimed), 'catalog')}, "
        f"{plural(report.bytes_freed, 'byte')}; {len(report.kept):,} still referenced"
    )
