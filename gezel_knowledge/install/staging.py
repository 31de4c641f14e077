"""Work directories of jobs in progress, and what killed jobs leave behind.

A job extracts into a staging directory and deletes it when it ends, however it ends, except
when the process is killed (``kill -9``, a power cut): then the directory stays. To tell such a
leftover from the work of a job still running, every staging directory is created with a lock
file beside it (``<name>.lock``) that its job holds until the directory is gone. The kernel
releases the lock of a killed process, so a staging directory whose lock can be taken at once is
a leftover and is removed, under that lock; one whose lock is held is left alone.

Trash entries (directories moved aside, one rename each, to be deleted) are all removed: a
running job deletes what it moves within moments, and removing one twice is harmless.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path

from gezel_knowledge._atomic import remove_tree
from gezel_knowledge._locking import FileLock, LockTimeout

__all__ = ["staging_directory", "sweep_staging", "sweep_trash"]

_LOCK = ".lock"


def _lock_for(parent: Path, name: str) -> FileLock:
    return FileLock(parent / f"{name}{_LOCK}", timeout=0.0)


@contextlib.contextmanager
def staging_directory(parent: Path, label: str) -> Iterator[Path]:
    """A fresh ``parent/<label>-<random>`` directory, held by its lock until it is removed on
    exit (whatever the outcome)."""
    parent.mkdir(parents=True, exist_ok=True)
    name = f"{label}-{uuid.uuid4().hex[:12]}"
    # The lock first, then the directory: a sweep never sees the directory unlocked.
    with _lock_for(parent, name):
        path = parent / name
        path.mkdir()
        try:
            yield path
        finally:
            remove_tree(path)
            (parent / f"{name}{_LOCK}").unlink(missing_ok=True)


def _is_lock(name: str) -> bool:
    return name.endswith(_LOCK) or name.endswith(f"{_LOCK}.d")


def sweep_staging(parent: Path) -> list[str]:
    """Remove the staging directories no running job holds; return their names."""
    removed: list[str] = []
    if not parent.is_dir():
        return removed
    entries = sorted(p.name for p in parent.iterdir())
    for name in entries:
        if _is_lock(name):
            continue
        try:
            with _lock_for(parent, name):
                remove_tree(parent / name)
                (parent / f"{name}{_LOCK}").unlink(missing_ok=True)
        except LockTimeout:
            continue  # its job is still running
        except OSError:
            continue
        removed.append(name)
    for name in entries:
        # A lock whose job died between taking it and creating its directory.
        owner = name.removesuffix(_LOCK)
        if not name.endswith(_LOCK) or owner in entries:
            continue
        with contextlib.suppress(LockTimeout, OSError), _lock_for(parent, owner):
            (parent / name).unlink(missing_ok=True)
    return removed


def sweep_trash(trash: Path) -> list[str]:
    """Remove every trash entry; return the names of those this call removed."""
    removed: list[str] = []
    if not trash.is_dir():
        return removed
    for path in sorted(trash.iterdir()):
        try:
            remove_tree(path)
        except OSError:
            continue  # another process is deleting it right now
        removed.append(path.name)
    return removed
