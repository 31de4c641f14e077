"""The provenance verdict (spec section 12): a signature proves origin only against trust anchors.

File digests bind a catalog's content to its manifest; only the manifest signature, verified
with a key the caller trusts, binds the manifest (publisher, id, version, profiles) to an
origin. An unsigned manifest, or one signed by a key the caller did not supply, validates
structurally but is never reported as verified.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from gezel_knowledge.validate.report import ProvenanceStatus, ProvenanceVerdict
from gezk.errors import SignatureError
from gezk.signing import verify_manifest

__all__ = ["provenance_verdict"]


def provenance_verdict(
    manifest: Mapping[str, Any], trust: Mapping[str, Ed25519PublicKey] | None
) -> ProvenanceVerdict:
    """Verify the manifest signature against ``trust``; never raise, always give a verdict."""
    signature = manifest.get("signature")
    key_id = signature.get("keyId") if isinstance(signature, Mapping) else None
    key = key_id if isinstance(key_id, str) else None
    if signature is None:
        return ProvenanceVerdict("unsigned", "the manifest is not signed")
    if trust is None or len(trust) == 0:
        return ProvenanceVerdict(
            "no-trust-anchors",
            f"signed by key {key}, but no trust anchors were supplied: origin not verified",
            key,
        )
    try:
        verified = verify_manifest(manifest, trust)
    except SignatureError as exc:
        status = (
            exc.reason
            if exc.reason
            in (
                "unknown-key",
                "signature-invalid",
                "malformed-signature",
            )
            else "signature-invalid"
        )
        return ProvenanceVerdict(cast(ProvenanceStatus, status), exc.message, key)
    return ProvenanceVerdict("verified", f"signed by trusted key {verified}", verified)
