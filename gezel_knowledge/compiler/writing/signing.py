"""Signing keys and (re-)signing a built catalog (spec section 12).

``sign_catalog`` verifies an archive, extracts it, signs its manifest (replacing any earlier
signature) and writes the same entries back with the new ``manifest.json``; every other entry
keeps its bytes, so the result differs from a build signed at compile time by nothing.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gezel_knowledge._atomic import write_atomic
from gezel_knowledge._files import read_key_bytes
from gezel_knowledge.archive.verify import extract_archive
from gezel_knowledge.archive.writer import write_archive
from gezel_knowledge.compiler.writing.manifest import manifest_bytes
from gezel_knowledge.errors import InvalidInput
from gezk.errors import GezkError
from gezk.signing import (
    generate_private_key,
    key_id,
    private_key_from_pem,
    private_key_to_pem,
    public_key_to_pem,
    sign_manifest,
)

__all__ = ["KeyPair", "SignResult", "generate_key_files", "load_private_key", "sign_catalog"]


@dataclass(frozen=True, slots=True)
class KeyPair:
    """Where a new key pair was written and its key id."""

    private_key: Path
    public_key: Path
    key_id: str


@dataclass(frozen=True, slots=True)
class SignResult:
    """A signed archive: its path, digest and the key id it is signed with."""

    path: Path
    sha256: str
    key_id: str


def load_private_key(path: Path | str) -> Ed25519PrivateKey:
    """Read an Ed25519 private key from a PEM file."""
    file = Path(path)
    data = read_key_bytes(file, "signing key")
    try:
        return private_key_from_pem(data)
    except GezkError as exc:
        raise InvalidInput(
            f"{file} is not an Ed25519 private key: {exc.message}",
            reason="invalid-key",
            subject=str(file),
        ) from None


def _write_new(path: Path, data: bytes, mode: int, *, force: bool) -> None:
    if path.exists() and not force:
        raise InvalidInput(
            f"{path} already exists (use --force to replace it)",
            reason="exists",
            subject=str(path),
        )
    write_atomic(path, data, mode=mode)


def generate_key_files(
    private_path: Path | str, public_path: Path | str | None = None, *, force: bool = False
) -> KeyPair:
    """Write a new Ed25519 key pair as PEM (the private key readable by its owner only)."""
    private_file = Path(private_path)
    public_file = (
        Path(public_path)
        if public_path is not None
        else private_file.with_name(private_file.stem + ".pub.pem")
    )
    key = generate_private_key()
    _write_new(private_file, private_key_to_pem(key), 0o600, force=force)
    _write_new(public_file, public_key_to_pem(key.public_key()), 0o644, force=force)
    return KeyPair(private_file, public_file, key_id(key.public_key()))


def sign_catalog(
    archive: Path | str, private_key: Ed25519PrivateKey, output: Path | str | None = None
) -> SignResult:
    """Sign the manifest of a verified archive; write to ``output`` (default: in place)."""
    source = Path(archive)
    dest = Path(output) if output is not None else source
    work = Path(tempfile.mkdtemp(prefix=f".{dest.name}.sign-", dir=dest.parent))
    try:
        folder = work / "catalog"
        info = extract_archive(source, folder)
        manifest = json.loads(info.manifest_bytes)
        manifest.pop("signature", None)
        signed = sign_manifest(manifest, private_key)
        entries: dict[str, Path | bytes] = {
            entry.path: folder / entry.path
            for entry in info.entries
            if entry.path not in ("mimetype", "manifest.json")
        }
        entries["manifest.json"] = manifest_bytes(signed)
        digest = write_archive(dest, entries)
        return SignResult(dest, digest, key_id(private_key.public_key()))
    finally:
        shutil.rmtree(work, ignore_errors=True)
