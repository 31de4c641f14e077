"""Typed errors of the format layer, and the categories both packages' errors share.

Every error carries a stable, machine-readable ``reason`` (kebab-case, declared once in
:mod:`gezk.reasons` or ``gezel_knowledge.reasons``) and, where there is one, the ``subject`` it
is about (an identifier, a JSON path, a file name). ``str(error)`` is a single human-readable
line.

Each error class has a ``category`` saying what the caller can do about it; the categories are
the same in ``gezk`` and ``gezel_knowledge``. As ``packaging``'s ``InvalidVersion`` does, errors
of the ``input`` category are also :class:`ValueError`, and ``not-found`` errors are also
:class:`LookupError`, so code written against the built-in exceptions keeps working.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Final, Literal

if TYPE_CHECKING:
    from gezk.schemas import SchemaFinding

__all__ = [
    "CATEGORIES",
    "Category",
    "GezkError",
    "InvalidIdentifier",
    "InvalidLocation",
    "InvalidManifest",
    "InvalidProfile",
    "InvalidReference",
    "QuantizationError",
    "ReasonedError",
    "SchemaViolation",
    "SignatureError",
    "UnsupportedVersion",
]


Category = Literal[
    "input", "integrity", "unsupported", "not-found", "unavailable", "cancelled", "internal"
]
"""What the caller can do about an error (the ``category`` of every error class)."""

CATEGORIES: Final[dict[Category, str]] = {
    "input": "the caller's input or arguments are unacceptable: fix them (also a ValueError)",
    "integrity": "a catalog, archive, database or file fails a consistency or safety check",
    "unsupported": "well-formed, but a version or feature this implementation does not handle",
    "not-found": "what was asked for does not exist (also a LookupError)",
    "unavailable": "something the operation needs is missing or busy: install, free or retry",
    "cancelled": "the caller cancelled the operation",
    "internal": "a broken contract inside the library or its bundled data: report it",
}
"""Each category and what it tells the caller."""


class ReasonedError(Exception):
    """An error with a stable machine-readable ``reason`` and a one-line message.

    The common root of :class:`GezkError` and ``gezel_knowledge.errors.KnowledgeError``, so one
    ``except ReasonedError`` handles every typed failure of both packages.
    """

    default_reason: ClassVar[str] = "error"
    category: ClassVar[Category] = "internal"

    def __init__(self, message: str, *, reason: str | None = None, subject: str | None = None):
        # Keep the message on one line: the CLI prints it verbatim.
        super().__init__(" ".join(message.split()))
        self.reason: str = reason or self.default_reason
        self.subject: str | None = subject

    @property
    def message(self) -> str:
        """The one-line human-readable message."""
        return str(self.args[0])


class GezkError(ReasonedError):
    """Base class of every error raised by :mod:`gezk`."""

    default_reason = "gezk-error"


class InvalidIdentifier(GezkError, ValueError):
    """An identifier does not match its grammar (spec section 2)."""

    default_reason = "invalid-identifier"
    category = "input"


class InvalidReference(GezkError, ValueError):
    """A ``knowledge://`` reference is ill-formed (spec section 11)."""

    default_reason = "invalid-reference"
    category = "input"


class UnsupportedVersion(GezkError):
    """A format or index-schema version this implementation does not read (spec section 1)."""

    default_reason = "unsupported-format"
    category = "unsupported"


class InvalidProfile(GezkError, ValueError):
    """An embedding or chunking profile is malformed or unknown (spec sections 6.1, 7.1)."""

    default_reason = "invalid-profile"
    category = "input"


class QuantizationError(GezkError, ValueError):
    """Vectors handed to the quantizers or kernels have the wrong shape or values (section 6.2)."""

    default_reason = "invalid-vectors"
    category = "input"


class SchemaViolation(GezkError, ValueError):
    """A JSON document or an SQLite database does not match its schema."""

    default_reason = "schema-violation"
    category = "input"


class InvalidManifest(SchemaViolation):
    """A ``manifest.json`` is not JSON, breaks its schema, or cannot be typed (section 4).

    ``subject`` is the JSON path of the most relevant problem; ``findings`` lists every problem
    found (the most relevant first) when the schema was checked.
    """

    default_reason = "invalid-manifest"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        subject: str | None = None,
        findings: tuple[SchemaFinding, ...] = (),
    ):
        super().__init__(message, reason=reason, subject=subject)
        self.findings: tuple[SchemaFinding, ...] = findings


class SignatureError(GezkError):
    """A signature is missing, malformed, by an unknown key, or does not verify (section 12)."""

    default_reason = "signature-invalid"
    category = "integrity"


class InvalidLocation(GezkError, ValueError):
    """A coordinate, location or radius query is out of range (section 5.2.2)."""

    default_reason = "invalid-location"
    category = "input"
