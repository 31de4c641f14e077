"""``gezel-knowledge validate CATALOG [--deep] [--trust KEY...]``: every finding, then provenance.

Exit status: 0 when valid (and, with ``--trust``, signed by a trusted key), 1 when any error
was found, 3 when the catalog is valid but ``--trust`` was given and its origin did not verify.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

from gezel_knowledge.cli._catalog import add_catalog_argument, catalog_path_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit
from gezel_knowledge.cli._reports import finding_lines, report_view, verdict
from gezel_knowledge.cli._trust import add_trust_option, trust_from
from gezel_knowledge.validate import ValidationReport, validate_path

UNVERIFIED = 3
"""Exit status of a structurally valid catalog whose origin did not verify under --trust."""


def register(subparsers: Any) -> None:
    """Add the ``validate`` subcommand."""
    parser = add_command(subparsers, "validate")
    add_catalog_argument(parser)
    parser.add_argument(
        "--deep",
        action="store_true",
        help="also check integrity, vectors, probes, smoke queries and bodies",
    )
    add_trust_option(parser, "the catalog's signature must verify against one")
    parser.add_argument("--expected-sha256", metavar="HEX", help="the archive digest promised")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Validate and print every finding; the exit status says valid / invalid / unverified."""
    anchors = trust_from(args)
    report = validate_path(
        catalog_path_argument(args.catalog),
        deep=args.deep,
        trust=anchors,
        expected_sha256=args.expected_sha256,
    )
    emit(report_view(report), as_json=args.json, text=lambda _: _lines(report))
    if not report.ok:
        return 1
    if anchors is not None and not report.provenance.verified:
        return UNVERIFIED
    return 0


def _lines(report: ValidationReport) -> Iterator[str]:
    m = report.manifest
    yield from finding_lines(report)
    yield f"{f'{m.publisher.id}/{m.id}@{m.version}' if m else report.path}: {verdict(report)}"
    yield f"provenance: {report.provenance.status}: {report.provenance.message}"
