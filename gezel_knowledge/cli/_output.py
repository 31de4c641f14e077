"""The one output path of every command: JSON in one casing, plain lines otherwise, notes and
warnings on stderr, and a terminal progress bar.

``--json`` output is camelCase throughout, like the JSON documents the spec defines
(``manifest.json``, registry documents): a value's dataclass fields are renamed
(``line_start`` -> ``lineStart``), mapping keys are kept as they are, and a value with its own
document form (``to_json()``, such as a parsed manifest) is printed as that document, verbatim.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any, TextIO, TypeVar

from gezel_knowledge._jsonable import camel_case, to_jsonable
from gezel_knowledge.progress import ProgressEvent

__all__ = [
    "TerminalProgress",
    "camel_case",
    "emit",
    "excerpt",
    "note",
    "plural",
    "print_json",
    "to_jsonable",
    "warn",
]

T = TypeVar("T")


_HEADING_MARK = re.compile(r"^ {0,3}#{1,6}(?=\s|$)", flags=re.MULTILINE)


def excerpt(text: str, width: int = 240) -> str:
    """A one-line preview of passage text: heading markers dropped, whitespace folded, cut at
    ``width`` characters with an ellipsis."""
    flat = " ".join(_HEADING_MARK.sub("", text).split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 shard``, ``2 shards``, ``1,024 entries`` (``many`` for irregular plurals)."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def print_json(value: Any, stream: TextIO | None = None) -> None:
    """Print ``value`` as indented JSON followed by a newline."""
    out = stream or sys.stdout
    json.dump(to_jsonable(value), out, ensure_ascii=False, indent=2)
    out.write("\n")


def emit(value: T, *, as_json: bool, text: Callable[[T], Iterable[str]]) -> None:
    """Print what a command's API call returned: the value as JSON with ``--json``, else the
    lines ``text`` makes of it."""
    if as_json:
        print_json(value)
        return
    for line in text(value):
        print(line)


def note(message: str) -> None:
    """A one-line remark on stderr that does not change the exit code."""
    print(f"gezel-knowledge: note: {message}", file=sys.stderr)


def warn(message: str) -> None:
    """A one-line warning on stderr: something the user should act on; the exit code is the
    command's to decide."""
    print(f"gezel-knowledge: warning: {message}", file=sys.stderr)


class TerminalProgress:
    """A one-line progress display on a terminal; silent when not a TTY or when quiet."""

    def __init__(
        self, stream: TextIO | None = None, *, quiet: bool = False, min_interval: float = 0.1
    ) -> None:
        self._stream = stream or sys.stderr
        self._enabled = not quiet and self._stream.isatty()
        self._min_interval = min_interval
        self._last = 0.0
        self._width = 0

    def __call__(self, event: ProgressEvent) -> None:
        """Render ``event``, throttled; a finished step always renders."""
        if not self._enabled:
            return
        now = time.monotonic()
        finished = event.total is not None and event.done >= event.total
        if not finished and now - self._last < self._min_interval:
            return
        self._last = now
        line = self._format(event)
        pad = max(0, self._width - len(line))
        self._width = len(line)
        self._stream.write("\r" + line + " " * pad)
        self._stream.flush()

    def close(self) -> None:
        """End the progress line."""
        if self._enabled and self._width:
            self._stream.write("\n")
            self._stream.flush()
            self._width = 0

    @staticmethod
    def _format(event: ProgressEvent) -> str:
        label = f"{event.job}: {event.step}"
        if event.total:
            frac = min(1.0, event.done / event.total)
            bar = "#" * int(frac * 24)
            amount = _amount(event.done, event.unit) + " / " + _amount(event.total, event.unit)
            text = f"{label} [{bar:<24}] {amount}"
        elif event.done:
            text = f"{label} {_amount(event.done, event.unit)}"
        else:
            text = label
        return f"{text} {event.message}".rstrip() + _pace(event)


def _pace(event: ProgressEvent) -> str:
    """`` (12.5 passages/s, 1m40s left)`` from the event's rate and time left, when known."""
    parts: list[str] = []
    if event.rate is not None:
        unit = event.rate_unit or event.unit
        if unit == "bytes":
            parts.append(_amount(int(event.rate), unit) + "/s")
        else:
            parts.append(f"{event.rate:,.{0 if event.rate >= 100 else 1}f} {unit}/s")
    if event.eta_seconds is not None and event.eta_seconds > 0:
        parts.append(f"{_duration(event.eta_seconds)} left")
    return f" ({', '.join(parts)})" if parts else ""


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        hours, minutes = divmod(round(seconds / 60), 60)
        return f"{hours}h{minutes:02d}m"
    minutes, secs = divmod(max(1, round(seconds)), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def _amount(n: int, unit: str) -> str:
    if unit == "bytes":
        size = float(n)
        for suffix in ("B", "KiB", "MiB", "GiB"):
            if size < 1024 or suffix == "GiB":
                return f"{size:.1f} {suffix}" if suffix != "B" else f"{int(size)} B"
            size /= 1024
    return f"{n:,} {unit}"
