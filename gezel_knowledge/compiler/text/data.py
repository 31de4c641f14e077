"""Parsing the untrusted text of configuration files and front matter: YAML, TOML and JSON.

Every parse of such text in the compiler goes through here, and every file a source's
configuration or pages are read from through :func:`read_text_file`, so the limits on them are
kept in one place: the product layer's policy for untrusted input
(:mod:`gezel_knowledge._untrusted`, :mod:`gezel_knowledge._untrusted_yaml`). A file is a regular
file of at most :data:`MAX_TEXT_FILE_BYTES`, checked before it is read; values nest at most 64
deep, numbers have at most 4,300 digits, YAML aliases are measured before anything is built
(a recursive alias or a "billion laughs" document is refused), and strings are valid Unicode.
YAML is read with a safe loader that also tolerates tags it does not know: ``mkdocs.yml``
routinely carries ``!!python/name:...`` and ``!ENV`` tags, which are read as their plain value
and never executed or resolved. Dates become ISO 8601 strings, so values are always
JSON-compatible. A value that cannot be parsed is a
:class:`~gezel_knowledge.compiler.errors.SourceError` naming the file and, where the parser
knows it, the line: with the caller's reason for a document that does not parse, and the
policy's own (``too-deep``, ``yaml-aliases``, ``number-too-long``, ``invalid-unicode``,
``input-too-large``, ``not-a-file``) for one it refuses.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Final

import yaml

from gezel_knowledge import _untrusted, _untrusted_yaml
from gezel_knowledge._untrusted import SYNTAX_REASONS, StructuredInputError
from gezel_knowledge._untrusted_yaml import jsonable
from gezel_knowledge.archive.assets import MAX_ASSET_BYTES
from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.errors import InvalidInput

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_TEXT_FILE_BYTES",
    "YamlNode",
    "jsonable",
    "load_json",
    "load_toml",
    "load_yaml",
    "load_yaml_nodes",
    "parse_toml",
    "parse_yaml",
    "read_asset_bytes",
    "read_data_file",
    "read_file_bytes",
    "read_lines",
    "read_text_file",
    "resolved_path",
]

MAX_TEXT_FILE_BYTES: Final = 16 * 1024 * 1024
"""A page, configuration or outline file larger than this is refused before it is read (the
format's limit on one document body, spec 0.7 section 5.3)."""

MAX_LINE_BYTES: Final = 64 * 1024 * 1024
"""A line of a JSON Lines document list: one document, its body escaped as JSON."""


def _source_error(
    exc: StructuredInputError,
    path: str,
    *,
    reason: str,
    prefix: str,
    line: int | None = None,
    offset: int = 0,
) -> SourceError:
    """``exc`` located at ``path``: a document that does not parse gets the caller's
    ``reason`` and the parser's words after ``prefix``; a refusal keeps its own reason."""
    where = line if line is not None else (exc.line + offset if exc.line is not None else None)
    if exc.reason in SYNTAX_REASONS:
        return SourceError(f"{prefix}: {exc.problem}", reason=reason, path=path, line=where)
    return SourceError(exc.message, reason=exc.reason, path=path, line=where)


def parse_yaml(text: str, *, path: str, offset: int = 0) -> tuple[Any, str | None, int | None]:
    """Parsed value, or ``(None, problem, 1-based line)`` when the YAML does not parse; one the
    policy refuses raises :class:`SourceError` with its reason (``offset``: lines before
    ``text`` in the file)."""
    try:
        return _untrusted_yaml.load_yaml(text, "the YAML"), None, None
    except StructuredInputError as exc:
        if exc.reason == "invalid-yaml":
            return None, exc.problem, exc.line
        raise _source_error(exc, path, reason=exc.reason, prefix="", offset=offset) from None


def load_yaml(text: str, *, path: str) -> Any:
    """Parse YAML safely (unknown tags read as plain values); errors name the file and line."""
    try:
        return _untrusted_yaml.load_yaml(text, "the YAML")
    except StructuredInputError as exc:
        raise _source_error(exc, path, reason="invalid-yaml", prefix="invalid YAML") from None


@dataclass(frozen=True, slots=True)
class YamlNode:
    """A YAML value with the 1-based line it starts on (for outline files' error messages)."""

    value: str | list[YamlNode] | dict[str, YamlNode] | None
    line: int
    tag: str | None = None
    """A tag YAML's core schema does not know (``tag:yaml.org,2002:python/name:x.y`` for
    ``!!python/name:x.y``, ``!ENV``), as written; never resolved."""

    def text(self) -> str | None:
        """The scalar value as a string, or ``None`` for collections and nulls."""
        return self.value if isinstance(self.value, str) else None


_CORE_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp", "binary")
)


def _to_node(node: yaml.Node) -> YamlNode:
    # Recursive, over a graph the policy measured: at most 64 deep and 500,000 values.
    line = node.start_mark.line + 1
    tag = None if node.tag in _CORE_TAGS else str(node.tag)
    if isinstance(node, yaml.ScalarNode):
        value = str(node.value)
        if node.tag == "tag:yaml.org,2002:null" and value in ("", "~", "null", "Null", "NULL"):
            return YamlNode(None, line)
        return YamlNode(value, line, tag)
    if isinstance(node, yaml.SequenceNode):
        return YamlNode([_to_node(item) for item in node.value], line, tag)
    if isinstance(node, yaml.MappingNode):
        mapping: dict[str, YamlNode] = {}
        for key, value in node.value:
            mapping[str(key.value)] = _to_node(value)
        return YamlNode(mapping, line, tag)
    return YamlNode(None, line)  # pragma: no cover - PyYAML has no other node kinds


def load_yaml_nodes(text: str, *, path: str) -> YamlNode:
    """Parse YAML into :class:`YamlNode` values that remember their lines."""
    try:
        root = _untrusted_yaml.compose_yaml(text, "the YAML")
    except StructuredInputError as exc:
        raise _source_error(exc, path, reason="invalid-yaml", prefix="invalid YAML") from None
    if root is None:
        return YamlNode(None, 1)
    return _to_node(root)


def parse_toml(text: str, *, path: str) -> tuple[dict[str, Any], str | None]:
    """Parsed TOML, or ``({}, problem)`` when it does not parse; one the policy refuses raises
    :class:`SourceError` with its reason."""
    try:
        return dict(jsonable(_untrusted.load_toml(text, "the TOML"))), None
    except StructuredInputError as exc:
        if exc.reason == "invalid-toml":
            return {}, exc.problem
        raise _source_error(exc, path, reason=exc.reason, prefix="") from None


def load_toml(text: str, *, path: str) -> dict[str, Any]:
    """Parse TOML; errors name the file."""
    data, problem = parse_toml(text, path=path)
    if problem is not None:
        raise SourceError(f"invalid TOML: {problem}", reason="invalid-config", path=path)
    return data


def load_json(
    text: str | bytes, *, path: str, reason: str = "invalid-config", line: int | None = None
) -> Any:
    """Parse JSON; errors name the file and line (``line``: where ``text`` starts, for one
    line of a JSON Lines file), with ``reason`` when it does not parse."""
    try:
        return _untrusted.load_json(text, "the JSON", line=line)
    except StructuredInputError as exc:
        if exc.reason == "invalid-encoding":
            raise SourceError(
                f"invalid JSON: {exc.message}", reason=reason, path=path, line=line
            ) from None
        raise _source_error(exc, path, reason=reason, prefix="invalid JSON", line=line) from None


def resolved_path(path: Path, *, where: str) -> Path:
    """``path`` with every symbolic link resolved; a loop of links (``x.md -> y.md -> x.md``)
    is a :class:`SourceError` (``symlink-loop``), not the ``RuntimeError`` pathlib raises."""
    try:
        return path.resolve()
    except (RuntimeError, OSError) as exc:
        raise SourceError(
            f"is a loop of symbolic links ({exc})", reason="symlink-loop", path=where
        ) from None


def _read_bytes(path: Path, *, where: str, limit: int) -> bytes:
    try:
        return _untrusted.read_bounded(path, "the file", limit=limit)
    except InvalidInput as exc:
        # The path is named as messages name it, not as the file system does.
        message = exc.message.replace(f"the file {path}", "it")
        raise SourceError(message, reason=exc.reason, path=where) from None


def read_file_bytes(path: Path, *, where: str, limit: int = MAX_TEXT_FILE_BYTES) -> bytes:
    """A file's bytes (``where``: how messages name it): a regular file of at most ``limit``
    bytes, its size checked before it is read."""
    return _read_bytes(path, where=where, limit=limit)


def read_asset_bytes(path: Path, *, where: str) -> bytes:
    """An image's bytes, refused as ``asset-too-large`` past the per-asset limit before they
    are read."""
    try:
        return _read_bytes(path, where=where, limit=MAX_ASSET_BYTES)
    except SourceError as exc:
        if exc.reason != "input-too-large":
            raise
        raise SourceError(
            f"is larger than {MAX_ASSET_BYTES:,} bytes, the limit for an asset",
            reason="asset-too-large",
            path=where,
        ) from None


def read_text_file(
    path: Path, *, where: str, limit: int = MAX_TEXT_FILE_BYTES, within: Path | None = None
) -> str:
    """A file's text as UTF-8 (``where``: how messages name it; one leading byte-order mark
    dropped): a regular file of at most ``limit`` bytes, its size checked before it is read,
    and, with ``within``, one that resolves inside that folder (``unsafe-path``: a symlinked
    configuration cannot make the build read a file from elsewhere)."""
    if within is not None:
        resolved = resolved_path(path, where=where)
        if not resolved.is_relative_to(resolved_path(within, where=str(within))):
            raise SourceError(
                f"resolves outside the source folder ({resolved})", reason="unsafe-path", path=where
            )
    data = _read_bytes(path, where=where, limit=limit)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a UTF-8 byte-order mark (docfx.json, _config.yml written on Windows)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"is not UTF-8 text (byte {exc.start})", reason="invalid-encoding", path=where
        ) from None


def read_lines(fh: BinaryIO, *, where: str) -> Iterator[tuple[int, int, bytes]]:
    """``(line number, offset, bytes)`` of each line of a JSON Lines file, each at most
    :data:`MAX_LINE_BYTES` (longer: ``input-too-large``, without reading it whole)."""
    try:
        yield from _untrusted.iter_lines(fh, "the list", max_line_bytes=MAX_LINE_BYTES)
    except StructuredInputError as exc:
        raise SourceError(exc.message, reason=exc.reason, path=where, line=exc.line) from None


def read_data_file(path: Path, *, where: str, within: Path | None = None) -> dict[str, Any]:
    """A YAML, TOML or JSON configuration file (by its suffix) as a mapping; empty when it
    holds none (``within``: as for :func:`read_text_file`)."""
    text = read_text_file(path, where=where, within=within)
    suffix = path.suffix.lower()
    if suffix == ".toml":
        data: Any = load_toml(text, path=where)
    elif suffix == ".json":
        data = load_json(text, path=where)
    else:
        data = load_yaml(text, path=where)
    return data if isinstance(data, dict) else {}
