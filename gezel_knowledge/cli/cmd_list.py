"""``gezel-knowledge list [CATALOG] [--topic T]``: documents in table-of-contents order.

Topics are walked depth first and each topic's documents come by ordinal before its subtopics
(``--order spec`` gives the specification's listing order instead). Without a catalog, ``list``
lists the installed catalogs.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gezel_knowledge.cli._catalog import add_catalog_argument, open_catalog_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._installed import add_home_option, print_installed, state_from
from gezel_knowledge.cli._output import emit, plural, to_jsonable
from gezel_knowledge.reader.browse import LISTING_ORDERS, ListingOrder
from gezel_knowledge.reader.models import DocumentPage


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
    parser.add_argument(
        "--order",
        choices=LISTING_ORDERS,
        default="toc",
        help="toc: table-of-contents order (default); spec: by ordinal across topics, as the "
        "gezk specification lists",
    )
    add_home_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print one page of the listing (or the installed catalogs when none is named)."""
    if args.catalog is None:
        return print_installed(as_json=args.json, home=state_from(args, handbook=True))
    with open_catalog_argument(args.catalog, home=args.home) as catalog:
        page = catalog.list_documents(
            args.topic,
            descendants=not args.direct,
            limit=args.limit,
            offset=args.offset,
            order=args.order,
        )
        listing = Listing(page, args.order, {d.id: catalog.citation(d.id) for d in page.documents})
    emit(listing, as_json=args.json, text=_lines)
    return 0


@dataclass(frozen=True, slots=True)
class Listing:
    """A page of documents with the order it was listed in and each document's citation."""

    page: DocumentPage
    order: ListingOrder
    citations: Mapping[str, str]

    def to_json(self) -> dict[str, Any]:
        """The page's fields, its order, and each document with its citation."""
        page = to_jsonable(self.page)
        page["documents"] = [
            {**to_jsonable(d), "citation": self.citations[d.id]} for d in self.page.documents
        ]
        return {**page, "order": self.order}


def _lines(listing: Listing) -> Iterator[str]:
    page = listing.page
    for d in page.documents:
        order = "" if d.ordinal is None else f"#{d.ordinal} "
        yield f"{order}{d.title}  [{d.id}]  {d.topic_id}"
    shown = f"{page.offset + 1}-{page.offset + len(page.documents)}" if page.documents else "0"
    yield f"({shown} of {plural(page.total, 'document')})"
