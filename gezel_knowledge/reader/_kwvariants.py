"""Which vocabulary terms each key of the keyword index stands for, kept as term numbers.

A stem's variants, or the CJK terms holding a character pair: the FTS5 fallback and the title
lists ask for them one key at a time. A Chinese shard's million pair keys share a million
terms, each term under eight keys or so, so each term's text is stored once and each key keeps
the numbers of its terms (``int32``); a key's list is decoded when asked, never all at load.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["Variants", "ranges", "utf8_offsets"]

_SPACE = 0x20


def utf8_offsets(terms: list[str]) -> tuple[NDArray[np.int64], NDArray[np.uint8]]:
    """The UTF-8 bytes of ``terms`` one after the other and where each starts (and the last
    ends), counted over the code points with numpy rather than one encoding per term."""
    offsets = np.zeros(len(terms) + 1, dtype=np.int64)
    if not terms:
        return offsets, np.zeros(0, dtype=np.uint8)
    joined = "".join(terms)
    codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    # UTF-8 spends 1 byte below U+0080, 2 below U+0800, 3 below U+10000, 4 above.
    widths = 1 + (codes >= 0x80) + (codes >= 0x800) + (codes >= 0x10000)
    del codes
    ends = np.cumsum(np.array([len(t) for t in terms], dtype=np.int64))
    at = np.concatenate(([0], np.cumsum(widths, dtype=np.int64)))
    offsets[1:] = at[ends]
    return offsets, np.frombuffer(joined.encode("utf-8"), dtype=np.uint8)


@dataclass(slots=True)
class Variants:
    """Each key's terms: ``ids[key_offsets[k]:key_offsets[k + 1]]`` numbers terms whose
    UTF-8 text is ``text[term_offsets[t]:term_offsets[t + 1]]``."""

    key_offsets: NDArray[np.int64]
    ids: NDArray[np.int32]
    term_offsets: NDArray[np.int64]
    text: NDArray[np.uint8]

    @property
    def terms(self) -> int:
        """How many vocabulary terms there are."""
        return int(self.term_offsets.shape[0]) - 1

    def of(self, key_id: int) -> list[str]:
        """The terms of key ``key_id``, in vocabulary order."""
        ids = self.ids[int(self.key_offsets[key_id]) : int(self.key_offsets[key_id + 1])]
        if ids.shape[0] == 0:
            return []
        starts = self.term_offsets[ids]
        sizes = self.term_offsets[ids + 1] - starts
        # One gather and one decode for the whole list; terms never hold a space (FTS5 splits
        # tokens at spaces), so a space separates them.
        room = sizes + 1
        placed = np.cumsum(room) - room
        out = np.full(int(room.sum()) - 1, _SPACE, dtype=np.uint8)
        out[ranges(placed, sizes)] = self.text[ranges(starts, sizes)]
        return out.tobytes().decode("utf-8").split(" ")


def ranges(starts: NDArray[np.int64], lengths: NDArray[np.int64]) -> NDArray[np.int64]:
    """The positions of several ranges, one after the other."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    shift = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return shift + np.arange(total, dtype=np.int64)
