"""``gezel-knowledge sign CATALOG.gezk --key KEY.pem``: sign a built catalog's manifest."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import print_json
from gezel_knowledge.compiler.signing import load_private_key, sign_catalog


def register(subparsers: Any) -> None:
    """Add the ``sign`` subcommand."""
    parser = add_command(
        subparsers,
        "sign",
        description="Verify a .gezk archive, sign its manifest (replacing any signature) and "
        "write it back; every other entry keeps its bytes.",
    )
    parser.add_argument("catalog", type=Path, metavar="CATALOG.gezk")
    parser.add_argument("--key", type=Path, required=True, metavar="KEY.pem")
    parser.add_argument(
        "-o", "--output", type=Path, help="write the signed archive here (default: in place)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Sign and print the new digest."""
    result = sign_catalog(args.catalog, load_private_key(args.key), args.output)
    if args.json:
        print_json({"path": str(result.path), "sha256": result.sha256, "keyId": result.key_id})
    else:
        print(f"signed {result.path} with key {result.key_id}")
        print(f"sha256 {result.sha256}")
    return 0
