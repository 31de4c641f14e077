from __future__ import annotations

import base64
import copy
from typing import Any

import pytest

from gezk.errors import SignatureError
from gezk.signing import (
    TrustAnchors,
    generate_private_key,
    key_id,
    private_key_from_pem,
    private_key_to_pem,
    public_key_from_pem,
    public_key_to_pem,
    sign_manifest,
    signing_input,
    verify_manifest,
)

MANIFEST: dict[str, Any] = {
    "kind": "gezk-catalog",
    "name": "Näme",
    "counts": {"documents": 2, "chunks": 3},
    "topics": [{"id": "b"}, {"id": "a"}],
}


def test_sign_then_verify_with_the_matching_anchor() -> None:
    key = generate_private_key()
    signed = sign_manifest(MANIFEST, key)
    assert signed["signature"]["algorithm"] == "ed25519"
    assert signed["signature"]["canonicalization"] == "rfc8785"
    assert signed["signature"]["keyId"] == key_id(key)
    assert "signature" not in MANIFEST
    assert verify_manifest(signed, TrustAnchors([key.public_key()])) == key_id(key)


def test_signature_covers_canonical_form_without_signature() -> None:
    key = generate_private_key()
    signed = sign_manifest(MANIFEST, key)
    raw = base64.b64decode(signed["signature"]["value"])
    key.public_key().verify(raw, signing_input(MANIFEST))
    reordered = dict(reversed(list(signed.items())))
    assert verify_manifest(reordered, TrustAnchors([key]))


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda m: m.__setitem__("name", "Other"), "signature-invalid"),
        (lambda m: m["counts"].__setitem__("chunks", 4), "signature-invalid"),
        (lambda m: m.pop("signature"), "unsigned"),
        (lambda m: m["signature"].__setitem__("keyId", "0123456789abcdef"), "unknown-key"),
        (lambda m: m["signature"].__setitem__("value", "***"), "malformed-signature"),
        (lambda m: m["signature"].__setitem__("algorithm", "rsa"), "malformed-signature"),
        (lambda m: m.__setitem__("signature", "x"), "malformed-signature"),
    ],
)
def test_tampering_is_detected(mutate: Any, reason: str) -> None:
    key = generate_private_key()
    signed = copy.deepcopy(sign_manifest(MANIFEST, key))
    mutate(signed)
    with pytest.raises(SignatureError) as info:
        verify_manifest(signed, TrustAnchors([key]))
    assert info.value.reason == reason


def test_a_different_key_with_a_forged_key_id_fails() -> None:
    trusted, attacker = generate_private_key(), generate_private_key()
    forged = sign_manifest(MANIFEST, attacker)
    forged["signature"]["keyId"] = key_id(trusted)
    with pytest.raises(SignatureError) as info:
        verify_manifest(forged, TrustAnchors([trusted]))
    assert info.value.reason == "signature-invalid"


def test_pem_round_trips_and_anchor_loading() -> None:
    key = generate_private_key()
    again = private_key_from_pem(private_key_to_pem(key))
    assert key_id(again) == key_id(key)
    pem = public_key_to_pem(key.public_key())
    assert key_id(public_key_from_pem(pem)) == key_id(key)
    anchors = TrustAnchors()
    assert anchors.add(pem.decode()) == key_id(key)
    assert list(anchors) == [key_id(key)]
    assert len(anchors) == 1


def test_bad_pem_is_a_typed_error() -> None:
    with pytest.raises(SignatureError) as info:
        public_key_from_pem(b"not a key")
    assert info.value.reason == "malformed-key"
