"""``gezel-knowledge keygen KEY.pem``: create an Ed25519 key pair for signing catalogs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import print_json
from gezel_knowledge.compiler.signing import generate_key_files


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
    if args.json:
        print_json(
            {
                "privateKey": str(pair.private_key),
                "publicKey": str(pair.public_key),
                "keyId": pair.key_id,
            }
        )
    else:
        print(f"wrote {pair.private_key} and {pair.public_key}")
        print(f"keyId {pair.key_id}")
    return 0
