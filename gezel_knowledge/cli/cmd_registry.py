"""``gezel-knowledge registry OUT.json ARCHIVE... --base-url URL``: write a registry document.

The publisher's side of installs by coordinate: the document lists each archive's URL, size and
SHA-256 (what an install verifies before extracting), optionally signed with the publisher key.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from gezel_knowledge._atomic import write_atomic
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit, plural
from gezel_knowledge.compiler import load_private_key
from gezel_knowledge.install.registry_document import build_registry


def register(subparsers: Any) -> None:
    """Add the ``registry`` subcommand."""
    parser = add_command(subparsers, "registry")
    parser.add_argument("output", type=Path, metavar="OUT.json", help="the document to write")
    parser.add_argument("archives", type=Path, nargs="+", metavar="ARCHIVE.gezk")
    parser.add_argument(
        "--base-url",
        required=True,
        metavar="URL",
        help="where the archives will be served: each is listed as URL/<file name>",
    )
    parser.add_argument("--key", type=Path, metavar="KEY.pem", help="sign with this private key")
    parser.add_argument("--publisher-name", metavar="NAME", help="default: from the manifest")
    parser.add_argument(
        "--generated-at", metavar="TIME", help="the generatedAt stamp (default: now, UTC)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Build, write atomically and summarise."""
    key = None
    if args.key is not None:
        key = load_private_key(args.key)
    stamp = args.generated_at or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    document = build_registry(
        args.archives,
        args.base_url,
        generated_at=stamp,
        sign_with=key,
        publisher_name=args.publisher_name,
    )
    write_atomic(args.output, document.to_bytes())
    signed = " (signed)" if document.signed else ""
    emit(
        {"path": str(args.output), "releases": document.releases},
        as_json=args.json,
        text=lambda _: [
            f"wrote {args.output}{signed}: {plural(len(document.releases), 'release')}",
            *(f"  {r.coordinate}  {r.content_digest[:16]}  {r.url}" for r in document.releases),
        ],
    )
    return 0
