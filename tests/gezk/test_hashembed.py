from __future__ import annotations

import hashlib

import numpy as np

from gezk.hashembed import hash_embed, hash_embed_raw


def test_raw_values_follow_section_13() -> None:
    text = "Hello"
    h1 = hashlib.sha256(text.encode()).digest()
    h2 = hashlib.sha256(h1).digest()
    raw = hash_embed_raw(text, 40)
    expected = [((b - 256 if b > 127 else b) + 0.5) / 128 for b in (h1 + h2)[:40]]
    assert raw.tolist() == expected


def test_vectors_are_unit_float32_and_deterministic() -> None:
    a = hash_embed(["one", "two", "one"])
    assert a.dtype == np.float32
    assert a.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)
    assert np.array_equal(a[0], a[2])
    assert not np.array_equal(a[0], a[1])
    assert hash_embed([]).shape == (0, 384)
