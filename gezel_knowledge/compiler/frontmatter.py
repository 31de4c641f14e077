"""YAML/TOML front matter and a YAML loader for the configuration files authors already have.

Front matter is YAML between ``---`` lines (closed by ``---`` or ``...``) or TOML between
``+++`` lines (Hugo) at the very start of a file. YAML is read with a safe loader that also
tolerates tags it does not know: ``mkdocs.yml`` routinely carries ``!!python/name:...`` and
``!ENV`` tags, which are read as their plain value and never executed or resolved. Dates become
ISO 8601 strings, so front matter values are always JSON-compatible.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass
from typing import Any

import yaml

from gezel_knowledge.compiler.errors import SourceError

__all__ = ["FrontMatter", "YamlNode", "load_yaml", "load_yaml_nodes", "split_front_matter"]


class _TolerantLoader(yaml.SafeLoader):
    """A safe loader that reads unknown tags as plain scalars, lists or mappings."""


def _plain(loader: yaml.SafeLoader, tag_suffix: str, node: yaml.Node) -> Any:
    del tag_suffix
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    return None  # pragma: no cover - PyYAML has no other node kinds


_TolerantLoader.add_multi_constructor("", _plain)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def _problem(exc: yaml.YAMLError) -> tuple[str, int | None]:
    """What PyYAML says is wrong, and the 1-based line it points at (when it points)."""
    mark = getattr(exc, "problem_mark", None)
    return str(getattr(exc, "problem", None) or exc), mark.line + 1 if mark is not None else None


def _yaml(text: str) -> tuple[Any, str | None, int | None]:
    """Parsed value, or ``(None, problem, 1-based line)`` when the YAML is invalid."""
    try:
        return _jsonable(yaml.load(text, Loader=_TolerantLoader)), None, None
    except yaml.YAMLError as exc:
        return None, *_problem(exc)


def load_yaml(text: str, *, path: str) -> Any:
    """Parse YAML safely (unknown tags read as plain values); errors name the file and line."""
    value, problem, line = _yaml(text)
    if problem is not None:
        raise SourceError(f"invalid YAML: {problem}", reason="invalid-yaml", path=path, line=line)
    return value


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """A file's front matter (a mapping) and the body that follows it."""

    data: dict[str, Any]
    body: str
    body_line: int
    """The 1-based line of the source file where ``body`` starts."""


def split_front_matter(text: str, *, path: str) -> FrontMatter:
    """Separate YAML (``---``) or TOML (``+++``) front matter from a Markdown file's body."""
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
            data = _parse(raw, first, path)
            return FrontMatter(data, body, i + 2)
    if first == "---":
        # An opening '---' with no closing line is a thematic break, not front matter.
        return FrontMatter({}, text, 1)
    raise SourceError(
        "TOML front matter is not closed by '+++'", reason="invalid-front-matter", path=path, line=1
    )


def _parse(raw: str, opener: str, path: str) -> dict[str, Any]:
    if opener == "+++":
        try:
            data: Any = _jsonable(tomllib.loads(raw))
        except tomllib.TOMLDecodeError as exc:
            raise SourceError(
                f"invalid TOML front matter: {exc}",
                reason="invalid-front-matter",
                path=path,
                line=1,
            ) from None
    else:
        data, problem, line = _yaml(raw)
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


@dataclass(frozen=True, slots=True)
class YamlNode:
    """A YAML value with the 1-based line it starts on (for outline files' error messages)."""

    value: str | list[YamlNode] | dict[str, YamlNode] | None
    line: int

    def text(self) -> str | None:
        """The scalar value as a string, or ``None`` for collections and nulls."""
        return self.value if isinstance(self.value, str) else None


def _to_node(node: yaml.Node) -> YamlNode:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.ScalarNode):
        value = str(node.value)
        if node.tag == "tag:yaml.org,2002:null" and value in ("", "~", "null", "Null", "NULL"):
            return YamlNode(None, line)
        return YamlNode(value, line)
    if isinstance(node, yaml.SequenceNode):
        return YamlNode([_to_node(item) for item in node.value], line)
    if isinstance(node, yaml.MappingNode):
        mapping: dict[str, YamlNode] = {}
        for key, value in node.value:
            mapping[str(key.value)] = _to_node(value)
        return YamlNode(mapping, line)
    return YamlNode(None, line)  # pragma: no cover - PyYAML has no other node kinds


def load_yaml_nodes(text: str, *, path: str) -> YamlNode:
    """Parse YAML into :class:`YamlNode` values that remember their lines."""
    try:
        root = yaml.compose(text, Loader=_TolerantLoader)
    except yaml.YAMLError as exc:
        problem, line = _problem(exc)
        raise SourceError(
            f"invalid YAML: {problem}", reason="invalid-yaml", path=path, line=line
        ) from None
    if root is None:
        return YamlNode(None, 1)
    return _to_node(root)
