"""Parsing the untrusted text of configuration files and front matter: YAML, TOML and JSON.

Every parse of such text in the compiler goes through here, and every file a source's
configuration is read from through :func:`read_text_file`, so the limits on them are kept in
one place. YAML is read with a safe loader that also tolerates tags it does not know:
``mkdocs.yml`` routinely carries ``!!python/name:...`` and ``!ENV`` tags, which are read as
their plain value and never executed or resolved. Dates become ISO 8601 strings, so values are
always JSON-compatible. A value that cannot be parsed is a
:class:`~gezel_knowledge.compiler.errors.SourceError` naming the file and, where the parser
knows it, the line.
"""

from __future__ import annotations

import datetime as dt
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gezel_knowledge.compiler.errors import SourceError

__all__ = [
    "YamlNode",
    "jsonable",
    "load_json",
    "load_toml",
    "load_yaml",
    "load_yaml_nodes",
    "parse_toml",
    "parse_yaml",
    "read_data_file",
    "read_text_file",
]


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


def jsonable(value: Any) -> Any:
    """``value`` with dates as ISO 8601 strings and bytes as text: what JSON can hold."""
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def _problem(exc: yaml.YAMLError) -> tuple[str, int | None]:
    """What PyYAML says is wrong, and the 1-based line it points at (when it points)."""
    mark = getattr(exc, "problem_mark", None)
    return str(getattr(exc, "problem", None) or exc), mark.line + 1 if mark is not None else None


def parse_yaml(text: str) -> tuple[Any, str | None, int | None]:
    """Parsed value, or ``(None, problem, 1-based line)`` when the YAML is invalid."""
    try:
        return jsonable(yaml.load(text, Loader=_TolerantLoader)), None, None
    except yaml.YAMLError as exc:
        return None, *_problem(exc)


def load_yaml(text: str, *, path: str) -> Any:
    """Parse YAML safely (unknown tags read as plain values); errors name the file and line."""
    value, problem, line = parse_yaml(text)
    if problem is not None:
        raise SourceError(f"invalid YAML: {problem}", reason="invalid-yaml", path=path, line=line)
    return value


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


def parse_toml(text: str) -> tuple[dict[str, Any], str | None]:
    """Parsed TOML, or ``({}, problem)`` when it is invalid."""
    try:
        return dict(jsonable(tomllib.loads(text))), None
    except tomllib.TOMLDecodeError as exc:
        return {}, str(exc)


def load_toml(text: str, *, path: str) -> dict[str, Any]:
    """Parse TOML; errors name the file."""
    data, problem = parse_toml(text)
    if problem is not None:
        raise SourceError(f"invalid TOML: {problem}", reason="invalid-config", path=path)
    return data


def load_json(
    text: str | bytes, *, path: str, reason: str = "invalid-config", line: int | None = None
) -> Any:
    """Parse JSON; errors name the file and line (``line``: where ``text`` starts, for one
    line of a JSON Lines file), with ``reason``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        raise SourceError(f"invalid JSON: {exc}", reason=reason, path=path, line=where) from None
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"invalid JSON: not UTF-8 (byte {exc.start})", reason=reason, path=path, line=line
        ) from None


def read_text_file(path: Path, *, where: str) -> str:
    """A file's text as UTF-8 (``where``: how messages name it)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror}", reason="unreadable", path=where) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"is not UTF-8 text (byte {exc.start})", reason="invalid-encoding", path=where
        ) from None


def read_data_file(path: Path, *, where: str) -> dict[str, Any]:
    """A YAML, TOML or JSON configuration file (by its suffix) as a mapping; empty when it
    holds none."""
    text = read_text_file(path, where=where)
    suffix = path.suffix.lower()
    if suffix == ".toml":
        data: Any = load_toml(text, path=where)
    elif suffix == ".json":
        data = load_json(text, path=where)
    else:
        data = load_yaml(text, path=where)
    return data if isinstance(data, dict) else {}
