"""Which files of an MkDocs ``docs_dir`` MkDocs leaves out of the site.

Always: names starting with ``.`` and the ``templates/`` folder at the top (MkDocs' default
``exclude_docs``); then the patterns of ``exclude_docs`` and ``draft_docs`` (left out of
``mkdocs build``), read as ``.gitignore`` lines: a pattern holding a ``/`` other than a
trailing one is anchored at the docs folder, any other matches a name at any depth, a trailing
``/`` matches folders only, ``**`` crosses folders, ``#`` lines are comments. A ``!`` line
(re-including) is not followed: what it names stays out. A pattern of more than eight
wildcards is ignored (matching it could cost more than any real site's pattern needs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["DocsFilter"]

_MAX_WILDCARDS = 8


@dataclass(frozen=True, slots=True)
class _Pattern:
    expression: re.Pattern[str]
    anchored: bool
    folders_only: bool


def _compile(glob: str) -> re.Pattern[str]:
    """A gitignore glob as a regular expression over a ``/``-separated path (runs of ``*``
    folded first, so no pattern nests repeats)."""
    glob = re.sub(r"(?:\*\*/)+", "**/", re.sub(r"\*{3,}", "**", glob))
    out = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


class DocsFilter:
    """MkDocs' exclusions of one ``docs_dir`` (see the module docstring)."""

    def __init__(self, *pattern_texts: object, defaults: bool = True) -> None:
        # ``defaults=False``: only the patterns given (``not_in_nav`` has no default ones).
        self.patterns: list[_Pattern] = []
        for text in (*((".*", "/templates/") if defaults else ()), *pattern_texts):
            lines = text.splitlines() if isinstance(text, str) else []
            if isinstance(text, list):
                lines = [t for t in text if isinstance(t, str)]
            for raw in lines:
                line = raw.strip()
                if not line or line.startswith(("#", "!")):
                    continue
                glob = line.rstrip("/")
                if glob.count("*") + glob.count("?") > _MAX_WILDCARDS:
                    continue  # an untrusted pattern that would cost more than it could mean
                self.patterns.append(
                    _Pattern(_compile(glob.lstrip("/")), "/" in glob, line.endswith("/"))
                )

    def excluded(self, rel: str, *, folder: bool) -> bool:
        """Whether MkDocs leaves out the file or folder at ``rel`` (relative to docs_dir)."""
        parts = rel.split("/")
        for depth in range(1, len(parts) + 1):
            path = "/".join(parts[:depth])
            is_folder = folder or depth < len(parts)
            for pattern in self.patterns:
                if pattern.folders_only and not is_folder:
                    continue
                subject = path if pattern.anchored else parts[depth - 1]
                if pattern.expression.match(subject):
                    return True
        return False
