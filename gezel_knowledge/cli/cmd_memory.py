"""``gezel-knowledge memory add|search|rebuild``: daily memory files and their recall index."""

from __future__ import annotations

import argparse
from datetime import date
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._hits import RELEVANCE_HELP, result_lines
from gezel_knowledge.cli._index_args import (
    add_embedder_argument,
    add_home_argument,
    resolve_embedder,
)
from gezel_knowledge.cli._output import emit, plural
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.indexes import MEMORY_KINDS, MemoryIndex
from gezel_knowledge.results import SEARCH_MODES


def register(subparsers: Any) -> None:
    """Add the ``memory`` subcommand group."""
    parser = add_command(
        subparsers,
        "memory",
        description="Memory lives in daily Markdown files under <home>/memory/; the index "
        "beside them can always be rebuilt from those files.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    add = actions.add_parser("add", help="append an entry to today's memory file")
    add.add_argument("text", help="what to remember")
    add.add_argument("--kind", choices=MEMORY_KINDS, default="fact", help="default: fact")
    add.add_argument(
        "--scope", default="project", help="project, project:NAME or gezel:NAME (default project)"
    )
    add.add_argument("--date", help="the day's file to append to, YYYY-MM-DD (default today)")
    _common(add)
    add.set_defaults(handler=run_add)

    search = actions.add_parser(
        "search",
        help="recall memory entries",
        description="Recall memory entries by keywords and meaning. Entries whose meaning is "
        "further from the query than the model's measured cosine floor are left out, so an "
        "unrelated question recalls nothing. " + RELEVANCE_HELP,
    )
    search.add_argument("query", help="what to recall")
    search.add_argument(
        "-k", "--limit", type=int, default=10, metavar="N", dest="k", help="hits to return (10)"
    )
    search.add_argument(
        "--min-similarity",
        type=float,
        metavar="C",
        help="replace the model's cosine floor for meaning matches (-1 keeps every entry)",
    )
    search.add_argument("--mode", choices=SEARCH_MODES, default="hybrid", help="ranked lists")
    search.add_argument("--scope", action="append", help="only this scope (repeatable)")
    search.add_argument("--kind", action="append", choices=MEMORY_KINDS, help="only this kind")
    search.add_argument(
        "--automatic",
        action="store_true",
        help="rank as automatic recall does: status notes decay with age",
    )
    _common(search)
    search.set_defaults(handler=run_search)

    rebuild = actions.add_parser("rebuild", help="rebuild the memory index from the files")
    _common(rebuild)
    rebuild.set_defaults(handler=run_rebuild)


def _common(parser: argparse.ArgumentParser) -> None:
    add_home_argument(parser)
    add_embedder_argument(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")


def _open(args: argparse.Namespace) -> MemoryIndex:
    return MemoryIndex(args.home, embedder=resolve_embedder(args.embedder, quiet=args.json))


def run_add(args: argparse.Namespace) -> int:
    """Append the entry and print where it went."""
    try:
        day = date.fromisoformat(args.date) if args.date else None
    except ValueError as exc:
        raise InvalidInput(f"--date must be YYYY-MM-DD: {exc}", reason="invalid-date") from exc
    with _open(args) as memory:
        entry = memory.add(args.text, kind=args.kind, scope=args.scope, day=day)
        path = memory.folder / f"{entry.date}.md"
    emit(
        {"file": str(path), "entry": entry},
        as_json=args.json,
        text=lambda _: [f"remembered in {path}#line={entry.line_start}-{entry.line_end}"],
    )
    return 0


def run_search(args: argparse.Namespace) -> int:
    """Sync with the files, then recall."""
    with _open(args) as memory:
        memory.sync()
        result = memory.search(
            args.query,
            k=args.k,
            mode=args.mode,
            scopes=args.scope,
            kinds=args.kind,
            automatic=args.automatic,
            min_similarity=args.min_similarity,
        )
    emit(result, as_json=args.json, text=result_lines)
    return 0


def run_rebuild(args: argparse.Namespace) -> int:
    """Rebuild and print the counts."""
    with _open(args) as memory:
        report = memory.rebuild()
    emit(
        report,
        as_json=args.json,
        text=lambda r: [
            f"{plural(r.entries, 'entry', 'entries')} from {plural(r.files_seen, 'file')} "
            f"({r.entries_embedded:,} embedded, {r.seconds:.2f} s)"
        ],
    )
    return 0
