"""``gezel-knowledge init SRC``: write a commented catalog.yaml for a source folder."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit
from gezel_knowledge.compiler import init_catalog


def register(subparsers: Any) -> None:
    """Add the ``init`` subcommand."""
    parser = add_command(
        subparsers,
        "init",
        description="Detect what SRC is (its documentation generator, outline, title, licence "
        "notice) and write a commented catalog.yaml holding every field a build needs: what "
        "was detected filled in, the rest marked FILL IN.",
    )
    parser.add_argument("source", type=Path, metavar="SRC", help="the source folder")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="where to write it (default SRC/catalog.yaml; build with --catalog FILE)",
    )
    parser.add_argument("--force", action="store_true", help="replace an existing file")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Write the catalog.yaml and say what is left to fill in."""
    result = init_catalog(args.source, output=args.output, force=args.force)
    draft = result.draft
    view = {
        "path": str(result.path),
        "generator": draft.generator,
        "outline": draft.outline,
        "contentRoot": draft.content_root,
        "licenseFile": draft.license_file,
        "readme": draft.readme,
        "missing": list(draft.missing),
    }
    found = draft.generator or "a folder of Markdown"
    lines = [f"wrote {result.path} ({found}, outline {draft.outline})"]
    if draft.missing:
        lines.append(f"fill in: {', '.join(draft.missing)}")
    emit(view, as_json=args.json, text=lambda _: lines)
    return 0
