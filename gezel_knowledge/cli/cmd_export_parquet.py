"""``gezel-knowledge export-parquet CATALOG --out DIR``: write a catalog's Parquet companion."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._catalog import add_catalog_argument, open_catalog_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import TerminalProgress, emit, plural
from gezel_knowledge.export import ParquetExport, export_parquet


def register(subparsers: Any) -> None:
    """Add the ``export-parquet`` subcommand."""
    parser = add_command(
        subparsers,
        "export-parquet",
        description="Write the Parquet companion of a catalog (spec section 14): per shard "
        "documents-NNN.parquet and chunks-NNN.parquet, plus topics.parquet, "
        "topic_documents.parquet, document_locations.parquet and parquet-manifest.json. "
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
    # --json is parquet-manifest.json, a document the export defines, emitted verbatim.
    emit(result, as_json=args.json, text=_lines)
    return 0


def _lines(result: ParquetExport) -> Iterator[str]:
    yield (
        f"exported {result.publisher_id}/{result.catalog_id} {result.version} to "
        f"{result.directory}: {plural(result.rows('documents'), 'document')}, "
        f"{plural(result.rows('chunks'), 'chunk')}, {plural(result.rows('topics'), 'topic')}, "
        f"{plural(result.rows('topic_documents'), 'placement')}, "
        f"{plural(result.rows('document_locations'), 'location')} in "
        f"{plural(len(result.files), 'file')}"
    )
    yield f"report: {result.report}"
