"""The manifest of a build (spec section 4) and the bytes of ``manifest.json``.

The compiler builds the format layer's :class:`~gezk.manifest.CatalogManifest` from its catalog
metadata and what the build produced. Metadata left empty (a blank description, publisher URL,
SPDX id or taxonomy version) is left out of the manifest, as is an empty list of smoke queries.
The text is two-space indented JSON with a final newline.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogIdentity, CatalogMetadata
from gezk.manifest import (
    CatalogManifest,
    DeclaredFile,
    License,
    ManifestCounts,
    Publisher,
    Requirements,
    Router,
    SmokeQuery,
    Toolchain,
)
from gezk.profiles import ChunkingProfile, EmbeddingProfile
from gezk.spatial import SpatialSummary
from gezk.toc import Topic, topics_in_tree_order
from gezk.versions import WRITTEN

__all__ = ["catalog_manifest", "manifest_bytes"]


def catalog_manifest(
    metadata: CatalogMetadata,
    identity: CatalogIdentity,
    *,
    created_at: str,
    embedding: EmbeddingProfile,
    chunking: ChunkingProfile,
    topics: Iterable[Topic],
    router: Router,
    counts: ManifestCounts,
    files: Sequence[DeclaredFile],
    spatial: SpatialSummary,
    smoke_queries: Sequence[SmokeQuery],
    toolchain: Toolchain,
) -> CatalogManifest:
    """The (unsigned) manifest of a build; topics go in tree order."""
    snapshot = metadata.source_snapshot
    return CatalogManifest(
        generation=WRITTEN,
        id=identity.id,
        version=identity.version,
        name=identity.name,
        language=identity.language,
        publisher=Publisher(
            identity.publisher.id, identity.publisher.name, identity.publisher.url or None
        ),
        created_at=created_at,
        license=License(
            name=identity.license.name,
            attribution_required=identity.license.attribution_required,
            spdx=identity.license.spdx or None,
        ),
        embedding=embedding,
        chunking=chunking,
        topics=tuple(
            replace(topic, description=topic.description or None)
            for topic in topics_in_tree_order(topics)
        ),
        router=router,
        counts=counts,
        files=tuple(files),
        requires=Requirements(WRITTEN.format_version, ()),
        description=metadata.description or None,
        source_snapshot=None
        if snapshot is None
        else replace(snapshot, taxonomy_version=snapshot.taxonomy_version or None),
        spatial=spatial,
        smoke_queries=tuple(smoke_queries) or None,
        toolchain=toolchain,
    )


def manifest_bytes(manifest: Mapping[str, Any]) -> bytes:
    """The UTF-8 text of ``manifest.json``: two-space indented JSON and a final newline."""
    return (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
