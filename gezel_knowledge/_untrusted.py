"""Untrusted input, bounded: one size, depth and Unicode policy for what the product layer reads.

Files a user or a repository hands over (keys, memory files, configuration, document lists),
arguments and queries, and the JSON, JSON Lines and TOML inside them are read through this
module, so each kind of input is refused the same way wherever it enters:

- a file is opened without blocking and must be a regular file (a FIFO, a device such as
  ``/dev/zero`` or a socket is ``not-a-file``, a folder ``unreadable``); its size is checked
  with ``fstat``
  before a byte is read, and the read itself stops one byte past the limit
  (``input-too-large``), so a file that grows, or lies about its size, cannot exhaust memory;
- text must be valid Unicode: bytes that are not UTF-8 are ``invalid-encoding``, a string with
  a lone surrogate (``"\\ud800"`` in JSON, an undecodable command-line argument) is
  ``invalid-unicode``;
- structured values nest at most :data:`MAX_NESTING` levels (``too-deep``, never a
  ``RecursionError``) and a number has at most :data:`MAX_NUMBER_DIGITS` digits
  (``number-too-long``: Python's own conversion limit, reached before it raises a bare
  ``ValueError``).

YAML, whose aliases need a bound of their own, is read by :mod:`gezel_knowledge._untrusted_yaml`
under the same limits. Every refusal is a :class:`StructuredInputError` (an
:class:`~gezel_knowledge.errors.InvalidInput`) carrying the 1-based line when one is known, so a
caller that knows the file can name it.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, Final

from gezel_knowledge.errors import InvalidInput, KnowledgeError

__all__ = [
    "MAX_COUNT",
    "MAX_KEY_BYTES",
    "MAX_NESTING",
    "MAX_NUMBER_DIGITS",
    "SYNTAX_REASONS",
    "StructuredInputError",
    "check_count",
    "check_nesting",
    "check_text",
    "decode_utf8",
    "iter_lines",
    "load_json",
    "load_toml",
    "open_regular",
    "read_bounded",
    "read_regular",
]

MAX_COUNT: Final = 2**31 - 1
"""The largest number of results, page size or offset a caller may ask for (``invalid-limit``):
no catalog or index holds more rows, and SQLite's integers end at 2**63, past which a bound
parameter failed as if the stored data were at fault."""

MAX_NESTING: Final = 64
"""Arrays, objects, mappings and lists nested deeper than this are refused (``too-deep``)."""

MAX_NUMBER_DIGITS: Final = 4300
"""A number written with more characters than this is refused (``number-too-long``); it is
also the limit beyond which Python refuses to convert a decimal string to an integer."""

MAX_KEY_BYTES: Final = 64 * 1024
"""A PEM key file is a few hundred bytes; anything over this is not a key."""

SYNTAX_REASONS: Final = frozenset({"invalid-json", "invalid-toml", "invalid-yaml"})
"""The reasons of a document that does not parse, which a caller may report in its own words
(front matter, a configuration file); the other reasons are the policy's own refusals."""

_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
_CHUNK: Final = 1 << 20


class StructuredInputError(InvalidInput):
    """Input refused by the policy or unparseable; ``line`` is 1-based when known, and
    ``problem`` is a parser's own words for a document that does not parse."""

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        subject: str | None = None,
        line: int | None = None,
        problem: str | None = None,
    ) -> None:
        super().__init__(message, reason=reason, subject=subject)
        self.line: int | None = line
        self.problem: str = problem or self.message


# -- text --------------------------------------------------------------------------------------


def _unicode_problem(value: str) -> str | None:
    """What makes ``value`` invalid Unicode, or ``None``."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        char = ord(value[exc.start])
        where = f"a lone surrogate U+{char:04X} at character {exc.start}"
        if 0xDC80 <= char <= 0xDCFF:
            # How Python keeps a byte that is not UTF-8 in an argument or a file name.
            return f"{where} (the byte 0x{char - 0xDC00:02X} of an argument that is not UTF-8?)"
        return where
    return None


def check_text(value: str, what: str, *, subject: str | None = None) -> str:
    """``value`` when it is valid Unicode text; otherwise :class:`StructuredInputError`
    (``invalid-unicode``; ``invalid-argument`` for a value that is no string at all) naming
    ``what`` ("the query", "the memory text")."""
    if not isinstance(value, str):
        # From the Python API: None or bytes ended in an AttributeError deep in the search.
        raise StructuredInputError(
            f"{what} must be a string, not {type(value).__name__}",
            reason="invalid-argument",
            subject=subject,
        )
    problem = _unicode_problem(value)
    if problem is not None:
        raise StructuredInputError(
            f"{what} is not valid Unicode text: it holds {problem}",
            reason="invalid-unicode",
            subject=subject,
        )
    return value


def check_count(value: int, what: str, *, reason: str = "invalid-limit") -> int:
    """``value`` when it is a whole number (not a ``bool``) of at most :data:`MAX_COUNT`; else
    :class:`InvalidInput` (``reason``) naming ``what``. The caller checks the lower bound, which
    differs (a limit, an offset)."""
    if isinstance(value, bool) or not isinstance(value, int):
        # k=1.5 reached SQLite and blamed the catalog ("datatype mismatch": corrupt-database).
        raise InvalidInput(f"{what} must be a whole number, not {value!r}"[:200], reason=reason)
    if value > MAX_COUNT:
        # Never printed: a number of more than 4,300 digits cannot even be made a string.
        raise InvalidInput(
            f"{what} must be at most {MAX_COUNT:,}: no catalog or index holds more", reason=reason
        )
    return value


def decode_utf8(data: bytes, what: str, *, subject: str | None = None) -> str:
    """``data`` decoded as UTF-8 (a leading byte-order mark dropped); bytes that are not UTF-8
    are :class:`StructuredInputError` (``invalid-encoding``) with the line they are on."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise StructuredInputError(
            f"{what} is not UTF-8 text: byte 0x{data[exc.start]:02X} on line {line}",
            reason="invalid-encoding",
            subject=subject,
            line=line,
        ) from None


# -- files -------------------------------------------------------------------------------------


_KINDS: Final = (
    (stat.S_ISDIR, "folder"),
    (stat.S_ISFIFO, "FIFO"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISSOCK, "socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "special file")


def _open_fd(path: Path, what: str, error: type[KnowledgeError]) -> tuple[int, os.stat_result]:
    """A descriptor of the regular file at ``path`` and its status; nothing is read, and a FIFO
    is opened without waiting for a writer (then refused)."""
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise error(
            f"cannot read {what} {path}: {exc.strerror or exc}",
            reason="unreadable",
            subject=str(path),
        ) from None
    try:
        status = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise error(
            f"cannot read {what} {path}: {exc.strerror or exc}",
            reason="unreadable",
            subject=str(path),
        ) from None
    if stat.S_ISDIR(status.st_mode):
        os.close(fd)
        # As every reader of the caller's files has said of a folder: it cannot be read.
        raise error(
            f"cannot read {what} {path}: it is a folder", reason="unreadable", subject=str(path)
        )
    if not stat.S_ISREG(status.st_mode):
        os.close(fd)
        raise error(
            f"{what} {path} is a {_kind(status.st_mode)}, not a regular file",
            reason="not-a-file",
            subject=str(path),
        )
    return fd, status


def _too_large(path: Path, what: str, limit: int, error: type[KnowledgeError]) -> KnowledgeError:
    return error(
        f"{what} {path} is larger than {limit:,} bytes, the limit for it",
        reason="input-too-large",
        subject=str(path),
    )


def read_bounded(
    path: Path | str, what: str, *, limit: int, error: type[KnowledgeError] = InvalidInput
) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    Refused as ``error`` naming ``what`` and the path: ``unreadable``, ``not-a-file`` (checked on
    the open descriptor, before reading) or ``input-too-large`` (the size is checked before
    reading, and the read stops one byte past the limit).
    """
    return read_regular(path, what, limit=limit, error=error)[0]


def read_regular(
    path: Path | str, what: str, *, limit: int, error: type[KnowledgeError] = InvalidInput
) -> tuple[bytes, os.stat_result]:
    """:func:`read_bounded`, with the status of the descriptor the bytes were read from (its
    permissions describe exactly the file that was read)."""
    file = Path(path)
    fd, status = _open_fd(file, what, error)
    with os.fdopen(fd, "rb", buffering=0) as fh:
        if status.st_size > limit:
            raise _too_large(file, what, limit, error)
        parts: list[bytes] = []
        remaining = limit + 1
        try:
            while remaining > 0:
                block = fh.read(min(_CHUNK, remaining))
                if not block:
                    break
                parts.append(block)
                remaining -= len(block)
        except OSError as exc:
            raise error(
                f"cannot read {what} {file}: {exc.strerror or exc}",
                reason="unreadable",
                subject=str(file),
            ) from None
    data = b"".join(parts)
    if len(data) > limit:
        raise _too_large(file, what, limit, error)
    return data, status


def open_regular(
    path: Path | str, what: str, *, error: type[KnowledgeError] = InvalidInput
) -> BinaryIO:
    """The regular file at ``path`` opened for binary reading (refused as :func:`read_bounded`
    refuses it), for input read as a stream."""
    fd, _ = _open_fd(Path(path), what, error)
    return os.fdopen(fd, "rb")


def iter_lines(fh: BinaryIO, what: str, *, max_line_bytes: int) -> Iterator[tuple[int, int, bytes]]:
    """``(1-based line number, offset of the line, bytes without the line end)`` of each line of
    ``fh``; a line longer than ``max_line_bytes`` is refused (``input-too-large``) without being
    held whole."""
    number = 0
    offset = fh.tell()
    while True:
        raw = fh.readline(max_line_bytes + 2)
        if not raw:
            return
        number += 1
        start, offset = offset, offset + len(raw)
        line = raw.rstrip(b"\r\n")
        if len(line) > max_line_bytes:
            raise StructuredInputError(
                f"line {number} of {what} is longer than {max_line_bytes:,} bytes",
                reason="input-too-large",
                line=number,
            )
        yield number, start, line


# -- structured values -------------------------------------------------------------------------


def check_nesting(
    value: Any, what: str, *, max_depth: int = MAX_NESTING, line: int | None = None
) -> Any:
    """``value`` when it nests lists and dicts at most ``max_depth`` deep and every string in
    it (keys included) is valid Unicode; iterative, so the check cannot itself recurse."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            problem = _unicode_problem(item)
            if problem is not None:
                raise StructuredInputError(
                    f"{what} is not valid Unicode text: it holds {problem}",
                    reason="invalid-unicode",
                    line=line,
                )
            continue
        if isinstance(item, dict):
            children: list[Any] = [*item.keys(), *item.values()]
        elif isinstance(item, list | tuple):
            children = list(item)
        else:
            continue
        if depth + 1 > max_depth:
            raise _too_deep(what, max_depth, line)
        stack.extend((child, depth + 1) for child in children)
    return value


def _too_deep(what: str, max_depth: int, line: int | None) -> StructuredInputError:
    return StructuredInputError(
        f"{what} nests deeper than {max_depth} levels", reason="too-deep", line=line
    )


def _number_too_long(what: str, line: int | None) -> StructuredInputError:
    return StructuredInputError(
        f"{what} holds a number longer than {MAX_NUMBER_DIGITS:,} digits",
        reason="number-too-long",
        line=line,
    )


class _LongNumber(ValueError):
    pass


def _parse_int(text: str) -> int:
    if len(text) > MAX_NUMBER_DIGITS:
        raise _LongNumber(text[:20])
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS:
        raise _LongNumber(text[:20])
    return float(text)


def load_json(
    text: str | bytes, what: str, *, max_depth: int = MAX_NESTING, line: int | None = None
) -> Any:
    """A JSON value under the policy: UTF-8, nesting, number length, valid Unicode strings.

    ``line`` is the line of a JSON Lines file the text came from (for the error).
    """
    if isinstance(text, bytes):
        text = decode_utf8(text, what)
    try:
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float)
    except _LongNumber:
        raise _number_too_long(what, line) from None
    except RecursionError:
        raise _too_deep(what, max_depth, line) from None
    except json.JSONDecodeError as exc:
        raise StructuredInputError(
            f"{what} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            reason="invalid-json",
            line=line if line is not None else exc.lineno,
            problem=str(exc),
        ) from None
    return check_nesting(value, what, max_depth=max_depth, line=line)


# A dotted key of more than MAX_NESTING parts (``[k.k.k...]``, ``k.k.k... = 1``): tomllib builds
# a key by adding one part at a time to a tuple, so such a key costs the square of its length
# (half a million parts: minutes). Found first, where a key can start (a line, a table header,
# an inline table's "{" or ","), reading at most MAX_NESTING parts from each such place.
_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"[^"\n\\]*"|'[^'\n]*')"""
_KEY_START = r"(?:^[ \t]*\[{0,2}|[{,])[ \t]*"
_LONG_DOTTED_KEY = re.compile(
    rf"{_KEY_START}(?:{_KEY_PART}[ \t]*\.[ \t]*){{{MAX_NESTING}}}{_KEY_PART}", re.MULTILINE
)


def load_toml(text: str, what: str, *, max_depth: int = MAX_NESTING) -> dict[str, Any]:
    """A TOML document under the policy (nesting, number length, valid Unicode strings)."""
    check_text(text, what)
    long_key = _LONG_DOTTED_KEY.search(text)
    if long_key is not None:
        line = text.count("\n", 0, long_key.start()) + 1
        raise StructuredInputError(
            f"{what} has a dotted key of more than {max_depth} parts on line {line}",
            reason="too-deep",
            line=line,
        )
    try:
        value = tomllib.loads(text, parse_float=_parse_float)
    except tomllib.TOMLDecodeError as exc:
        raise StructuredInputError(
            f"{what} is not valid TOML: {exc}", reason="invalid-toml", problem=str(exc)
        ) from None
    except RecursionError:
        raise _too_deep(what, max_depth, None) from None
    except _LongNumber:
        raise _number_too_long(what, None) from None
    except ValueError as exc:
        # tomllib converts integers itself; Python refuses one over its digit limit.
        if "digits" in str(exc):
            raise _number_too_long(what, None) from None
        raise StructuredInputError(
            f"{what} is not valid TOML: {exc}", reason="invalid-toml"
        ) from None
    return check_nesting(value, what, max_depth=max_depth)  # type: ignore[no-any-return]
