"""Deep checks: SQLite and FTS5 integrity, every served value of its declared type and UTF-8,
chunk/vector alignment, self-neighbour probes, smoke queries, and every body decoded (seed
"Installation, integrity, and updates").

These read every row of a catalog, so they run only when asked for (``validate --deep``).
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
import unicodedata

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.archive.assets import asset_references
from gezel_knowledge.archive.paths import ROUTER_PATH
from gezel_knowledge.errors import KnowledgeError
from gezel_knowledge.reader.body import body_lines, decode_body
from gezel_knowledge.reader.vectors import load_sign_bits, search_shard
from gezel_knowledge.validate._context import Context
from gezel_knowledge.validate._values import check_values
from gezel_knowledge.validate.smoke import SMOKE_TOP_N, smoke_query_hits
from gezk import untrusted_json
from gezk.ids import chunk_uid, content_hash, is_chunk_uid
from gezk.quantize import PackedBits, unpack_sign_bits

__all__ = ["PROBE_DEPTH", "PROBE_SAMPLE", "check_deep"]

PROBE_SAMPLE = 16
"""Chunks per shard that must find themselves through both stages."""

PROBE_DEPTH = 3
"""How deep a probed chunk may find itself whatever the scores above it."""

PROBE_WIDTH = 64
"""How deep a probed chunk may find itself behind near-duplicates scoring within
:data:`PROBE_TOLERANCE` of the first hit."""

PROBE_TOLERANCE = 0.02
"""A probe's own score may trail the first hit's by this much (rerank scores are near 1 for a
chunk's own row; a wrong or damaged row trails by far more)."""


def _integrity(ctx: Context) -> None:
    seen: set[int] = set()
    for name, conn in [
        (ROUTER_PATH, ctx.router),
        *((f"shard {s}", c) for s, c in sorted(ctx.shard_conns.items())),
    ]:
        if conn is None or id(conn) in seen:
            continue
        seen.add(id(conn))
        result = [r[0] for r in conn.execute("PRAGMA integrity_check(20)")]
        if result != ["ok"]:
            ctx.add("integrity-check", "; ".join(map(str, result))[:500], name)


def _chunks(ctx: Context, sid: int, conn: sqlite3.Connection, lines: dict[str, int]) -> None:
    """A shard's chunks: dense ids in document order, the router's counts, each row's content."""
    _chunk_order(ctx, sid, conn)
    _chunk_counts(ctx, sid, conn)
    for cid, uid, doc, ordinal, heading, heading_text, start, end, chash, text in conn.execute(
        "SELECT id, chunk_uid, document_id, ordinal, heading_path, heading_text, line_start,"
        " line_end, content_hash, text FROM chunks"
    ):
        where = f"{doc}#{cid}"
        if not isinstance(uid, str) or not is_chunk_uid(uid):
            ctx.add("chunk-uid-mismatch", "chunk_uid is not 32 lowercase hex digits", where)
        elif uid != chunk_uid(doc, ordinal, text):
            ctx.add(
                "chunk-uid-mismatch", "chunk_uid is not derived from the chunk's content", where
            )
        if chash != content_hash(text):
            ctx.add("chunk-uid-mismatch", "content_hash is not SHA-256 of the text", where)
        _check_heading(ctx, heading, heading_text, where)
        total = lines.get(doc)
        # One past the last line is tolerated: the reference toolchain counts the empty line
        # after a body's final LF (bodies are LF-terminated), so its catalogs end there.
        if not (isinstance(start, int) and isinstance(end, int) and 1 <= start <= end) or (
            total is not None and (end > total + 1 or start > total)
        ):
            ctx.add("invalid-line-range", f"lines {start}-{end} are outside the body", where)


def _chunk_order(ctx: Context, sid: int, conn: sqlite3.Connection) -> None:
    """Chunk ids are dense from 1, in (document_id, ordinal) order (the vectors' row order)."""
    subject = f"shard {sid}"
    n, lo, hi = conn.execute("SELECT COUNT(*), MIN(id), MAX(id) FROM chunks").fetchone()
    if n and (lo != 1 or hi != n):
        ctx.add("vectors-misaligned", f"chunk ids {lo}..{hi} are not dense from 1 for {n}", subject)
    out_of_order = conn.execute(
        "SELECT COUNT(*) FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY document_id, ordinal)"
        " AS rn FROM chunks) WHERE id != rn"
    ).fetchone()[0]
    if out_of_order:
        ctx.add(
            "chunk-order", f"{out_of_order} chunks are not in (document_id, ordinal) order", subject
        )


def _chunk_counts(ctx: Context, sid: int, conn: sqlite3.Connection) -> None:
    """Each document the router places in this shard has its ``chunk_count`` chunks, ordinals
    0..n-1, and no chunk belongs to a document placed elsewhere."""
    router = ctx.router
    assert router is not None
    expected = dict(
        router.execute("SELECT id, chunk_count FROM documents WHERE shard_id = ?", (sid,))
    )
    counted: dict[str, int] = {}
    for doc, k, lo_ord, hi_ord in conn.execute(
        "SELECT document_id, COUNT(*), MIN(ordinal), MAX(ordinal) FROM chunks GROUP BY document_id"
    ):
        counted[doc] = k
        if doc not in expected:
            ctx.add("orphan-chunk", "chunks of a document the router does not place here", doc)
        elif expected[doc] != k or lo_ord != 0 or hi_ord != k - 1:
            ctx.add(
                "chunk-count-mismatch",
                f"{k} chunks with ordinals {lo_ord}..{hi_ord}, documents.chunk_count is "
                f"{expected[doc]}",
                doc,
            )
    for doc, k in expected.items():
        if k and doc not in counted:
            ctx.add("chunk-count-mismatch", f"documents.chunk_count is {k}, no chunks stored", doc)


def _check_heading(ctx: Context, heading: object, heading_text: object, where: str) -> None:
    path: object = None
    if isinstance(heading, str | bytes):
        with contextlib.suppress(ValueError):
            path = untrusted_json.loads(heading)
    if not isinstance(path, list) or not all(isinstance(h, str) for h in path):
        ctx.add("invalid-heading-path", "heading_path must be a JSON array of strings", where)
    elif " > ".join(path) != heading_text:
        ctx.add("invalid-heading-path", "heading_text must join heading_path with ' > '", where)


def _vectors(ctx: Context, sid: int, conn: sqlite3.Connection, chunk_count: int) -> None:
    m = ctx.manifest
    d = m.embedding.dimensions
    subject = f"shard {sid}"
    try:
        bits = load_sign_bits(conn, sid, chunk_count, d)
    except KnowledgeError as exc:
        ctx.add(exc.reason, exc.message, subject)
        return
    if chunk_count == 0:
        return
    span = conn.execute("SELECT MIN(chunk_id), MAX(chunk_id) FROM chunk_vectors_int8").fetchone()
    bad = conn.execute(
        "SELECT COUNT(*) FROM chunk_vectors_int8 WHERE length(v) != ? OR typeof(v) != 'blob'",
        (d,),
    ).fetchone()[0]
    if tuple(span) != (1, chunk_count) or bad:
        ctx.add(
            "vectors-misaligned",
            f"int8 rows span {tuple(span)} with {bad} of the wrong width",
            subject,
        )
        return
    raw = b"".join(v for (v,) in conn.execute("SELECT v FROM chunk_vectors_int8 ORDER BY chunk_id"))
    q8 = np.frombuffer(raw, dtype=np.int8).reshape(chunk_count, d)
    if np.any(q8 == -128):
        ctx.add("invalid-vectors", "int8 value -128 never occurs in bit+int8", subject)
    if not m.embedding.centered:
        # With plain sign bits, a non-zero int8 component fixes its bit: bit = (q > 0).
        # load_sign_bits read and checked these rows above; the kernels have not run yet, so
        # the matrix is still the one it read.
        stored = unpack_sign_bits(bits.matrix(), d).astype(bool)
        decided = q8 != 0
        disagree = np.any(decided & (stored != (q8 > 0)), axis=1)
        if np.any(disagree):
            first = int(np.flatnonzero(disagree)[0]) + 1
            ctx.add(
                "vectors-misaligned",
                f"{int(disagree.sum())} rows' sign bits disagree with their int8 vectors "
                f"(first chunk {first})",
                subject,
            )
            return
    _probe(ctx, sid, conn, bits, q8)


def _probe(
    ctx: Context, sid: int, conn: sqlite3.Connection, bits: PackedBits, q8: NDArray[np.int8]
) -> None:
    """A sample of chunks must find themselves through stage 1 and stage 2: among the first
    :data:`PROBE_DEPTH`, or further down only behind near-duplicates scoring within
    :data:`PROBE_TOLERANCE` of the first hit.

    Not necessarily first: the rerank score is ``dot(query, q / 127)`` (spec 6.2), not a
    cosine, so a near-duplicate passage whose int8 row came out slightly longer outscores the
    chunk's own row (two paragraphs of a specification differing by a word did, at cosine
    0.9985), and a site of templated pages (Biome's lint rules) has dozens of them. A
    misaligned or corrupted row does not come that close.
    """
    n = q8.shape[0]
    sample = np.unique(np.linspace(0, n - 1, num=min(PROBE_SAMPLE, n)).astype(np.int64))
    center = ctx.manifest.embedding.center_array()
    for row in sample:
        query = q8[row].astype(np.float32) / np.float32(127.0)
        norm = float(np.linalg.norm(query))
        if norm == 0.0:
            continue
        query /= np.float32(norm)
        for stage1 in ("lut", "hamming"):
            hits = search_shard(
                conn,
                sid,
                bits,
                query,
                final_k=PROBE_WIDTH,
                center=center,
                stage1=stage1,
            )
            # An exact duplicate vector ties the probe; the lower chunk id wins that tie.
            found = next((h for h in hits if np.array_equal(q8[h.chunk_id - 1], q8[row])), None)
            if found is None or (
                hits.index(found) >= PROBE_DEPTH and found.score < hits[0].score - PROBE_TOLERANCE
            ):
                ctx.add(
                    "self-probe-failed",
                    f"chunk {int(row) + 1} does not find itself in its first {PROBE_DEPTH}, nor"
                    f" within {PROBE_TOLERANCE} of the first hit's score ({stage1} stage 1)",
                    f"shard {sid}",
                )
                return


def _bodies(ctx: Context) -> dict[str, int]:
    router = ctx.router
    assert router is not None
    assets = {f.path for f in ctx.manifest.files if f.path.startswith("assets/")}
    lines: dict[str, int] = {}
    for doc, codec, blob in router.execute("SELECT id, body_codec, body_blob FROM documents"):
        try:
            body = decode_body(doc, codec, blob, ctx.limits.max_body_bytes)
        except KnowledgeError as exc:
            ctx.add(exc.reason, exc.message, doc)
            continue
        lines[doc] = len(body_lines(body))
        if unicodedata.normalize("NFC", body) != body or "\r" in body:
            ctx.add("body-not-normalized", "the body is not NFC with LF line ends", doc, "warning")
        # The compiler's own reading of a body: text inside fenced code is not a reference.
        for target in asset_references(body):
            if target not in assets:
                ctx.add("missing-asset", f"the body references {target}, which is not shipped", doc)
    return lines


def _smoke(ctx: Context) -> None:
    router = ctx.router
    assert router is not None
    for smoke in ctx.manifest.smoke_queries or ():
        found = smoke_query_hits(router, smoke.query)
        missing = [d for d in smoke.expected_document_ids if d not in found]
        if missing:
            ctx.add(
                "smoke-query-failed",
                f"{smoke.query!r} does not return {', '.join(missing)} in the top {SMOKE_TOP_N}",
                smoke.query,
            )


def check_deep(ctx: Context) -> None:
    """Every deep check, each group guarded so one failure does not hide the others."""
    if ctx.router is None:
        return
    ctx.guard("integrity", lambda: _integrity(ctx))
    check_values(ctx)
    lines: dict[str, int] = {}

    def bodies() -> None:
        lines.update(_bodies(ctx))

    ctx.guard("bodies", bodies)
    chunk_counts: dict[int, int] = {}

    def counts() -> None:
        assert ctx.router is not None
        chunk_counts.update(ctx.router.execute("SELECT id, chunk_count FROM shards"))

    ctx.guard("shards", counts)
    for sid, conn in sorted(ctx.shard_conns.items()):
        count = chunk_counts.get(sid, 0)
        ctx.guard(f"shard {sid} chunks", functools.partial(_chunks, ctx, sid, conn, lines))
        if not isinstance(count, int):
            ctx.add("invalid-value", f"shards.chunk_count is {count!r}", f"shard {sid}")
            continue
        ctx.guard(f"shard {sid} vectors", functools.partial(_vectors, ctx, sid, conn, count))
    ctx.guard("smoke queries", lambda: _smoke(ctx))
