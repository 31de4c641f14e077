"""``gezel-knowledge read CATALOG REFERENCE``: open a citation.

``REFERENCE`` is a ``knowledge://publisher/catalog/document[#line=a-b|#chunk=uid]`` URI or a
document id (optionally with the same fragments). The grammar is ``read [CATALOG] REFERENCE``:
a ``knowledge://`` URI alone resolves through the installed catalogs.
"""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._catalog import open_catalog_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._installed import with_handbook
from gezel_knowledge.cli._output import emit
from gezel_knowledge.install.mount import read_reference
from gezel_knowledge.install.state import HomeState


def register(subparsers: Any) -> None:
    """Add the ``read`` subcommand."""
    parser = add_command(subparsers, "read")
    parser.add_argument(
        "catalog",
        metavar="CATALOG",
        nargs="?",
        help="a .gezk file, an extracted catalog directory or an installed catalog (without "
        "it, a knowledge:// URI resolves through the installed catalogs)",
    )
    parser.add_argument(
        "reference", metavar="REFERENCE", help="a knowledge:// URI or a document id"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Resolve the reference and print its text (untrusted evidence, printed verbatim)."""
    catalog_arg, reference = args.catalog, args.reference
    if catalog_arg is None and reference.startswith("knowledge://"):
        passage = read_reference(with_handbook(HomeState()), reference)
    else:
        with open_catalog_argument(catalog_arg) as catalog:
            passage = catalog.read(reference)
    emit(passage, as_json=args.json, text=lambda p: p.text.splitlines())
    return 0
