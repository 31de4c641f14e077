"""Names derived from display text: topic ids (a DNS label) and document slugs."""

from __future__ import annotations

import hashlib
import re
import unicodedata

__all__ = ["derive_topic_id", "document_slug"]

_NOT_ID = re.compile(r"[^a-z0-9]+")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def derive_topic_id(name: str) -> str:
    """A topic id (DNS-label grammar) derived deterministically from a display name."""
    folded = unicodedata.normalize("NFKD", name)
    ascii_only = "".join(ch for ch in folded if not unicodedata.combining(ch)).lower()
    slug = _NOT_ID.sub("-", ascii_only).strip("-")[:63].strip("-")
    if not slug:
        return "topic-" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return slug


def document_slug(title: str) -> str:
    """A URL-ish slug of a title (listing order and display; not an identity)."""
    folded = unicodedata.normalize("NFKD", title.lower())
    ascii_only = "".join(ch for ch in folded if not unicodedata.combining(ch))
    slug = _NOT_SLUG.sub("-", ascii_only).strip("-")[:80].rstrip("-")
    return slug or "untitled"
