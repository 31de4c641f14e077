"""Database checks: read-only opens, layout, ``meta`` echoes, shards and centroids (5.1-5.3, 8)."""

from __future__ import annotations

import json
import sqlite3

import numpy as np

from gezel_knowledge.archive.paths import ROUTER_PATH
from gezel_knowledge.errors import KnowledgeError
from gezel_knowledge.reader._sqlite import open_catalog_database
from gezel_knowledge.validate._context import Context
from gezk.ddl import DatabaseRole, check_database, read_meta
from gezk.errors import GezkError
from gezk.profiles import ChunkingProfile, EmbeddingProfile

__all__ = ["check_router", "check_shards"]


def _open(ctx: Context, path: str) -> sqlite3.Connection | None:
    try:
        return open_catalog_database(ctx.root.joinpath(*path.split("/")), ctx.schema)
    except KnowledgeError as exc:
        ctx.add(exc.reason, exc.message, path)
        return None


def _embedded(ctx: Context) -> bool:
    return [s.path for s in ctx.manifest.shards] == [ROUTER_PATH]


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
        if meta.get("shard_id") != str(m.shards[0].id):
            ctx.add(
                "meta-mismatch",
                "router meta shard_id does not name the embedded shard",
                ROUTER_PATH,
            )
        if meta.get("chunk_count") != str(m.shards[0].chunks):
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
            echoed = parse(json.loads(raw))
        except (ValueError, GezkError) as exc:
            ctx.add(
                "meta-mismatch", f"router meta {key} is not a valid profile: {exc}", ROUTER_PATH
            )
            continue
        if echoed != declared:
            ctx.add("meta-mismatch", f"router meta {key} differs from the manifest", ROUTER_PATH)


def check_shards(ctx: Context) -> None:
    """The router's ``shards`` and centroids against the manifest, and every shard's ``meta``."""
    conn = ctx.router
    if conn is None:
        return
    m = ctx.manifest
    d = m.embedding.dimensions
    rows = {
        int(r[0]): r
        for r in conn.execute(
            "SELECT id, path, chunk_count, document_count, topic_ids_json, centroid_count, bytes"
            " FROM shards"
        )
    }
    declared = {s.id: s for s in m.shards}
    if set(rows) != set(declared):
        ctx.add(
            "shard-mismatch",
            f"the router lists shards {sorted(rows)}, the manifest {sorted(declared)}",
            ROUTER_PATH,
        )
    topic_ids = {r[0] for r in conn.execute("SELECT id FROM topics")}
    doc_counts = dict(
        conn.execute("SELECT shard_id, COUNT(*) FROM documents GROUP BY shard_id").fetchall()
    )
    for sid in sorted(set(doc_counts) - set(rows)):
        ctx.add(
            "shard-mismatch", f"documents name shard {sid}, which the router lacks", f"shard {sid}"
        )
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
    if len(centroid_rows) != m.total_centroids:
        ctx.add(
            "count-mismatch",
            f"route_centroids has {len(centroid_rows)} rows, totalCentroids is {m.total_centroids}",
            ROUTER_PATH,
        )
    for sid, row in sorted(rows.items()):
        _, path, chunks, docs, topics_json, centroids, size = row
        subject = f"shard {sid}"
        want = declared.get(sid)
        if want is not None and (
            path != want.path
            or chunks != want.chunks
            or docs != want.documents
            or centroids != want.centroids
        ):
            ctx.add("shard-mismatch", "the router's shards row differs from router.shards", subject)
        if doc_counts.get(sid, 0) != docs:
            ctx.add(
                "count-mismatch",
                f"{doc_counts.get(sid, 0)} documents name the shard, its row says {docs}",
                subject,
            )
        if per_shard.get(sid, 0) != centroids:
            ctx.add(
                "count-mismatch",
                f"{per_shard.get(sid, 0)} centroids, the shards row says {centroids}",
                subject,
            )
        try:
            listed = json.loads(topics_json)
        except (TypeError, ValueError):
            listed = None
        if not isinstance(listed, list) or not set(map(str, listed)) <= topic_ids:
            ctx.add("shard-mismatch", "topic_ids_json must list declared topics", subject)
        if path == ROUTER_PATH:
            if size != 0:
                ctx.add("shard-mismatch", "an embedded shard's bytes must be 0", subject)
            ctx.shard_conns[sid] = conn
            continue
        declared_file = m.file(path)
        if declared_file is not None and size != declared_file.size_bytes:
            ctx.add(
                "shard-mismatch",
                f"shards.bytes is {size}, the file has {declared_file.size_bytes}",
                subject,
            )
        shard_conn = _open(ctx, path)
        if shard_conn is None:
            continue
        ctx.shard_conns[sid] = shard_conn
        for problem in check_database(shard_conn, "shard", ctx.schema):
            ctx.add("schema-mismatch", problem, path)
        meta = read_meta(shard_conn)
        expected = {**m.meta_echoes(), "shard_id": str(sid), "chunk_count": str(chunks)}
        for key, value in expected.items():
            if meta.get(key) != value:
                ctx.add(
                    "shard-mismatch",
                    f"meta {key} is {meta.get(key)!r}, expected {value!r}: the shard belongs "
                    "to another catalog or build",
                    path,
                )
    for sid, shard_conn in ctx.shard_conns.items():
        n = shard_conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        expected_chunks = rows[sid][2]
        if n != expected_chunks:
            ctx.add(
                "count-mismatch",
                f"{n} chunks, the shards row says {expected_chunks}",
                f"shard {sid}",
            )
