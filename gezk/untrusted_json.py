"""JSON from untrusted sources with bounded nesting (spec sections 4, 5 and 12 carry JSON).

Manifests, registry documents and JSON columns of catalog databases come from publishers and
servers. :func:`json.loads` raises :class:`RecursionError` (not :class:`ValueError`) on deeply
nested input, and a document that parses just below the interpreter's limit can still exhaust
it later (JSON Schema validation, canonicalisation, copying). :func:`loads` therefore refuses
any document nested deeper than :data:`MAX_JSON_DEPTH` with a :class:`ValueError`, the
exception callers of :func:`json.loads` already handle.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "check_depth", "loads"]

MAX_JSON_DEPTH = 64
"""Arrays and objects nested deeper than this are refused; every document of the format is far
shallower (a manifest is about six levels deep)."""


def check_depth(value: Any, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Raise :class:`ValueError` when ``value`` nests arrays or objects beyond ``max_depth``.

    Iterative, so checking cannot itself exhaust the interpreter's recursion limit.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > max_depth:
            raise ValueError(f"JSON nested deeper than {max_depth} levels")
        stack.extend((child, depth + 1) for child in children)


def loads(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH, **options: Any) -> Any:
    """:func:`json.loads` for untrusted text: ``ValueError`` for anything unacceptable,
    excessive nesting included. ``options`` are passed to :func:`json.loads`."""
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise ValueError(f"JSON nested deeper than {max_depth} levels") from None
    check_depth(value, max_depth)
    return value
