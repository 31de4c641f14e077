"""``gezel-knowledge keygen KEY.pem``: create an Ed25519 key pair for signing catalogs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit
from gezel_knowledge.compiler import generate_key_files


def register(subparsers: Any) -> None:
    """Add the ``keygen`` subcommand."""
    parser = add_command(
        subparsers,
        "keygen",
        description="Write a new Ed25519 private key (PEM, readable by you only) and its public "
        "key, and print the key id readers use as a trust anchor.",
    )
    parser.add_argument("private_key", type=Path, metavar="KEY.pem", help="private key to write")
    parser.add_argument(
        "--public", type=Path, metavar="PUB.pem", help="public key to write (default KEY.pub.pem)"
    )
    parser.add_argument("--force", action="store_true", help="replace existing files")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Write the key pair and print its key id."""
    pair = generate_key_files(args.private_key, args.public, force=args.force)
    emit(
        pair,
        as_json=args.json,
        text=lambda p: [f"wrote {p.private_key} and {p.public_key}", f"keyId {p.key_id}"],
    )
    return 0
