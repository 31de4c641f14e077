"""``gezel-knowledge list [CATALOG] [--topic T]``: documents in table-of-contents order.

Without a catalog, ``list`` lists the installed catalogs instead.
"""

from __future__ import annotations

import argparse
from typing import Any

from gezel_knowledge.cli._catalog import add_catalog_argument, open_catalog_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._installed import print_installed
from gezel_knowledge.cli._output import print_json, to_jsonable


def register(subparsers: Any) -> None:
    """Add the ``list`` subcommand."""
    parser = add_command(subparsers, "list")
    add_catalog_argument(parser, optional=True)
    parser.add_argument("--topic", metavar="TOPIC", help="only this topic and its subtopics")
    parser.add_argument(
        "--direct",
        action="store_true",
        help="with --topic: only documents placed at the topic itself",
    )
    parser.add_argument("--limit", type=int, default=50, metavar="N", help="page size (50)")
    parser.add_argument("--offset", type=int, default=0, metavar="N", help="skip N documents")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print one page of the listing (or the installed catalogs when none is named)."""
    if args.catalog is None:
        return print_installed(as_json=args.json)
    with open_catalog_argument(args.catalog) as catalog:
        page = catalog.list_documents(
            args.topic, descendants=not args.direct, limit=args.limit, offset=args.offset
        )
        citations = {d.id: catalog.citation(d.id) for d in page.documents}
    if args.json:
        print_json(
            {
                "topic": page.topic_id,
                "descendants": page.descendants,
                "total": page.total,
                "offset": page.offset,
                "limit": page.limit,
                "documents": [
                    {**to_jsonable(d), "citation": citations[d.id]} for d in page.documents
                ],
            }
        )
        return 0
    for d in page.documents:
        order = "" if d.ordinal is None else f"#{d.ordinal} "
        print(f"{order}{d.title}  [{d.id}]  {d.topic_id}")
    shown = f"{page.offset + 1}-{page.offset + len(page.documents)}" if page.documents else "0"
    print(f"({shown} of {page.total})")
    return 0
