"""``gezel-knowledge mcp``: the installed catalogs and memory as tools for an agent (MCP)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._index_args import (
    add_embedder_argument,
    add_home_argument,
    resolve_embedder,
)
from gezel_knowledge.cli._output import note
from gezel_knowledge.extras import require_extra
from gezel_knowledge.integrations.evidence import DEFAULT_MAX_TOKENS
from gezel_knowledge.integrations.mcp import DEFAULT_PORT, HOST, TOKEN_ENV, serve
from gezel_knowledge.integrations.mcp_transport import bind
from gezel_knowledge.integrations.tools import open_tools


def register(subparsers: Any) -> None:
    """Add the ``mcp`` subcommand."""
    parser = add_command(
        subparsers,
        "mcp",
        description="Serve the installed catalogs (or the --catalog ones) and memory as MCP "
        "tools: search, read_document, knowledge_nearby, search_memory, save_memory and "
        "list_memories. Needs the mcp extra: pip install 'gezel-knowledge[mcp]'.",
    )
    parser.add_argument(
        "--catalog",
        action="append",
        metavar="PATH",
        help="serve this .gezk file or catalog folder instead of the installed catalogs "
        "(repeatable)",
    )
    add_home_argument(parser)
    add_embedder_argument(parser)
    parser.add_argument(
        "--no-memory",
        action="store_true",
        help="serve no memory (its tools answer that it is unavailable)",
    )
    parser.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help=f"stdio (default), or streamable HTTP on {HOST} only, behind a bearer token",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"HTTP port, 0 to 65535 (default {DEFAULT_PORT}; 0: any free port)",
    )
    parser.add_argument(
        "--token",
        metavar="TOKEN",
        help=f"the HTTP bearer token (default ${TOKEN_ENV}, else one generated and printed)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser origin allowed to call the HTTP server besides its own, such as "
        "http://localhost:3000 (repeatable)",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=DEFAULT_MAX_TOKENS,
        help=f"token budget of one tool answer (default {DEFAULT_MAX_TOKENS})",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Serve until the client goes away."""
    require_extra("mcp", "mcp", "gezel-knowledge mcp")
    token = args.token or os.environ.get(TOKEN_ENV) or None
    if args.transport == "http":
        bind(args.port).close()  # a port out of range or in use: one line, before any loading
    tools = open_tools(
        args.catalog or (),
        home=args.home,
        memory=not args.no_memory,
        memory_embedder=None if args.no_memory else resolve_embedder(args.embedder),
        max_tokens=args.max_tokens,
    )
    try:
        serve(
            tools,
            transport=args.transport,
            port=args.port,
            token=token,
            allow_origins=args.allow_origin,
            announce=note,
        )
    finally:
        tools.close()
    return 0
