"""Progress events for long jobs (build, install, index) and the sink protocol they go to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["ProgressEvent", "ProgressSink", "emit_safely"]


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """A job's position: which step it is in and how far through it."""

    job: str
    step: str
    done: int = 0
    total: int | None = None
    unit: str = "items"
    message: str = ""


class ProgressSink(Protocol):
    """Receives progress events; a sink that fails never stops the job."""

    def __call__(self, event: ProgressEvent) -> None:
        """Handle one event."""
        ...


def emit_safely(sink: ProgressSink | None, event: ProgressEvent) -> None:
    """Send ``event`` to ``sink``; a sink that raises is ignored (a subscriber going away
    must not cancel the job)."""
    if sink is None:
        return
    try:
        sink(event)
    except Exception:  # a broken subscriber must not cancel the job
        return
