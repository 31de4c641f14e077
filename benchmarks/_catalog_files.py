"""The manifest and percentiles the synthetic-catalog benchmarks share (``search.py``,
``hybrid.py``): each writes its own databases, then :func:`write_manifest` declares them.

Imported from the benchmarks' own directory, whether they run as scripts or are loaded from
their file path (as the tests load them).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from gezk.profiles import MARKDOWN_CHUNKS_2, TEST_HASH_EMBED_1

__all__ = ["ShardFile", "percentile", "write_manifest"]


@dataclass(frozen=True)
class ShardFile:
    """One shard as the router declares it (``path`` may be the router itself)."""

    path: str
    chunks: int
    documents: int
    centroids: int


def _file_row(root: Path, rel: str) -> dict[str, object]:
    digest = hashlib.sha256()
    with (root / rel).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return {"path": rel, "sizeBytes": (root / rel).stat().st_size, "sha256": digest.hexdigest()}


def _shard_row(index: int, shard: ShardFile, sha256: object) -> dict[str, object]:
    return {
        "id": index,
        "path": shard.path,
        "chunks": shard.chunks,
        "documents": shard.documents,
        "centroids": shard.centroids,
        "sha256": sha256,
    }


def write_manifest(
    root: Path, catalog_id: str, shards: list[ShardFile], documents: int, *, language: str = "en"
) -> None:
    """A README, a licence notice and a 0.7 ``manifest.json`` declaring ``index/router.db`` and
    ``shards`` (test-hash-embed@1, markdown-chunks@2, one topic, no locations)."""
    (root / "README.md").write_text("# bench\n")
    (root / "LICENSES").mkdir(exist_ok=True)
    (root / "LICENSES" / "catalog.txt").write_text("CC0\n")
    paths = ["LICENSES/catalog.txt", "README.md", "index/router.db"]
    paths += [s.path for s in shards if s.path not in paths]
    files = [_file_row(root, rel) for rel in paths]
    digests = {f["path"]: f["sha256"] for f in files}
    manifest = {
        "kind": "gezk-catalog",
        "formatVersion": "0.7",
        "indexSchemaVersion": 4,
        "id": catalog_id,
        "version": "1",
        "name": catalog_id,
        "language": language,
        "publisher": {"id": "bench", "name": "bench"},
        "createdAt": "2026-01-01T00:00:00.000Z",
        "license": {
            "name": "CC0",
            "noticePath": "LICENSES/catalog.txt",
            "attributionRequired": False,
        },
        "embedding": TEST_HASH_EMBED_1.to_json(),
        "chunking": MARKDOWN_CHUNKS_2.to_json(),
        "topics": [{"id": "all", "name": "All", "sortKey": "all"}],
        "router": {
            "shardTargetChunks": 200000,
            "totalCentroids": sum(s.centroids for s in shards),
            "shards": [_shard_row(i, s, digests[s.path]) for i, s in enumerate(shards)],
        },
        "counts": {
            "documents": documents,
            "chunks": sum(s.chunks for s in shards),
            "shards": len(shards),
            "assets": 0,
        },
        "files": files,
        "spatial": {
            "schema": "document-points@1",
            "crs": "EPSG:4326",
            "distanceModel": "sphere-6371000",
            "locationCount": 0,
            "locatedDocuments": 0,
            "coverage": [],
        },
        "requires": {"formatVersion": "0.7", "features": []},
    }
    (root / "manifest.json").write_text(json.dumps(manifest))


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]
