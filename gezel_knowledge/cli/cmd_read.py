"""``gezel-knowledge read CATALOG REFERENCE``: open a citation.

A passage (``#chunk=``) or a line range (``#line=a-b``) is printed under one line giving its
title, section and line range and one giving its citation; a whole document is printed as it
is. ``--json`` gives the passage with all its fields.

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
from gezel_knowledge.reader import Passage


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
    emit(passage, as_json=args.json, text=passage_lines)
    return 0


def passage_lines(passage: Passage) -> list[str]:
    """A passage or a line range under one line saying what it is (title, section, lines and
    citation); a whole document as it is, since its text begins with its own title."""
    if passage.kind == "document":
        return passage.text.splitlines()
    path = passage.heading_path
    section = path[1:] if path[:1] == (passage.title,) else path
    where = " > ".join((passage.title, *section))
    first, last = passage.line_start, passage.line_end
    span = f"line {first}" if last in (None, first) else f"lines {first}-{last}"
    lines = f"{span} of {passage.document_id}"
    return [f"{where}  ({lines})", passage.citation, "", *passage.text.splitlines()]
