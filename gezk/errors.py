"""Typed errors of the format layer.

Every error carries a stable, machine-readable ``reason`` (kebab-case) and, where there is one,
the ``subject`` it is about (an identifier, a JSON path, a file name). ``str(error)`` is a single
human-readable line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from gezk.schemas import SchemaFinding

__all__ = [
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


class ReasonedError(Exception):
    """An error with a stable machine-readable ``reason`` and a one-line message.

    The common root of :class:`GezkError` and ``gezel_knowledge.errors.KnowledgeError``, so one
    ``except ReasonedError`` handles every typed failure of both packages.
    """

    default_reason: ClassVar[str] = "error"

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


class InvalidIdentifier(GezkError):
    """An identifier does not match its grammar (spec section 2)."""

    default_reason = "invalid-identifier"


class InvalidReference(GezkError):
    """A ``knowledge://`` reference is ill-formed (spec section 11)."""

    default_reason = "invalid-reference"


class UnsupportedVersion(GezkError):
    """A format or index-schema version this implementation does not read (spec section 1)."""

    default_reason = "unsupported-format"


class InvalidProfile(GezkError):
    """An embedding or chunking profile is malformed or unknown (spec sections 6.1, 7.1)."""

    default_reason = "invalid-profile"


class QuantizationError(GezkError):
    """Vectors handed to the quantizers or kernels have the wrong shape or values (section 6.2)."""

    default_reason = "invalid-vectors"


class SchemaViolation(GezkError):
    """A JSON document or an SQLite database does not match its schema."""

    default_reason = "schema-violation"


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


class InvalidLocation(GezkError):
    """A coordinate, location or radius query is out of range (section 5.2.2)."""

    default_reason = "invalid-location"
