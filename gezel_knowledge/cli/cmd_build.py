"""``gezel-knowledge build SRC -o OUT.gezk``: compile a Markdown tree or document list."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import TerminalProgress, print_json
from gezel_knowledge.compiler import (
    BuildResult,
    BuildWarning,
    CatalogMetadata,
    License,
    Publisher,
    WarningsAsErrors,
    compile_catalog,
    default_cache_dir,
    load_catalog_yaml,
    load_source,
)
from gezel_knowledge.compiler.signing import load_private_key
from gezel_knowledge.embedders import Embedder, default_embedder, load_embedder
from gezel_knowledge.errors import InvalidInput
from gezk.profiles import embedding_profile


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
    parser.add_argument("--shard-fill", choices=("topic", "semantic"), default="topic")
    parser.add_argument("--shard-target", type=int, default=200_000, metavar="CHUNKS")
    parser.add_argument("--shard-max", type=int, default=250_000, metavar="CHUNKS")
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
        "--strict", action="store_true", help="treat warnings (unresolved links...) as errors"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress display")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def _overrides(args: argparse.Namespace, base: CatalogMetadata) -> CatalogMetadata:
    publisher = base.publisher
    if args.publisher_id or args.publisher_name or args.publisher_url:
        if publisher is None and not (args.publisher_id and args.publisher_name):
            raise InvalidInput(
                "give both --publisher-id and --publisher-name", reason="missing-metadata"
            )
        publisher = Publisher(
            id=args.publisher_id or (publisher.id if publisher else ""),
            name=args.publisher_name or (publisher.name if publisher else ""),
            url=args.publisher_url or (publisher.url if publisher else None),
        )
    license_ = base.license
    if (
        args.license_name
        or args.license_spdx
        or args.license_file
        or args.attribution_required is not None
    ):
        if license_ is None and not args.license_name:
            raise InvalidInput("give --license-name", reason="missing-metadata")
        license_ = License(
            name=args.license_name or (license_.name if license_ else ""),
            attribution_required=(
                args.attribution_required
                if args.attribution_required is not None
                else (license_.attribution_required if license_ else False)
            ),
            spdx=args.license_spdx or (license_.spdx if license_ else None),
        )
    return base.merged(
        CatalogMetadata(
            id=args.catalog_id,
            version=args.catalog_version,
            name=args.name,
            description=args.description,
            language=args.language,
            publisher=publisher,
            license=license_,
            license_file=args.license_file,
            readme=args.readme,
        )
    )


def _embedder(profile_id: str | None) -> Embedder:
    if profile_id is None:
        return default_embedder()
    return load_embedder(embedding_profile(profile_id))


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def run(args: argparse.Namespace) -> int:
    """Build the catalog and print where it went."""
    beside = (
        args.source / "catalog.yaml"
        if args.source.is_dir()
        else args.source.parent / "catalog.yaml"
    )
    # --catalog FILE replaces SRC's catalog.yaml. Either is read once, here: the flags are
    # merged into it, and the loader is handed the result instead of reading a file itself.
    config = args.catalog or (beside if beside.is_file() else None)
    base = load_catalog_yaml(config) if config else CatalogMetadata()
    source = load_source(args.source, catalog=_overrides(args, base))
    metadata = source.metadata
    created_at = args.created_at or metadata.created_at or _now()
    embedder = _embedder(args.embedder or metadata.embedder)
    key = load_private_key(args.sign) if args.sign else None
    cache_dir = None if args.no_cache else (args.cache or default_cache_dir())
    progress = TerminalProgress(quiet=args.quiet or args.json)
    try:
        result = compile_catalog(
            source,
            args.output,
            embedder=embedder,
            created_at=created_at,
            signing_key=key,
            shard_fill=args.shard_fill,
            shard_target=args.shard_target,
            shard_max=args.shard_max,
            cache_dir=cache_dir,
            chunking=args.chunking,
            progress=progress,
            strict=args.strict,
        )
    except WarningsAsErrors as exc:
        _print_warnings(exc.warnings)
        raise
    finally:
        progress.close()
    _print(result, as_json=args.json)
    return 0


def _print(result: BuildResult, *, as_json: bool) -> None:
    if as_json:
        print_json(
            {
                "path": str(result.path),
                "sha256": result.sha256,
                "sizeBytes": result.size_bytes,
                "catalogId": result.catalog_id,
                "version": result.version,
                "documents": result.documents,
                "chunks": result.chunks,
                "chunking": result.manifest.chunking.id,
                "shards": result.shards,
                "assets": result.assets,
                "embedded": result.embedded,
                "cached": result.cached,
                "signed": result.manifest.signed,
                "warnings": [_warning_json(w) for w in result.warnings],
            }
        )
        return
    _print_warnings(result.warnings)
    signed = ", signed" if result.manifest.signed else ""
    print(
        f"built {result.path} ({result.catalog_id} {result.version}{signed}): "
        f"{result.documents:,} documents, {result.chunks:,} chunks, {result.shards} shard"
        f"{'s' if result.shards != 1 else ''}, {result.assets} assets; "
        f"{result.embedded:,} embedded, {result.cached:,} cached; {len(result.warnings):,} warning"
        f"{'s' if len(result.warnings) != 1 else ''}"
    )
    print(f"sha256 {result.sha256}")


def _warning_json(warning: BuildWarning) -> dict[str, object]:
    return {
        "reason": warning.reason,
        "message": str(warning),
        "path": warning.path,
        "line": warning.line,
        "document": warning.document,
    }


def _print_warnings(warnings: Sequence[BuildWarning]) -> None:
    for warning in warnings:
        print(f"gezel-knowledge: warning: {warning} [{warning.reason}]", file=sys.stderr)
