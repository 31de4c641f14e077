"""Progress events for long jobs (build, install, index), the sink protocol they go to, and the
meter that stamps them with their recent pace and the time left."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

__all__ = ["ProgressEvent", "ProgressMeter", "ProgressSink", "emit_safely", "metered"]


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """A job's position: which step it is in, how far through it, and how fast it goes."""

    job: str
    step: str
    done: int = 0
    total: int | None = None
    unit: str = "items"
    message: str = ""
    rate: float | None = None
    """Recent pace in :attr:`rate_unit` per second; ``None`` until it can be measured."""
    rate_unit: str = ""
    """What :attr:`rate` counts (``passages``); empty means :attr:`unit`."""
    eta_seconds: float | None = None
    """Seconds until :attr:`done` reaches :attr:`total` at the recent pace, if it can be told."""


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


@dataclass(frozen=True, slots=True)
class _Sample:
    at: float
    done: int
    work: int


_RESOLUTION = 64
"""Samples kept per window at most (events closer together replace the newest sample)."""


class ProgressMeter:
    """A sink that stamps each event with its step's recent pace and time left, then passes it
    on to ``sink``.

    The pace is measured over the last ``window`` seconds of the step (at least two events
    ``min_span`` seconds apart), so it follows a job that speeds up or slows down; a step that
    counts from zero starts at the job's previous event. The time left is ``total - done`` at
    the pace of ``done``; the rate may count something else (:meth:`stamp`'s ``work``).
    """

    def __init__(
        self,
        sink: ProgressSink | None,
        *,
        window: float = 30.0,
        min_span: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._sink = sink
        self._window = window
        self._min_span = min_span
        self._clock = clock
        self._samples: dict[tuple[str, str], deque[_Sample]] = {}
        self._last: dict[str, tuple[str, float]] = {}

    def __call__(self, event: ProgressEvent) -> None:
        """Stamp ``event`` and pass it on."""
        self.emit(event)

    def emit(self, event: ProgressEvent, *, work: int | None = None, work_unit: str = "") -> None:
        """Stamp ``event`` (see :meth:`stamp`) and pass it on."""
        emit_safely(self._sink, self.stamp(event, work=work, work_unit=work_unit))

    def stamp(
        self, event: ProgressEvent, *, work: int | None = None, work_unit: str = ""
    ) -> ProgressEvent:
        """``event`` with :attr:`~ProgressEvent.rate` and :attr:`~ProgressEvent.eta_seconds`.

        ``work`` is a second running count of the step (say, passages embedded while documents
        are read) whose pace becomes the rate, in ``work_unit``; by default the rate is the pace
        of ``done`` in the event's unit.
        """
        now = self._clock()
        key = (event.job, event.step)
        count = event.done if work is None else work
        samples = self._samples.get(key)
        if samples is None:
            samples = deque()
            previous = self._last.get(event.job)
            if work is None and previous is not None and previous[0] != event.step:
                # The step began, at zero, when the job's previous step last reported.
                samples.append(_Sample(previous[1], 0, 0))
            self._samples[key] = samples
        sample = _Sample(now, event.done, count)
        if len(samples) >= 2 and now - samples[-2].at < self._window / _RESOLUTION:
            samples[-1] = sample  # a burst of events: keep the window's samples few
        else:
            samples.append(sample)
        self._last[event.job] = (event.step, now)
        while len(samples) > 2 and now - samples[1].at >= self._window:
            samples.popleft()
        first = samples[0]
        span = now - first.at
        finished = event.total is not None and event.done >= event.total
        if span < self._min_span or len(samples) < 2:
            return replace(event, eta_seconds=0.0) if finished else event
        rate = max(0.0, (count - first.work) / span)
        pace = (event.done - first.done) / span
        eta = None
        if finished:
            eta = 0.0
        elif event.total is not None and pace > 0:
            eta = (event.total - event.done) / pace
        unit = work_unit if work is not None else ""
        return replace(event, rate=rate, rate_unit=unit, eta_seconds=eta)


def metered(sink: ProgressSink | None) -> ProgressSink | None:
    """``sink`` behind a :class:`ProgressMeter` (``None`` stays ``None``; a meter is kept)."""
    if sink is None or isinstance(sink, ProgressMeter):
        return sink
    return ProgressMeter(sink)
