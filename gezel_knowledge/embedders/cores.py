"""How many threads an embedder runs on: the cores this process may really use, and a cap.

The affinity mask (or Python 3.13's ``os.process_cpu_count``) says which cores the scheduler
may run the process on, but a container started with ``--cpus=2`` on a 64-core host still
sees 64 of them: its limit is a cgroup CPU quota (``cpu.max`` in cgroup v2,
``cpu.cfs_quota_us`` over ``cpu.cfs_period_us`` in v1), and 64 threads sharing two CPUs' worth
of time are throttled. :func:`usable_cores` honours both; ``GEZEL_KNOWLEDGE_THREADS`` caps the
default further (:func:`default_threads`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Final

from gezel_knowledge.errors import InvalidInput

__all__ = ["THREADS_ENV", "cgroup_cpu_limit", "default_threads", "usable_cores"]

THREADS_ENV: Final = "GEZEL_KNOWLEDGE_THREADS"
"""Environment variable: at most this many threads per embedder when ``threads=`` is not given."""

_CGROUP_ROOT = Path("/sys/fs/cgroup")
_MEMBERSHIP = Path("/proc/self/cgroup")


def usable_cores() -> int:
    """The CPU cores this process may use: its affinity mask, bounded by a cgroup CPU quota.

    A fractional quota rounds down (1.5 CPUs give one thread), never below one.
    """
    cores = _scheduler_cores()
    limit = cgroup_cpu_limit()
    if limit is not None:
        cores = min(cores, max(1, math.floor(limit)))
    return cores


def default_threads() -> int:
    """An embedder's threads when none are given: usable cores, at most ``GEZEL_KNOWLEDGE_THREADS``.

    Raises :class:`~gezel_knowledge.errors.InvalidInput` (reason ``invalid-threads``) when the
    variable is set to anything but a positive integer.
    """
    cores = usable_cores()
    raw = os.environ.get(THREADS_ENV, "").strip()
    if not raw:
        return cores
    cap = int(raw) if raw.isdigit() else 0
    if cap < 1:
        raise InvalidInput(
            f"{THREADS_ENV} must be a positive integer, got {raw!r}",
            reason="invalid-threads",
            subject=THREADS_ENV,
        )
    return min(cores, cap)


def cgroup_cpu_limit() -> float | None:
    """The CPUs this process's cgroup quotas allow (the tightest of its cgroup and ancestors).

    ``None`` when no quota applies or there are no cgroups to read (macOS, Windows).
    """
    try:
        lines = _MEMBERSHIP.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    limits: list[float] = []
    for line in lines:
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hierarchy == "0" and not controllers:  # cgroup v2: the one unified hierarchy
            limits += _quotas(_cgroup_dirs(_CGROUP_ROOT, path), _v2_limit)
        elif "cpu" in controllers.split(","):  # cgroup v1: the hierarchy holding cpu
            mounts = (_CGROUP_ROOT / controllers, _CGROUP_ROOT / "cpu")
            mount = next((m for m in mounts if m.is_dir()), None)
            if mount is not None:
                limits += _quotas(_cgroup_dirs(mount, path), _v1_limit)
    return min(limits) if limits else None


def _scheduler_cores() -> int:
    count = getattr(os, "process_cpu_count", None)  # Python 3.13: affinity and -X cpu_count
    if count is not None:
        return max(1, int(count() or 1))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity masks on macOS and Windows
        return max(1, os.cpu_count() or 1)


def _cgroup_dirs(mount: Path, path: str) -> list[Path]:
    """The process's cgroup directory and its ancestors, up to the mount itself.

    Inside a container the recorded path may name a directory the container cannot see; its
    own cgroup is then the mount root, which is always included.
    """
    parts = [p for p in path.split("/") if p and p not in {".", ".."}]
    return [mount.joinpath(*parts[:depth]) for depth in range(len(parts), -1, -1)]


def _quotas(dirs: list[Path], read: Callable[[Path], float | None]) -> list[float]:
    found = (read(d) for d in dirs)
    return [q for q in found if q is not None]


def _v2_limit(directory: Path) -> float | None:
    """``cpu.max``: ``"<quota> <period>"`` in microseconds, or ``"max <period>"``."""
    fields = _read_fields(directory / "cpu.max")
    if len(fields) != 2 or fields[0] == "max":
        return None
    return _ratio(fields[0], fields[1])


def _v1_limit(directory: Path) -> float | None:
    """``cpu.cfs_quota_us`` over ``cpu.cfs_period_us``; a quota of -1 means none."""
    quota = _read_fields(directory / "cpu.cfs_quota_us")
    period = _read_fields(directory / "cpu.cfs_period_us")
    if len(quota) != 1 or len(period) != 1:
        return None
    return _ratio(quota[0], period[0])


def _read_fields(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return []


def _ratio(quota: str, period: str) -> float | None:
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    return q / p if q > 0 and p > 0 else None
