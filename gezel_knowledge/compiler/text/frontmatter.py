"""YAML or TOML front matter at the start of a Markdown file.

Front matter is YAML between ``---`` lines (closed by ``---`` or ``...``) or TOML between
``+++`` lines (Hugo) at the very start of a file, parsed by :mod:`~.data`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.text.data import parse_toml, parse_yaml

__all__ = ["FrontMatter", "split_front_matter"]


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """A file's front matter (a mapping) and the body that follows it."""

    data: dict[str, Any]
    body: str
    body_line: int
    """The 1-based line of the source file where ``body`` starts."""
    problem: SourceError | None = None
    """Why the front matter did not parse, when it was read leniently (its data is then
    empty and the body is what follows the block)."""


def split_front_matter(text: str, *, path: str, lenient: bool = False) -> FrontMatter:
    """Separate YAML (``---``) or TOML (``+++``) front matter from a Markdown file's body
    (``lenient``: a closed block that does not parse is returned as ``problem``, not raised)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    first = lines[0].rstrip("\r").rstrip() if lines else ""
    if first not in ("---", "+++"):
        return FrontMatter({}, text, 1)
    closers = ("---", "...") if first == "---" else ("+++",)
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r").rstrip() in closers:
            raw = "\n".join(line.rstrip("\r") for line in lines[1:i])
            body = "\n".join(lines[i + 1 :])
            try:
                data = _parse(raw, first, path)
            except SourceError as problem:
                # Only text that does not parse; hostile input (aliases, depth, huge numbers)
                # stops the build whatever the generator.
                if not lenient or problem.reason != "invalid-front-matter":
                    raise
                return FrontMatter({}, body, i + 2, problem)
            return FrontMatter(data, body, i + 2)
    if first == "---":
        # An opening '---' with no closing line is a thematic break, not front matter.
        return FrontMatter({}, text, 1)
    raise SourceError(
        "TOML front matter is not closed by '+++'", reason="invalid-front-matter", path=path, line=1
    )


def _parse(raw: str, opener: str, path: str) -> dict[str, Any]:
    if opener == "+++":
        data, toml_problem = parse_toml(raw, path=path)
        if toml_problem is not None:
            raise SourceError(
                f"invalid TOML front matter: {toml_problem}",
                reason="invalid-front-matter",
                path=path,
                line=1,
            )
    else:
        data, problem, line = parse_yaml(raw, path=path, offset=1)
        if problem is not None:
            # Report the line in the file, not in the front-matter fragment.
            raise SourceError(
                f"invalid YAML front matter: {problem}",
                reason="invalid-front-matter",
                path=path,
                line=(line or 0) + 1,
            )
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SourceError(
            "front matter must be a mapping of keys to values",
            reason="invalid-front-matter",
            path=path,
            line=1,
        )
    return data
