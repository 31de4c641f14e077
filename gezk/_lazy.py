"""Package faces whose names are imported on first use (PEP 562).

A package ``__init__`` lists where each public name lives; importing the package then costs
nothing until a name is used, so importing one small module of a package does not pull in the
heavy ones beside it. The product layer's packages use this too.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, names: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``names`` maps each name to its module.

    A resolved name is stored in ``namespace`` (the package's globals), so it is looked up once.
    """

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace.get("__all__", ())) | set(names))

    return __getattr__, __dir__
