"""``test-hash-embed@1``: the conformance kit's deterministic embedder (spec section 13).

Not a model: a reproducible stand-in for one. ``h = SHA-256(utf8(text))``; its bytes, read as
signed int8 ``b``, yield ``(b + 0.5) / 128``; when the digest is exhausted ``h = SHA-256(h)``.
The compiler L2-normalises the result.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["hash_embed", "hash_embed_raw"]


def hash_embed_raw(text: str, dimensions: int = 384) -> NDArray[np.float64]:
    """The un-normalised hash vector of ``text``."""
    blocks = -(-dimensions // 32)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    parts = [digest]
    for _ in range(blocks - 1):
        digest = hashlib.sha256(digest).digest()
        parts.append(digest)
    signed = np.frombuffer(b"".join(parts), dtype=np.int8)[:dimensions].astype(np.float64)
    return (signed + 0.5) / 128.0


def hash_embed(texts: Sequence[str], dimensions: int = 384) -> NDArray[np.float32]:
    """Unit float32 hash vectors, one row per text."""
    out = np.empty((len(texts), dimensions), dtype=np.float32)
    for i, text in enumerate(texts):
        raw = hash_embed_raw(text, dimensions)
        out[i] = raw / np.linalg.norm(raw)
    return out
