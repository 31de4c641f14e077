"""Typed errors and warnings of the compiler, located at the document and line they are about."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gezel_knowledge.errors import InvalidInput, KnowledgeError

__all__ = [
    "BuildWarning",
    "ChunkingDoesNotFit",
    "SourceError",
    "WarningsAsErrors",
    "WorkerFailed",
    "display_path",
    "refuse_warnings",
]


def display_path(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` for messages (or as given when outside it)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _where(document: str | None, path: str | None, line: int | None) -> str | None:
    place = path or (f"document {document!r}" if document is not None else None)
    if place is None:
        return None
    return f"{place}:{line}" if line is not None else place


class SourceError(InvalidInput):
    """Compiler input that cannot be built, with the document, file and line it is about."""

    default_reason = "invalid-source"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        document: str | None = None,
        path: str | None = None,
        line: int | None = None,
    ) -> None:
        where = _where(document, path, line)
        super().__init__(f"{where}: {message}" if where else message, reason=reason, subject=where)
        self.document = document
        self.path = path
        self.line = line


class WorkerFailed(KnowledgeError):
    """A process or Ray actor chunking and embedding for a build ended without answering."""

    default_reason = "worker-failed"
    category = "internal"


class ChunkingDoesNotFit(InvalidInput):
    """A chunking profile whose embed inputs would overflow the embedding model's window."""

    default_reason = "chunking-exceeds-window"

    def __init__(self, message: str, *, chunking_id: str, embedding_id: str) -> None:
        super().__init__(message, subject=f"{chunking_id} / {embedding_id}")
        self.chunking_id = chunking_id
        self.embedding_id = embedding_id


@dataclass(frozen=True, slots=True)
class BuildWarning:
    """Something the build accepted but the author should look at (an empty document...)."""

    reason: str
    message: str
    document: str | None = None
    path: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = _where(self.document, self.path, self.line)
        return f"{where}: {self.message}" if where else self.message


class WarningsAsErrors(InvalidInput):
    """A strict build that met warnings: :attr:`warnings` holds every one."""

    default_reason = "strict-warnings"

    def __init__(self, warnings: Sequence[BuildWarning]) -> None:
        first = warnings[0]
        more = len(warnings) - 1
        rest = f" (and {more} more warning{'s' if more != 1 else ''})" if more else ""
        super().__init__(
            f"strict build stopped at a warning: {first} [{first.reason}]{rest}",
            subject=first.path,
        )
        self.warnings = tuple(warnings)


def refuse_warnings(warnings: Sequence[BuildWarning]) -> None:
    """Raise :class:`WarningsAsErrors` when there are warnings (a strict build)."""
    if warnings:
        raise WarningsAsErrors(warnings)
