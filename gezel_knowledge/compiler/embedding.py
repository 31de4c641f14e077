"""Embedding a build's passages: batches, the content-hash vector cache, the spill file.

Embed inputs are queued in processing order; each full batch is looked up in the cache, its
misses embedded in one call, and the unit vectors appended to a little-endian float32 spill file
that the later passes map into memory (spec sections 6 and 10). A ``centered-sign`` profile's
center is the normalised mean of those vectors (section 6.2).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.vector_cache import VectorCache, embed_input_key
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput
from gezk.profiles import EmbeddingProfile

__all__ = ["PassageEmbedding", "passage_center", "spilled_vectors", "unit_rows"]


class PassageEmbedding:
    """Batches embed inputs, consults the cache, writes unit vectors to the spill file."""

    def __init__(
        self, embedder: Embedder, cache: VectorCache, spill: Path, batch: int, dimensions: int
    ) -> None:
        self.embedder = embedder
        self.cache = cache
        self.spill = spill.open("wb")
        self.batch = batch
        self.dimensions = dimensions
        self.pending: list[tuple[bytes, str]] = []
        self.added = 0
        """Embed inputs queued so far: the spill row of the next one."""
        self.embedded = 0
        """Passages embedded by the embedder."""
        self.cached = 0
        """Passages whose vectors came from the cache (or repeated an input of this build)."""
        self.seconds = 0.0
        """Time spent inside the embedder."""

    def add(self, text: str) -> None:
        """Queue ``header + text``; the embedder prefixes the passage instruction itself."""
        key = embed_input_key(self.embedder.profile.passage_instruction + text)
        self.pending.append((key, text))
        self.added += 1
        if len(self.pending) >= self.batch:
            self.flush()

    def flush(self) -> None:
        """Resolve every queued input to a vector and append them to the spill file."""
        if not self.pending:
            return
        keys = [k for k, _ in self.pending]
        found = self.cache.get_many(keys)
        missing: dict[bytes, str] = {}
        for key, text in self.pending:
            if key not in found and key not in missing:
                missing[key] = text
        if missing:
            started = time.perf_counter()
            raw = self.embedder.embed_passages(list(missing.values()))
            self.seconds += time.perf_counter() - started
            vectors = unit_rows(raw, len(missing), self.dimensions)
            fresh = dict(zip(missing, vectors, strict=True))
            self.cache.put_many(fresh.items())
            found.update(fresh)
            self.embedded += len(missing)
        self.cached += len(self.pending) - len(missing)
        block = np.stack([found[k] for k in keys]).astype("<f4")
        self.spill.write(block.tobytes())
        self.pending.clear()

    def close(self) -> None:
        """Flush and close the spill file."""
        self.flush()
        self.spill.close()


def unit_rows(raw: Any, n: int, dimensions: int) -> NDArray[np.float32]:
    """The embedder's output as ``n`` unit float32 rows; refuse a wrong shape or value."""
    vectors = np.asarray(raw, dtype=np.float64)
    if vectors.shape != (n, dimensions):
        raise InvalidInput(
            f"the embedder returned vectors of shape {vectors.shape}, expected ({n}, {dimensions})",
            reason="embedder-shape",
        )
    if not np.isfinite(vectors).all():
        raise InvalidInput("the embedder returned non-finite values", reason="embedder-values")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if (norms == 0).any():
        raise InvalidInput("the embedder returned a zero vector", reason="embedder-values")
    out: NDArray[np.float32] = (vectors / norms).astype(np.float32)
    return out


def spilled_vectors(spill: Path, rows: int, dimensions: int) -> NDArray[np.float32]:
    """The spill file mapped as a ``(rows, dimensions)`` float32 array (no file for no rows)."""
    if not rows:
        return np.zeros((0, dimensions), dtype=np.float32)
    return np.memmap(spill, dtype="<f4", mode="r", shape=(rows, dimensions))


def passage_center(vectors: NDArray[np.float32], profile: EmbeddingProfile) -> NDArray[np.float32]:
    """The normalised mean of the catalog's passage vectors, as float32."""
    if vectors.shape[0] == 0:
        raise SourceError(
            f"profile {profile.id} needs passage vectors to compute its center; "
            "the catalog has none",
            reason="no-passages",
        )
    total = np.zeros(vectors.shape[1], dtype=np.float64)
    for start in range(0, vectors.shape[0], 65_536):
        total += vectors[start : start + 65_536].astype(np.float64).sum(axis=0)
    norm = np.linalg.norm(total)
    if norm == 0:
        raise SourceError(
            "the passage vectors average to zero; no center exists", reason="no-center"
        )
    return (total / norm).astype(np.float32)
