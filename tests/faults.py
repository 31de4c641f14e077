"""Fault injection and time budgets shared by the hostile-input tests (issue 26).

- :func:`full_filesystem` mounts a small tmpfs (2 MiB) and fills it, so a write fails with
  ``ENOSPC`` where a real disk would; :func:`read_only` makes a folder read-only (a read-only
  bind mount as root, where permissions alone would not stop anyone). Both need root for the
  mount and skip, naming what is missing, without it; under CI (which runs as root) they fail
  instead, so a fault test never passes CI by skipping.
- :func:`assert_linear_time` runs a scanner over adversarial input and holds it to a CPU-time
  budget proportional to the input's size: generous enough for a loaded two-core machine, and
  far below what a quadratic scan of a megabyte costs (minutes to hours).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn

import pytest

MB = 1_000_000


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False)


def _unavailable(why: str) -> NoReturn:
    """Skip naming what is missing; under CI, fail: the fault tests must run there."""
    if os.environ.get("CI"):
        pytest.fail(f"the fault-injection tests must run in CI: {why}")
    pytest.skip(why)


def _need_root(what: str) -> None:
    if os.geteuid() != 0:
        _unavailable(f"{what} needs root to mount a file system (CI runs as root)")
    if shutil.which("mount") is None:
        _unavailable(f"{what} needs the mount command")


@contextlib.contextmanager
def full_filesystem(folder: Path, *, size: str = "2m") -> Iterator[Path]:
    """``folder`` as a small tmpfs of ``size`` (unmounted after); :func:`fill` fills it."""
    _need_root("a full file system")
    folder.mkdir(parents=True, exist_ok=True)
    mounted = _run("mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder))
    if mounted.returncode != 0:
        _unavailable(f"mount -t tmpfs failed: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        _run("umount", "-l", str(folder))


def fill(folder: Path, *, leave_bytes: int = 0) -> None:
    """Write into ``folder`` until its file system has at most ``leave_bytes`` free."""
    filler = folder / ".filler"
    with filler.open("ab") as fh:
        while True:
            free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
            if free <= leave_bytes:
                break
            try:
                fh.write(b"\0" * max(1, min(65536, free - leave_bytes)))
                fh.flush()
            except OSError:
                break


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """``folder`` read-only for everyone, root included, while the block runs."""
    _need_root("a read-only folder")
    bound = _run("mount", "--bind", str(folder), str(folder))
    if bound.returncode != 0:
        _unavailable(f"mount --bind failed: {bound.stderr.strip()}")
    try:
        remount = _run("mount", "-o", "remount,bind,ro", str(folder))
        if remount.returncode != 0:
            _unavailable(f"mount -o remount,bind,ro failed: {remount.stderr.strip()}")
        yield folder
    finally:
        _run("umount", "-l", str(folder))


def tree_state(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` and its bytes (to compare before and after a fault)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if stat.S_ISREG(p.lstat().st_mode) and not p.name.startswith(".filler")
    }


def assert_linear_time(
    scan: Callable[[], object], size: int, *, seconds_per_mb: float, what: str
) -> float:
    """Run ``scan`` (over ``size`` bytes of input) and assert its CPU time stays within
    ``seconds_per_mb`` per megabyte; return the CPU seconds it took."""
    started = time.process_time()
    scan()
    used = time.process_time() - started
    budget = seconds_per_mb * size / MB
    assert used <= budget, f"{what}: {used:.1f} s CPU for {size:,} bytes (budget {budget:.1f} s)"
    return used
