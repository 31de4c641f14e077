"""``gezel-knowledge index PATH``: build or update the content index of a workspace folder."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._index_args import (
    add_embedder_argument,
    add_home_argument,
    resolve_embedder,
)
from gezel_knowledge.cli._output import TerminalProgress, emit, note, plural
from gezel_knowledge.indexes import IndexReport, index_workspace


def register(subparsers: Any) -> None:
    """Add the ``index`` subcommand."""
    parser = add_command(
        subparsers,
        "index",
        description="Run the structural pass over PATH (files, symbols, headings, chunks; no "
        "model needed) and then the enrichment pass (text embeddings) when an embedder is "
        "available. Unchanged files are not processed again. The index lives under the Gezel "
        "home, outside the workspace.",
    )
    parser.add_argument("path", type=Path, help="the workspace folder")
    parser.add_argument("--db", type=Path, help="index database path (default: under the home)")
    add_home_argument(parser)
    add_embedder_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Index the workspace and print what changed."""
    embedder = resolve_embedder(args.embedder, quiet=args.quiet)
    progress = TerminalProgress(quiet=args.quiet or args.json)
    try:
        report = index_workspace(
            args.path, embedder=embedder, db_path=args.db, home=args.home, progress=progress
        )
    finally:
        progress.close()
    emit(report, as_json=args.json, text=_lines)
    if not args.json:
        _skip_notes(report)
    return 0


_NOTED = {
    "name-not-utf8": "its name is not UTF-8",
    "ignore-file-too-large": "an ignore file over 1 MiB: its folder was skipped",
    "unparseable": "it could not be read as its kind of file",
    "too-large": "it unpacks to over 64 MiB or converts to over 16 Mi characters of text",
    "oversized": "it is over the size for its kind (2 MiB text or code, 32 MiB other files)",
    "unreadable": "it could not be opened as a regular file",
}
"""Skips worth a line of their own: a hostile, broken or outsized file, not an ordinary binary.
The limits named are the defaults of :class:`IndexOptions` and the document budgets."""
_MAX_NOTES = 10


def _skip_notes(report: IndexReport) -> None:
    noted = [(path, why) for path, why in report.structure.skipped if why in _NOTED]
    for path, why in noted[:_MAX_NOTES]:
        note(f"skipped {path}: {_NOTED[why]} [{why}]")
    if len(noted) > _MAX_NOTES:
        note(f"skipped {len(noted) - _MAX_NOTES:,} more such files (--json lists them all)")


def _lines(report: IndexReport) -> Iterator[str]:
    s = report.structure
    yield (
        f"{plural(s.files_seen, 'file')}: {len(s.processed):,} indexed, "
        f"{s.unchanged + len(s.touched):,} unchanged, {len(s.removed):,} removed, "
        f"{len(s.skipped):,} skipped ({s.seconds:.2f} s)"
    )
    if report.enrichment is not None:
        e = report.enrichment
        reset = " (embedder changed: vectors regenerated)" if e.vectors_reset else ""
        yield f"{plural(e.chunks_embedded, 'chunk')} embedded{reset} ({e.seconds:.2f} s)"
    yield f"index: {report.database}"
