"""Vector spill files: float32 rows appended in order, read back a block at a time.

A build's vectors never live in memory together. Pass 1 appends each passage's unit vector, in
processing order, to a little-endian float32 file; later passes read the rows they need by
position into small buffers. The file is read with ``readinto``, not mapped: pages of a memory
map that a pass has touched count towards the process's resident memory until it unmaps them,
so a map over a million vectors would hold 1.5 GB resident however little is needed at once,
while pages read into a buffer stay in the kernel's page cache, which the kernel may drop.
"""

from __future__ import annotations

from io import BufferedRandom
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

__all__ = ["VectorSpill"]


class VectorSpill:
    """An append-only file of ``(rows, dimensions)`` little-endian float32 vectors."""

    def __init__(self, path: Path, dimensions: int) -> None:
        self.path = path
        self.dimensions = dimensions
        self.rows = 0
        """Rows written so far."""
        self._row_bytes = dimensions * 4
        self._file: BufferedRandom | None = path.open("w+b")

    def append(self, block: NDArray[np.float32]) -> None:
        """Append ``block``'s rows."""
        if block.ndim != 2 or block.shape[1] != self.dimensions:
            raise ValueError(f"expected rows of {self.dimensions} values, got {block.shape}")
        file = self._open()
        file.seek(self.rows * self._row_bytes)
        file.write(np.ascontiguousarray(block, dtype="<f4").tobytes())
        self.rows += block.shape[0]

    def read(self, first: int, count: int) -> NDArray[np.float32]:
        """Rows ``first .. first + count - 1`` as a new float32 array."""
        if first < 0 or count < 0 or first + count > self.rows:
            raise IndexError(f"rows {first}..{first + count} outside 0..{self.rows}")
        out = np.empty((count, self.dimensions), dtype="<f4")
        if count:
            file = self._open()
            file.seek(first * self._row_bytes)
            got = file.readinto(out.data.cast("B"))
            if got != out.nbytes:
                raise OSError(f"{self.path}: short read ({got} of {out.nbytes} bytes)")
        return out.astype(np.float32, copy=False)

    def blocks(self, size: int) -> range:
        """Start rows of consecutive blocks of ``size`` rows."""
        return range(0, self.rows, size)

    def close(self) -> None:
        """Close the file (it stays on disk with its build's scratch folder)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def _open(self) -> BufferedRandom:
        if self._file is None:
            raise ValueError(f"{self.path} is closed")
        return self._file
