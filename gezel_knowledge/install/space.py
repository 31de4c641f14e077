"""Free-space checks before a job writes anything large.

The probe is injectable (``free_space(path) -> bytes``) so a test can simulate a full disk
without filling one.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from gezel_knowledge.install.errors import InsufficientSpace

__all__ = ["FreeSpaceProbe", "check_free_space", "disk_free_space"]

FreeSpaceProbe = Callable[[Path], int]
"""Returns the bytes available to this user on the filesystem holding a path."""

SAFETY_MARGIN = 16 * 1024 * 1024
"""Headroom kept free beyond the job's own bytes (registry rewrites, SQLite temp files)."""


def disk_free_space(path: Path) -> int:
    """The standard probe: :func:`shutil.disk_usage` of ``path`` or its nearest existing parent."""
    return shutil.disk_usage(_existing(path)).free


def _existing(path: Path) -> Path:
    probe = Path(path).absolute()
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return probe


def check_free_space(
    path: Path,
    needed: int,
    *,
    what: str,
    probe: FreeSpaceProbe = disk_free_space,
    margin: int = SAFETY_MARGIN,
) -> int:
    """Raise :class:`InsufficientSpace` unless ``needed`` bytes plus a margin fit; return free."""
    free = int(probe(_existing(path)))
    if needed + margin > free:
        raise InsufficientSpace(
            f"not enough free space for {what}: need {_mib(needed + margin)} "
            f"(including {_mib(margin)} headroom), {_mib(free)} free on the disk holding {path}",
            subject=str(path),
        )
    return free


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB"
