"""Values as JSON in the one casing every JSON output uses: camelCase field names.

The command line's ``--json`` and the browser's JSON twins both go through :func:`to_jsonable`,
so a value reads the same wherever it is printed (``docs/architecture.md``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from gezk.errors import ReasonedError

__all__ = ["camel_case", "to_jsonable"]


def camel_case(name: str) -> str:
    """``line_start`` -> ``lineStart``; a name without underscores is returned as it is."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def to_jsonable(value: Any) -> Any:
    """Convert a value into JSON values: ``to_json()`` documents as they are, dataclasses with
    camelCase field names, typed errors (warnings) as their reason, message and subject, mappings
    (read-only views too) with their keys as they are, tuples, sets and paths."""
    to_json = getattr(value, "to_json", None)
    if callable(to_json) and not isinstance(value, type):
        return to_jsonable(to_json())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            camel_case(f.name): to_jsonable(getattr(value, f.name))
            for f in dataclasses.fields(value)
        }
    if isinstance(value, ReasonedError):
        return {"reason": value.reason, "message": value.message, "subject": value.subject}
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)
