"""The persistent content-hash -> vector cache (spec section 10's reproducibility authority).

An SQLite file keyed by the vector space (a digest of the embedding profile's identity fields)
and the SHA-256 of the complete embed input (passage instruction, context header and text), so a
passage that did not change is never embedded twice, across builds and catalogs. Vectors are
stored as little-endian float32 exactly as they were first produced; a rebuild on another
machine with the cache reproduces the release's vectors bit for bit.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge._faults import storage_faults
from gezel_knowledge.home import gezel_home
from gezk.jcs import canonicalize
from gezk.profiles import EmbeddingProfile

__all__ = [
    "CacheReader",
    "VectorCache",
    "default_cache_dir",
    "embed_input_key",
    "vector_space_digest",
]

_FILE = "vectors.sqlite"
_IN_BATCH = 500
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
        self._folder = folder
        self._conn: sqlite3.Connection | None = None
        if folder is not None:
            with self._faults("open"):
                folder.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(folder / _FILE, timeout=30.0)
                try:
                    conn.execute("PRAGMA journal_mode = WAL")
                    conn.execute("PRAGMA synchronous = NORMAL")
                    conn.executescript(_SCHEMA)
                except BaseException:
                    conn.close()
                    raise
            self._conn = conn

    def _faults(self, doing: str) -> contextlib.AbstractContextManager[None]:
        """A full disk, a read-only home or a lock held elsewhere as a
        :class:`~gezel_knowledge.errors.StorageUnavailable` naming the cache file; a write that
        fails is rolled back, so the cache keeps every vector it held."""
        where = (self._folder or Path(".")) / _FILE
        return storage_faults(where, f"{doing} the vector cache (cache_dir=None builds without it)")

    @property
    def enabled(self) -> bool:
        """Whether vectors persist across builds."""
        return self._conn is not None

    @property
    def folder(self) -> Path | None:
        """The cache folder (``None`` without one)."""
        return self._folder

    def reader(self) -> CacheReader | None:
        """A read-only view for workers in other processes (``None`` without a folder)."""
        if self._folder is None:
            return None
        return CacheReader(self._folder, self._space, self._dimensions)

    def known(self, keys: Sequence[bytes]) -> set[bytes]:
        """The keys among ``keys`` the cache holds a vector for."""
        if self._conn is None:
            return set()
        with self._faults("read"):
            return _known(self._conn, self._space, self._dimensions, keys)

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, NDArray[np.float32]]:
        """The cached vectors among ``keys``."""
        if self._conn is None or not keys:
            return {}
        found: dict[bytes, NDArray[np.float32]] = {}
        unique = list(dict.fromkeys(keys))
        with self._faults("read"):
            self._get_batches(unique, found)
        return found

    def _get_batches(self, unique: list[bytes], found: dict[bytes, NDArray[np.float32]]) -> None:
        assert self._conn is not None
        for start in range(0, len(unique), _IN_BATCH):
            batch = unique[start : start + _IN_BATCH]
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

    def put_many(self, items: Iterable[tuple[bytes, NDArray[np.float32]]]) -> None:
        """Store vectors (first writer wins: a cached vector is never replaced)."""
        if self._conn is None:
            return
        rows = [
            (self._space, key, np.asarray(vector, dtype="<f4").tobytes()) for key, vector in items
        ]
        with self._faults("write"), self._conn:
            self._conn.executemany(
                "INSERT OR IGNORE INTO vectors(space, input_sha256, vector) VALUES (?, ?, ?)", rows
            )

    def close(self) -> None:
        """Close the cache database."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _known(
    conn: sqlite3.Connection, space: str, dimensions: int, keys: Sequence[bytes]
) -> set[bytes]:
    found: set[bytes] = set()
    unique = list(dict.fromkeys(keys))
    for start in range(0, len(unique), _IN_BATCH):
        batch = unique[start : start + _IN_BATCH]
        marks = ",".join("?" * len(batch))
        rows = conn.execute(
            "SELECT input_sha256 FROM vectors WHERE space = ? AND length(vector) = ? "
            f"AND input_sha256 IN ({marks})",
            [space, dimensions * 4, *batch],
        )
        found.update(bytes(key) for (key,) in rows)
    return found


class CacheReader:
    """Which embed inputs a cache folder holds, through a read-only connection opened on first
    use; pickled without it, so a worker process or a Ray actor opens its own."""

    def __init__(self, folder: Path, space: str, dimensions: int) -> None:
        self.folder = folder
        self.space = space
        self.dimensions = dimensions
        self._conn: sqlite3.Connection | None = None

    def __call__(self, keys: Sequence[bytes]) -> set[bytes]:
        """The keys among ``keys`` the cache holds a vector for (none if it has no file yet)."""
        if self._conn is None:
            path = self.folder / _FILE
            if not path.is_file():
                return set()
            self._conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=30.0)
        return _known(self._conn, self.space, self.dimensions, keys)

    def __getstate__(self) -> tuple[Path, str, int]:
        return (self.folder, self.space, self.dimensions)

    def __setstate__(self, state: tuple[Path, str, int]) -> None:
        self.folder, self.space, self.dimensions = state
        self._conn = None
