"""``gezel-knowledge update``: check for and install newer releases of installed catalogs."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._installed import add_home_option
from gezel_knowledge.cli._output import TerminalProgress, emit, note, warn
from gezel_knowledge.cli._trust import add_trust_option, trust_from
from gezel_knowledge.install.home import KnowledgeHome
from gezel_knowledge.install.updates import UpdateCheck, UpdatePolicy, UpdateReport


def register(subparsers: Any) -> None:
    """Add the ``update`` subcommand."""
    parser = add_command(
        subparsers,
        "update",
        description="Compare the installed catalogs with publisher registry documents (default: "
        "the ones they were installed through) and install newer releases, keeping each "
        "catalog's enabled setting. Running this command is your own request to download.",
    )
    parser.add_argument("--check", action="store_true", help="only report what is newer")
    parser.add_argument(
        "--registry",
        metavar="FILE_OR_URL",
        action="append",
        help="a registry document to consult (repeatable; default: the recorded ones)",
    )
    add_trust_option(parser, "registries must verify against it")
    parser.add_argument(
        "--catalog", action="append", metavar="CATALOG", help="only this catalog (repeatable)"
    )
    parser.add_argument(
        "--offline",
        action="store_true",
        help="use no network: read only local registry files, and refuse to download",
    )
    add_home_option(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def _notes(check: UpdateCheck) -> None:
    for p in check.problems:
        note(f"{p.registry}: {p.message}")


def run(args: argparse.Namespace) -> int:
    """Check, or check and apply; exit 1 when an update failed."""
    home = KnowledgeHome(args.home)
    policy = UpdatePolicy() if args.offline else UpdatePolicy.explicit()
    trust = trust_from(args)
    if args.check:
        check = home.check_updates(args.registry, policy=policy, trust=trust, catalogs=args.catalog)
        emit(_check_view(check), as_json=args.json, text=lambda _: _check_lines(check))
        _notes(check)
        return 0
    progress = TerminalProgress(quiet=args.quiet or args.json)
    try:
        report = home.apply_updates(
            args.registry, policy=policy, trust=trust, catalogs=args.catalog, progress=progress
        )
    finally:
        progress.close()
    emit(_report_view(report), as_json=args.json, text=lambda _: _report_lines(report))
    for f in report.failed:
        warn(f"{f.coordinate} failed: {f.message}")
    _notes(report.check)
    return 1 if report.failed else 0


def _check_view(check: UpdateCheck) -> dict[str, Any]:
    return {
        "updates": check.updates,
        "current": check.current,
        "unlisted": check.unlisted,
        "problems": check.problems,
    }


def _check_lines(check: UpdateCheck) -> Iterator[str]:
    if not check.updates:
        yield "no updates available"
    for u in check.updates:
        yield f"{u.catalog} {u.current_version} -> {u.release.version}  ({u.registry})"


def _report_view(report: UpdateReport) -> dict[str, Any]:
    return {
        "applied": [
            {
                "catalog": r.key,
                "version": r.version.version,
                "previousVersion": None if r.previous is None else r.previous.version,
                "archiveSha256": r.version.archive_sha256,
                "placement": r.placement,
            }
            for r in report.applied
        ],
        "failed": report.failed,
        "problems": report.check.problems,
    }


def _report_lines(report: UpdateReport) -> Iterator[str]:
    if not report.applied and not report.failed:
        yield "no updates available"
    for r in report.applied:
        before = "" if r.previous is None else f"{r.previous.version} -> "
        yield f"updated {r.key} {before}{r.version.version}"
