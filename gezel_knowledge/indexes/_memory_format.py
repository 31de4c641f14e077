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
themselves; an indented line continues the open entry whatever it starts with (``#123 was a
race`` stays in its note). Hand-written lines without a tag (plain list items or paragraphs)
are entries of kind ``status`` and scope ``project``: a note in a daily log describes that day
unless it says otherwise, so it fades from automatic recall instead of posing as a durable fact.

What is saved reads back exactly, whatever its text. A note of non-empty lines without
surrounding spaces is written as above, one line each; any other (blank lines, indentation,
trailing spaces, carriage returns, Markdown fences or front matter that must keep their
shape...) is written on its tag's line as a JSON string, which the parser decodes::

    - (fact, project) "---\ntitle: x\n---\n\n  indented\r\n"

A note is at most :data:`MAX_MEMORY_BYTES` of UTF-8, and valid Unicode.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from typing import Literal, cast

from gezel_knowledge.errors import InvalidInput

__all__ = [
    "DURABLE_KINDS",
    "MAX_MEMORY_BYTES",
    "MEMORY_KINDS",
    "MemoryEntry",
    "MemoryKind",
    "check_memory_text",
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

MAX_MEMORY_BYTES = 64 * 1024
"""The largest note saved, in bytes of UTF-8: a note is a few lines, and every search reads it."""

# Characters that end a line for str.splitlines besides "\n"; JSON leaves the last three raw.
_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_RAW_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


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


def check_memory_text(text: object) -> str:
    """``text`` if it can be saved: a string of valid Unicode with some non-space, at most
    :data:`MAX_MEMORY_BYTES` of UTF-8; else ``empty-memory``, ``invalid-unicode`` or
    ``memory-too-large``."""
    if not isinstance(text, str):
        raise InvalidInput(
            f"a memory note is text, not {type(text).__name__}", reason="invalid-unicode"
        )
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"a memory note must be valid Unicode (it holds {text[exc.start]!r} at {exc.start})",
            reason="invalid-unicode",
        ) from None
    if size > MAX_MEMORY_BYTES:
        raise InvalidInput(
            f"a memory note is at most {MAX_MEMORY_BYTES:,} bytes of UTF-8, got {size:,}",
            reason="memory-too-large",
        )
    if not text.strip():
        raise InvalidInput("a memory entry needs some text", reason="empty-memory")
    return text


def _plain(text: str) -> bool:
    """Whether ``text`` reads back exactly when written one line per line."""
    if text.startswith('"') or _BREAKS.search(text):
        return False
    return all(line and line == line.strip() for line in text.split("\n"))


def _encoded(text: str) -> str:
    quoted = json.dumps(text, ensure_ascii=False)
    for raw, escape in _RAW_BREAKS.items():
        quoted = quoted.replace(raw, escape)
    return quoted


def format_entry(text: str, kind: str, scope: str) -> str:
    """The Markdown lines of one entry, newline-terminated; the text reads back exactly."""
    check_memory_text(text)
    tag = f"- ({validate_kind(kind)}, {validate_scope(scope)}) "
    if not _plain(text):
        return tag + _encoded(text) + "\n"
    first, *rest = text.split("\n")
    return "\n".join([tag + first, *("  " + line for line in rest)]) + "\n"


def _decoded(lines: list[str]) -> str:
    """An entry's text: a lone JSON string is the exact text it encodes."""
    body = "\n".join(lines).strip()
    if len(lines) == 1 and len(body) >= 2 and body[0] == body[-1] == '"':
        try:
            value = json.loads(body)
        except ValueError:
            return body
        if isinstance(value, str) and value.strip():
            return value
    return body


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
            body = _decoded(current.lines)
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
        if current is not None and line.strip() and line[0] in " \t" and not current.paragraph:
            # Indented under an item: its continuation, even when it starts with '#' or '-'.
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
