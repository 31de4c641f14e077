"""Trust anchors from files: the Ed25519 publisher keys a user says to trust (spec section 12).

Every ``--trust`` option (install, update, validate) goes through :func:`load_trust_anchors`, so
each command accepts the same things and refuses them with the same reasons: a PEM public-key
file, or a folder whose ``*.pem`` files are all public keys. A key is a regular file (a FIFO or
``/dev/zero`` is refused before a byte is read) of at most 64 KiB, and neither a key nor a
folder of keys may be writable by every user: whoever can write it chooses whom you trust.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from gezel_knowledge._files import check_not_world_writable, read_key_bytes
from gezel_knowledge.errors import InvalidInput
from gezk.errors import GezkError
from gezk.signing import TrustAnchors

__all__ = ["load_trust_anchors"]


def _key_files(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
    check_not_world_writable(os.stat(path), path, "the folder of trust keys")
    files = sorted(p for p in path.glob("*.pem") if p.is_file())
    if not files:
        raise InvalidInput(
            f"cannot read trust keys from {path}: the folder has no .pem files",
            reason="unreadable",
            subject=str(path),
        )
    return files


def load_trust_anchors(paths: Iterable[Path | str]) -> TrustAnchors:
    """Trust every Ed25519 public key in ``paths``: PEM files, or folders of ``*.pem`` files.

    Raises :class:`~gezel_knowledge.errors.InvalidInput` naming the file, with reason
    ``unreadable`` (missing or unreadable; a folder without ``.pem`` files), ``not-a-file``,
    ``input-too-large``, ``insecure-permissions`` (writable by every user) or
    ``malformed-key`` (not a PEM Ed25519 public key, a private key included).
    """
    anchors = TrustAnchors()
    for given in paths:
        for file in _key_files(Path(given)):
            data = read_key_bytes(file, "trust key")
            try:
                anchors.add(data)
            except GezkError as exc:
                raise InvalidInput(
                    f"trust key {file} is not an Ed25519 public key in PEM form: {exc.message}",
                    reason="malformed-key",
                    subject=str(file),
                ) from None
    return anchors
