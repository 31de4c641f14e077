"""A cross-process exclusive lock on a file path.

On POSIX the lock is ``fcntl.flock`` on a dedicated lock file: the kernel releases it when the
holder exits or crashes, so there is no stale state to clean up. Where ``fcntl`` does not exist
(Windows), the fallback is an atomically created lock *directory* (``mkdir`` either creates it
or fails, on every filesystem) holding an ``owner`` file with the holder's host, pid and start
time. A fallback lock is considered stale, and broken, when its owner is a process on this host
that no longer exists, or when it is older than ``stale_after`` seconds; the registry's critical
sections last milliseconds, so the default of five minutes never breaks a live holder.

The lock is not re-entrant: acquiring it twice in one thread waits for itself until timeout.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import time
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from gezel_knowledge.errors import KnowledgeError

try:
    import fcntl as _fcntl
except ImportError:  # pragma: no cover - exercised on Windows only
    _fcntl = None  # type: ignore[assignment]

__all__ = ["FileLock", "LockTimeout", "fcntl_available"]

_POLL = 0.01


class LockTimeout(KnowledgeError):
    """Another process held the lock for longer than the caller was willing to wait."""

    default_reason = "lock-timeout"
    category = "unavailable"


def fcntl_available() -> bool:
    """Whether the kernel-backed ``fcntl.flock`` lock is available on this platform."""
    return _fcntl is not None


class FileLock:
    """An exclusive lock on ``path``, usable as a context manager."""

    def __init__(
        self,
        path: Path,
        *,
        timeout: float | None = 60.0,
        use_fcntl: bool | None = None,
        stale_after: float = 300.0,
    ) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self.stale_after = stale_after
        self._use_fcntl = fcntl_available() if use_fcntl is None else use_fcntl
        if self._use_fcntl and not fcntl_available():
            raise ValueError("fcntl locking is not available on this platform")
        self._handle: IO[Any] | None = None
        self._held_dir: Path | None = None

    @property
    def held(self) -> bool:
        """Whether this object currently holds the lock."""
        return self._handle is not None or self._held_dir is not None

    def acquire(self) -> None:
        """Block until the lock is held, or raise :class:`LockTimeout`."""
        if self.held:
            raise RuntimeError(f"lock {self.path} is already held by this object")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            if self._try_acquire():
                return
            if deadline is not None and time.monotonic() >= deadline:
                raise LockTimeout(
                    f"timed out after {self.timeout:g}s waiting for the lock {self.path}",
                    subject=str(self.path),
                )
            time.sleep(_POLL)

    def release(self) -> None:
        """Release the lock (a no-op when not held)."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            try:
                assert _fcntl is not None
                _fcntl.flock(handle.fileno(), _fcntl.LOCK_UN)
            finally:
                handle.close()
        if self._held_dir is not None:
            held, self._held_dir = self._held_dir, None
            shutil.rmtree(held, ignore_errors=True)

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def _try_acquire(self) -> bool:
        return self._try_fcntl() if self._use_fcntl else self._try_directory()

    def _try_fcntl(self) -> bool:
        assert _fcntl is not None
        try:
            handle: IO[Any] = self.path.open("a+b")
        except PermissionError:
            # A lock file another account created (a machine-wide shared store): flock needs
            # only an open descriptor, and a read-only one serves as well.
            handle = self.path.open("rb")
        try:
            _fcntl.flock(handle.fileno(), _fcntl.LOCK_EX | _fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        except BaseException:
            handle.close()
            raise
        self._handle = handle
        return True

    def _lock_dir(self) -> Path:
        return self.path.with_name(self.path.name + ".d")

    def _try_directory(self) -> bool:
        lock_dir = self._lock_dir()
        try:
            lock_dir.mkdir()
        except FileExistsError:
            if self._is_stale(lock_dir):
                # Rename before deleting so two breakers cannot both delete a fresh lock.
                grave = lock_dir.with_name(f"{lock_dir.name}.stale-{os.getpid()}-{time.time_ns()}")
                with contextlib.suppress(OSError):
                    lock_dir.rename(grave)
                    shutil.rmtree(grave, ignore_errors=True)
            return False
        owner = {"host": socket.gethostname(), "pid": os.getpid(), "time": time.time()}
        (lock_dir / "owner").write_text(json.dumps(owner), encoding="utf-8")
        self._held_dir = lock_dir
        return True

    def _is_stale(self, lock_dir: Path) -> bool:
        try:
            owner = json.loads((lock_dir / "owner").read_text(encoding="utf-8"))
            started = float(owner["time"])
            host, pid = str(owner["host"]), int(owner["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            # The owner file is written right after mkdir; give a new holder a moment.
            try:
                return time.time() - lock_dir.stat().st_mtime > max(self.stale_after, 1.0)
            except OSError:
                return False
        if time.time() - started > self.stale_after:
            return True
        return host == socket.gethostname() and not _pid_alive(pid)


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if os.name == "nt":
        # os.kill(pid, 0) terminates the process on Windows; rely on the age rule there.
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError included: the process exists, owned by someone else
        return True
    return True
