"""``gezel-knowledge build SRC -o OUT.gezk``: compile a Markdown tree or document list."""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import TerminalProgress, emit, note, plural, warn
from gezel_knowledge.compiler import (
    DEFAULT_SHARD_MAX,
    DEFAULT_SHARD_TARGET,
    SHARD_FILLS,
    BuildOptions,
    BuildResult,
    BuildWarning,
    MetadataOverrides,
    WarningsAsErrors,
    compile_catalog,
    default_cache_dir,
)


def register(subparsers: Any) -> None:
    """Add the ``build`` subcommand."""
    parser = add_command(
        subparsers,
        "build",
        description="Compile a folder of Markdown (with catalog.yaml, README.md and a licence "
        "notice) or a JSON Lines or Parquet document list into a deterministic .gezk catalog.",
    )
    parser.add_argument("source", type=Path, metavar="SRC", help="a folder, .jsonl or .parquet")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the .gezk to write")
    parser.add_argument(
        "--catalog", type=Path, metavar="FILE", help="catalog.yaml to use instead of SRC's"
    )
    parser.add_argument(
        "--embedder",
        metavar="PROFILE",
        help="embedding profile id (default: catalog.yaml `embedder`, else the default model)",
    )
    parser.add_argument(
        "--chunking",
        metavar="PROFILE",
        help="chunking profile id (default: catalog.yaml `chunking`, else the largest profile "
        "whose embed inputs fit the embedder's window)",
    )
    parser.add_argument(
        "--created-at", metavar="ISO", help="createdAt (default: catalog.yaml, else now)"
    )
    parser.add_argument("--sign", type=Path, metavar="KEY.pem", help="sign with this Ed25519 key")
    parser.add_argument("--shard-fill", choices=SHARD_FILLS, default="topic")
    parser.add_argument("--shard-target", type=int, default=DEFAULT_SHARD_TARGET, metavar="CHUNKS")
    parser.add_argument("--shard-max", type=int, default=DEFAULT_SHARD_MAX, metavar="CHUNKS")
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="processes that chunk and embed (default: every core); with --ray, Ray actors",
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const=True,
        metavar="ADDRESS",
        help="chunk and embed on Ray (the ray extra): on ADDRESS, else RAY_ADDRESS, else a new "
        "local instance; the archive is the local build's",
    )
    cache = parser.add_mutually_exclusive_group()
    cache.add_argument("--cache", type=Path, metavar="DIR", help="vector cache folder")
    cache.add_argument("--no-cache", action="store_true", help="do not use a vector cache")
    meta = parser.add_argument_group("catalog metadata (override catalog.yaml)")
    meta.add_argument("--catalog-id")
    meta.add_argument("--catalog-version")
    meta.add_argument("--name")
    meta.add_argument("--description")
    meta.add_argument("--language")
    meta.add_argument("--publisher-id")
    meta.add_argument("--publisher-name")
    meta.add_argument("--publisher-url")
    meta.add_argument("--license-name")
    meta.add_argument("--license-spdx")
    meta.add_argument("--license-file", type=Path)
    meta.add_argument("--attribution-required", action=argparse.BooleanOptionalAction)
    meta.add_argument("--readme", type=Path)
    parser.add_argument(
        "--allow-read",
        type=Path,
        metavar="DIR",
        help="a folder above SRC whose files the site's configuration mounts (Hugo "
        "module.mounts from ../): read only what it names",
    )
    parser.add_argument(
        "--strict", action="store_true", help="treat warnings (unresolved links...) as errors"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress display")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def options(args: argparse.Namespace) -> BuildOptions:
    """The build the command line asks for, as the options the Python API takes."""
    return BuildOptions(
        embedder=args.embedder,
        catalog=args.catalog,
        metadata=MetadataOverrides(
            id=args.catalog_id,
            version=args.catalog_version,
            name=args.name,
            description=args.description,
            language=args.language,
            publisher_id=args.publisher_id,
            publisher_name=args.publisher_name,
            publisher_url=args.publisher_url,
            license_name=args.license_name,
            license_spdx=args.license_spdx,
            license_file=args.license_file,
            attribution_required=args.attribution_required,
            readme=args.readme,
        ),
        created_at=args.created_at,
        clock=_now,
        signing_key=args.sign,
        cache_dir=None if args.no_cache else (args.cache or default_cache_dir()),
        chunking=args.chunking,
        shard_fill=args.shard_fill,
        shard_target=args.shard_target,
        shard_max=args.shard_max,
        jobs=args.jobs,
        ray=args.ray,
        strict=args.strict,
        allow_read=args.allow_read,
    )


def run(args: argparse.Namespace) -> int:
    """Build the catalog and print where it went."""
    build = options(args)
    progress = TerminalProgress(quiet=args.quiet or args.json)
    try:
        result = compile_catalog(args.source, args.output, build, progress=progress)
    except WarningsAsErrors as exc:
        _warn(exc.warnings)
        raise
    finally:
        progress.close()
    if not args.json:
        _warn(result.warnings)
        for line in result.notes:
            note(line)
    emit(result, as_json=args.json, text=_lines)
    return 0


def _warn(warnings: Sequence[BuildWarning]) -> None:
    for warning in warnings:
        warn(f"{warning} [{warning.reason}]")


def _lines(result: BuildResult) -> Iterator[str]:
    signed = ", signed" if result.manifest.signed else ""
    yield (
        f"built {result.path} ({result.catalog_id} {result.version}{signed}): "
        f"{plural(result.documents, 'document')}, {plural(result.chunks, 'chunk')}, "
        f"{plural(result.shards, 'shard')}, {plural(result.assets, 'asset')}; "
        f"{result.embedded:,} embedded, {result.cached:,} cached; "
        f"{plural(len(result.warnings), 'warning')}"
    )
    yield f"sha256 {result.sha256}"
