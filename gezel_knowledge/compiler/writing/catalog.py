"""Pass 4: the archive's entries and its manifest, after the smoke queries have run against the
sealed router; the manifest is checked against its schema and signed when a key is given."""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gezel_knowledge.archive.verify import file_sha256
from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogIdentity, CatalogMetadata
from gezel_knowledge.compiler.sources.source import SourceAsset
from gezel_knowledge.compiler.text.data import load_json, read_file_bytes
from gezel_knowledge.compiler.writing.databases import SealedFile, router_spatial_summary
from gezel_knowledge.compiler.writing.manifest import catalog_manifest
from gezel_knowledge.compiler.writing.shards import ROUTER_PATH, DatabaseFacts, Databases
from gezel_knowledge.compiler.writing.smoke import derive_smoke_queries, smoke_query_passes
from gezk.errors import SchemaViolation
from gezk.manifest import (
    CatalogManifest,
    DeclaredFile,
    ManifestCounts,
    ManifestShard,
    Router,
    Signature,
    SmokeQuery,
)
from gezk.schemas import validate_manifest, validate_source_notices
from gezk.signing import sign_manifest
from gezk.toc import Topic

__all__ = ["CatalogFiles", "archive_entries", "build_manifest"]


@dataclass(frozen=True, slots=True)
class CatalogFiles:
    """The files a catalog ships besides its databases."""

    readme: Path | bytes
    notice: Path
    source_notices: Path | None
    assets: tuple[SourceAsset, ...]


def archive_entries(files: CatalogFiles, sealed: dict[str, SealedFile]) -> dict[str, Path | bytes]:
    """Every archive entry but ``mimetype`` and ``manifest.json``, by archive path."""
    entries: dict[str, Path | bytes] = {
        "README.md": files.readme,
        "LICENSES/catalog.txt": files.notice,
        **{path: s.path for path, s in sealed.items()},
        **{asset.path: asset.file for asset in files.assets},
    }
    if files.source_notices is not None:
        entries["LICENSES/source-notices.json"] = _source_notices(files.source_notices)
    return entries


def build_manifest(
    metadata: CatalogMetadata,
    identity: CatalogIdentity,
    facts: DatabaseFacts,
    *,
    topics: tuple[Topic, ...],
    entries: dict[str, Path | bytes],
    databases: Databases,
    documents: int,
    assets: int,
    signing_key: Ed25519PrivateKey | None,
) -> CatalogManifest:
    """The manifest, checked against its schema and signed when a key is given."""
    sealed = databases.sealed
    router = sqlite3.connect(f"{sealed[ROUTER_PATH].path.as_uri()}?mode=ro", uri=True)
    try:
        smoke = _smoke_queries(router, metadata)
        spatial = router_spatial_summary(router)
    finally:
        router.close()
    known = {path: (s.size, s.sha256) for path, s in sealed.items()}
    shards = tuple(
        ManifestShard(
            id=row.shard_id,
            path=row.path,
            chunks=row.chunks,
            documents=row.documents,
            centroids=int(row.centroids.shape[0]),
            sha256=sealed[row.path].sha256,
        )
        for row in databases.shard_rows
    )
    manifest = catalog_manifest(
        metadata,
        identity,
        created_at=facts.created_at,
        embedding=facts.profile,
        chunking=facts.chunking,
        topics=topics,
        router=Router(facts.shard_target, shards, sum(s.centroids for s in shards)),
        counts=ManifestCounts(
            documents=documents, chunks=databases.chunks, shards=len(shards), assets=assets
        ),
        files=[
            _file_entry(path, entries[path], known.get(path))
            for path in sorted(entries, key=lambda p: p.encode("utf-8"))
        ],
        spatial=spatial,
        smoke_queries=smoke,
        toolchain=facts.toolchain,
    )
    validate_manifest(manifest.to_json())
    if signing_key is None:
        return manifest
    signature = sign_manifest(manifest.to_json(), signing_key)["signature"]
    return replace(manifest, signature=Signature(signature["keyId"], signature["value"]))


def _smoke_queries(router: sqlite3.Connection, meta: CatalogMetadata) -> tuple[SmokeQuery, ...]:
    if meta.smoke_queries:
        for query in meta.smoke_queries:
            if not smoke_query_passes(router, query):
                raise SourceError(
                    f"smoke query {query.query!r} does not find "
                    f"{list(query.expected_document_ids)} in its top ten",
                    reason="smoke-query-failed",
                )
        return meta.smoke_queries
    return derive_smoke_queries(router)


def _source_notices(path: Path) -> bytes:
    data = read_file_bytes(path, where=str(path))
    obj = load_json(data, path=str(path), reason="invalid-source-notices")
    try:
        validate_source_notices(obj)
    except SchemaViolation as exc:
        raise SourceError(exc.message, reason="invalid-source-notices", path=str(path)) from None
    return data


def _file_entry(
    path: str, source: Path | bytes, known: tuple[int, str] | None = None
) -> DeclaredFile:
    if known is not None:
        return DeclaredFile(path, known[0], known[1])
    if isinstance(source, bytes):
        return DeclaredFile(path, len(source), hashlib.sha256(source).hexdigest())
    return DeclaredFile(path, source.stat().st_size, file_sha256(source))
