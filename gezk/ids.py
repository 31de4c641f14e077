"""Identifier grammars and content-derived ids (spec sections 2 and 7.3).

Validators return the value unchanged when it is well-formed and raise
:class:`~gezk.errors.InvalidIdentifier` (reason ``invalid-<kind>``) otherwise; they never repair.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from gezk.errors import InvalidIdentifier

__all__ = [
    "ID_PATTERN",
    "VERSION_PATTERN",
    "chunk_uid",
    "content_hash",
    "is_chunk_uid",
    "is_document_id",
    "is_id",
    "is_sha256_hex",
    "is_version",
    "sort_key_for_order",
    "validate_catalog_id",
    "validate_chunk_uid",
    "validate_document_id",
    "validate_location_id",
    "validate_publisher_id",
    "validate_sha256_hex",
    "validate_topic_id",
    "validate_version",
]

ID_PATTERN = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")
"""DNS-label style: publisher, catalog and topic ids."""

VERSION_PATTERN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._+-]{0,126}[A-Za-z0-9])?")
"""One portable path segment."""

_WINDOWS_DEVICE = re.compile(r"(?:con|prn|aux|nul|com[1-9]|lpt[1-9])(?:\.|$)", re.IGNORECASE)
_CHUNK_UID = re.compile(r"[0-9a-f]{32}")
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_MAX_DOCUMENT_ID = 256


def _fail(reason: str, value: object, why: str) -> InvalidIdentifier:
    kind = reason.removeprefix("invalid-").replace("-", " ")
    return InvalidIdentifier(f"invalid {kind} {value!r}: {why}", reason=reason, subject=str(value))


def is_id(value: object) -> bool:
    """Whether ``value`` matches the DNS-label id grammar."""
    return isinstance(value, str) and ID_PATTERN.fullmatch(value) is not None


def _validate_id(value: object, reason: str) -> str:
    if not is_id(value):
        raise _fail(
            reason,
            value,
            "expected 1-64 characters of a-z, 0-9 and '-', starting and ending alphanumeric",
        )
    assert isinstance(value, str)
    return value


def validate_publisher_id(value: object) -> str:
    """Return ``value`` if it is a valid publisher id."""
    return _validate_id(value, "invalid-publisher-id")


def validate_catalog_id(value: object) -> str:
    """Return ``value`` if it is a valid catalog id."""
    return _validate_id(value, "invalid-catalog-id")


def validate_topic_id(value: object) -> str:
    """Return ``value`` if it is a valid topic id."""
    return _validate_id(value, "invalid-topic-id")


def is_version(value: object) -> bool:
    """Whether ``value`` is a valid catalog version (one portable path segment)."""
    return (
        isinstance(value, str)
        and VERSION_PATTERN.fullmatch(value) is not None
        and _WINDOWS_DEVICE.match(value) is None
    )


def validate_version(value: object) -> str:
    """Return ``value`` if it is a valid catalog version."""
    if not isinstance(value, str) or VERSION_PATTERN.fullmatch(value) is None:
        raise _fail(
            "invalid-version",
            value,
            "expected 1-128 characters of A-Z, a-z, 0-9 and '._+-', starting and ending "
            "alphanumeric",
        )
    if _WINDOWS_DEVICE.match(value):
        raise _fail("invalid-version", value, "a Windows reserved device name is not portable")
    return value


def _has_control(value: str) -> bool:
    return any(ord(c) <= 0x1F or 0x7F <= ord(c) <= 0x9F for c in value)


def _document_id_problem(value: object) -> str | None:
    if not isinstance(value, str):
        return "expected a string"
    if not value:
        return "must not be empty"
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        return "must consist of Unicode scalar values (no lone surrogates)"
    if len(value) > _MAX_DOCUMENT_ID:
        return f"longer than {_MAX_DOCUMENT_ID} characters"
    if unicodedata.normalize("NFC", value) != value:
        return "must be NFC-normalized"
    if _has_control(value):
        return "must not contain control characters"
    if value.strip() != value:
        return "must not have leading or trailing whitespace"
    return None


def is_document_id(value: object) -> bool:
    """Whether ``value`` is a valid document id."""
    return _document_id_problem(value) is None


def _validate_document_id_grammar(value: object, reason: str) -> str:
    problem = _document_id_problem(value)
    if problem is not None:
        raise _fail(reason, value, problem)
    assert isinstance(value, str)
    return value


def validate_document_id(value: object) -> str:
    """Return ``value`` if it is a valid document id (1-256 NFC scalars, no controls, trimmed)."""
    return _validate_document_id_grammar(value, "invalid-document-id")


def validate_location_id(value: object) -> str:
    """Return ``value`` if it is a valid location id (the document id grammar, section 5.2.2)."""
    return _validate_document_id_grammar(value, "invalid-location-id")


def is_chunk_uid(value: object) -> bool:
    """Whether ``value`` is exactly 32 lowercase hex characters."""
    return isinstance(value, str) and _CHUNK_UID.fullmatch(value) is not None


def validate_chunk_uid(value: object) -> str:
    """Return ``value`` if it is a valid chunk uid."""
    if not is_chunk_uid(value):
        raise _fail("invalid-chunk-uid", value, "expected exactly 32 lowercase hex characters")
    assert isinstance(value, str)
    return value


def is_sha256_hex(value: object) -> bool:
    """Whether ``value`` is a string of exactly 64 lowercase hex characters."""
    return isinstance(value, str) and _SHA256_HEX.fullmatch(value) is not None


def validate_sha256_hex(value: object) -> str:
    """Return ``value`` if it is 64 lowercase hex characters."""
    if not isinstance(value, str) or not is_sha256_hex(value):
        raise _fail("invalid-sha256", value, "expected 64 lowercase hex characters")
    return value


def content_hash(text: str) -> str:
    """Lowercase hex SHA-256 of the UTF-8 text (a chunk's ``content_hash``)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_uid(document_id: str, ordinal: int, text: str) -> str:
    """The content-derived chunk id of section 7.3.

    ``SHA-256(utf8(documentId) || 0x00 || utf8(decimal ordinal) || 0x00 || SHA-256(utf8(text)))``,
    first 16 bytes as lowercase hex.
    """
    if isinstance(ordinal, bool) or not isinstance(ordinal, int) or ordinal < 0:
        raise _fail("invalid-chunk-ordinal", ordinal, "expected a non-negative integer")
    h = hashlib.sha256()
    h.update(document_id.encode("utf-8"))
    h.update(b"\x00")
    h.update(str(ordinal).encode("ascii"))
    h.update(b"\x00")
    h.update(hashlib.sha256(text.encode("utf-8")).digest())
    return h.digest()[:16].hex()


_SORT_KEY_OFFSET = 2**31


def sort_key_for_order(order: int) -> str:
    """The ten-digit sort key ``zero-padded(order + 2^31)`` for a signed 32-bit order."""
    if isinstance(order, bool) or not isinstance(order, int):
        raise _fail("invalid-order", order, "expected an integer")
    if not -(2**31) <= order < 2**31:
        raise _fail("invalid-order", order, "outside the signed 32-bit range")
    return f"{order + _SORT_KEY_OFFSET:010d}"
