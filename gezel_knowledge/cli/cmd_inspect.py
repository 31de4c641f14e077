"""``gezel-knowledge inspect CATALOG``: identity, counts and profiles, after the structural checks.

The structural checks run first (for a ``.gezk`` every archive check, the file digests and the
database checks of ``validate`` without ``--deep``): a damaged catalog is reported with its
findings and exit status 1 instead of a summary that looks healthy. A signature is shown as
present, never as verified: use ``validate --trust`` for a provenance verdict.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

from gezel_knowledge.cli._catalog import add_catalog_argument, catalog_path_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit, plural
from gezel_knowledge.cli._reports import finding_lines, report_view, verdict
from gezel_knowledge.validate import ValidationReport, validate_path
from gezk.manifest import CatalogManifest


def register(subparsers: Any) -> None:
    """Add the ``inspect`` subcommand."""
    parser = add_command(
        subparsers,
        "inspect",
        description="Run the structural checks (not --deep) and show the catalog's identity, "
        "counts, profiles and files. Exit status 1 when a check fails. --json prints the "
        "report with the catalog's manifest.json verbatim.",
    )
    add_catalog_argument(parser)
    parser.add_argument("--expected-sha256", metavar="HEX", help="the archive digest promised")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Check the catalog structurally and print its summary; exit 1 when a check failed."""
    report = validate_path(
        catalog_path_argument(args.catalog), expected_sha256=args.expected_sha256
    )
    emit(report_view(report), as_json=args.json, text=lambda _: _lines(report))
    return 0 if report.ok else 1


def _lines(report: ValidationReport) -> Iterator[str]:
    m = report.manifest
    if m is not None:
        yield from _summary(m)
    if report.archive_sha256 is not None:
        yield f"  archive       sha256 {report.archive_sha256}"
    yield from finding_lines(report)
    yield f"{'' if m is None else '  checks        '}{verdict(report)}"


def _summary(m: CatalogManifest) -> Iterator[str]:
    counts = m.counts
    yield f"{m.publisher.id}/{m.id}@{m.version}  {m.name}"
    yield (
        f"  format        gezk {m.format_version} (index schema {m.index_schema_version}), "
        f"created {m.created_at}"
    )
    yield f"  license       {m.license.name}"
    yield f"  embedding     {m.embedding.id} ({m.embedding.binary.method} stage-1 bits)"
    yield f"  chunking      {m.chunking.id}"
    yield (
        f"  counts        {plural(counts.documents, 'document')}, "
        f"{plural(counts.chunks, 'chunk')}, {plural(counts.shards, 'shard')}, "
        f"{plural(counts.assets or 0, 'asset')}, {plural(len(m.topics), 'topic')}"
    )
    if m.spatial is not None:
        yield (
            f"  locations     {plural(m.spatial.location_count, 'point')} on "
            f"{plural(m.spatial.located_documents, 'document')}"
        )
    if m.signature is None:
        yield "  provenance    unsigned"
    else:
        yield (
            f"  provenance    signed, not verified (validate --trust KEYS) "
            f"(key {m.signature.key_id})"
        )
    yield f"  files         {len(m.files):,} declared"
