"""``gezel-knowledge vectors``: re-check this implementation against a conformance kit."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit, to_jsonable
from gezel_knowledge.conformance import GroupResult, check_vectors, kit_file, load_kit


def register(subparsers: Any) -> None:
    """Add the ``vectors`` subcommand."""
    parser = add_command(
        subparsers,
        "vectors",
        description="Re-check every vector group of a gezk conformance kit and print one line "
        "per group. Without --kit the bundled copy of the 0.7 kit's vectors.json is used.",
    )
    parser.add_argument(
        "--kit", type=Path, help="a vectors.json file or a kit directory (default: bundled copy)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Check the kit; exit 1 when any group failed."""
    base = None if args.kit is None else kit_file(args.kit).parent
    results = check_vectors(load_kit(args.kit), base)
    emit(
        [{**to_jsonable(r), "status": r.status} for r in results],
        as_json=args.json,
        text=lambda _: _lines(results),
    )
    return 1 if any(r.failures for r in results) else 0


def _lines(results: Sequence[GroupResult]) -> Iterator[str]:
    for r in results:
        detail = f"{r.checked} checked" if r.skipped is None else r.skipped
        yield f"{r.status:4}  {r.name:<14} {detail}"
        for failure in r.failures:
            yield f"      - {failure}"
