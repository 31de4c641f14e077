from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gezk.errors import InvalidIdentifier
from gezk.ids import (
    chunk_uid,
    content_hash,
    is_document_id,
    is_sha256_hex,
    sort_key_for_order,
    validate_catalog_id,
    validate_chunk_uid,
    validate_document_id,
    validate_location_id,
    validate_publisher_id,
    validate_sha256_hex,
    validate_topic_id,
    validate_version,
)


@pytest.mark.parametrize("value", ["a", "bendyline", "wikipedia-physics", "x1", "a" * 64, "0"])
def test_dns_label_ids_accepted(value: str) -> None:
    assert validate_publisher_id(value) == value
    assert validate_catalog_id(value) == value
    assert validate_topic_id(value) == value


@pytest.mark.parametrize(
    "value", ["", "-a", "a-", "A", "a_b", "a.b", "a" * 65, "é", " a", 7, None, "a b"]
)
def test_dns_label_ids_rejected(value: object) -> None:
    with pytest.raises(InvalidIdentifier) as info:
        validate_catalog_id(value)
    assert info.value.reason == "invalid-catalog-id"
    with pytest.raises(InvalidIdentifier) as info:
        validate_publisher_id(value)
    assert info.value.reason == "invalid-publisher-id"


@pytest.mark.parametrize("value", ["2026.9.1", "1.0.0-rc.1", "1.0.0+build.5", "v2", "a" * 128])
def test_versions_accepted(value: str) -> None:
    assert validate_version(value) == value


@pytest.mark.parametrize(
    "value",
    ["", ".1", "1.", "1/2", "1\\2", "a" * 129, "1 0", "con", "NUL", "com1.2", "Lpt9", "aux.x"],
)
def test_versions_rejected(value: str) -> None:
    with pytest.raises(InvalidIdentifier) as info:
        validate_version(value)
    assert info.value.reason == "invalid-version"


def test_version_reserved_name_prefix_only_when_whole_stem() -> None:
    assert validate_version("console") == "console"
    assert validate_version("com10") == "com10"


@pytest.mark.parametrize(
    "value", ["doc", "Mechanics/Newton laws", "84283796", "ünïcode", "x" * 256]
)
def test_document_ids_accepted(value: str) -> None:
    assert validate_document_id(value) == value


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("", "empty"),
        ("x" * 257, "longer"),
        (" doc", "whitespace"),
        ("doc\u3000", "whitespace"),
        ("doc\n", "control"),
        ("a\u0007b", "control"),
        ("a\u0085b", "control"),
        ("u\u0308", "NFC"),
        ("a\ud800", "surrogates"),
    ],
)
def test_document_ids_rejected(value: str, why: str) -> None:
    with pytest.raises(InvalidIdentifier) as info:
        validate_document_id(value)
    assert info.value.reason == "invalid-document-id"
    assert why in str(info.value)
    assert not is_document_id(value)


def test_chunk_uid_validation() -> None:
    assert validate_chunk_uid("0" * 32) == "0" * 32
    for bad in ["0" * 31, "A" * 32, "g" * 32, "0" * 33]:
        with pytest.raises(InvalidIdentifier):
            validate_chunk_uid(bad)


def test_chunk_uid_matches_the_section_7_3_construction() -> None:
    text = "Force equals mass times acceleration."
    inner = hashlib.sha256(text.encode()).digest()
    outer = hashlib.sha256(b"doc\x0012\x00" + inner).digest()
    assert chunk_uid("doc", 12, text) == outer[:16].hex()
    assert content_hash(text) == inner.hex()


def test_chunk_uid_rejects_negative_ordinals() -> None:
    with pytest.raises(InvalidIdentifier):
        chunk_uid("doc", -1, "x")


@given(st.integers(min_value=-(2**31), max_value=2**31 - 2))
def test_sort_keys_order_bytewise_like_numbers(n: int) -> None:
    a, b = sort_key_for_order(n), sort_key_for_order(n + 1)
    assert len(a) == 10
    assert a.isdigit()
    assert a.encode() < b.encode()


def test_sort_key_extremes() -> None:
    assert sort_key_for_order(-(2**31)) == "0000000000"
    assert sort_key_for_order(0) == "2147483648"
    assert sort_key_for_order(2**31 - 1) == "4294967295"
    with pytest.raises(InvalidIdentifier):
        sort_key_for_order(2**31)


@pytest.mark.parametrize("bad", ["", " padded", "a\x00b", "x" * 257, "e\u0301"])
def test_location_ids_follow_the_document_id_grammar_with_their_own_reason(bad: str) -> None:
    with pytest.raises(InvalidIdentifier) as document:
        validate_document_id(bad)
    with pytest.raises(InvalidIdentifier) as location:
        validate_location_id(bad)
    assert document.value.reason == "invalid-document-id"
    assert location.value.reason == "invalid-location-id"
    assert location.value.subject == bad
    assert str(location.value) == str(document.value).replace("document id", "location id", 1)


def test_a_valid_location_id_is_returned_unchanged() -> None:
    assert validate_location_id("Pike Place/market") == "Pike Place/market"


_DIGEST = hashlib.sha256(b"x").hexdigest()


@pytest.mark.parametrize("value", [_DIGEST, "0" * 64, "0123456789abcdef" * 4])
def test_lowercase_sha256_hex_is_accepted(value: str) -> None:
    assert is_sha256_hex(value)
    assert validate_sha256_hex(value) == value


@pytest.mark.parametrize(
    "value",
    [
        _DIGEST.upper(),
        _DIGEST[:63],
        _DIGEST + "0",
        _DIGEST + "\n",
        " " + _DIGEST[1:],
        "g" * 64,
        "sha256:" + _DIGEST,
        "\uff10" * 64,  # fullwidth digits are digits to str.isdigit, not to the grammar
        "",
        _DIGEST.encode(),
        None,
        int(_DIGEST, 16),
    ],
)
def test_anything_else_is_not_a_sha256_hex(value: object) -> None:
    assert not is_sha256_hex(value)
    with pytest.raises(InvalidIdentifier) as info:
        validate_sha256_hex(value)
    assert info.value.reason == "invalid-sha256"
