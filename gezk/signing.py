"""Ed25519 manifest signatures over RFC 8785 canonical JSON (spec section 12).

The signature covers the canonical form of the manifest **without** its ``signature`` member.
``keyId`` is the first 16 hex characters of SHA-256 over the DER SubjectPublicKeyInfo of the
signing key. A verifier holds trust anchors indexed by ``keyId``; an unknown key is a failure,
never a scan. A verified signature is proof of origin only relative to the anchors it was
checked against.
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
from collections.abc import Iterator, Mapping
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from gezk.errors import SignatureError
from gezk.jcs import canonicalize

__all__ = [
    "TrustAnchors",
    "generate_private_key",
    "key_id",
    "private_key_from_pem",
    "private_key_to_pem",
    "public_key_from_pem",
    "public_key_to_pem",
    "sign_manifest",
    "signing_input",
    "verify_manifest",
]

ALGORITHM = "ed25519"
CANONICALIZATION = "rfc8785"


def generate_private_key() -> Ed25519PrivateKey:
    """A new random Ed25519 signing key."""
    return Ed25519PrivateKey.generate()


def private_key_to_pem(key: Ed25519PrivateKey) -> bytes:
    """PKCS#8 PEM bytes of a private key (unencrypted)."""
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def private_key_from_pem(data: bytes) -> Ed25519PrivateKey:
    """Load an unencrypted PKCS#8 PEM Ed25519 private key."""
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise SignatureError(
            f"not an unencrypted PEM private key: {exc}", reason="malformed-key"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SignatureError("the PEM private key is not an Ed25519 key", reason="malformed-key")
    return key


def public_key_to_pem(key: Ed25519PublicKey) -> bytes:
    """SubjectPublicKeyInfo PEM bytes of a public key."""
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def public_key_from_pem(data: bytes) -> Ed25519PublicKey:
    """Load a SubjectPublicKeyInfo PEM Ed25519 public key."""
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise SignatureError(f"not a PEM public key: {exc}", reason="malformed-key") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SignatureError("the PEM public key is not an Ed25519 key", reason="malformed-key")
    return key


def key_id(key: Ed25519PublicKey | Ed25519PrivateKey) -> str:
    """First 16 hex characters of SHA-256 over the key's DER SubjectPublicKeyInfo."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    der = public.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return hashlib.sha256(der).hexdigest()[:16]


def signing_input(manifest: Mapping[str, Any]) -> bytes:
    """The bytes a manifest signature covers: JCS of the manifest without ``signature``."""
    unsigned = {k: v for k, v in manifest.items() if k != "signature"}
    return canonicalize(unsigned)


def sign_manifest(manifest: Mapping[str, Any], private_key: Ed25519PrivateKey) -> dict[str, Any]:
    """A copy of ``manifest`` carrying an Ed25519 ``signature`` (any old one is replaced)."""
    signed = {k: copy.deepcopy(v) for k, v in manifest.items() if k != "signature"}
    value = base64.b64encode(private_key.sign(signing_input(signed))).decode("ascii")
    signed["signature"] = {
        "algorithm": ALGORITHM,
        "keyId": key_id(private_key),
        "canonicalization": CANONICALIZATION,
        "value": value,
    }
    return signed


class TrustAnchors(Mapping[str, Ed25519PublicKey]):
    """Trusted Ed25519 public keys indexed by ``keyId``."""

    def __init__(self, keys: Any = ()) -> None:
        self._keys: dict[str, Ed25519PublicKey] = {}
        for key in keys:
            self.add(key)

    def add(self, key: Ed25519PublicKey | Ed25519PrivateKey | bytes | str) -> str:
        """Trust a key (an object or PEM text/bytes); return its ``keyId``."""
        if isinstance(key, str):
            key = key.encode("ascii")
        if isinstance(key, bytes):
            key = public_key_from_pem(key)
        public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
        kid = key_id(public)
        self._keys[kid] = public
        return kid

    def __getitem__(self, kid: str) -> Ed25519PublicKey:
        return self._keys[kid]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def verify_manifest(manifest: Mapping[str, Any], anchors: Mapping[str, Ed25519PublicKey]) -> str:
    """Verify a manifest's signature against trust anchors; return the signing ``keyId``.

    Raises :class:`SignatureError` with reason ``unsigned``, ``malformed-signature``,
    ``unknown-key`` or ``signature-invalid``.
    """
    sig = manifest.get("signature")
    if sig is None:
        raise SignatureError("the manifest is not signed", reason="unsigned")
    if not isinstance(sig, Mapping):
        raise SignatureError(
            "the manifest signature is not an object", reason="malformed-signature"
        )
    if sig.get("algorithm") != ALGORITHM or sig.get("canonicalization") != CANONICALIZATION:
        raise SignatureError(
            f"unsupported signature algorithm {sig.get('algorithm')!r} / canonicalization "
            f"{sig.get('canonicalization')!r} (expected ed25519 / rfc8785)",
            reason="malformed-signature",
        )
    kid = sig.get("keyId")
    value = sig.get("value")
    if not isinstance(kid, str) or not isinstance(value, str):
        raise SignatureError(
            "the signature needs string keyId and value members", reason="malformed-signature"
        )
    public = anchors.get(kid)
    if public is None:
        raise SignatureError(
            f"the manifest is signed by key {kid!r}, which is not a trust anchor",
            reason="unknown-key",
            subject=kid,
        )
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise SignatureError(
            "the signature value is not valid base64", reason="malformed-signature"
        ) from None
    try:
        public.verify(raw, signing_input(manifest))
    except InvalidSignature:
        raise SignatureError(
            f"the manifest signature by key {kid!r} does not verify: the manifest was altered "
            "or signed by another key",
            reason="signature-invalid",
            subject=kid,
        ) from None
    return kid
