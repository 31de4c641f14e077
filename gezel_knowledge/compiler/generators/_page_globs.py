"""``globby`` patterns over ``/``-separated paths (VuePress 2's ``pagePatterns``), matched
without regular expressions: ``*`` and ``?`` within a name by the two-pointer wildcard walk,
``**`` over whole folders by a table of (pattern part, path part) pairs, ``{a,b}`` expanded
first (one level, at most :data:`MAX_ALTERNATIVES` patterns). Each match costs at most the
product of the pattern's and the path's lengths, whatever the pattern holds.
"""

from __future__ import annotations

from functools import cache

__all__ = ["MAX_ALTERNATIVES", "Glob", "compile_glob"]

MAX_ALTERNATIVES = 16
_MAX_PATTERN = 500


def _name_matches(pattern: str, name: str) -> bool:
    """Whether a name matches a pattern of ``*`` (any run) and ``?`` (one character)."""
    p = n = 0
    star, mark = -1, 0
    while n < len(name):
        if p < len(pattern) and pattern[p] in ("?", name[n]) and pattern[p] != "*":
            p, n = p + 1, n + 1
        elif p < len(pattern) and pattern[p] == "*":
            star, mark = p, n
            p += 1
        elif star >= 0:
            # The last `*` takes one more character; what follows it is tried again.
            p, mark = star + 1, mark + 1
            n = mark
        else:
            return False
    while p < len(pattern) and pattern[p] == "*":
        p += 1
    return p == len(pattern)


def _expand(pattern: str) -> list[str] | None:
    """The patterns ``{a,b}`` stands for (one level), or ``None`` past the bounds."""
    out = [""]
    i = 0
    while i < len(pattern):
        if pattern[i] == "{":
            end = pattern.find("}", i)
            if end < 0:
                return None
            choices = pattern[i + 1 : end].split(",")
            out = [o + c for o in out for c in choices]
            if len(out) > MAX_ALTERNATIVES:
                return None
            i = end + 1
        else:
            out = [o + pattern[i] for o in out]
            i += 1
    return out


class Glob:
    """One ``globby`` pattern (its ``{a,b}`` alternatives), matched against paths."""

    def __init__(self, alternatives: list[tuple[str, ...]]) -> None:
        self._alternatives = alternatives

    def match(self, path: str) -> bool:
        """Whether the whole of ``path`` matches the pattern."""
        names = tuple(path.split("/"))
        return any(_parts_match(parts, names) for parts in self._alternatives)


def _parts_match(parts: tuple[str, ...], names: tuple[str, ...]) -> bool:
    @cache
    def at(i: int, j: int) -> bool:
        if i == len(parts):
            return j == len(names)
        if parts[i] == "**":  # no folder, or one more
            return at(i + 1, j) or (j < len(names) and at(i, j + 1))
        return j < len(names) and _name_matches(parts[i], names[j]) and at(i + 1, j + 1)

    # The table is filled from the end so that the recursion stays shallow.
    for i in range(len(parts), -1, -1):
        for j in range(len(names), -1, -1):
            at(i, j)
    return at(0, 0)


def compile_glob(pattern: str) -> Glob | None:
    """The pattern (``./`` dropped), or ``None`` when it is too long or its braces too many
    or unclosed."""
    pattern = pattern.removeprefix("./")
    if len(pattern) > _MAX_PATTERN:
        return None
    expanded = _expand(pattern)
    if expanded is None:
        return None
    alternatives = []
    for one in expanded:
        parts = [p for p in one.split("/") if p]
        # `a/**/**/b` is `a/**/b`; a part of stars only but `**` is a name wildcard.
        folded: list[str] = []
        for raw in parts:
            part = "**" if set(raw) == {"*"} and len(raw) > 1 else raw
            if not (part == "**" and folded and folded[-1] == "**"):
                folded.append(part)
        alternatives.append(tuple(folded))
    return Glob(alternatives)
