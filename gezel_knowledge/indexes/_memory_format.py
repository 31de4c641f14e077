"""The daily memory file format: ``<home>/memory/YYYY-MM-DD.md``, one file per day.

An entry is a Markdown list item tagged with its kind and scope::

    # 2026-12-02

    - (decision, project) We write gezk 0.7 and read 0.5 and 0.6.
    - (status, gezel:boekwachter) The nightly rebuild fails on the ddl branch.
      An indented line continues the entry above.

Every indented line under a list item belongs to it, one that starts with ``#`` included.
``kind`` is ``fact``, ``decision``, ``preference`` or ``status``; ``scope`` is ``project``,
``project:<name>`` or ``gezel:<name>`` (names: letters, digits, ``.``, ``_``, ``-``). The
entry's date is the file's date. Headings and blank lines separate entries and are not entries
themselves. Hand-written lines without a tag (plain list items or paragraphs) are entries of
kind ``status`` and scope ``project``: a note in a daily log describes that day unless it says
otherwise, so it fades from automatic recall instead of posing as a durable fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal, cast

from gezel_knowledge.errors import InvalidInput

__all__ = [
    "DURABLE_KINDS",
    "MEMORY_KINDS",
    "MemoryEntry",
    "MemoryKind",
    "format_entry",
    "parse_memory_file",
    "validate_kind",
    "validate_scope",
]

MemoryKind = Literal["fact", "decision", "preference", "status"]
MEMORY_KINDS: tuple[MemoryKind, ...] = ("fact", "decision", "preference", "status")
DURABLE_KINDS: frozenset[str] = frozenset({"fact", "decision", "preference"})

_SCOPE = re.compile(
    r"^(?:project|project:[A-Za-z0-9][A-Za-z0-9._-]*|gezel:[A-Za-z0-9][A-Za-z0-9._-]*)$"
)
_TAGGED = re.compile(r"^[-*][ \t]+\((fact|decision|preference|status),[ \t]*([^)\s]+)\)[ \t]*(.*)$")
_ITEM = re.compile(r"^[-*][ \t]+(.*)$")
_HEADING = re.compile(r"^ {0,3}#")


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    """One remembered note: text, kind, scope, the day it was written and where it is."""

    date: str
    kind: MemoryKind
    scope: str
    text: str
    line_start: int
    line_end: int


def validate_kind(kind: str) -> MemoryKind:
    """``kind`` if it is a memory kind; raises :class:`InvalidInput` (``invalid-memory-kind``)."""
    if kind not in MEMORY_KINDS:
        raise InvalidInput(
            f"memory kind must be one of {', '.join(MEMORY_KINDS)}, got {kind!r}",
            reason="invalid-memory-kind",
            subject=kind,
        )
    return kind


def validate_scope(scope: str) -> str:
    """``scope`` if well-formed; raises :class:`InvalidInput` (``invalid-memory-scope``)."""
    if not _SCOPE.match(scope):
        raise InvalidInput(
            f"memory scope must be 'project', 'project:<name>' or 'gezel:<name>', got {scope!r}",
            reason="invalid-memory-scope",
            subject=scope,
        )
    return scope


def format_entry(text: str, kind: str, scope: str) -> str:
    """The Markdown lines of one entry, newline-terminated; blank lines inside are dropped."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        raise InvalidInput("a memory entry needs some text", reason="empty-memory")
    head = f"- ({validate_kind(kind)}, {validate_scope(scope)}) {lines[0]}"
    return "\n".join([head, *("  " + line for line in lines[1:])]) + "\n"


@dataclass(slots=True)
class _Open:
    kind: str
    scope: str
    lines: list[str]
    start: int
    end: int
    paragraph: bool


def parse_memory_file(day: date, text: str) -> list[MemoryEntry]:
    """The entries of the daily file of ``day``."""
    entries: list[MemoryEntry] = []
    current: _Open | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            body = "\n".join(current.lines).strip()
            if body:
                kind = cast(MemoryKind, current.kind)
                entries.append(
                    MemoryEntry(
                        day.isoformat(), kind, current.scope, body, current.start, current.end
                    )
                )
        current = None

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if current is not None and not current.paragraph and line[:1] in (" ", "\t"):
            # An indented line continues the list item above, even one that reads like a
            # heading: format_entry indents a note's "# ..." line, and it must read back as
            # the same entry (in Markdown too it is inside the item).
            current.lines.append(line.strip())
            current.end = number
            continue
        if not line.strip() or _HEADING.match(line):
            close()
            continue
        tagged = _TAGGED.match(line)
        item = _ITEM.match(line)
        if tagged and _SCOPE.match(tagged.group(2)):
            close()
            current = _Open(
                tagged.group(1), tagged.group(2), [tagged.group(3)], number, number, False
            )
        elif item:
            close()
            current = _Open("status", "project", [item.group(1)], number, number, False)
        elif current is not None and (line[0] in " \t" or current.paragraph):
            current.lines.append(line.strip())
            current.end = number
        else:
            close()
            current = _Open("status", "project", [line.strip()], number, number, True)
    close()
    return entries
