"""Pooling token states into one vector per text, and L2 normalisation (spec section 6.1)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from gezk.profiles import Pooling

__all__ = ["l2_normalize", "pool"]


def pool(
    hidden: NDArray[np.floating[Any]], mask: NDArray[np.integer[Any]], method: Pooling
) -> NDArray[np.float32]:
    """``(b, s, d)`` token states and a right-padded ``(b, s)`` mask -> ``(b, d)`` vectors.

    ``mean`` averages the states the mask keeps, ``cls`` takes the first position and ``last``
    the last kept position of each row.
    """
    states = np.asarray(hidden, dtype=np.float32)
    if method == "mean":
        weights = mask.astype(np.float32)
        summed = np.einsum("bsd,bs->bd", states, weights)
        counts = np.maximum(weights.sum(axis=1, keepdims=True), 1.0)
        return np.ascontiguousarray(summed / counts, dtype=np.float32)
    if method == "cls":
        return np.ascontiguousarray(states[:, 0, :], dtype=np.float32)
    if method == "last":
        last = np.maximum(mask.sum(axis=1).astype(np.int64) - 1, 0)
        return np.ascontiguousarray(states[np.arange(states.shape[0]), last, :], dtype=np.float32)
    raise ValueError(f"unknown pooling {method!r}")


def l2_normalize(vectors: NDArray[np.float32]) -> NDArray[np.float32]:
    """Rows scaled to unit length (an all-zero row stays zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.ascontiguousarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)
