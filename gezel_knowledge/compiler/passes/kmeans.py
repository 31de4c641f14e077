"""Seeded k-means++ for routing centroids (spec section 8.2) and semantic shard fill (8.1).

Seeds are the spec's: the low 64 bits of ``SHA-256(catalogId || 0x00 || decimal shardId)`` for
a shard's centroids and of ``SHA-256(catalogId || "#shard-fill" || 0x00 || "0")`` for semantic
fill, reading the digest as one big-endian 256-bit number (so the low 64 bits are its last
eight bytes, most significant first).

The spec does not pin a generator. This implementation draws uniform doubles in [0, 1) from
PCG64 (O'Neill's PCG-XSL-RR 128/64, as NumPy's ``PCG64`` bit generator implements it; NumPy
guarantees its raw stream is stable across releases), seeded with that integer, taking the top
53 bits of each raw 64-bit output. Only raw outputs are used, never a NumPy distribution method,
whose algorithms NumPy may change.

k-means++ picks the first centre uniformly and each next one with probability proportional to
the squared distance to the nearest chosen centre (``2 - 2 cos`` for unit vectors). Lloyd
iterations (at most 25) assign each vector to its most similar centre (ties: lowest index),
recentre on the mean, L2-normalised, and stop when no assignment changes; an empty cluster
keeps its centre. Sums are accumulated in float64 per cluster so the centroids are
reproducible; only the similarity matrix is computed in float32.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "CENTROID_CHUNKS_PER",
    "CENTROID_MAX",
    "CENTROID_SAMPLE_MAX",
    "KMEANS_MAX_ITERATIONS",
    "ArrayRows",
    "RowSource",
    "UniformSource",
    "balanced_assignment",
    "centroid_count",
    "centroid_sample_stride",
    "centroid_seed",
    "route_centroids",
    "shard_fill_seed",
]

CENTROID_CHUNKS_PER = 12_500
CENTROID_MAX = 32
CENTROID_SAMPLE_MAX = 65_536
KMEANS_MAX_ITERATIONS = 25
_BLOCK = 4096


def _low64(*parts: bytes) -> int:
    return int.from_bytes(hashlib.sha256(b"".join(parts)).digest()[24:], "big")


def centroid_seed(catalog_id: str, shard_id: int) -> int:
    """The k-means seed of a shard's routing centroids."""
    return _low64(catalog_id.encode("utf-8"), b"\x00", str(shard_id).encode("ascii"))


def shard_fill_seed(catalog_id: str) -> int:
    """The k-means seed of semantic shard fill."""
    return _low64(catalog_id.encode("utf-8"), b"#shard-fill", b"\x00", b"0")


class UniformSource:
    """Uniform doubles in [0, 1) from PCG64's raw 64-bit stream."""

    def __init__(self, seed: int) -> None:
        self._bits = np.random.PCG64(seed)

    def next(self) -> float:
        """The next uniform double."""
        raw = int(self._bits.random_raw())
        return (raw >> 11) * (1.0 / (1 << 53))


def centroid_count(chunks: int) -> int:
    """``clamp(ceil(chunks / 12500), 1, 32)`` (spec section 8.2)."""
    return max(1, min(CENTROID_MAX, math.ceil(chunks / CENTROID_CHUNKS_PER)))


class RowSource(Protocol):
    """Float32 rows read by position: an array in memory, or a spill file on disk."""

    @property
    def rows(self) -> int:
        """How many rows there are."""
        ...

    def read(self, first: int, count: int) -> NDArray[np.float32]:
        """Rows ``first .. first + count - 1``."""
        ...


class ArrayRows:
    """The rows of an array in memory, as a :class:`RowSource`."""

    def __init__(self, vectors: NDArray[np.float32]) -> None:
        self.vectors = vectors

    @property
    def rows(self) -> int:
        """How many rows there are."""
        return int(self.vectors.shape[0])

    def read(self, first: int, count: int) -> NDArray[np.float32]:
        """Rows ``first .. first + count - 1`` (a view)."""
        return np.asarray(self.vectors[first : first + count], dtype=np.float32)


class _Rows:
    """The rows of a :class:`RowSource`, read a block at a time.

    k-means works through these instead of a copy of its sample, so its memory stays bounded by
    one block whatever the shard's size.
    """

    def __init__(self, source: RowSource, dimensions: int) -> None:
        self.source = source
        self.n = source.rows
        self.dimensions = dimensions

    def block(self, start: int) -> NDArray[np.float32]:
        return self.source.read(start, min(_BLOCK, self.n - start))

    def starts(self) -> range:
        return range(0, self.n, _BLOCK)

    def row(self, i: int) -> NDArray[np.float32]:
        row: NDArray[np.float32] = self.source.read(i, 1)[0]
        return row

    def dots(self, vector: NDArray[np.float32]) -> NDArray[np.float64]:
        """Every row's dot product with ``vector``."""
        return (
            np.concatenate([(self.block(s) @ vector).astype(np.float64) for s in self.starts()])
            if self.n
            else np.zeros(0)
        )

    def assign(
        self, centres: NDArray[np.float64]
    ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
        """Each row's most similar centre (ties: lowest index), and per-centre sums and mass.

        One pass: every block is read once for both the assignment and the (float64,
        sequential, so reproducible) sums of the rows assigned to each centre.
        """
        c32 = centres.astype(np.float32)
        k = centres.shape[0]
        labels = np.empty(self.n, dtype=np.int64)
        sums = np.zeros((k, self.dimensions), dtype=np.float64)
        mass = np.zeros(k, dtype=np.float64)
        for start in self.starts():
            block = self.block(start)
            block_labels = np.argmax(np.einsum("ij,kj->ik", block, c32), axis=1)
            labels[start : start + block.shape[0]] = block_labels
            order = np.argsort(block_labels, kind="stable")
            ordered = block_labels[order]
            rows = block[order]
            bounds = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1], True])
            for a, b in itertools.pairwise(bounds):
                label = ordered[a]
                sums[label] += rows[a:b].sum(axis=0, dtype=np.float64)
                mass[label] += b - a
        return labels, sums, mass


def _kmeans_plus_plus(points: _Rows, k: int, source: UniformSource) -> list[int]:
    """Indices of ``k`` seed centres chosen by k-means++ (fewer if the points run out)."""
    n = points.n
    if n == 0 or k <= 0:
        return []
    chosen = [min(n - 1, int(source.next() * n))]
    nearest = np.maximum(0.0, 2.0 - 2.0 * points.dots(points.row(chosen[0])))
    while len(chosen) < k:
        total = float(nearest.sum())
        if total <= 0.0:
            break  # every remaining point coincides with a chosen centre
        target = source.next() * total
        pick = int(np.searchsorted(np.cumsum(nearest), target, side="right"))
        pick = min(pick, n - 1)
        while nearest[pick] <= 0.0 and pick > 0:
            pick -= 1  # never pick a point that is already a centre
        chosen.append(pick)
        distance = np.maximum(0.0, 2.0 - 2.0 * points.dots(points.row(pick)))
        nearest = np.minimum(nearest, distance)
    return chosen


def _normalise_rows(x: NDArray[np.float64]) -> NDArray[np.float64]:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: NDArray[np.float64] = x / norms
    return out


def centroid_sample_stride(chunks: int) -> int:
    """Every how many chunks of a shard (in chunk id order) the routing sample takes one:
    ``ceil(chunks / 65536)``, so the sample never exceeds 65,536 vectors."""
    return max(1, math.ceil(chunks / CENTROID_SAMPLE_MAX))


def route_centroids(
    sample: RowSource, chunks: int, dimensions: int, catalog_id: str, shard_id: int
) -> tuple[NDArray[np.float32], NDArray[np.int64]]:
    """A shard's routing centroids (unit float32 rows) and the sampled chunks assigned to each.

    ``sample`` holds every :func:`centroid_sample_stride`-th of the shard's ``chunks`` vectors
    in chunk id order, and is read a block at a time.
    """
    if chunks == 0 or sample.rows == 0:
        return np.zeros((0, dimensions), np.float32), np.zeros(0, np.int64)
    points = _Rows(sample, dimensions)
    k = min(centroid_count(chunks), points.n)
    source = UniformSource(centroid_seed(catalog_id, shard_id))
    centres = np.stack([points.row(i) for i in _kmeans_plus_plus(points, k, source)]).astype(
        np.float64
    )
    labels, sums, mass = points.assign(centres)
    for _ in range(KMEANS_MAX_ITERATIONS):
        filled = mass > 0
        centres[filled] = _normalise_rows(sums[filled])
        previous = labels
        labels, sums, mass = points.assign(centres)
        if np.array_equal(labels, previous):
            break  # another update would reproduce these centres
    weights = np.bincount(labels, minlength=centres.shape[0]).astype(np.int64)
    return _normalise_rows(centres).astype(np.float32), weights


def balanced_assignment(
    vectors: NDArray[np.float32],
    weights: NDArray[np.int64],
    groups: int,
    capacity: int,
    seed: int,
) -> NDArray[np.int64]:
    """Capacity-constrained k-means labels of unit ``vectors`` weighted by ``weights``.

    Seeds with k-means++, then alternates a capacity-constrained assignment (the rows closest to
    one centre relative to the next choose first; a row whose nearest centre is full takes the
    nearest with room, or the one with the most room when none fits) and weighted recentring.
    Rows are assumed to be in the order ties should be broken in.
    """
    n = vectors.shape[0]
    groups = max(1, min(groups, n))
    source = UniformSource(seed)
    points = _Rows(ArrayRows(vectors), vectors.shape[1])
    seeds = _kmeans_plus_plus(points, groups, source)
    centres = vectors[seeds].astype(np.float64)
    if centres.shape[0] < groups:
        # Coincident vectors: recycle the chosen seeds so every group has a centre.
        extra = [seeds[i % len(seeds)] for i in range(groups - len(seeds))]
        centres = np.vstack([centres, vectors[extra].astype(np.float64)])
    labels = np.full(n, -1, dtype=np.int64)
    w = weights.astype(np.int64)
    for _ in range(KMEANS_MAX_ITERATIONS):
        sims = (vectors @ centres.astype(np.float32).T).astype(np.float64)
        preference = np.argsort(-sims, axis=1, kind="stable")
        if groups > 1:
            top = np.take_along_axis(sims, preference[:, :2], axis=1)
            margin = top[:, 0] - top[:, 1]
        else:
            margin = np.zeros(n)
        order = np.lexsort((np.arange(n), -margin))
        load = np.zeros(groups, dtype=np.int64)
        new_labels = np.empty(n, dtype=np.int64)
        for row in order:
            need = w[row]
            for group in preference[row]:
                if load[group] + need <= capacity:
                    break
            else:
                group = int(np.argmax(capacity - load))
            new_labels[row] = group
            load[group] += need
        if np.array_equal(new_labels, labels):
            break
        labels = new_labels
        sums, mass = _weighted_sums(vectors, labels, groups, w.astype(np.float64))
        filled = mass > 0
        centres[filled] = _normalise_rows(sums[filled])
    return labels


def _weighted_sums(
    vectors: NDArray[np.float32], labels: NDArray[np.int64], k: int, weights: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-label weighted float64 sums of ``vectors`` (rows accumulated in order)."""
    sums = np.zeros((k, vectors.shape[1]), dtype=np.float64)
    mass = np.zeros(k, dtype=np.float64)
    for label in range(k):
        mask = labels == label
        if mask.any():
            w = weights[mask]
            sums[label] = (vectors[mask].astype(np.float64) * w[:, None]).sum(axis=0)
            mass[label] = w.sum()
    return sums, mass
