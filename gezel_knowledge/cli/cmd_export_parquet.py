"""``gezel-knowledge export-parquet CATALOG --out DIR``: write a catalog's Parquet companion."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._catalog import add_catalog_argument, open_catalog_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import TerminalProgress, print_json
from gezel_knowledge.export import export_parquet


def register(subparsers: Any) -> None:
    """Add the ``export-parquet`` subcommand."""
    parser = add_command(
        subparsers,
        "export-parquet",
        description="Write the Parquet companion of a catalog (spec section 14): per shard "
        "documents-NNN.parquet and chunks-NNN.parquet, plus topics.parquet, "
        "topic_documents.parquet, document-locations.parquet and parquet-manifest.json. "
        "Needs the parquet extra: pip install 'gezel-knowledge[parquet]'.",
    )
    add_catalog_argument(parser)
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="the folder to write (new or empty)"
    )
    parser.add_argument("--overwrite", action="store_true", help="replace a previous export in DIR")
    parser.add_argument("--json", action="store_true", help="print the export report as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress display")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Export and print what was written."""
    catalog = open_catalog_argument(args.catalog)
    progress = TerminalProgress(quiet=args.quiet or args.json)
    try:
        result = export_parquet(catalog, args.out, overwrite=args.overwrite, progress=progress)
    finally:
        progress.close()
        catalog.close()
    if args.json:
        print_json(result.to_json())
        return 0
    print(
        f"exported {result.publisher_id}/{result.catalog_id} {result.version} to "
        f"{result.directory}: {result.rows('documents'):,} documents, "
        f"{result.rows('chunks'):,} chunks, {result.rows('topics'):,} topics, "
        f"{result.rows('topic_documents'):,} placements, "
        f"{result.rows('document_locations'):,} locations in {len(result.files)} files"
    )
    print(f"report: {result.report}")
    return 0
