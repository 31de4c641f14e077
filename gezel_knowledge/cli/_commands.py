"""The command table: every subcommand's name and one-line summary, in the order ``--help``
lists them.

``gezel-knowledge --help`` prints this table without importing a single command module, and
running one command imports only that command's module; each module adds its parser with
:func:`add_command`, so its summary is declared here once.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["COMMANDS", "add_command"]

COMMANDS: dict[str, str] = {
    # Build and publish.
    "init": "write a commented catalog.yaml for a source folder, to finish by hand",
    "build": "compile a Markdown tree or a .jsonl/.parquet document list into a .gezk catalog",
    "keygen": "create an Ed25519 key pair for signing catalogs",
    "sign": "sign a built catalog's manifest with an Ed25519 key",
    "registry": "write a publisher registry document listing built .gezk archives",
    # Look at one catalog.
    "inspect": "show a catalog's identity, counts and profiles, after the structural checks",
    "validate": "check a catalog and report every finding",
    "topics": "show a catalog's table of contents",
    "list": "list a catalog's documents, or the installed catalogs",
    "search": "search one catalog (hybrid, vector, keyword)",
    "read": "print a document, line range or passage",
    "export-parquet": "write a catalog's documents, chunks and vectors as Parquet files",
    "eval": "measure search quality on judged questions (BEIR folder or catalog)",
    # The installed catalogs.
    "install": "install a catalog from a .gezk file, an http(s) URL or publisher/catalog[@version]",
    "find": "search across the installed, enabled catalogs",
    "browse": "browse, search, read and cite catalogs in a local web page",
    "mcp": "serve catalogs and memory to an agent over MCP",
    "update": "install newer releases of installed catalogs from registry documents",
    "status": "installed catalogs, quarantined ones and why, and embedding readiness",
    "cache": "list or prune the extraction cache of .gezk files opened by path",
    "enable": "search an installed catalog again",
    "disable": "stop searching an installed catalog (it stays installed)",
    "remove": "remove an installed catalog (your reference and its private files)",
    "reclaim": "delete shared-store catalogs that no Gezel home references any more",
    # Workspace and memory.
    "index": "index a workspace folder for search",
    "index-search": "search the content index of a workspace",
    "memory": "add to, search and rebuild memory",
    # This installation.
    "models": "list embedding profiles and whether their model files are available",
    "vectors": "re-check the gezk conformance vectors",
    "version": "print the library and format versions",
}
"""Subcommand name -> one-line summary, in ``--help`` order."""


def add_command(subparsers: Any, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """Add the subcommand ``name`` with its summary from :data:`COMMANDS` as its help."""
    parser: argparse.ArgumentParser = subparsers.add_parser(name, help=COMMANDS[name], **kwargs)
    return parser
