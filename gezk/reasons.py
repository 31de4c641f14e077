"""Every ``reason`` the format layer gives, declared once, with its category and what it means.

Errors carry a stable machine-readable ``reason`` (:class:`gezk.errors.ReasonedError`). The
tables below declare the format layer's, one table per category of
:data:`gezk.errors.CATEGORIES`; ``gezel_knowledge.reasons`` declares the product layer's the
same way. ``tests/test_reasons.py`` checks them against the code: a reason the code uses but no
table declares, one declared but used nowhere, one declared in both packages, or a table out of
alphabetical order fails with what to change where. docs/errors.md lists them all, generated
from these tables and checked by the same test.

To add a reason: one line ``"the-reason": "what it means, in one line",`` in its category's
table, in alphabetical order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal

from gezk.errors import Category

__all__ = ["REASONS", "Reason", "ReasonCategory", "declare"]

ReasonCategory = Category | Literal["warning", "status"]
"""An error category, or ``warning`` (accepted, but worth a look) or ``status`` (why something
is as it is, not a failure)."""


@dataclass(frozen=True, slots=True)
class Reason:
    """A declared reason: its category and a one-line description."""

    category: ReasonCategory
    description: str


def declare(tables: Mapping[ReasonCategory, Mapping[str, str]]) -> Mapping[str, Reason]:
    """One read-only registry of ``{category: {reason: description}}`` tables.

    A reason declared in two tables is a mistake in the tables themselves, so it fails here.
    """
    registry: dict[str, Reason] = {}
    for category, table in tables.items():
        for name, description in table.items():
            if name in registry:
                raise ValueError(f"reason {name!r} is declared twice")
            registry[name] = Reason(category, description)
    return MappingProxyType(registry)


_INPUT: Final = {
    "bad-meta": "a meta table key or value is not text (or an integer, when written)",
    "center-mismatch": "a binary center was given twice: in prepared query tables and again",
    "database-not-empty": "the page size can only be set on a database with no tables yet",
    "invalid-catalog-id": "a catalog id breaks the id grammar (1-64 of a-z, 0-9, '-')",
    "invalid-chunk-ordinal": "a chunk ordinal is not a non-negative integer",
    "invalid-chunk-uid": "a chunk uid is not 32 lowercase hex characters",
    "invalid-document-id": "a document id breaks its grammar (1-256 NFC characters, trimmed)",
    "invalid-identifier": "an identifier breaks its grammar",
    "invalid-k": "a result count k is not a non-negative integer",
    "invalid-location": "a coordinate, location or radius query is out of range or malformed",
    "invalid-location-id": "a location id breaks the document id grammar",
    "invalid-location-role": "a location's role is neither subject nor associated",
    "invalid-manifest": "manifest.json is not UTF-8 JSON, breaks its schema or a spec rule",
    "invalid-order": "a topic order is not a signed 32-bit integer",
    "invalid-profile": "an embedding or chunking profile is malformed",
    "invalid-publisher-id": "a publisher id breaks the id grammar (1-64 of a-z, 0-9, '-')",
    "invalid-reference": "a knowledge:// reference is ill-formed",
    "invalid-sha256": "a digest is not 64 lowercase hex characters",
    "invalid-topic-id": "a topic id breaks the id grammar (1-64 of a-z, 0-9, '-')",
    "invalid-vectors": "vectors given to a quantizer or kernel have a wrong shape or values",
    "invalid-version": "a catalog version is not one portable path segment",
    "missing-table": "a database lacks a table its schema requires (the meta table)",
    "non-finite": "vectors contain NaN or infinite values",
    "not-canonicalizable": "a value has no RFC 8785 canonical JSON form",
    "out-of-range": "int8 codes lie outside [-127, 127]",
    "page-size-refused": "SQLite kept another page size (the database is in WAL mode or written)",
    "schema-violation": "a JSON document does not match its JSON Schema",
    "seal-failed": "VACUUM INTO could not write the sealed copy of a database",
    "shape-mismatch": "vectors, centers or codes have shapes that do not fit together",
    "unknown-profile": "an embedding or chunking profile id that is not registered",
    "wrong-dtype": "an array has the wrong element type (real numbers, uint8 bits, int8 codes)",
}

_INTEGRITY: Final = {
    "malformed-key": "a key is not an Ed25519 key in PEM form",
    "malformed-signature": "the manifest's signature object is unusable",
    "signature-invalid": "the signature does not match the manifest: it was altered",
    "unknown-key": "the manifest is signed by a key that is not among the trust anchors",
    "unsigned": "the manifest carries no signature",
}

_UNSUPPORTED: Final = {
    "unsupported-encoding": "a vector encoding other than bit+int8",
    "unsupported-feature": "the catalog requires features this reader lacks",
    "unsupported-format": "a format or index schema version this implementation does not read",
    "version-mismatch": "formatVersion is paired with the wrong indexSchemaVersion",
}

_INTERNAL: Final = {
    "error": "an unclassified failure (the default reason of the common root)",
    "gezk-error": "an unclassified failure of the format layer",
    "invalid-role": "a database role other than router or shard was asked for",
    "unknown-schema": "a bundled JSON Schema that does not exist was asked for",
    "unresolvable-ref": "a bundled JSON Schema refers to a schema that is not bundled",
}

REASONS: Final = declare(
    {
        "input": _INPUT,
        "integrity": _INTEGRITY,
        "unsupported": _UNSUPPORTED,
        "internal": _INTERNAL,
    }
)
"""The format layer's reasons: ``{reason: Reason(category, description)}``."""
