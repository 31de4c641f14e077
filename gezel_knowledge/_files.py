"""The caller's files: reading an input file, and checking an output path before slow work.

Each failure is one typed error with a stable reason and the path as its subject: an input that
cannot be read is ``unreadable`` wherever it is read (a key, a model file, a kit, judgements),
one that is no regular file (a FIFO, ``/dev/zero``, a folder) is ``not-a-file`` before a byte
is read, a key over :data:`~gezel_knowledge._untrusted.MAX_KEY_BYTES` is ``input-too-large``
and a key file every user may write is ``insecure-permissions``; an output path is refused
before a build or an export has spent minutes on work it could not write.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO

from gezel_knowledge._untrusted import MAX_KEY_BYTES, open_regular, read_bounded, read_regular
from gezel_knowledge.errors import InvalidInput, KnowledgeError

__all__ = [
    "check_not_world_writable",
    "check_output_file",
    "check_output_folder",
    "open_input",
    "read_input_bytes",
    "read_key_bytes",
]

_UNLIMITED = sys.maxsize


def read_input_bytes(
    path: Path | str,
    what: str,
    *,
    error: type[KnowledgeError] = InvalidInput,
    limit: int = _UNLIMITED,
) -> bytes:
    """The bytes of the regular file at ``path``, or ``error`` (reason ``unreadable``,
    ``not-a-file`` or, past ``limit`` bytes, ``input-too-large``; the path as its subject)
    naming ``what`` (``"the relevance judgements"``, ``"model file"``).

    ``error`` is the class the caller's callers act on: a model file that cannot be read is a
    :class:`~gezel_knowledge.errors.ModelUnavailable`, like a missing one.
    """
    return read_bounded(path, what, limit=limit, error=error)


def open_input(path: Path | str, what: str) -> BinaryIO:
    """The regular file at ``path`` opened for reading in binary, for input too large to read
    at once; refused as :func:`read_input_bytes` refuses it."""
    return open_regular(path, what)


def check_not_world_writable(status: os.stat_result, path: Path, what: str) -> None:
    """Refuse a key file or a folder of keys that every user may write (``insecure-permissions``):
    anyone on the machine could replace the key. Windows has no such permission bit."""
    if os.name != "nt" and status.st_mode & stat.S_IWOTH:
        raise InvalidInput(
            f"{what} {path} may be written by every user (mode {stat.S_IMODE(status.st_mode):o}); "
            f"anyone could replace it: chmod o-w {path}",
            reason="insecure-permissions",
            subject=str(path),
        )


def read_key_bytes(path: Path | str, what: str) -> bytes:
    """The bytes of a PEM key file (``"signing key"``, ``"trust key"``): a regular file of at
    most :data:`~gezel_knowledge._untrusted.MAX_KEY_BYTES`, not writable by every user."""
    file = Path(path)
    data, status = read_regular(file, what, limit=MAX_KEY_BYTES)
    check_not_world_writable(status, file, what)
    return data


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
