"""Glob patterns as JavaScript tools write them (``{api,guides}/*.{md,mdx}``, ``**/_*``).

Docusaurus' ``include`` and ``exclude`` options are such patterns. Braces expand to their
alternatives (at most :data:`MAX_ALTERNATIVES` per pattern); ``*`` matches within a path
segment, ``**`` across segments (``**/`` also matches no folder at all), ``?`` one character,
``[...]`` a character class. Matching runs the pattern as a set of states over the path, so
its time is the path's length times the pattern's, whatever the pattern (the configuration is
untrusted: no backtracking regular expression is built from it).
"""

from __future__ import annotations

import itertools

__all__ = ["MAX_ALTERNATIVES", "Glob"]

MAX_ALTERNATIVES = 256
_MAX_PATTERN = 1000


def _expand(pattern: str) -> list[str]:
    """``pattern`` with its braces expanded (the first group first, recursively)."""
    out: list[str] = []
    todo = [pattern]
    while todo and len(out) + len(todo) <= MAX_ALTERNATIVES:
        text = todo.pop(0)
        start = -1
        depth = 0
        split: list[int] = []
        close = -1
        for i, c in enumerate(text):
            if c == "{":
                if depth == 0:
                    start, split = i, []
                depth += 1
            elif c == "}" and depth > 0:
                depth -= 1
                if depth == 0:
                    close = i
                    break
            elif c == "," and depth == 1:
                split.append(i)
        if close < 0 or not split:
            out.append(text)
            continue
        bounds = [start, *split, close]
        head, tail = text[:start], text[close + 1 :]
        todo.extend(head + text[a + 1 : b] + tail for a, b in itertools.pairwise(bounds))
    return out + todo[: max(0, MAX_ALTERNATIVES - len(out))]


def _compile(pattern: str) -> list[tuple[str, str]]:
    """A pattern as steps: ``("lit", c)``, ``("any", "")`` for ``?``, ``("star", "")``,
    ``("globstar", "")`` for ``**/`` or a final ``**``, ``("class", chars)``."""
    steps: list[tuple[str, str]] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i) and (i == 0 or pattern[i - 1] == "/"):
                if pattern.startswith("**/", i):
                    steps.append(("globstar", ""))
                    i += 3
                    continue
                if i + 2 == n:
                    steps.append(("globstar", "end"))
                    i += 2
                    continue
            steps.append(("star", ""))
            while i < n and pattern[i] == "*":
                i += 1
            continue
        if c == "?":
            steps.append(("any", ""))
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                steps.append(("lit", c))
            else:
                steps.append(("class", pattern[i + 1 : end]))
                i = end
        elif c == "\\" and i + 1 < n:
            i += 1
            steps.append(("lit", pattern[i]))
        else:
            steps.append(("lit", c))
        i += 1
    return steps


def _in_class(spec: str, c: str) -> bool:
    negate = spec[:1] in ("!", "^")
    body = spec[1:] if negate else spec
    found = False
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            found = found or body[i] <= c <= body[i + 2]
            i += 3
        else:
            found = found or body[i] == c
            i += 1
    return found != negate


def _closure(steps: list[tuple[str, str]], states: set[int]) -> set[int]:
    """States reachable without reading a character: a star matching nothing, and a
    ``**/`` just entered (at a folder boundary) matching no folder."""
    todo = list(states)
    seen = set(states)
    while todo:
        s = todo.pop()
        if s < len(steps) and steps[s][0] in ("star", "globstar") and s + 1 not in seen:
            seen.add(s + 1)
            todo.append(s + 1)
    return seen


def _matches(steps: list[tuple[str, str]], path: str) -> bool:
    states = _closure(steps, {0})
    for k, c in enumerate(path):
        entered: set[int] = set()
        stay: set[int] = set()
        for s in states:
            if s >= len(steps):
                continue
            kind, arg = steps[s]
            if kind == "lit":
                if arg == c:
                    entered.add(s + 1)
            elif kind in ("any", "class"):
                if c != "/" and (kind == "any" or _in_class(arg, c)):
                    entered.add(s + 1)
            elif kind == "star":
                # Not across folders, and not a hidden name's leading dot.
                if c != "/" and not (c == "." and (k == 0 or path[k - 1] == "/")):
                    stay.add(s)
            elif kind == "globstar":
                stay.add(s)
                if arg == "" and c == "/":
                    entered.add(s + 1)
        # A star that stays is closed again; a `**/` that stays is mid-folder and is not.
        states = _closure(steps, entered | {s for s in stay if steps[s][0] == "star"}) | stay
        if not states:
            return False
    return len(steps) in states or any(
        steps[s] == ("globstar", "end") and s + 1 == len(steps) for s in states if s < len(steps)
    )


class Glob:
    """One or more patterns; a path matches when any pattern does."""

    def __init__(self, patterns: list[str] | tuple[str, ...]) -> None:
        self.steps = [
            _compile(alt)
            for pattern in patterns
            if isinstance(pattern, str) and len(pattern) <= _MAX_PATTERN
            for alt in _expand(pattern.removeprefix("./"))
        ][: MAX_ALTERNATIVES * 4]

    def __bool__(self) -> bool:
        return bool(self.steps)

    def match(self, path: str) -> bool:
        """Whether ``path`` (``/``-separated, relative) matches a pattern."""
        return any(_matches(steps, path) for steps in self.steps)
