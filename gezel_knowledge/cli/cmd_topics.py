"""``gezel-knowledge topics CATALOG``: the table of contents with its counts."""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._catalog import add_catalog_argument, open_catalog_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit, plural
from gezel_knowledge.reader.models import TopicSummary


def register(subparsers: Any) -> None:
    """Add the ``topics`` subcommand."""
    parser = add_command(subparsers, "topics")
    add_catalog_argument(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the topic tree: direct placements and distinct documents in each subtree."""
    with open_catalog_argument(args.catalog) as catalog:
        topics = catalog.topics()
    emit(topics, as_json=args.json, text=lambda ts: (_line(t) for t in ts))
    return 0


def _line(t: TopicSummary) -> str:
    here = f" ({t.direct_count} here)" if t.direct_count != t.subtree_count else ""
    return f"{'  ' * t.depth}{t.name}  [{t.id}]  {plural(t.subtree_count, 'document')}{here}"
