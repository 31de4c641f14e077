"""``gezel-knowledge inspect CATALOG``: identity, counts, profiles and files, without trusting.

For a ``.gezk`` file every archive check runs (nothing is extracted); a signature is shown as
present, never as verified: use ``validate --trust`` for a provenance verdict.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gezel_knowledge.archive import inspect_archive
from gezel_knowledge.cli._catalog import add_catalog_argument
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import print_json
from gezel_knowledge.errors import NotFound
from gezel_knowledge.reader import read_manifest
from gezk.manifest import CatalogManifest


def register(subparsers: Any) -> None:
    """Add the ``inspect`` subcommand."""
    parser = add_command(subparsers, "inspect")
    add_catalog_argument(parser)
    parser.add_argument("--expected-sha256", metavar="HEX", help="the archive digest promised")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def summary(manifest: CatalogManifest) -> dict[str, Any]:
    """The inspect view of a manifest."""
    m = manifest
    return {
        "catalog": f"{m.publisher.id}/{m.id}",
        "version": m.version,
        "name": m.name,
        "description": m.description,
        "language": m.language,
        "publisher": {"id": m.publisher.id, "name": m.publisher.name, "url": m.publisher.url},
        "formatVersion": m.format_version,
        "indexSchemaVersion": m.index_schema_version,
        "createdAt": m.created_at,
        "license": {
            "name": m.license.name,
            "spdx": m.license.spdx,
            "attributionRequired": m.license.attribution_required,
        },
        "embeddingProfile": m.embedding.id,
        "stage1Bits": m.embedding.binary.method,
        "chunkingProfile": m.chunking.id,
        "counts": {
            "documents": m.counts.documents,
            "chunks": m.counts.chunks,
            "shards": m.counts.shards,
            "assets": m.counts.assets or 0,
            "topics": len(m.topics),
        },
        "shards": [
            {"id": s.id, "path": s.path, "chunks": s.chunks, "documents": s.documents}
            for s in m.router.shards
        ],
        "spatial": None
        if m.spatial is None
        else {
            "locations": m.spatial.location_count,
            "locatedDocuments": m.spatial.located_documents,
            "coverage": [[b.west, b.south, b.east, b.north] for b in m.spatial.coverage],
        },
        "signature": None if m.signature is None else {"keyId": m.signature.key_id},
        "provenance": "signed, not verified (validate --trust KEYS)" if m.signed else "unsigned",
        "toolchain": None if m.toolchain is None else f"{m.toolchain.name} {m.toolchain.version}",
        "files": [{"path": f.path, "sizeBytes": f.size_bytes} for f in m.files],
    }


def run(args: argparse.Namespace) -> int:
    """Inspect the catalog and print the summary."""
    path = Path(args.catalog)
    view: dict[str, Any]
    if path.is_file():
        info = inspect_archive(path, args.expected_sha256)
        view = {
            **summary(info.manifest),
            "archive": {"sha256": info.sha256, "sizeBytes": info.size_bytes},
        }
    elif path.is_dir():
        view = summary(read_manifest(path))
    else:
        raise NotFound(f"no catalog at {path}", reason="catalog-not-found", subject=str(path))
    if args.json:
        print_json(view)
        return 0
    counts = view["counts"]
    print(f"{view['catalog']}@{view['version']}  {view['name']}")
    print(
        f"  format        gezk {view['formatVersion']} (index schema "
        f"{view['indexSchemaVersion']}), created {view['createdAt']}"
    )
    print(f"  license       {view['license']['name']}")
    print(f"  embedding     {view['embeddingProfile']} ({view['stage1Bits']} stage-1 bits)")
    print(f"  chunking      {view['chunkingProfile']}")
    print(
        f"  counts        {counts['documents']} documents, {counts['chunks']} chunks, "
        f"{counts['shards']} shards, {counts['assets']} assets, {counts['topics']} topics"
    )
    if view["spatial"] is not None:
        print(
            f"  locations     {view['spatial']['locations']} points on "
            f"{view['spatial']['locatedDocuments']} documents"
        )
    print(
        f"  provenance    {view['provenance']}"
        + (f" (key {view['signature']['keyId']})" if view["signature"] else "")
    )
    if "archive" in view:
        print(
            f"  archive       sha256 {view['archive']['sha256']}, "
            f"{view['archive']['sizeBytes']} bytes"
        )
    print(f"  files         {len(view['files'])} declared")
    return 0
