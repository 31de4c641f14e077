"""The driver's side of embedding: one vector per passage, in processing order, on disk.

Workers (:mod:`~gezel_knowledge.compiler.passes.passages`) return batches of chunked documents with
the vectors they computed. :class:`PassageVectors` takes the batches in processing order and gives
every chunk exactly one vector: the one an earlier chunk of this build with the same embed input
already has, else the persistent cache's, else the worker's. So an input repeated anywhere in a
build gets one vector whichever process embedded which copy, and the archive does not depend on
how the work was split (spec sections 6 and 10). The vectors are appended to the build's spill
file (:class:`~gezel_knowledge.compiler.passes.spill.VectorSpill`); new ones go to the persistent
cache as they arrive, so an interrupted build resumes from where it stopped.

A ``centered-sign`` profile's center is the normalised mean of those vectors (section 6.2).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.passes.passages import PassageBatch
from gezel_knowledge.compiler.passes.spill import VectorSpill
from gezel_knowledge.compiler.passes.staging import Staging
from gezel_knowledge.compiler.passes.vector_cache import VectorCache
from gezel_knowledge.errors import IntegrityFailure
from gezk.profiles import EmbeddingProfile

__all__ = ["CENTER_BLOCK", "PassageVectors", "passage_center"]

CENTER_BLOCK = 65_536
"""Rows per partial sum of the center (the partial sums are added in order)."""
_READ_BLOCK = 4_096


class PassageVectors:
    """Resolves each batch's chunk vectors in order and appends them to the spill file."""

    def __init__(self, spill: VectorSpill, staging: Staging, cache: VectorCache) -> None:
        self.spill = spill
        self.staging = staging
        self.cache = cache
        self.embedded = 0
        """Vectors computed by an embedder in this build."""
        self.cached = 0
        """Passages whose vectors came from the cache or repeated an input of this build."""
        self.seconds = 0.0
        """Time spent inside embedders (summed over processes)."""

    @property
    def rows(self) -> int:
        """Vectors written so far: the spill row of the next passage."""
        return self.spill.rows

    def take(self, batch: PassageBatch) -> None:
        """Append the vectors of ``batch``'s chunks, in order."""
        self.seconds += batch.seconds
        keys = batch.keys
        if not keys:
            return
        earlier = self.staging.first_rows(keys)
        stored = self.cache.get_many([k for k in keys if k not in earlier])
        computed = {
            keys[p]: row for p, row in zip(batch.embedded.tolist(), batch.vectors, strict=True)
        }
        base = self.spill.rows
        block = np.empty((len(keys), self.spill.dimensions), dtype=np.float32)
        first: dict[bytes, int] = {}
        fresh: dict[bytes, NDArray[np.float32]] = {}
        for i, key in enumerate(keys):
            if key in earlier:
                block[i] = self.spill.read(earlier[key], 1)[0]
            elif key in first:
                block[i] = block[first[key] - base]
            elif key in stored:
                block[i] = stored[key]
            elif key in computed:
                block[i] = fresh[key] = computed[key]
            else:
                raise IntegrityFailure(
                    "the vector cache no longer holds a vector a worker found in it; "
                    "was the cache removed during the build?",
                    reason="vector-cache-changed",
                )
            first.setdefault(key, base + i)
        self.embedded += len(fresh)
        self.cached += len(keys) - len(fresh)
        self.spill.append(block)
        self.staging.note_rows((k, row) for k, row in first.items() if k not in earlier)
        self.cache.put_many(fresh.items())


def passage_center(spill: VectorSpill, profile: EmbeddingProfile) -> NDArray[np.float32]:
    """The normalised mean of the catalog's passage vectors, as float32.

    Sums run in float64, row after row, in blocks of :data:`CENTER_BLOCK` rows added in order;
    each block is read a few thousand rows at a time and its running sum carried into the next
    read, which gives the very bits one sum over the whole block gives.
    """
    if spill.rows == 0:
        raise SourceError(
            f"profile {profile.id} needs passage vectors to compute its center; "
            "the catalog has none",
            reason="no-passages",
        )
    total = np.zeros(spill.dimensions, dtype=np.float64)
    for start in spill.blocks(CENTER_BLOCK):
        stop = min(start + CENTER_BLOCK, spill.rows)
        partial: NDArray[np.float64] | None = None
        for first in range(start, stop, _READ_BLOCK):
            rows = spill.read(first, min(_READ_BLOCK, stop - first)).astype(np.float64)
            if partial is not None:
                # numpy sums axis 0 of a C-ordered array row after row: prepending the running
                # sum continues the same sequence of additions.
                rows = np.vstack([partial[None, :], rows])
            partial = rows.sum(axis=0)
        assert partial is not None
        total += partial
    norm = np.linalg.norm(total)
    if norm == 0:
        raise SourceError(
            "the passage vectors average to zero; no center exists", reason="no-center"
        )
    return (total / norm).astype(np.float32)
