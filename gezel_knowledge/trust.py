"""Trust anchors from files: the Ed25519 publisher keys a user says to trust (spec section 12).

Every ``--trust`` option (install, update, validate) goes through :func:`load_trust_anchors`, so
each command accepts the same things and refuses them with the same reasons: a PEM public-key
file, or a folder whose ``*.pem`` files are all public keys.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from gezel_knowledge._files import read_input_bytes
from gezel_knowledge.errors import InvalidInput
from gezk.errors import GezkError
from gezk.signing import TrustAnchors

__all__ = ["load_trust_anchors"]


def _key_files(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
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
    ``unreadable`` (missing or unreadable; a folder without ``.pem`` files) or
    ``malformed-key`` (not a PEM Ed25519 public key, a private key included).
    """
    anchors = TrustAnchors()
    for given in paths:
        for file in _key_files(Path(given)):
            data = read_input_bytes(file, "trust key")
            try:
                anchors.add(data)
            except GezkError as exc:
                raise InvalidInput(
                    f"trust key {file} is not an Ed25519 public key in PEM form: {exc.message}",
                    reason="malformed-key",
                    subject=str(file),
                ) from None
    return anchors
