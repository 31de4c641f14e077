"""A catalog's vector side: centroid routing, and two-stage passages over the routed shards
(spec section 8.4; seed "Two-stage catalog vector search").

The kernels (sign-bit loading, stage 1, the int8 rerank) are :mod:`.vectors`'; this module
decides which shards to scan, masks radius-ineligible chunks, keeps the per-handle sign-bit cache
and turns shard hits into ranked passages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from gezel_knowledge.errors import IntegrityFailure, InvalidInput
from gezel_knowledge.reader._rows import ChunkRow, ShardInfo
from gezel_knowledge.reader._store import CatalogStore
from gezel_knowledge.reader.hybrid import RankedPassage
from gezel_knowledge.reader.models import Stage1
from gezel_knowledge.reader.vectors import (
    BitCache,
    ShardHit,
    load_sign_bits,
    rank_shards,
    search_shard,
)
from gezk.profiles import EmbeddingProfile
from gezk.quantize import PackedBits, QueryTables

__all__ = ["VectorSearch"]


class VectorSearch:
    """Routing and two-stage passage search over one catalog's shards."""

    def __init__(
        self, store: CatalogStore, profile: EmbeddingProfile, bit_cache_bytes: int
    ) -> None:
        self._store = store
        self.profile = profile
        self.bits = BitCache(bit_cache_bytes)
        self._centroids: tuple[NDArray[np.int64], NDArray[np.float32]] | None = None

    def unit_query(self, query_vector: ArrayLike) -> NDArray[np.float32]:
        """The query as a unit float32 vector of the profile's dimensions."""
        q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.profile.dimensions:
            raise InvalidInput(
                f"query vector has {q.shape[0]} dimensions, the catalog's profile "
                f"{self.profile.id} has {self.profile.dimensions}",
                reason="dimension-mismatch",
            )
        norm = float(np.linalg.norm(q))
        if not np.isfinite(norm) or norm == 0.0:
            raise InvalidInput("query vector is zero or not finite", reason="invalid-vector")
        return q / np.float32(norm)

    # -- routing -----------------------------------------------------------------------------

    def _centroid_matrix(self) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
        if self._centroids is None:
            d = self.profile.dimensions
            rows = self._store.router.execute(
                "SELECT shard_id, embedding FROM route_centroids ORDER BY id"
            ).fetchall()
            # Columns of one two-column select: shard_id, embedding.
            if any(not isinstance(emb, bytes) or len(emb) != 4 * d for _, emb in rows):
                raise IntegrityFailure(
                    f"route_centroids rows are not {d} little-endian float32 values",
                    reason="invalid-centroids",
                )
            ids = np.array([int(shard) for shard, _ in rows], dtype=np.int64)
            data = b"".join(emb for _, emb in rows)
            mat = np.frombuffer(data, dtype="<f4").reshape(len(rows), d)
            self._centroids = (ids, mat.astype(np.float32))
        return self._centroids

    def score_shards(self, query_vector: ArrayLike) -> list[tuple[int, float]]:
        """Each routable shard's best centroid cosine, best first."""
        q = self.unit_query(query_vector)
        ids, mat = self._centroid_matrix()
        return rank_shards(ids, mat, q)

    def route(self, query_vector: ArrayLike, shard_budget: int) -> list[int]:
        """The shards a query scans: all populated ones when they fit the budget."""
        populated = [s.id for s in self._store.shards if s.chunk_count > 0]
        if len(populated) <= shard_budget:
            return populated
        return [sid for sid, _ in self.score_shards(query_vector)[: max(0, shard_budget)]]

    def _shards_to_scan(
        self,
        query: NDArray[np.float32],
        shards: Sequence[int] | None,
        shard_budget: int,
        eligible: Sequence[str] | None,
    ) -> list[int]:
        """Every shard holding an eligible document (radius), else the caller's choice, else
        this catalog's routing within the budget."""
        if eligible is not None:
            rows = self._store.router.execute(
                "SELECT DISTINCT shard_id FROM documents"
                " WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(eligible)),),
            )
            wanted = {int(shard_id) for (shard_id,) in rows}
            return [s.id for s in self._store.shards if s.id in wanted]
        if shards is not None:
            return list(shards)
        return self.route(query, shard_budget)

    # -- two-stage search --------------------------------------------------------------------

    def _sign_bits(self, shard: ShardInfo) -> PackedBits:
        conn = self._store.connection(shard)
        dims = self.profile.dimensions
        return self.bits.get(
            shard.id, lambda: load_sign_bits(conn, shard.id, shard.chunk_count, dims)
        )

    def _eligible_mask(self, shard: ShardInfo, eligible: Sequence[str]) -> NDArray[np.bool_]:
        mask = np.zeros(shard.chunk_count, dtype=np.bool_)
        rows = self._store.connection(shard).execute(
            "SELECT id FROM chunks WHERE document_id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(eligible)),),
        )
        ids = [chunk_id for (chunk_id,) in rows]
        if ids:
            idx = np.asarray(ids, dtype=np.int64) - 1
            if int(idx.min()) < 0 or int(idx.max()) >= shard.chunk_count:
                raise IntegrityFailure(
                    f"shard {shard.id} chunk ids are not dense", reason="vectors-misaligned"
                )
            mask[idx] = True
        return mask

    def _passages(self, hits: Sequence[ShardHit]) -> list[RankedPassage]:
        by_shard: dict[int, list[int]] = {}
        for h in hits:
            by_shard.setdefault(h.shard_id, []).append(h.chunk_id)
        rows: dict[tuple[int, int], ChunkRow] = {
            (sid, cid): row
            for sid, cids in by_shard.items()
            for cid, row in self._store.chunk_rows(self._store.shard(sid), cids).items()
        }
        out: list[RankedPassage] = []
        for h in hits:
            row = rows.get((h.shard_id, h.chunk_id))
            if row is None:
                raise IntegrityFailure(
                    f"shard {h.shard_id} has a vector for missing chunk {h.chunk_id}",
                    reason="vectors-misaligned",
                )
            out.append(RankedPassage(row, h.score))
        return out

    def passage_cosines(
        self, query: NDArray[np.float32], rows: Sequence[ChunkRow]
    ) -> dict[tuple[int, int], float]:
        """The stage-2 cosines of some passages against the unit query, by (shard, chunk id);
        one read of their int8 rows per shard."""
        by_shard: dict[int, list[int]] = {}
        for row in rows:
            by_shard.setdefault(row.shard_id, []).append(row.chunk_id)
        out: dict[tuple[int, int], float] = {}
        for shard_id, chunk_ids in by_shard.items():
            found = (
                self._store.connection(self._store.shard(shard_id))
                .execute(
                    "SELECT chunk_id, v FROM chunk_vectors_int8"
                    " WHERE chunk_id IN (SELECT value FROM json_each(?))",
                    (json.dumps(chunk_ids),),
                )
                .fetchall()
            )
            if len(found) != len(set(chunk_ids)) or any(
                not isinstance(v, bytes) or len(v) != query.shape[0] for _, v in found
            ):
                raise IntegrityFailure(
                    f"shard {shard_id} lacks int8 vectors of some of its chunks",
                    reason="vectors-misaligned",
                )
            matrix = np.frombuffer(b"".join(v for _, v in found), dtype=np.int8)
            # Row by row in float64, so a passage's cosine does not depend on the batch it is in.
            rows_f = matrix.reshape(len(found), -1).astype(np.float64) / 127.0
            scores = (rows_f * query.astype(np.float64)).sum(axis=1)
            out.update(
                ((shard_id, int(c)), float(x)) for (c, _), x in zip(found, scores, strict=True)
            )
        return out

    def passage_vectors(
        self, rows: Sequence[ChunkRow]
    ) -> dict[tuple[int, int], NDArray[np.float64]]:
        """The stage-2 vectors (int8 / 127, as :meth:`passage_cosines` scores them) of some
        passages, by (shard, chunk id); one read per shard. A shard lacking the vector of one of
        them fails as :meth:`passage_cosines` does (``vectors-misaligned``)."""
        by_shard: dict[int, list[int]] = {}
        for row in rows:
            by_shard.setdefault(row.shard_id, []).append(row.chunk_id)
        out: dict[tuple[int, int], NDArray[np.float64]] = {}
        dimensions = self.profile.dimensions
        for shard_id, chunk_ids in by_shard.items():
            found = (
                self._store.connection(self._store.shard(shard_id))
                .execute(
                    "SELECT chunk_id, v FROM chunk_vectors_int8"
                    " WHERE chunk_id IN (SELECT value FROM json_each(?))",
                    (json.dumps(chunk_ids),),
                )
                .fetchall()
            )
            if len(found) != len(set(chunk_ids)) or any(
                not isinstance(v, bytes) or len(v) != dimensions for _, v in found
            ):
                raise IntegrityFailure(
                    f"shard {shard_id} lacks int8 vectors of some of its chunks",
                    reason="vectors-misaligned",
                )
            matrix = np.frombuffer(b"".join(v for _, v in found), dtype=np.int8)
            rows_f = matrix.reshape(len(found), -1).astype(np.float64) / 127.0
            out.update(((shard_id, int(c)), rows_f[i]) for i, (c, _) in enumerate(found))
        return out

    def opening_cosines(
        self, query: NDArray[np.float32], shard_id: int, document_ids: Sequence[str]
    ) -> dict[str, float]:
        """The stage-2 cosine of the opening passage (ordinal 0) of each of these documents of
        one shard, by document: one indexed read of their int8 rows (no passage text), scored
        as :meth:`passage_cosines` scores."""
        found = (
            self._store.connection(self._store.shard(shard_id))
            .execute(
                "SELECT c.document_id, v.v FROM chunks AS c"
                " LEFT JOIN chunk_vectors_int8 AS v ON v.chunk_id = c.id"
                " WHERE c.ordinal = 0 AND c.document_id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(document_ids)),),
            )
            .fetchall()
        )
        if any(not isinstance(v, bytes) or len(v) != query.shape[0] for _, v in found):
            raise IntegrityFailure(
                f"shard {shard_id} lacks int8 vectors of some of its chunks",
                reason="vectors-misaligned",
            )
        if not found:
            return {}
        matrix = np.frombuffer(b"".join(v for _, v in found), dtype=np.int8)
        rows_f = matrix.reshape(len(found), -1).astype(np.float64) / 127.0
        scores = (rows_f * query.astype(np.float64)).sum(axis=1)
        return {str(d): float(x) for (d, _), x in zip(found, scores, strict=True)}

    def passages(
        self,
        query_vector: ArrayLike,
        *,
        shards: Sequence[int] | None,
        shard_budget: int,
        final_k: int,
        stage1: Stage1,
        eligible: Sequence[str] | None,
    ) -> tuple[list[RankedPassage], list[int]]:
        """Two-stage passages, best cosine first, and the shards scanned (routed once)."""
        q = self.unit_query(query_vector)
        if stage1 not in ("lut", "hamming"):
            raise InvalidInput(f"unknown stage-1 scan {stage1!r}", reason="invalid-stage1")
        shard_ids = self._shards_to_scan(q, shards, shard_budget, eligible)
        center = self.profile.center_array()
        tables = QueryTables.build(q, center) if stage1 == "lut" else None
        hits: list[ShardHit] = []
        for sid in shard_ids:
            shard = self._store.shard(sid)
            if shard.chunk_count == 0:
                continue
            bits = self._sign_bits(shard)
            mask = self._eligible_mask(shard, eligible) if eligible is not None else None
            hits += search_shard(
                self._store.connection(shard),
                sid,
                bits,
                q,
                final_k=final_k,
                center=center,
                stage1=stage1,
                tables=tables,
                mask=mask,
            )
            self.bits.trim()
        hits.sort(key=lambda h: (-h.score, h.shard_id, h.chunk_id))
        return self._passages(hits), shard_ids
