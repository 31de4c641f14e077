"""Which shard each document goes to (spec sections 8.1 and 8.3).

Documents arrive in ``(topicPathKey, documentId)`` order with their chunk counts. A catalog of
at most ``shardTargetChunks`` chunks has one shard, embedded in the router. Otherwise:

- **topic fill** (default): documents fill shards greedily, in order, to the target;
- **semantic fill**: ``ceil(chunks / target)`` shards by balanced k-means over unit document
  vectors (the normalised mean of each document's chunk vectors), each shard's capacity an even
  split plus 2%; shards are then numbered by their first document in order. A document without
  chunks has no vector and joins the shard of the document before it.

A document's chunks never split across shards, and no shard may exceed ``shard_max`` chunks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.passes.kmeans import RowSource, balanced_assignment, shard_fill_seed

__all__ = ["ShardFill", "assign_shards", "check_document_size", "document_vectors"]

ShardFill = Literal["topic", "semantic"]


def check_document_size(count: int, maximum: int, document_id: str) -> None:
    """Refuse a document with more chunks than a shard may hold."""
    if count > maximum:
        raise SourceError(
            f"has {count:,} chunks, more than a shard may hold ({maximum:,})",
            reason="document-too-large",
            document=document_id,
        )


def document_vectors(
    vectors: RowSource, spans: Iterable[tuple[int, int]], documents: int, dimensions: int
) -> NDArray[np.float32]:
    """Unit mean vectors of ``documents`` documents whose chunk rows are ``[first, first +
    count)``, read one document at a time."""
    out = np.zeros((documents, dimensions), dtype=np.float32)
    for i, (first, count) in enumerate(spans):
        if count:
            mean = vectors.read(first, count).astype(np.float64).sum(axis=0)
            norm = np.linalg.norm(mean)
            out[i] = (mean / norm if norm > 0 else mean).astype(np.float32)
    return out


def assign_shards(
    counts: NDArray[np.int64],
    *,
    fill: ShardFill,
    target: int,
    maximum: int,
    catalog_id: str,
    vectors: NDArray[np.float32] | None = None,
) -> NDArray[np.int64]:
    """The shard id of each document (documents in ``(topicPathKey, documentId)`` order, each of
    at most ``maximum`` chunks)."""
    total = int(counts.sum())
    if total <= target:
        return np.zeros(counts.shape[0], dtype=np.int64)
    if fill == "topic":
        return _topic_fill(counts, target)
    if vectors is None:
        raise ValueError("semantic fill needs document vectors")
    shards = _semantic_fill(counts, target, maximum, catalog_id, vectors)
    loads = np.bincount(shards, weights=counts, minlength=int(shards.max()) + 1)
    for shard, load in enumerate(loads.astype(np.int64).tolist()):
        if load > maximum:
            raise SourceError(
                f"semantic fill put {load:,} chunks in shard {shard} (maximum {maximum:,}); "
                "raise the maximum or use topic fill",
                reason="shard-too-large",
            )
    return shards


def _topic_fill(counts: NDArray[np.int64], target: int) -> NDArray[np.int64]:
    """Fill shards greedily in document order, starting a new one before the target is passed."""
    shards = np.empty(counts.shape[0], dtype=np.int64)
    current, filled = 0, 0
    for i, count in enumerate(counts.tolist()):
        if filled > 0 and filled + count > target:
            current, filled = current + 1, 0
        shards[i] = current
        filled += count
    return shards


def _semantic_fill(
    counts: NDArray[np.int64],
    target: int,
    maximum: int,
    catalog_id: str,
    vectors: NDArray[np.float32],
) -> NDArray[np.int64]:
    """Balanced k-means groups, numbered by their first document in order."""
    total = int(counts.sum())
    groups = math.ceil(total / target)
    capacity = min(maximum, math.ceil(total / groups * 1.02))
    with_chunks = np.flatnonzero(counts > 0)
    labels = balanced_assignment(
        np.ascontiguousarray(vectors[with_chunks]),
        counts[with_chunks].astype(np.int64),
        groups,
        capacity,
        shard_fill_seed(catalog_id),
    )
    raw = np.full(counts.shape[0], -1, dtype=np.int64)
    raw[with_chunks] = labels
    numbering: dict[int, int] = {}
    shards = np.empty(counts.shape[0], dtype=np.int64)
    previous = 0
    for i, label in enumerate(raw.tolist()):
        if label >= 0:
            if label not in numbering:
                numbering[label] = len(numbering)
            previous = numbering[label]
        shards[i] = previous  # a document without chunks follows its predecessor
    return shards
