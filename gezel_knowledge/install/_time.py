"""Timestamps recorded in the registry."""

from __future__ import annotations

import time

__all__ = ["utc_now"]


def utc_now() -> str:
    """The current UTC time as an ISO 8601 string with milliseconds."""
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"
