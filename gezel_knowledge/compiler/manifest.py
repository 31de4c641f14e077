"""Assembling ``manifest.json`` (spec section 4) and its bytes.

Members appear in the order of the spec's example, optional members only when they have a
value; the text is indented JSON with a final newline. The manifest is validated against the
bundled schema before it is written and, when a key is given, signed (section 12).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gezel_knowledge.compiler.metadata import CatalogMetadata, SmokeQuery
from gezel_knowledge.compiler.source import Topic

__all__ = ["manifest_bytes", "manifest_object", "topics_in_tree_order"]


def topics_in_tree_order(topics: Sequence[Topic]) -> list[Topic]:
    """Topics depth first, siblings by ``(sort_key, id)`` as readers order them."""
    children: dict[str | None, list[Topic]] = {}
    for topic in topics:
        children.setdefault(topic.parent_id, []).append(topic)
    for siblings in children.values():
        siblings.sort(key=lambda t: (t.sort_key.encode("utf-8"), t.id))
    out: list[Topic] = []

    def walk(parent: str | None) -> None:
        for topic in children.get(parent, []):
            out.append(topic)
            walk(topic.id)

    walk(None)
    return out


def manifest_object(
    *,
    metadata: CatalogMetadata,
    created_at: str,
    embedding: Mapping[str, Any],
    chunking: Mapping[str, Any],
    topics: Sequence[Topic],
    router: Mapping[str, Any],
    counts: Mapping[str, int],
    files: Sequence[Mapping[str, Any]],
    spatial: Mapping[str, Any],
    smoke_queries: Sequence[SmokeQuery],
    toolchain: Mapping[str, str],
    format_version: str,
    index_schema_version: int,
) -> dict[str, Any]:
    """The manifest as a JSON object (unsigned)."""
    if not (metadata.id and metadata.version and metadata.name and metadata.language):
        raise ValueError("manifest_object needs complete metadata (CatalogMetadata.require)")
    if metadata.publisher is None or metadata.license is None:
        raise ValueError("manifest_object needs complete metadata (CatalogMetadata.require)")
    manifest: dict[str, Any] = {
        "kind": "gezk-catalog",
        "formatVersion": format_version,
        "indexSchemaVersion": index_schema_version,
        "id": metadata.id,
        "version": metadata.version,
        "name": metadata.name,
    }
    if metadata.description:
        manifest["description"] = metadata.description
    manifest["language"] = metadata.language
    publisher: dict[str, Any] = {"id": metadata.publisher.id, "name": metadata.publisher.name}
    if metadata.publisher.url:
        publisher["url"] = metadata.publisher.url
    manifest["publisher"] = publisher
    manifest["createdAt"] = created_at
    if metadata.source_snapshot is not None:
        snapshot: dict[str, Any] = {
            "name": metadata.source_snapshot.name,
            "date": metadata.source_snapshot.date,
        }
        if metadata.source_snapshot.taxonomy_version:
            snapshot["taxonomyVersion"] = metadata.source_snapshot.taxonomy_version
        manifest["sourceSnapshot"] = snapshot
    license_: dict[str, Any] = {"name": metadata.license.name}
    if metadata.license.spdx:
        license_["spdx"] = metadata.license.spdx
    license_["noticePath"] = "LICENSES/catalog.txt"
    license_["attributionRequired"] = metadata.license.attribution_required
    manifest["license"] = license_
    manifest["embedding"] = dict(embedding)
    manifest["chunking"] = dict(chunking)
    entries = []
    for topic in topics_in_tree_order(topics):
        entry: dict[str, Any] = {"id": topic.id, "name": topic.name}
        if topic.parent_id is not None:
            entry["parentId"] = topic.parent_id
        entry["sortKey"] = topic.sort_key
        if topic.description:
            entry["description"] = topic.description
        entries.append(entry)
    manifest["topics"] = entries
    manifest["router"] = dict(router)
    manifest["counts"] = dict(counts)
    manifest["files"] = [dict(f) for f in files]
    manifest["spatial"] = dict(spatial)
    manifest["requires"] = {"formatVersion": format_version, "features": []}
    if smoke_queries:
        manifest["smokeQueries"] = [
            {"query": q.query, "expectedDocumentIds": list(q.expected_document_ids)}
            for q in smoke_queries
        ]
    manifest["toolchain"] = dict(toolchain)
    return manifest


def manifest_bytes(manifest: Mapping[str, Any]) -> bytes:
    """The UTF-8 text of ``manifest.json``: two-space indented JSON and a final newline."""
    return (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
