"""A progress sink wrapper that adds the rate and the time left to each event's message."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from gezel_knowledge.progress import ProgressEvent, ProgressSink

__all__ = ["RateProgress", "format_seconds"]


def format_seconds(seconds: float) -> str:
    """``42s``, ``3m05s`` or ``1h02m``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


class RateProgress:
    """Forwards events to ``sink`` with ``N unit/s, T left`` appended once a step has a rate."""

    def __init__(
        self, sink: ProgressSink | None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._sink = sink
        self._clock = clock
        self._started: dict[tuple[str, str], tuple[float, int]] = {}

    def __call__(self, event: ProgressEvent) -> None:
        """Annotate and forward one event."""
        if self._sink is None:
            return
        now = self._clock()
        key = (event.job, event.step)
        began, first = self._started.setdefault(key, (now, event.done))
        elapsed = now - began
        if event.total and event.done > first and elapsed > 0:
            rate = (event.done - first) / elapsed
            left = max(event.total - event.done, 0) / rate
            timing = f"{rate:,.1f} {event.unit}/s, {format_seconds(left)} left"
            message = f"{event.message}; {timing}" if event.message else timing
            event = replace(event, message=message)
        self._sink(event)
