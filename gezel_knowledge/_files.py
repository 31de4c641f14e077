"""The caller's files: reading an input file, and checking an output path before slow work.

Each failure is one typed error with a stable reason and the path as its subject: an input that
cannot be read is ``unreadable`` wherever it is read (a key, a model file, a kit, judgements),
and an output path is refused before a build or an export has spent minutes on work it could
not write.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from gezel_knowledge.errors import InvalidInput, KnowledgeError

__all__ = ["check_output_file", "check_output_folder", "open_input", "read_input_bytes"]


def _unreadable(file: Path, what: str, exc: OSError, error: type[KnowledgeError]) -> KnowledgeError:
    return error(
        f"cannot read {what} {file}: {exc.strerror or exc}", reason="unreadable", subject=str(file)
    )


def read_input_bytes(
    path: Path | str, what: str, *, error: type[KnowledgeError] = InvalidInput
) -> bytes:
    """The bytes of the file at ``path``, or ``error`` (reason ``unreadable``, the path as its
    subject) naming ``what`` (``"signing key"``, ``"trust key"``) when it cannot be read.

    ``error`` is the class the caller's callers act on: a model file that cannot be read is a
    :class:`~gezel_knowledge.errors.ModelUnavailable`, like a missing one.
    """
    file = Path(path)
    try:
        return file.read_bytes()
    except OSError as exc:
        raise _unreadable(file, what, exc, error) from None


def open_input(path: Path | str, what: str) -> BinaryIO:
    """The file at ``path`` opened for reading in binary, for input too large to read at once;
    refused as :func:`read_input_bytes` refuses it."""
    file = Path(path)
    try:
        return file.open("rb")
    except OSError as exc:
        raise _unreadable(file, what, exc, InvalidInput) from None


def _check_ancestors(path: Path, what: str) -> None:
    """The nearest existing folder above ``path`` must be a folder, so it can be created."""
    for parent in path.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise InvalidInput(
                    f"cannot write {what} {path}: {parent} is not a folder",
                    reason="output-not-a-folder",
                    subject=str(parent),
                )
            return


def check_output_file(path: Path | str, what: str) -> Path:
    """``path`` as a file to (re)write: not a folder, and below a folder (or one that can be
    made); returns it absolute."""
    file = Path(path).absolute()
    if file.is_dir():
        raise InvalidInput(
            f"cannot write {what} {file}: it is a folder; name the file to write",
            reason="output-is-directory",
            subject=str(file),
        )
    _check_ancestors(file, what)
    return file


def check_output_folder(path: Path | str, what: str) -> Path:
    """``path`` as a folder to write into: a folder, or absent below a folder (or one that can
    be made); returns it absolute."""
    folder = Path(path).absolute()
    if folder.exists() and not folder.is_dir():
        raise InvalidInput(
            f"cannot write {what} into {folder}: it is not a folder",
            reason="output-not-a-folder",
            subject=str(folder),
        )
    _check_ancestors(folder, what)
    return folder
