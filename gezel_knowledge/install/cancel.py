"""Explicit cancellation of a long-running job.

A job stops only when its token is cancelled; a progress subscriber that raises or disappears
never stops it. Cancellation is checked between steps and between download blocks.
"""

from __future__ import annotations

import threading

from gezel_knowledge.errors import Cancelled

__all__ = ["CancelToken"]


class CancelToken:
    """A thread-safe flag a caller sets to stop a job at its next check point."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the job to stop."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._event.is_set()

    def check(self, what: str = "job") -> None:
        """Raise :class:`~gezel_knowledge.errors.Cancelled` if cancellation was requested."""
        if self._event.is_set():
            raise Cancelled(f"{what} was cancelled")
