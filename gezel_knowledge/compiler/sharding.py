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
from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.kmeans import balanced_assignment, shard_fill_seed

__all__ = ["ShardFill", "assign_shards", "document_vectors"]

ShardFill = Literal["topic", "semantic"]


def document_vectors(
    vectors: NDArray[np.float32], first_rows: Sequence[int], counts: Sequence[int]
) -> NDArray[np.float32]:
    """Unit mean vectors of documents whose chunk rows are ``[first, first + count)``."""
    out = np.zeros((len(counts), vectors.shape[1]), dtype=np.float32)
    for i, (first, count) in enumerate(zip(first_rows, counts, strict=True)):
        if count:
            mean = vectors[first : first + count].astype(np.float64).sum(axis=0)
            norm = np.linalg.norm(mean)
            out[i] = (mean / norm if norm > 0 else mean).astype(np.float32)
    return out


def assign_shards(
    counts: Sequence[int],
    *,
    fill: ShardFill,
    target: int,
    maximum: int,
    catalog_id: str,
    doc_ids: Sequence[str],
    vectors: NDArray[np.float32] | None = None,
) -> list[int]:
    """The shard id of each document (documents in ``(topicPathKey, documentId)`` order)."""
    total = sum(counts)
    for count, doc_id in zip(counts, doc_ids, strict=True):
        if count > maximum:
            raise SourceError(
                f"has {count:,} chunks, more than a shard may hold ({maximum:,})",
                reason="document-too-large",
                document=doc_id,
            )
    if total <= target:
        return [0] * len(counts)
    if fill == "topic":
        return _topic_fill(counts, target)
    if vectors is None:
        raise ValueError("semantic fill needs document vectors")
    shards = _semantic_fill(counts, target, maximum, catalog_id, vectors)
    loads: dict[int, int] = {}
    for shard, count in zip(shards, counts, strict=True):
        loads[shard] = loads.get(shard, 0) + count
    for shard, load in loads.items():
        if load > maximum:
            raise SourceError(
                f"semantic fill put {load:,} chunks in shard {shard} (maximum {maximum:,}); "
                "raise the maximum or use topic fill",
                reason="shard-too-large",
            )
    return shards


def _topic_fill(counts: Sequence[int], target: int) -> list[int]:
    """Fill shards greedily in document order, starting a new one before the target is passed."""
    shards: list[int] = []
    current, filled = 0, 0
    for count in counts:
        if filled > 0 and filled + count > target:
            current, filled = current + 1, 0
        shards.append(current)
        filled += count
    return shards


def _semantic_fill(
    counts: Sequence[int],
    target: int,
    maximum: int,
    catalog_id: str,
    vectors: NDArray[np.float32],
) -> list[int]:
    """Balanced k-means groups, numbered by their first document in order."""
    total = sum(counts)
    groups = math.ceil(total / target)
    capacity = min(maximum, math.ceil(total / groups * 1.02))
    with_chunks = [i for i, c in enumerate(counts) if c > 0]
    labels = balanced_assignment(
        np.ascontiguousarray(vectors[with_chunks]),
        np.asarray([counts[i] for i in with_chunks], dtype=np.int64),
        groups,
        capacity,
        shard_fill_seed(catalog_id),
    )
    raw = [-1] * len(counts)
    for row, label in zip(with_chunks, labels, strict=True):
        raw[row] = int(label)
    numbering: dict[int, int] = {}
    shards = []
    previous = 0
    for label in raw:
        if label < 0:
            shards.append(previous)  # a document without chunks follows its predecessor
            continue
        if label not in numbering:
            numbering[label] = len(numbering)
        previous = numbering[label]
        shards.append(previous)
    return shards
