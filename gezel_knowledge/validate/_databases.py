"""Database checks: read-only opens, layout, ``meta`` echoes, shards and centroids (5.1-5.3, 8)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np

from gezel_knowledge.archive.paths import ROUTER_PATH
from gezel_knowledge.errors import KnowledgeError
from gezel_knowledge.reader._sqlite import open_catalog_database
from gezel_knowledge.validate._context import Context
from gezk import untrusted_json
from gezk.ddl import DatabaseRole, check_database, read_meta
from gezk.errors import GezkError
from gezk.manifest import ManifestShard
from gezk.profiles import ChunkingProfile, EmbeddingProfile

__all__ = ["check_router", "check_shards"]


def _open(ctx: Context, path: str) -> sqlite3.Connection | None:
    try:
        return open_catalog_database(ctx.root.joinpath(*path.split("/")), ctx.schema)
    except KnowledgeError as exc:
        ctx.add(exc.reason, exc.message, path)
        return None


def _embedded(ctx: Context) -> bool:
    return [s.path for s in ctx.manifest.router.shards] == [ROUTER_PATH]


def check_router(ctx: Context) -> None:
    """Open the router; check its layout and that ``meta`` echoes the manifest."""
    conn = _open(ctx, ROUTER_PATH)
    if conn is None:
        return
    ctx.router = conn
    m = ctx.manifest
    role: DatabaseRole = "router+shard" if _embedded(ctx) else "router"
    for problem in check_database(conn, role, ctx.schema):
        ctx.add("schema-mismatch", problem, ROUTER_PATH)
    meta = read_meta(conn)
    for key, value in m.meta_echoes().items():
        if key in meta and meta[key] != value:
            ctx.add(
                "meta-mismatch",
                f"router meta {key} is {meta[key]!r}, the manifest says {value!r}",
                ROUTER_PATH,
            )
    if _embedded(ctx):
        if meta.get("shard_id") != str(m.router.shards[0].id):
            ctx.add(
                "meta-mismatch",
                "router meta shard_id does not name the embedded shard",
                ROUTER_PATH,
            )
        if meta.get("chunk_count") != str(m.router.shards[0].chunks):
            ctx.add("meta-mismatch", "router meta chunk_count differs from the shard", ROUTER_PATH)
    if "created_at" in meta and meta["created_at"] != m.created_at:
        ctx.add("meta-mismatch", "router meta created_at differs from createdAt", ROUTER_PATH)
    for key, parse, declared in (
        ("embedding_profile_json", EmbeddingProfile.from_json, m.embedding),
        ("chunking_profile_json", ChunkingProfile.from_json, m.chunking),
    ):
        raw = meta.get(key)
        if raw is None:
            continue
        try:
            echoed = parse(untrusted_json.loads(raw))
        except (ValueError, GezkError) as exc:
            ctx.add(
                "meta-mismatch", f"router meta {key} is not a valid profile: {exc}", ROUTER_PATH
            )
            continue
        if echoed != declared:
            ctx.add("meta-mismatch", f"router meta {key} differs from the manifest", ROUTER_PATH)


@dataclass(frozen=True, slots=True)
class _ShardRow:
    """One row of the router's ``shards`` table, typed as the DDL declares (a hostile database
    may hold other values, which the comparisons with the manifest then report)."""

    id: int
    path: str
    chunk_count: int
    document_count: int
    topic_ids_json: str
    centroid_count: int
    bytes: int


def check_shards(ctx: Context) -> None:
    """The router's ``shards`` and centroids against the manifest, and every shard's ``meta``."""
    conn = ctx.router
    if conn is None:
        return
    declared = {s.id: s for s in ctx.manifest.router.shards}
    rows = _shard_rows(ctx, conn, declared)
    topic_ids = {r[0] for r in conn.execute("SELECT id FROM topics")}
    doc_counts = _documents_per_shard(ctx, conn, rows)
    per_shard = _check_centroids(ctx, conn)
    for sid, row in sorted(rows.items()):
        _check_shard_row(
            ctx,
            row,
            want=declared.get(sid),
            documents=doc_counts.get(sid, 0),
            centroids=per_shard.get(sid, 0),
            topic_ids=topic_ids,
        )
        _open_shard(ctx, conn, row)
    for sid, shard_conn in ctx.shard_conns.items():
        n = shard_conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        expected_chunks = rows[sid].chunk_count
        if n != expected_chunks:
            ctx.add(
                "count-mismatch",
                f"{n} chunks, the shards row says {expected_chunks}",
                f"shard {sid}",
            )


def _shard_rows(
    ctx: Context, conn: sqlite3.Connection, declared: dict[int, ManifestShard]
) -> dict[int, _ShardRow]:
    """The router's shards by id; the set must be the manifest's."""
    rows = {
        int(r[0]): _ShardRow(int(r[0]), *r[1:])
        for r in conn.execute(
            "SELECT id, path, chunk_count, document_count, topic_ids_json, centroid_count, bytes"
            " FROM shards"
        )
    }
    if set(rows) != set(declared):
        ctx.add(
            "shard-mismatch",
            f"the router lists shards {sorted(rows)}, the manifest {sorted(declared)}",
            ROUTER_PATH,
        )
    return rows


def _documents_per_shard(
    ctx: Context, conn: sqlite3.Connection, rows: dict[int, _ShardRow]
) -> dict[int, int]:
    """How many documents name each shard; every shard they name must exist."""
    doc_counts: dict[int, int] = dict(
        conn.execute("SELECT shard_id, COUNT(*) FROM documents GROUP BY shard_id").fetchall()
    )
    for sid in sorted(set(doc_counts) - set(rows)):
        ctx.add(
            "shard-mismatch", f"documents name shard {sid}, which the router lacks", f"shard {sid}"
        )
    return doc_counts


def _check_centroids(ctx: Context, conn: sqlite3.Connection) -> dict[int, int]:
    """Routing centroids are unit float32 vectors, as many as declared; return them per shard."""
    m = ctx.manifest
    d = m.embedding.dimensions
    centroid_rows = conn.execute("SELECT shard_id, embedding FROM route_centroids").fetchall()
    per_shard: dict[int, int] = {}
    bad_blobs = 0
    vectors: list[bytes] = []
    for sid, blob in centroid_rows:
        per_shard[int(sid)] = per_shard.get(int(sid), 0) + 1
        if not isinstance(blob, bytes) or len(blob) != 4 * d:
            bad_blobs += 1
        else:
            vectors.append(blob)
    if bad_blobs:
        ctx.add(
            "invalid-centroids", f"{bad_blobs} centroids are not {d} float32 values", ROUTER_PATH
        )
    if vectors:
        mat = np.frombuffer(b"".join(vectors), dtype="<f4").reshape(-1, d)
        norms = np.linalg.norm(mat.astype(np.float64), axis=1)
        if not np.all(np.isfinite(norms)) or np.any(np.abs(norms - 1.0) > 1e-3):
            ctx.add("invalid-centroids", "centroids must be L2-normalized", ROUTER_PATH)
    if len(centroid_rows) != m.router.total_centroids:
        ctx.add(
            "count-mismatch",
            f"route_centroids has {len(centroid_rows)} rows, totalCentroids is "
            f"{m.router.total_centroids}",
            ROUTER_PATH,
        )
    return per_shard


def _check_shard_row(
    ctx: Context,
    row: _ShardRow,
    *,
    want: ManifestShard | None,
    documents: int,
    centroids: int,
    topic_ids: set[str],
) -> None:
    """One shards row against the manifest, the documents and centroids naming it, the topics."""
    subject = f"shard {row.id}"
    if want is not None and (
        row.path != want.path
        or row.chunk_count != want.chunks
        or row.document_count != want.documents
        or row.centroid_count != want.centroids
    ):
        ctx.add("shard-mismatch", "the router's shards row differs from router.shards", subject)
    if documents != row.document_count:
        ctx.add(
            "count-mismatch",
            f"{documents} documents name the shard, its row says {row.document_count}",
            subject,
        )
    if centroids != row.centroid_count:
        ctx.add(
            "count-mismatch",
            f"{centroids} centroids, the shards row says {row.centroid_count}",
            subject,
        )
    try:
        listed = untrusted_json.loads(row.topic_ids_json)
    except (TypeError, ValueError):
        listed = None
    if not isinstance(listed, list) or not set(map(str, listed)) <= topic_ids:
        ctx.add("shard-mismatch", "topic_ids_json must list declared topics", subject)


def _open_shard(ctx: Context, router: sqlite3.Connection, row: _ShardRow) -> None:
    """Open a shard (the router itself when embedded); its layout and ``meta`` must be this
    catalog's."""
    if row.path == ROUTER_PATH:
        if row.bytes != 0:
            ctx.add("shard-mismatch", "an embedded shard's bytes must be 0", f"shard {row.id}")
        ctx.shard_conns[row.id] = router
        return
    m = ctx.manifest
    declared_file = m.file(row.path)
    if declared_file is not None and row.bytes != declared_file.size_bytes:
        ctx.add(
            "shard-mismatch",
            f"shards.bytes is {row.bytes}, the file has {declared_file.size_bytes}",
            f"shard {row.id}",
        )
    shard_conn = _open(ctx, row.path)
    if shard_conn is None:
        return
    ctx.shard_conns[row.id] = shard_conn
    for problem in check_database(shard_conn, "shard", ctx.schema):
        ctx.add("schema-mismatch", problem, row.path)
    meta = read_meta(shard_conn)
    expected = {**m.meta_echoes(), "shard_id": str(row.id), "chunk_count": str(row.chunk_count)}
    for key, value in expected.items():
        if meta.get(key) != value:
            ctx.add(
                "shard-mismatch",
                f"meta {key} is {meta.get(key)!r}, expected {value!r}: the shard belongs "
                "to another catalog or build",
                row.path,
            )
