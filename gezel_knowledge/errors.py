"""Typed errors of the product layer.

One base class, :class:`KnowledgeError`, and a subclass per category of
:data:`gezk.errors.CATEGORIES` (what the caller can do about the failure): :class:`InvalidInput`
(also a ``ValueError``), :class:`IntegrityFailure`, :class:`Unsupported`, :class:`NotFound`
(also a ``LookupError``), :class:`ModelUnavailable`, :class:`StorageUnavailable` and
:class:`Cancelled`. Every error has a
stable machine-readable ``reason`` (declared in :mod:`gezel_knowledge.reasons`) and an optional
``subject`` (a path, an id, ``file:line``); ``str(error)`` is one human-readable line.

Errors of the format layer (``gezk.errors.GezkError``) share the root
:class:`~gezk.errors.ReasonedError` and the categories, so they pass through this layer as they
are; :func:`knowledge_error` is the one translation, for where the layer knows better what a
``gezk`` error means (a malformed manifest inside a catalog is that catalog's integrity failure).
"""

from __future__ import annotations

from typing import Final

from gezk.errors import Category, ReasonedError

__all__ = [
    "Cancelled",
    "IntegrityFailure",
    "InvalidInput",
    "KnowledgeError",
    "ModelUnavailable",
    "NotFound",
    "StorageUnavailable",
    "Unsupported",
    "knowledge_error",
]


class KnowledgeError(ReasonedError):
    """Base class of every error raised by :mod:`gezel_knowledge`."""

    default_reason = "knowledge-error"


class InvalidInput(KnowledgeError, ValueError):
    """The caller's input (a source tree, a document, an argument) is unacceptable."""

    default_reason = "invalid-input"
    category = "input"


class IntegrityFailure(KnowledgeError):
    """A catalog, archive or database fails a consistency or safety check."""

    default_reason = "integrity-failure"
    category = "integrity"


class Unsupported(KnowledgeError):
    """Something well-formed that this implementation does not handle (a version, an encoding)."""

    default_reason = "unsupported"
    category = "unsupported"


class NotFound(KnowledgeError, LookupError):
    """A catalog, document, chunk or file that was asked for does not exist."""

    default_reason = "not-found"
    category = "not-found"


class ModelUnavailable(KnowledgeError):
    """An embedding model's files are missing or do not match the profile's pinned digests.

    The message says what to do first; :attr:`details` holds the long part (file names, pinned
    digests, the places looked in), which the CLI prints with ``--verbose``.
    """

    default_reason = "model-unavailable"
    category = "unavailable"

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


class StorageUnavailable(KnowledgeError):
    """The machine refused a write or a read of the library's own files: a full disk, a
    read-only folder, a lock another process holds, an I/O error. The message names the path;
    what was there before is left as it was."""

    default_reason = "storage-error"
    category = "unavailable"


class Cancelled(KnowledgeError):
    """A long-running job was cancelled explicitly."""

    default_reason = "cancelled"
    category = "cancelled"


_OF_CATEGORY: Final[dict[Category, type[KnowledgeError]]] = {
    "input": InvalidInput,
    "integrity": IntegrityFailure,
    "unsupported": Unsupported,
    "not-found": NotFound,
    "cancelled": Cancelled,
}


def knowledge_error(
    error: ReasonedError, as_: type[KnowledgeError] | None = None
) -> KnowledgeError:
    """``error`` as this package's error of class ``as_`` (default: of its own category), keeping
    its message, reason and subject; raise it ``from error``."""
    if as_ is None:
        if isinstance(error, KnowledgeError):
            return error
        as_ = _OF_CATEGORY.get(error.category, KnowledgeError)
    return as_(error.message, reason=error.reason, subject=error.subject)
