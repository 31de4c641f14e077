"""``gezel-knowledge sign CATALOG.gezk --key KEY.pem``: sign a built catalog's manifest."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit
from gezel_knowledge.compiler import load_private_key, sign_catalog


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
    emit(
        result,
        as_json=args.json,
        text=lambda r: [f"signed {r.path} with key {r.key_id}", f"sha256 {r.sha256}"],
    )
    return 0
