"""``gezel-knowledge validate CATALOG [--deep] [--trust KEY...]``: every finding, then provenance.

Exit status: 0 when valid (and, with ``--trust``, signed by a trusted key), 1 when any error
was found, 3 when the catalog is valid but ``--trust`` was given and its origin did not verify.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._catalog import add_catalog_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import print_json
from gezel_knowledge.cli._trust import add_trust_option, trust_from
from gezel_knowledge.validate import ValidationReport, validate_archive, validate_catalog

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


def report_json(report: ValidationReport) -> dict[str, Any]:
    """The JSON view of a report."""
    m = report.manifest
    return {
        "path": str(report.path),
        "ok": report.ok,
        "deep": report.deep,
        "catalog": None if m is None else f"{m.publisher.id}/{m.id}",
        "version": None if m is None else m.version,
        "archiveSha256": report.archive_sha256,
        "checks": list(report.checks),
        "findings": [
            {"reason": f.reason, "severity": f.severity, "message": f.message, "subject": f.subject}
            for f in report.findings
        ],
        "provenance": {
            "status": report.provenance.status,
            "verified": report.provenance.verified,
            "keyId": report.provenance.key_id,
            "message": report.provenance.message,
        },
    }


def run(args: argparse.Namespace) -> int:
    """Validate and print every finding; the exit status says valid / invalid / unverified."""
    anchors = trust_from(args)
    path = Path(args.catalog)
    if path.is_file():
        report = validate_archive(
            path, deep=args.deep, trust=anchors, expected_sha256=args.expected_sha256
        )
    else:
        report = validate_catalog(path, deep=args.deep, trust=anchors)
    if args.json:
        print_json(report_json(report))
    else:
        m = report.manifest
        name = f"{m.publisher.id}/{m.id}@{m.version}" if m else str(path)
        for f in report.findings:
            where = f" [{f.subject}]" if f.subject else ""
            print(f"{f.severity}: {f.reason}: {f.message}{where}")
        verdict = "valid" if report.ok else f"INVALID ({len(report.errors)} errors)"
        print(f"{name}: {verdict} ({'deep' if report.deep else 'structural'} checks)")
        print(f"provenance: {report.provenance.status}: {report.provenance.message}")
    if not report.ok:
        return 1
    if anchors is not None and not report.provenance.verified:
        return UNVERIFIED
    return 0
