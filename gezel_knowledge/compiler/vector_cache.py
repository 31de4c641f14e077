"""The persistent content-hash -> vector cache (spec section 10's reproducibility authority).

An SQLite file keyed by the vector space (a digest of the embedding profile's identity fields)
and the SHA-256 of the complete embed input (passage instruction, context header and text), so a
passage that did not change is never embedded twice, across builds and catalogs. Vectors are
stored as little-endian float32 exactly as they were first produced; a rebuild on another
machine with the cache reproduces the release's vectors bit for bit.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.home import gezel_home
from gezk.jcs import canonicalize
from gezk.profiles import EmbeddingProfile

__all__ = ["VectorCache", "default_cache_dir", "embed_input_key", "vector_space_digest"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors(
  space TEXT NOT NULL,
  input_sha256 BLOB NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (space, input_sha256)
) WITHOUT ROWID;
"""


def default_cache_dir() -> Path:
    """``<GEZEL_HOME>/cache/embeddings`` (``GEZEL_HOME`` defaults to ``~/.gezel``)."""
    return gezel_home() / "cache" / "embeddings"


def vector_space_digest(profile: EmbeddingProfile) -> str:
    """A digest of everything that decides a passage's float vector in ``profile``.

    The profile's id and maxTokens are labels, and the quantization only decides how vectors
    are stored, so they are left out; model, tokenizer (digests included), pooling,
    normalisation, dimensions and instructions are in.
    """
    identity = profile.to_json()
    for key in ("id", "maxTokens", "quantization", "distance", "vectorEncoding"):
        identity.pop(key, None)
    return hashlib.sha256(canonicalize(identity)).hexdigest()


def embed_input_key(embed_input: str) -> bytes:
    """The cache key of an embed input: SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(embed_input.encode("utf-8")).digest()


class VectorCache:
    """Vectors by (vector space, embed input hash); an in-memory no-op without a folder."""

    def __init__(self, folder: Path | None, profile: EmbeddingProfile) -> None:
        self._space = vector_space_digest(profile)
        self._dimensions = profile.dimensions
        self._conn: sqlite3.Connection | None = None
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(folder / "vectors.sqlite", timeout=30.0)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.executescript(_SCHEMA)
            self._conn = conn

    @property
    def enabled(self) -> bool:
        """Whether vectors persist across builds."""
        return self._conn is not None

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, NDArray[np.float32]]:
        """The cached vectors among ``keys``."""
        if self._conn is None or not keys:
            return {}
        found: dict[bytes, NDArray[np.float32]] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            batch = unique[start : start + 500]
            marks = ",".join("?" * len(batch))
            rows = self._conn.execute(
                "SELECT input_sha256, vector FROM vectors "
                f"WHERE space = ? AND input_sha256 IN ({marks})",
                [self._space, *batch],
            )
            for key, blob in rows:
                vector = np.frombuffer(blob, dtype="<f4")
                if vector.shape[0] == self._dimensions:
                    found[bytes(key)] = vector.astype(np.float32)
        return found

    def put_many(self, items: Iterable[tuple[bytes, NDArray[np.float32]]]) -> None:
        """Store vectors (first writer wins: a cached vector is never replaced)."""
        if self._conn is None:
            return
        rows = [
            (self._space, key, np.asarray(vector, dtype="<f4").tobytes()) for key, vector in items
        ]
        with self._conn:
            self._conn.executemany(
                "INSERT OR IGNORE INTO vectors(space, input_sha256, vector) VALUES (?, ?, ?)", rows
            )

    def close(self) -> None:
        """Close the cache database."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
