"""Faults of the machine (a full disk, a read-only folder, a lock held, an I/O error) as typed
errors that name the file they happened to.

The operating system reports a full disk on ``write()``, where it does not know the file name,
and SQLite reports it as ``database or disk is full``; neither says where. The product layer
wraps the places that write (atomic file replacement, the indexes' databases, the caches) in
:func:`storage_faults`, which turns such failures into one
:class:`~gezel_knowledge.errors.StorageUnavailable` with a stable reason and the path:

========================  =========================================================
``insufficient-space``    ``ENOSPC``/``EDQUOT``, ``SQLITE_FULL``
``read-only``             ``EROFS``, ``EACCES``/``EPERM`` on a write, ``SQLITE_READONLY``, or
                          ``SQLITE_CANTOPEN`` where the folder cannot be written
``lock-timeout``          ``SQLITE_BUSY``/``SQLITE_LOCKED``: another process holds the database
``storage-error``         any other I/O error, or a database SQLite cannot read
========================  =========================================================

Where a caller handles ``OSError`` itself, :func:`naming` only gives an ``OSError`` raised without
a file name the path it happened to, so the one line the command line prints names it.

SQLite errors are recognised by the ``sqlite_errorcode`` both bindings (``sqlite3`` and
``pysqlite3``) set, so this module imports neither. Whatever the fault, a transaction that did
not commit is rolled back by SQLite, and atomic writes leave the previous file in place.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from gezel_knowledge.errors import StorageUnavailable

__all__ = ["fault_error", "naming", "storage_faults"]

_SPACE: Final = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
_READ_ONLY: Final = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})

# SQLite primary result codes (https://sqlite.org/rescode.html).
_SQLITE_PERM: Final = 3
_SQLITE_BUSY: Final = 5
_SQLITE_LOCKED: Final = 6
_SQLITE_READONLY: Final = 8
_SQLITE_IOERR: Final = 10
_SQLITE_CORRUPT: Final = 11
_SQLITE_FULL: Final = 13
_SQLITE_CANTOPEN: Final = 14
_SQLITE_NOTADB: Final = 26


def _writable_folder(path: Path) -> bool:
    """Whether the nearest existing folder at or above ``path`` accepts new files."""
    for folder in (path, *path.parents):
        if folder.is_dir():
            return os.access(folder, os.W_OK)
    return False


def _os_reason(exc: OSError) -> str | None:
    reason: str | None = None
    if exc.errno in _SPACE:
        reason = "insufficient-space"
    elif exc.errno in _READ_ONLY:
        reason = "read-only"
    elif exc.errno == errno.EIO:
        reason = "storage-error"
    return reason


def _sqlite_reason(exc: BaseException, path: Path) -> str | None:
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(code, int):
        return None
    primary = code & 0xFF
    reason: str | None = None
    if primary == _SQLITE_FULL:
        reason = "insufficient-space"
    elif primary in (_SQLITE_READONLY, _SQLITE_PERM):
        reason = "read-only"
    elif primary == _SQLITE_CANTOPEN:
        reason = "storage-error" if _writable_folder(path.parent) else "read-only"
    elif primary in (_SQLITE_BUSY, _SQLITE_LOCKED):
        reason = "lock-timeout"
    elif primary in (_SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_NOTADB):
        reason = "storage-error"
    return reason


_WHAT: Final = {
    "insufficient-space": "the disk is full",
    "read-only": "it is read-only (a read-only file system, or no permission to write)",
    "lock-timeout": "another process holds its lock",
    "storage-error": "the storage failed",
}


def fault_error(exc: BaseException, path: Path | str, action: str) -> StorageUnavailable | None:
    """``exc`` as a typed error naming ``path`` and ``action`` ("write the memory index"),
    or ``None`` when it is no fault of the machine (a bug, bad input)."""
    where = Path(path)
    if isinstance(exc, OSError):
        reason = _os_reason(exc)
        detail = exc.strerror or str(exc)
        if exc.filename is not None:
            where = Path(os.fsdecode(exc.filename))
    else:
        reason = _sqlite_reason(exc, where)
        detail = str(exc)
    if reason is None:
        return None
    return StorageUnavailable(
        f"cannot {action} at {where}: {_WHAT[reason]} ({detail})",
        reason=reason,
        subject=str(where),
    )


@contextlib.contextmanager
def storage_faults(path: Path | str, action: str) -> Iterator[None]:
    """Turn a fault of the machine inside the block into :class:`StorageUnavailable`."""
    try:
        yield
    except Exception as exc:
        error = fault_error(exc, path, action)
        if error is None:
            raise
        raise error from exc


@contextlib.contextmanager
def naming(path: Path | str) -> Iterator[None]:
    """Give an ``OSError`` raised inside the block without a file name (``ENOSPC`` from a
    ``write``) the file name ``path``; its class and ``errno`` stay as they were."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise type(exc)(exc.errno, exc.strerror or str(exc), str(path)) from exc
