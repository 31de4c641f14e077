"""``gezel-knowledge version``: print the library and format versions."""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge._version import __version__
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit
from gezk.versions import SUPPORTED, WRITTEN


def register(subparsers: Any) -> None:
    """Add the ``version`` subcommand."""
    parser = add_command(subparsers, "version")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print versions."""
    reads = [g.format_version for g in SUPPORTED]
    versions = {
        "version": __version__,
        "writes": WRITTEN.format_version,
        "indexSchemaVersion": WRITTEN.index_schema_version,
        "reads": reads,
    }
    emit(
        versions,
        as_json=args.json,
        text=lambda _: [
            f"gezel-knowledge {__version__}",
            f"writes gezk {WRITTEN.format_version} (index schema {WRITTEN.index_schema_version}); "
            f"reads {', '.join(reads)}",
        ],
    )
    return 0
