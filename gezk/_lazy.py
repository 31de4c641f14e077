"""Package faces whose names are imported on first use (PEP 562).

A package ``__init__`` lists where each public name lives; importing the package then costs
nothing until a name is used, so importing one small module of a package does not pull in the
heavy ones beside it. The product layer's packages use this too.

A face lists each name twice, and a test (``tests/test_faces.py``) checks that the two agree:
once in the table handed to :func:`lazy_face` (what runs), and once as ``from module import
Name as Name`` under ``if TYPE_CHECKING:`` (what type checkers and editors read; the redundant
alias marks the name as re-exported). ``__all__`` is derived from the table.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports", "lazy_face"]


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


def lazy_face(
    package: str, namespace: dict[str, Any], modules: Mapping[str, Iterable[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` of a face exporting, from each module of
    ``modules``, the names listed with it."""
    names = {name: module for module, exported in modules.items() for name in exported}
    getattr_, dir_ = lazy_exports(package, names, namespace)
    return getattr_, dir_, sorted(names)
