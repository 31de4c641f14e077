"""Ignore rules with the common subset of gitignore semantics, matched in linear time.

Supported: blank lines and ``#`` comments, ``\\`` escapes, trailing-space trimming, ``!``
negation, a trailing ``/`` for directories only, anchoring by a leading or inner ``/``, ``*``,
``?``, ``[...]`` classes (``[!...]`` negated; a class never matches ``/``), and ``**`` as a
leading ``**/``, trailing ``/**`` or inner ``/**/``. Patterns are relative to the directory of
the file they come from; deeper files are consulted after shallower ones and the last matching
pattern wins. As in git, a file inside an ignored directory cannot be re-included (the walk
never enters that directory).

A glob translated naively to a regular expression backtracks exponentially on patterns such as
``*a*a*a*a*b`` or ``/**/**/**/x``. Here every ``*`` and ``**/`` after the first matches its
leftmost possibility inside an atomic group, which the engine never re-enters: a ``*`` cannot
cross a ``/`` and each ``**/`` starts right after one, so the leftmost placement of what
follows always leaves the most room for the rest. Only the last ``**/`` and the last ``*`` of a
pattern may try several places, and each tries a place once, so a match costs at most the
length of the path times the length of the pattern. Lines longer than
:data:`MAX_PATTERN_CHARS` (no path is that long) and classes the expression syntax cannot hold
are not used.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["MAX_PATTERN_CHARS", "IgnoreRule", "IgnoreRules", "parse_ignore_lines"]

MAX_PATTERN_CHARS: Final = 4096
"""Ignore lines longer than this are not used: no path on a real file system is longer."""


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    """One compiled pattern: its regex over base-relative POSIX paths and its flags."""

    pattern: str
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


# A pattern is a list of tokens: one-character expressions, and the three unbounded ones.
_STAR: Final = "*"  # any characters of one path segment
_DIRS: Final = "**/"  # nothing, or any characters ending with '/': zero or more folders
_ALL: Final = "/**"  # any characters at all (the trailing "/**")


def _class_to_regex(pattern: str, start: int) -> tuple[str, int] | None:
    """Translate the ``[...]`` class at ``start``; ``None`` when it is not closed."""
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        negated = True
        i += 1
    else:
        negated = False
    body_start = i
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 1
    if i >= len(pattern):
        return None
    body = pattern[body_start:i]
    # Characters that would start a nested set or a set operation are literal here.
    body = re.sub(r"([\\\[&~|])", r"\\\1", body)
    return ("[^/" + body + "]" if negated else "(?!/)[" + body + "]"), i + 1


def _tokens(pattern: str) -> list[str]:
    """The glob as tokens: escaped one-character expressions, _STAR, _DIRS and _ALL."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                at_start = i == 0 or pattern[i - 1] == "/"
                after = i + 2
                if at_start and after < n and pattern[after] == "/":
                    out.append(_DIRS)
                    i = after + 1
                    continue
                if at_start and after == n:
                    out.append(_ALL)
                    i = after
                    continue
                out.append(_STAR)  # any other "**" behaves like "*"
                i = after
                continue
            out.append(_STAR)
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            translated = _class_to_regex(pattern, i)
            if translated is None:
                out.append(re.escape(c))
            else:
                out.append(translated[0])
                i = translated[1]
                continue
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    # Repeated stars (and repeated "**/") mean what one does.
    return [t for k, t in enumerate(out) if not (k and t in (_STAR, _DIRS) and out[k - 1] == t)]


def _block_regex(block: list[str], *, last: bool) -> str:
    """One stretch of a pattern between ``**/`` tokens: each ``*`` but the last in the pattern
    takes its leftmost match inside an atomic group."""
    chunks: list[list[str]] = [[]]
    for token in block:
        if token == _STAR:
            chunks.append([])
        else:
            chunks[-1].append(token)
    parts = ["".join(chunks[0])]
    for k, chunk in enumerate(chunks[1:], start=1):
        text = "".join(chunk)
        if last and k == len(chunks) - 1:
            parts.append("[^/]*" + text)
        else:
            parts.append("(?>[^/]*?" + text + ")")
    return "".join(parts)


def _glob_to_regex(pattern: str, *, anchored: bool) -> str:
    """The full-match expression of a glob (see the module docstring for its cost)."""
    tokens = _tokens(pattern)
    if not anchored:
        tokens = [_DIRS, *tokens] if tokens[:1] != [_DIRS] else tokens
    ends_all = bool(tokens) and tokens[-1] == _ALL
    if ends_all:
        tokens = tokens[:-1]
    blocks: list[list[str]] = [[]]
    for token in tokens:
        if token == _DIRS:
            blocks.append([])
        else:
            blocks[-1].append(token)
    out = [r"\A", _block_regex(blocks[0], last=len(blocks) == 1 and not ends_all)]
    for k, block in enumerate(blocks[1:], start=1):
        if k == len(blocks) - 1 and not ends_all:
            out.append("(?:.*/)?" + _block_regex(block, last=True))
        else:
            out.append("(?>(?:.*?/)??" + _block_regex(block, last=False) + ")")
    out.append(r".*\Z" if ends_all else r"\Z")
    return "".join(out)


def _strip_trailing_spaces(line: str) -> str:
    stripped = line.rstrip(" ")
    # "\ " at the end keeps one escaped space.
    if stripped.endswith("\\") and len(stripped) < len(line):
        return stripped + " "
    return stripped


def parse_ignore_lines(lines: Iterable[str]) -> list[IgnoreRule]:
    """Compile the lines of one ignore file into rules, in file order."""
    rules: list[IgnoreRule] = []
    for raw in lines:
        line = _strip_trailing_spaces(raw.rstrip("\r\n"))
        if not line or line.startswith("#"):
            continue
        negate = False
        if line.startswith("!"):
            negate = True
            line = line[1:]
        elif line.startswith(("\\!", "\\#")):
            line = line[1:]
        dir_only = line.endswith("/") and not line.endswith("\\/")
        body = line.rstrip("/") if dir_only else line
        if not body:
            continue
        anchored = "/" in body
        body = body.lstrip("/")
        if not body or len(body) > MAX_PATTERN_CHARS:
            continue
        try:
            regex = re.compile(_glob_to_regex(body, anchored=anchored), re.DOTALL)
        except re.error:
            continue  # a class the expression syntax cannot hold ("[z-a]"): git ignores it too
        rules.append(IgnoreRule(raw.strip(), regex, negate, dir_only))
    return rules


@dataclass(frozen=True, slots=True)
class _RuleSet:
    base: str  # POSIX path of the ignore file's directory relative to the root ("" for root)
    rules: Sequence[IgnoreRule]


class IgnoreRules:
    """The ignore rules in force for one directory: its ancestors' files, shallow to deep."""

    __slots__ = ("_sets",)

    def __init__(self, sets: Sequence[_RuleSet] = ()) -> None:
        self._sets: tuple[_RuleSet, ...] = tuple(sets)

    def with_file(self, base: str, lines: Iterable[str]) -> IgnoreRules:
        """These rules plus an ignore file found in directory ``base`` (root-relative)."""
        rules = parse_ignore_lines(lines)
        if not rules:
            return self
        return IgnoreRules((*self._sets, _RuleSet(base, tuple(rules))))

    def ignored(self, path: str, *, is_dir: bool) -> bool:
        """Whether the root-relative POSIX ``path`` is ignored (last matching rule wins, so the
        rules are tried from the last and the first match decides)."""
        for rule_set in reversed(self._sets):
            if rule_set.base:
                prefix = rule_set.base + "/"
                if not path.startswith(prefix):
                    continue
                relative = path[len(prefix) :]
            else:
                relative = path
            for rule in reversed(rule_set.rules):
                if rule.dir_only and not is_dir:
                    continue
                if rule.regex.match(relative):
                    return not rule.negate
        return False
