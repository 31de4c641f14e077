"""Ignore rules with the common subset of gitignore semantics.

Supported: blank lines and ``#`` comments, ``\\`` escapes, trailing-space trimming, ``!``
negation, a trailing ``/`` for directories only, anchoring by a leading or inner ``/``, ``*``,
``?``, ``[...]`` classes (``[!...]`` negated), and ``**`` as a leading ``**/``, trailing ``/**``
or inner ``/**/``. Patterns are relative to the directory of the file they come from; deeper
files are consulted after shallower ones and the last matching pattern wins. As in git, a file
inside an ignored directory cannot be re-included (the walk never enters that directory).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["IgnoreRule", "IgnoreRules", "parse_ignore_lines"]


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    """One compiled pattern: its regex over base-relative POSIX paths and its flags."""

    pattern: str
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


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
    body = pattern[body_start:i].replace("\\", "\\\\")
    return ("[^/" if negated else "[") + body + "]", i + 1


def _glob_to_regex(pattern: str) -> str:
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
                    out.append("(?:.*/)?")  # "**/": zero or more directories
                    i = after + 1
                    continue
                if at_start and after == n:
                    out.append(".*")  # trailing "/**": everything inside
                    i = after
                    continue
                out.append("[^/]*")  # any other "**" behaves like "*"
                i = after
                continue
            out.append("[^/]*")
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
        if not body:
            continue
        regex = _glob_to_regex(body)
        full = "^" + regex + "$" if anchored else "^(?:.*/)?" + regex + "$"
        rules.append(IgnoreRule(raw.strip(), re.compile(full, re.DOTALL), negate, dir_only))
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
        """Whether the root-relative POSIX ``path`` is ignored (last matching rule wins)."""
        verdict = False
        for rule_set in self._sets:
            if rule_set.base:
                prefix = rule_set.base + "/"
                if not path.startswith(prefix):
                    continue
                relative = path[len(prefix) :]
            else:
                relative = path
            for rule in rule_set.rules:
                if rule.dir_only and not is_dir:
                    continue
                if rule.regex.match(relative):
                    verdict = not rule.negate
        return verdict
