"""``gezel-knowledge install SRC``: install a catalog from a file, a URL or a registry."""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._installed import add_home_option, catalog_row
from gezel_knowledge.cli._output import TerminalProgress, emit, note, warn
from gezel_knowledge.cli._trust import add_trust_option, trust_from
from gezel_knowledge.install.home import KnowledgeHome
from gezel_knowledge.install.registry_document import load_registry_document
from gezel_knowledge.install.result import InstallResult

_FALLBACKS = ("shared-store-unavailable", "shared-copy-damaged")
"""Placement reasons that mean a configured shared store could not be used."""


def register(subparsers: Any) -> None:
    """Add the ``install`` subcommand."""
    parser = add_command(subparsers, "install")
    parser.add_argument(
        "source", metavar="SRC", help="a .gezk path, an http(s) URL, or publisher/catalog[@version]"
    )
    parser.add_argument(
        "--sha256", metavar="HEX", help="the archive digest you were promised (verified first)"
    )
    parser.add_argument(
        "--registry",
        metavar="FILE_OR_URL",
        action="append",
        default=[],
        help="a publisher registry document to resolve publisher/catalog[@version] (repeatable)",
    )
    add_trust_option(parser, "registries must then verify against it")
    parser.add_argument(
        "--require-signature",
        action="store_true",
        help="refuse a catalog whose manifest is not signed by a --trust key (without it, "
        "reinstalling a version from an unsigned archive over a signed one warns that the "
        "signature is gone)",
    )
    parser.add_argument(
        "--allow-trust-change",
        action="store_true",
        help="replace a catalog verified by a --trust key with bytes that key does not verify "
        "(unsigned, another signer, or no --trust given); refused without it",
    )
    parser.add_argument(
        "--keep-previous",
        action="store_true",
        help="keep the previously active version's files after the new one is active",
    )
    parser.add_argument(
        "--placement",
        choices=("auto", "private", "shared"),
        default="auto",
        help="auto: the machine's shared store ($GEZEL_SHARED_STORE) for a coordinate resolved "
        "through a --trust verified registry, else private; private: always; shared: or fail",
    )
    add_home_option(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Install and report what happened."""
    home = KnowledgeHome(args.home)
    registries = tuple(load_registry_document(r) for r in args.registry)
    progress = TerminalProgress(quiet=args.quiet or args.json)
    try:
        result = home.install(
            args.source,
            args.sha256,
            progress,
            trust=trust_from(args),
            registries=registries,
            keep_previous=args.keep_previous,
            require_signature=args.require_signature,
            placement=args.placement,
            allow_trust_change=args.allow_trust_change,
        )
    finally:
        progress.close()
    row = catalog_row(result.catalog)
    row["status"] = result.status
    row["previousVersion"] = None if result.previous is None else result.previous.version
    row["placementMessage"] = result.placement_message
    row["signatureDropped"] = result.signature_dropped
    emit(row, as_json=args.json, text=lambda _: [_line(result)])
    if result.signature_dropped and result.previous is not None:
        warn(
            f"{result.key}@{result.version.version} was signed ({result.previous.provenance}); "
            "the unsigned archive installed over it has no signature. Pass --require-signature "
            "--trust KEY to refuse unsigned archives."
        )
    if result.placement_reason in _FALLBACKS:
        note(str(result.placement_message))
    unverified = _UNVERIFIED.get(result.version.provenance)
    if args.trust and unverified is not None:
        warn(
            f"{result.key}@{result.version.version} {unverified}: its origin is not verified. "
            "Pass --require-signature to refuse such catalogs."
        )
    return 0


_UNVERIFIED = {
    "unknown-key": "is signed by a key that is not among the --trust keys",
    "unsigned": "is not signed",
}
"""What a catalog installed under ``--trust`` is when no trusted key verified it."""


def _line(result: InstallResult) -> str:
    v = result.version
    what = {
        "installed": "installed",
        "unchanged": "already installed",
        "activated": "activated",
        "kept": "kept",
    }[result.status]
    line = f"{what} {result.key}@{v.version} (sha256 {v.archive_sha256[:16]}) at {result.path}"
    if v.placement == "shared":
        line += " (shared)"
    if result.previous is not None:
        line += f"; replaced {result.previous.version}"
    return line
