"""SHA-256 pins of model files (spec section 6.1).

A profile pins its ONNX graph and its ``tokenizer.json`` by digest. The embedder hashes the very
bytes it hands to onnxruntime and to the tokenizer, so a file swapped between the check and the
load cannot slip through; a mismatch means a different vector space and is refused.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

from gezel_knowledge._files import read_input_bytes
from gezel_knowledge.embedders.locate import ModelFiles
from gezel_knowledge.errors import ModelUnavailable
from gezk.profiles import EmbeddingProfile

__all__ = ["digest_of", "file_digest", "pin_problems", "read_verified"]

_CHUNK = 1 << 20

# (device, inode, size, mtime_ns) -> digest: listing model status must not rehash a 470 MB graph
# on every call, and any change to the file changes the key.
_DIGESTS: dict[tuple[int, int, int, int], str] = {}
_DIGESTS_LOCK = threading.Lock()


def digest_of(data: bytes) -> str:
    """``sha256:`` and the lowercase hex SHA-256 of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str:
    """``sha256:`` digest of a file, remembered per process until the file changes."""
    st = os.stat(path)
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    with _DIGESTS_LOCK:
        cached = _DIGESTS.get(key)
    if cached is not None:
        return cached
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_CHUNK):
            h.update(block)
    digest = "sha256:" + h.hexdigest()
    with _DIGESTS_LOCK:
        _DIGESTS[key] = digest
    return digest


def pin_problems(profile: EmbeddingProfile, files: ModelFiles) -> list[str]:
    """``path: expected <pin>, got <digest>`` for each found file whose digest is not its pin."""
    problems = []
    for path, pin in (
        (files.graph, profile.model.onnx_digest),
        (files.tokenizer, profile.tokenizer.digest),
    ):
        if pin is None:
            continue
        actual = file_digest(path)
        if actual != pin:
            problems.append(f"{path}: expected {pin}, got {actual}")
    return problems


def read_verified(path: Path, expected: str | None, *, profile_id: str) -> tuple[bytes, str]:
    """The bytes of ``path`` and their digest; :class:`ModelUnavailable` if a pin disagrees."""
    data = read_input_bytes(path, f"model file of {profile_id!r}", error=ModelUnavailable)
    actual = digest_of(data)
    if expected is not None and actual != expected:
        raise ModelUnavailable(
            f"{path} does not match embedding profile {profile_id!r}: expected {expected}, "
            f"got {actual} (a different file is a different vector space)",
            reason="digest-mismatch",
            subject=str(path),
        )
    return data, actual
