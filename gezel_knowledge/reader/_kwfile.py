"""The keyword index's cache file: written once to a temp file and renamed, memory-mapped after.

Layout: 8 magic bytes, the header's length and its CRC-32 (8 bytes each, little-endian),
the header (UTF-8 JSON, padded to 8 bytes), then the arrays, each at the 8-aligned offset the
header gives. The header names what the file was derived from and how (format version,
archive digest, shard id, the shard file's declared digest, size and modification time,
stemmer, BM25 parameters), the arrays' places, the file's total size and a CRC-32 of every
array but the postings; each posting list has its own CRC-32, checked the first time a search
reads it. A file that does not match what is asked, is cut short, or fails a check is refused
(:class:`IndexRefused`); the caller then builds it again.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import tempfile
import zlib
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.reader._kwindex import BuiltIndex
from gezel_knowledge.reader._kwvariants import Variants

__all__ = ["FORMAT_VERSION", "IndexRefused", "read_index", "write_index"]

FORMAT_VERSION = 6
"""Bumped whenever the layout or the arithmetic changes: older files are rebuilt (6: each key's
variants are numbers of vocabulary terms stored once, ``reader._kwvariants``; 5 kept them as
space-joined text per key; 5: terms holding CJK characters are keyed by their bigrams and
marked joined words, ``gezel_knowledge.cjk``; 4 keyed joined words as plain ones)."""

_MAGIC = b"GZKWIX\r\n"
_ALIGN = 8
_PREFIX = len(_MAGIC) + 16
_DICTIONARY = (
    "lengths",
    "offsets",
    "max_parts",
    "checks",
    "key_offsets",
    "key_bytes",
    "variant_offsets",
    "variant_terms",
    "term_offsets",
    "term_bytes",
)
_DTYPES = {
    "lengths": "<u4",
    "offsets": "<i8",
    "max_parts": "<f8",
    "checks": "<u4",
    "key_offsets": "<i8",
    "key_bytes": "u1",
    "variant_offsets": "<i8",
    "variant_terms": "<i4",
    "term_offsets": "<i8",
    "term_bytes": "u1",
    "docs": "<i4",
    "freqs": "<u2",
}


class IndexRefused(Exception):
    """A cache file that is not the index asked for (missing, stale, foreign, damaged)."""


def _key_arrays(keys: list[str]) -> tuple[NDArray[np.int64], NDArray[np.uint8]]:
    encoded = [k.encode("utf-8") for k in keys]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8)


def _pad(n: int) -> int:
    return (-n) % _ALIGN


def write_index(path: Path, built: BuiltIndex, identity: dict[str, Any]) -> None:
    """Write ``built`` to ``path`` through a temp file in the same folder and a rename."""
    key_offsets, key_bytes = _key_arrays(built.keys)
    found = built.variants
    none = np.zeros(0, dtype=np.int64)
    arrays: dict[str, NDArray[Any]] = {
        "lengths": built.lengths,
        "offsets": built.offsets,
        "max_parts": built.max_parts,
        "checks": built.checks,
        "key_offsets": key_offsets,
        "key_bytes": key_bytes,
        "variant_offsets": none if found is None else found.key_offsets,
        "variant_terms": none if found is None else found.ids,
        "term_offsets": none if found is None else found.term_offsets,
        "term_bytes": none if found is None else found.text,
        "docs": built.docs,
        "freqs": built.freqs,
    }
    places: dict[str, list[int]] = {}
    position = 0
    for name, array in arrays.items():
        places[name] = [position, int(array.shape[0])]
        position += array.nbytes + _pad(array.nbytes)
    crc = 0
    for name in _DICTIONARY:
        crc = zlib.crc32(np.ascontiguousarray(arrays[name], _DTYPES[name]).tobytes(), crc)
    header: dict[str, Any] = {
        **identity,
        "format": FORMAT_VERSION,
        "rows": built.rows,
        "tokens": built.tokens,
        "arrays": places,
        "body_bytes": position,
        "dictionary_crc32": crc,
    }
    text = json.dumps(header, sort_keys=True).encode("utf-8")
    text += b" " * _pad(len(text))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + len(text).to_bytes(8, "little"))
            fh.write(zlib.crc32(text).to_bytes(8, "little") + text)
            for name, array in arrays.items():
                _write_array(fh, np.ascontiguousarray(array, _DTYPES[name]))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise


def _write_array(fh: BinaryIO, array: NDArray[Any]) -> None:
    fh.write(array.tobytes())
    fh.write(b"\0" * _pad(array.nbytes))


def read_index(path: Path, identity: dict[str, Any]) -> tuple[BuiltIndex, mmap.mmap]:
    """Map ``path`` and check it is the index ``identity`` describes; raises
    :class:`IndexRefused` otherwise. The map stays open as long as the arrays are used."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < _PREFIX:
                raise IndexRefused("cut short")
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError as exc:
        raise IndexRefused("missing") from exc
    except (OSError, ValueError) as exc:
        raise IndexRefused(f"unreadable: {exc}") from exc
    try:
        return _parse(mapped, size, identity), mapped
    except IndexRefused as exc:
        refusal = str(exc)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        refusal = f"damaged: {exc}"
    # The exception is gone with the parse's frame and its arrays (views of the map): a check
    # failed after the arrays were mapped no longer keeps the map from closing.
    mapped.close()
    raise IndexRefused(refusal)


def _variants(arrays: dict[str, NDArray[Any]], keys: int) -> Variants | None:
    """Each key's vocabulary terms (``None`` for an index whose keys are its terms)."""
    offsets, ids = arrays["variant_offsets"], arrays["variant_terms"]
    term_offsets, text = arrays["term_offsets"], arrays["term_bytes"]
    if offsets.shape[0] == 0:
        return None
    terms = term_offsets.shape[0] - 1
    if (
        offsets.shape[0] != keys + 1
        or offsets[0] != 0
        or offsets[-1] != ids.shape[0]
        or np.any(np.diff(offsets) < 0)
        or terms < 0
        or term_offsets[0] != 0
        or term_offsets[-1] != text.shape[0]
        or np.any(np.diff(term_offsets) < 0)
        or (ids.shape[0] and (int(ids.min()) < 0 or int(ids.max()) >= terms))
    ):
        raise IndexRefused("inconsistent arrays")
    return Variants(offsets, ids, term_offsets, text)


def _parse(mapped: mmap.mmap, size: int, identity: dict[str, Any]) -> BuiltIndex:
    if mapped[: len(_MAGIC)] != _MAGIC:
        raise IndexRefused("not a keyword index")
    length = int.from_bytes(mapped[len(_MAGIC) : len(_MAGIC) + 8], "little")
    start = _PREFIX + length
    if length > 1 << 20 or start > size or length % _ALIGN:
        raise IndexRefused("damaged header")
    text = bytes(mapped[_PREFIX:start])
    if zlib.crc32(text) != int.from_bytes(mapped[len(_MAGIC) + 8 : _PREFIX], "little"):
        raise IndexRefused("damaged header")
    header = json.loads(text.decode("utf-8"))
    if not isinstance(header, dict) or header.get("format") != FORMAT_VERSION:
        raise IndexRefused("another format version")
    for key, value in identity.items():
        if key not in header or header[key] != value:
            raise IndexRefused(f"stale or foreign: {key} differs")
    if start + int(header["body_bytes"]) != size:
        raise IndexRefused("cut short or padded")
    arrays: dict[str, NDArray[Any]] = {}
    for name, dtype in _DTYPES.items():
        offset, count = (int(v) for v in header["arrays"][name])
        itemsize = np.dtype(dtype).itemsize
        if offset < 0 or count < 0 or start + offset + count * itemsize > size:
            raise IndexRefused(f"array {name} lies outside the file")
        arrays[name] = np.frombuffer(mapped, dtype=dtype, count=count, offset=start + offset)
    crc = 0
    for name in _DICTIONARY:
        crc = zlib.crc32(arrays[name].tobytes(), crc)
    if crc != int(header["dictionary_crc32"]):
        raise IndexRefused("damaged dictionary")
    offsets, key_offsets = arrays["offsets"], arrays["key_offsets"]
    terms = arrays["checks"].shape[0]
    if (
        offsets.shape[0] != terms + 1
        or key_offsets.shape[0] != terms + 1
        or arrays["max_parts"].shape[0] != terms
        or offsets[0] != 0
        or offsets[-1] != arrays["docs"].shape[0]
        or arrays["docs"].shape[0] != arrays["freqs"].shape[0]
        or np.any(np.diff(offsets) < 0)
        or key_offsets[-1] != arrays["key_bytes"].shape[0]
    ):
        raise IndexRefused("inconsistent arrays")
    blob = arrays["key_bytes"].tobytes()
    bounds = key_offsets.tolist()
    keys = [blob[bounds[i] : bounds[i + 1]].decode("utf-8") for i in range(terms)]
    variants = _variants(arrays, terms)
    return BuiltIndex(
        lengths=arrays["lengths"],
        rows=int(header["rows"]),
        tokens=int(header["tokens"]),
        keys=keys,
        offsets=offsets,
        max_parts=arrays["max_parts"],
        checks=arrays["checks"],
        docs=arrays["docs"],
        freqs=arrays["freqs"],
        variants=variants,
    )
