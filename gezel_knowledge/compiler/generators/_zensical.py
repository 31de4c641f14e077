"""Zensical's ``zensical.toml``: MkDocs' settings written as TOML, read as ``mkdocs.yml``'s.

Zensical (the successor of Material for MkDocs) reads ``zensical.toml`` before an
``mkdocs.yml``; its ``[project]`` table holds the settings MkDocs reads from ``mkdocs.yml``
(``site_name``, ``docs_dir``, ``nav``, ``markdown_extensions``, ``plugins``...), under the same
names. Two shapes differ from the YAML: ``nav`` entries are TOML inline tables
(``{ "Home" = "index.md" }``, the same single-key mappings), and ``markdown_extensions`` is a
table whose dotted names nest (``[project.markdown_extensions.pymdownx.snippets]``), which
Zensical lifts back to ``pymdownx.snippets``. The settings are given in MkDocs' shapes, and
the nav as :class:`YamlNode` values whose lines are found in the TOML text (each string after
the previous one), so a warning names the line of its entry.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import re
from typing import Any

from gezel_knowledge.compiler.text.data import YamlNode

__all__ = ["settings", "settings_nodes"]

_HOISTED = "pymdownx"


def settings(data: dict[str, Any]) -> dict[str, Any]:
    """The MkDocs settings a parsed ``zensical.toml`` states: its ``project`` table (else the
    whole file), ``markdown_extensions`` as MkDocs' list of ``{name: options}``."""
    project = data.get("project")
    out = dict(project) if isinstance(project, dict) else dict(data)
    extensions = out.get("markdown_extensions")
    if isinstance(extensions, dict):
        out["markdown_extensions"] = _extension_list(extensions)
    return out


def _extension_list(extensions: dict[str, Any]) -> list[Any]:
    """``{abbr: {}, pymdownx: {snippets: {...}}}`` as ``[{abbr: {}}, {pymdownx.snippets: {...}}]``
    (Zensical lifts the ``pymdownx`` names, written unquoted, back to their dotted names)."""
    out: list[Any] = []
    for name, options in extensions.items():
        if name == _HOISTED and isinstance(options, dict):
            out += [{f"{_HOISTED}.{sub}": opts} for sub, opts in options.items()]
        else:
            out.append({name: options})
    return out


def settings_nodes(data: dict[str, Any], text: str) -> YamlNode:
    """``data`` (:func:`settings`) as :class:`YamlNode` values, each string's line the first
    place after the previous one where the TOML text writes it (quoted), else the last line
    found."""
    return _Lines(text).node(data)


# A TOML string on one line: basic ("...", escapes) or literal ('...').
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')


class _Lines:
    """Finds where the TOML text writes each value, in document order: every quoted string
    of the text is indexed once, so each lookup is a search of its own occurrences."""

    def __init__(self, text: str) -> None:
        self._places: dict[str, list[int]] = {}
        self._lines: dict[int, int] = {}
        line, last = 1, 0
        for match in _STRING.finditer(text):
            line += text.count("\n", last, match.start())
            last = match.start()
            token = match.group(0)
            value = token[1:-1]
            if token.startswith('"'):
                with contextlib.suppress(ValueError):
                    value = json.loads(token)
            self._places.setdefault(value, []).append(match.start())
            self._lines[match.start()] = line
        self._at = -1
        self._line = 1

    def _find(self, value: str) -> int:
        places = self._places.get(value)
        if places:
            index = bisect.bisect_right(places, self._at)
            if index < len(places):
                self._at = places[index]
                self._line = self._lines[self._at]
        return self._line

    def node(self, value: Any) -> YamlNode:
        if isinstance(value, dict):
            line = self._line
            members: dict[str, YamlNode] = {}
            for key, item in value.items():
                key_line = self._find(str(key))
                if not members:
                    line = key_line
                members[str(key)] = self.node(item)
            return YamlNode(members, line)
        if isinstance(value, list):
            line = self._line
            children = [self.node(item) for item in value]
            return YamlNode(children, children[0].line if children else line)
        if value is None:
            return YamlNode(None, self._line)
        if isinstance(value, bool):
            return YamlNode("true" if value else "false", self._line)
        text = str(value)
        return YamlNode(text, self._find(text) if isinstance(value, str) else self._line)
