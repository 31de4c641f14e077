"""RFC 8785 JSON Canonicalization Scheme: the signature input of section 12."""

from __future__ import annotations

from typing import Any

import rfc8785

from gezk.errors import SchemaViolation

__all__ = ["canonicalize"]


def canonicalize(value: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of a JSON value."""
    try:
        return bytes(rfc8785.dumps(value))
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        raise SchemaViolation(
            f"value has no RFC 8785 canonical form: {exc}", reason="not-canonicalizable"
        ) from exc
