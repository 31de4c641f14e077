"""``gezel-knowledge cache``: list and prune the extraction cache of ``.gezk`` files opened by
path."""

from __future__ import annotations

import argparse
import datetime
from collections.abc import Iterator, Sequence
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit, plural
from gezel_knowledge.opening import BUDGET_ENV, CacheEntry, CachePrune, CatalogCache, parse_size


def register(subparsers: Any) -> None:
    """Add the ``cache`` subcommand with ``list`` (the default) and ``prune``."""
    parser = add_command(subparsers, "cache")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    listing = actions.add_parser("list", help="every cached catalog, least recently used first")
    prune = actions.add_parser(
        "prune",
        help="remove leftovers of interrupted runs, then the least recently used catalogs "
        "beyond the budget",
    )
    prune.add_argument(
        "--all", action="store_true", help="remove every catalog no open handle holds"
    )
    prune.add_argument(
        "--budget",
        metavar="SIZE",
        type=parse_size,
        help=f"keep at most SIZE bytes (512M, 4G; default: ${BUDGET_ENV} or 4G)",
    )
    for p in (parser, listing, prune):
        p.add_argument(
            "--cache-dir",
            metavar="DIR",
            default=argparse.SUPPRESS,
            help="the cache (default: <GEZEL_HOME>/cache/catalogs)",
        )
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    parser.set_defaults(handler=run, action="list", cache_dir=None, json=False)


def _when(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%d %H:%M")


def run(args: argparse.Namespace) -> int:
    """List the cache or prune it, printing what was removed."""
    cache = CatalogCache(args.cache_dir)
    if args.action == "prune":
        report = cache.prune(budget_bytes=args.budget, everything=args.all)
        budget = cache.budget_bytes if args.budget is None else args.budget
        emit(report, as_json=args.json, text=lambda r: _pruned(r, budget))
        return 0
    entries = cache.entries()
    listing = {"cache": str(cache.root), "budgetBytes": cache.budget_bytes, "entries": entries}
    emit(listing, as_json=args.json, text=lambda _: _listed(cache, entries))
    return 0


def _pruned(report: CachePrune, budget: int) -> Iterator[str]:
    for name in report.leftovers:
        yield f"removed leftover {name}"
    for entry in report.removed:
        yield f"removed {entry.catalog} ({entry.sha256[:16]}, {plural(entry.bytes, 'byte')})"
    yield (
        f"freed {plural(report.freed_bytes, 'byte')}; {plural(report.kept_bytes, 'byte')} kept "
        f"(budget {budget:,})"
    )


def _listed(cache: CatalogCache, entries: Sequence[CacheEntry]) -> Iterator[str]:
    total = sum(e.bytes for e in entries)
    yield f"cache: {cache.root} ({total:,} of {cache.budget_bytes:,} bytes)"
    for e in reversed(entries):
        held = ", open" if e.in_use else ""
        yield (
            f"  {e.catalog}  {e.sha256[:16]}  {plural(e.bytes, 'byte')}  "
            f"used {_when(e.last_used)}{held}"
        )
