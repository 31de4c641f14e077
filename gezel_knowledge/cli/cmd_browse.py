"""``gezel-knowledge browse [CATALOG...]``: the Knowledge browser, a local web page over the
installed catalogs (or the ones named) and memory."""

from __future__ import annotations

import argparse
import secrets
import sys
from typing import Any

import gezel_knowledge.browse as browsing
from gezel_knowledge.cli._catalog import open_catalog_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._index_args import add_embedder_argument, resolve_embedder
from gezel_knowledge.cli._installed import add_home_option, state_from
from gezel_knowledge.cli._output import note
from gezel_knowledge.reader import Catalog
from gezel_knowledge.trust import load_trust_anchors

_DEFAULT_PORT = 8766  # browse._serve.DEFAULT_PORT, repeated so --help imports no extra


def register(subparsers: Any) -> None:
    """Add the ``browse`` subcommand."""
    parser = add_command(
        subparsers,
        "browse",
        description="Serve the installed, enabled catalogs (or the CATALOGs named) as a local "
        "web page on 127.0.0.1 and open it: the library, each catalog's outline and README, "
        "documents with citations, search, knowledge:// references (/cite) and memory. Every "
        "page has a JSON twin (?format=json). Needs the browse extra: "
        "pip install 'gezel-knowledge[browse]'.",
    )
    parser.add_argument(
        "catalogs",
        nargs="*",
        metavar="CATALOG",
        help="a .gezk file, a catalog folder or an installed catalog to serve instead of every "
        "installed one",
    )
    parser.add_argument(
        "--port", type=int, default=_DEFAULT_PORT, help=f"port (default {_DEFAULT_PORT}; 0: any)"
    )
    parser.add_argument("--no-open", action="store_true", help="do not open a browser window")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1); any other needs --token",
    )
    parser.add_argument(
        "--token",
        metavar="SECRET",
        help="with a non-loopback --host: the token every request must carry ('auto' makes one)",
    )
    parser.add_argument(
        "--trust",
        action="append",
        metavar="KEY",
        help="publisher public key (PEM file or folder) to verify catalogs named by path",
    )
    add_home_option(parser)
    add_embedder_argument(parser)
    parser.set_defaults(handler=run)


def _token(value: str | None) -> str | None:
    if value != "auto":
        return value
    return secrets.token_urlsafe(24)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    browsing.require_browse()
    token = _token(args.token)
    browsing.check_bind(args.host, token)
    browsing.check_port(args.port)  # before any catalog is opened: one line, no traceback
    trust = load_trust_anchors(args.trust) if args.trust else None
    opened: list[Catalog] = []
    try:
        for value in args.catalogs:
            opened.append(open_catalog_argument(value, embedder="auto", home=args.home))
    except BaseException:
        for catalog in opened:
            catalog.close()
        raise
    if not opened:
        state_from(args, handbook=True)
    library = browsing.Library(opened, home=args.home, trust=trust)
    # The memory page's query embedder, loaded only when there is a memory index to search.
    memory_embedder = resolve_embedder(args.embedder, quiet=True) if library.has_memory() else None
    try:
        server = browsing.BrowseServer(
            library, host=args.host, port=args.port, token=token, memory_embedder=memory_embedder
        )
    except BaseException:
        library.close()
        raise

    def ready(url: str) -> None:
        note(f"serving {len(library.cards())} catalog(s) at {url} (Ctrl-C stops)")
        sys.stderr.flush()

    server.serve_forever(open_browser=not args.no_open, ready=ready)
    return 0
