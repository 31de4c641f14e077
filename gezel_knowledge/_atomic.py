"""Atomic file replacement, read-only publication and removal helpers."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import uuid
from pathlib import Path

from gezel_knowledge._faults import naming

__all__ = [
    "make_read_only",
    "make_writable",
    "move_to_trash",
    "publish_read_only",
    "remove_tree",
    "write_atomic",
]


def write_atomic(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` via a synced temp file in the same directory and a rename.

    ``mode`` sets the file's permissions before it appears under its name (a private key is
    never visible with wider permissions than asked for).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        # A full disk fails the write without a file name; the error names the file meant.
        with naming(path), os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    # Makes the rename durable on POSIX; directories cannot be opened this way on Windows.
    if os.name == "nt":  # pragma: no cover
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_READ_ONLY_FILE = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH
_READ_ONLY_DIR = _READ_ONLY_FILE | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH


def make_read_only(root: Path) -> None:
    """Drop write permission from every file and directory under ``root`` (inclusive)."""
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), _READ_ONLY_FILE)
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), _READ_ONLY_DIR)
    os.chmod(root, _READ_ONLY_DIR)


def publish_read_only(staging: Path, target: Path) -> None:
    """Make the directory ``staging`` read-only and rename it to ``target`` (creating its parent):
    one rename, so readers see the whole directory or nothing."""
    make_read_only(staging)
    # The top directory stays writable until it is in place: moving a directory to another
    # parent rewrites its "..", which needs write permission on the directory itself.
    os.chmod(staging, os.stat(staging).st_mode | stat.S_IWUSR)
    target.parent.mkdir(parents=True, exist_ok=True)
    os.rename(staging, target)
    os.chmod(target, os.stat(target).st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def make_writable(root: Path) -> None:
    """Give the owner write permission on ``root`` and everything under it (for deletion;
    Windows refuses to delete a read-only file)."""
    if not root.exists():
        return
    os.chmod(root, os.stat(root).st_mode | stat.S_IWUSR)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            if not os.path.islink(full):
                os.chmod(full, os.stat(full).st_mode | stat.S_IWUSR)


def remove_tree(root: Path) -> None:
    """Delete ``root`` even when it was published read-only; a missing path is fine."""
    if not root.exists() and not root.is_symlink():
        return
    if root.is_symlink() or root.is_file():
        root.unlink()
        return
    make_writable(root)
    shutil.rmtree(root)


def move_to_trash(path: Path, trash_dir: Path, *, name: str | None = None) -> Path:
    """Rename ``path`` into ``trash_dir`` under a fresh name (``name`` or its own, plus a random
    suffix) and return where it went; raises :class:`OSError` when it cannot be moved.

    One rename takes a directory out of view at once, so deleting it afterwards never leaves a
    half-deleted tree where readers look.
    """
    trash_dir.mkdir(parents=True, exist_ok=True)
    grave = trash_dir / f"{name or path.name}-{uuid.uuid4().hex[:12]}"
    # Moving a directory to another parent rewrites its "..", which needs write permission on
    # the (read-only, published) directory itself.
    os.chmod(path, os.stat(path).st_mode | stat.S_IWUSR)
    path.rename(grave)
    return grave
