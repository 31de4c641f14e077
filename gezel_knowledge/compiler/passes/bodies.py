"""How a body is stored (spec 5.2): brotli from 512 bytes on, at most 16 MiB."""

from __future__ import annotations

import brotli

__all__ = ["BODY_BROTLI_MIN_BYTES", "MAX_BODY_BYTES", "encode_body"]

BODY_BROTLI_MIN_BYTES = 512
MAX_BODY_BYTES = 16 * 1024 * 1024


def encode_body(body: bytes) -> tuple[str, bytes]:
    """``("br", brotli quality 5 text mode)`` for bodies of 512 bytes or more, else ``"none"``."""
    if len(body) >= BODY_BROTLI_MIN_BYTES:
        return "br", brotli.compress(body, mode=brotli.MODE_TEXT, quality=5)
    return "none", body
