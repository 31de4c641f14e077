"""Pass 3: every shard written and sealed (or the only one, embedded in the router), then the
router, from the staging database and the vector spill file."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.compiler.passes.kmeans import centroid_sample_stride, route_centroids
from gezel_knowledge.compiler.passes.spill import VectorSpill
from gezel_knowledge.compiler.writing.databases import (
    SealedFile,
    ShardRow,
    create_database,
    fill_router,
    fill_shard,
    seal,
)
from gezk import ddl
from gezk.jcs import canonicalize
from gezk.manifest import Toolchain
from gezk.profiles import ChunkingProfile, EmbeddingProfile
from gezk.toc import Topic
from gezk.versions import WRITTEN

__all__ = ["ROUTER_PATH", "DatabaseFacts", "Databases", "write_databases"]

ROUTER_PATH = "index/router.db"


@dataclass(frozen=True, slots=True)
class DatabaseFacts:
    """What every database of the catalog echoes or the router records about the build."""

    catalog_id: str
    catalog_version: str
    created_at: str
    profile: EmbeddingProfile
    chunking: ChunkingProfile
    toolchain: Toolchain
    shard_target: int


@dataclass(frozen=True, slots=True)
class Databases:
    """The sealed databases by archive path, the router's ``shards`` rows, the chunk count."""

    shard_rows: list[ShardRow]
    sealed: dict[str, SealedFile]
    chunks: int


def write_databases(
    work: Path,
    shard_ids: Sequence[int],
    topics: Iterable[Topic],
    facts: DatabaseFacts,
    *,
    vectors: VectorSpill,
    center: NDArray[np.float32] | None,
    report: Callable[[int, int], None],
) -> Databases:
    """Write and seal every shard, then the router (which may embed the only shard);
    ``report(done, total)`` counts shards written."""
    shard_ids = list(shard_ids) or [0]
    total_chunks = vectors.rows
    embedded_shard = len(shard_ids) == 1 and total_chunks <= facts.shard_target
    common = {
        "format_version": WRITTEN.format_version,
        "index_schema_version": str(WRITTEN.index_schema_version),
        "catalog_id": facts.catalog_id,
        "catalog_version": facts.catalog_version,
        "embedding_profile_id": facts.profile.id,
        "chunking_profile_id": facts.chunking.id,
    }
    (work / "out" / "index" / "shards").mkdir(parents=True)
    router_conn = create_database(work / "router.build.db", router=True, shard=embedded_shard)
    shard_rows: list[ShardRow] = []
    sealed: dict[str, SealedFile] = {}
    for number, shard_id in enumerate(shard_ids, start=1):
        report(number - 1, len(shard_ids))
        shard_rows.append(
            _write_shard(
                work,
                shard_id,
                facts.catalog_id,
                router=router_conn if embedded_shard else None,
                vectors=vectors,
                center=center,
                common=common,
                sealed=sealed,
            )
        )
    report(len(shard_ids), len(shard_ids))
    # The router of an externally sharded catalog holds no shard: it echoes shard -1 and
    # the chunks it holds, none (an embedded router echoes shard 0 and every chunk). The
    # reference writes neither key in that case, but section 5.1 has every database echo
    # both, and no reader can rely on values the reference does not write.
    held = {"shard_id": "0", "chunk_count": str(total_chunks)}
    if not embedded_shard:
        held = {"shard_id": "-1", "chunk_count": "0"}
    ddl.write_meta(router_conn, {**_router_meta(facts, common), **held})
    fill_router(router_conn, work / "staging.db", list(topics), shard_rows)
    sealed[ROUTER_PATH] = seal(router_conn, work / "out" / ROUTER_PATH)
    return Databases(shard_rows, sealed, total_chunks)


def _router_meta(facts: DatabaseFacts, common: dict[str, str]) -> dict[str, str]:
    """The router's ``meta`` rows but the shard it holds: the echoes, profiles, provenance."""
    return {
        **common,
        "embedding_profile_json": canonicalize(facts.profile.to_json()).decode("utf-8"),
        "chunking_profile_json": canonicalize(facts.chunking.to_json()).decode("utf-8"),
        "created_at": facts.created_at,
        "toolchain_json": canonicalize(facts.toolchain.to_json()).decode("utf-8"),
    }


def _write_shard(
    work: Path,
    shard_id: int,
    catalog_id: str,
    *,
    router: sqlite3.Connection | None,
    vectors: VectorSpill,
    center: NDArray[np.float32] | None,
    common: dict[str, str],
    sealed: dict[str, SealedFile],
) -> ShardRow:
    """Fill one shard (into ``router`` when the shard is embedded there, else sealed alone)."""
    if router is not None:
        conn, path = router, ROUTER_PATH
    else:
        conn = create_database(work / f"shard-{shard_id}.build.db", router=False, shard=True)
        path = f"index/shards/{shard_id:03d}.db"
    chunks = _shard_chunks(work / "staging.db", shard_id)
    sample = VectorSpill(work / f"sample-{shard_id}.f32", vectors.dimensions)
    try:
        stride = centroid_sample_stride(chunks)
        content = fill_shard(
            conn, work / "staging.db", shard_id, vectors, center, sample=sample, stride=stride
        )
        centroids, weights = route_centroids(
            sample, content.chunks, vectors.dimensions, catalog_id, shard_id
        )
    finally:
        sample.close()
        sample.path.unlink()
    size = 0
    if router is None:
        echoes = {**common, "shard_id": str(shard_id), "chunk_count": str(content.chunks)}
        ddl.write_meta(conn, echoes)
        sealed[path] = seal(conn, work / "out" / path)
        size = sealed[path].size
    return ShardRow(
        shard_id,
        path,
        content.chunks,
        content.documents,
        content.topic_ids,
        centroids,
        weights,
        size,
    )


def _shard_chunks(staging: Path, shard_id: int) -> int:
    conn = sqlite3.connect(f"{staging.as_uri()}?mode=ro", uri=True)
    try:
        row = conn.execute(
            "SELECT COALESCE(SUM(chunk_count), 0) FROM docs WHERE shard_id = ?", (shard_id,)
        ).fetchone()
        return int(row[0])
    finally:
        conn.close()
