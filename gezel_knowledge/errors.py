"""Typed errors of the product layer.

One base class, :class:`KnowledgeError`, and a few subclasses grouped by what the caller can do
about the failure. Every error has a stable machine-readable ``reason`` and an optional
``subject`` (a path, an id, ``file:line``); ``str(error)`` is one human-readable line.
"""

from __future__ import annotations

from gezk.errors import ReasonedError

__all__ = [
    "Cancelled",
    "IntegrityFailure",
    "InvalidInput",
    "KnowledgeError",
    "ModelUnavailable",
    "NotFound",
    "Unsupported",
]


class KnowledgeError(ReasonedError):
    """Base class of every error raised by :mod:`gezel_knowledge`."""

    default_reason = "knowledge-error"


class InvalidInput(KnowledgeError):
    """The caller's input (a source tree, a document, an argument) is unacceptable."""

    default_reason = "invalid-input"


class IntegrityFailure(KnowledgeError):
    """A catalog, archive or database fails a consistency or safety check."""

    default_reason = "integrity-failure"


class Unsupported(KnowledgeError):
    """Something well-formed that this implementation does not handle (a version, an encoding)."""

    default_reason = "unsupported"


class NotFound(KnowledgeError):
    """A catalog, document, chunk or file that was asked for does not exist."""

    default_reason = "not-found"


class ModelUnavailable(KnowledgeError):
    """An embedding model's files are missing or do not match the profile's pinned digests.

    The message says what to do first; :attr:`details` holds the long part (file names, pinned
    digests, the places looked in), which the CLI prints with ``--verbose``.
    """

    default_reason = "model-unavailable"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        subject: str | None = None,
        details: str | None = None,
    ) -> None:
        super().__init__(message, reason=reason, subject=subject)
        self.details: str | None = " ".join(details.split()) if details else None


class Cancelled(KnowledgeError):
    """A long-running job was cancelled explicitly."""

    default_reason = "cancelled"
