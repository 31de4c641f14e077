"""Optional extras: a dependency imported on first use, or an error naming the extra to install.

The core install stays lean; integrations (Parquet today) sit behind ``pip install
'gezel-knowledge[EXTRA]'`` and import their dependency only when they run, so a missing extra
is a typed, one-line error at the point of use rather than an ``ImportError`` at start-up.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from gezel_knowledge.errors import KnowledgeError

__all__ = ["MissingExtra", "require_extra"]


class MissingExtra(KnowledgeError):
    """An optional dependency is not installed; ``extra`` names what to install."""

    default_reason = "missing-extra"
    category = "unavailable"

    def __init__(self, module: str, extra: str, purpose: str) -> None:
        super().__init__(
            f"{purpose} needs {module}, which is not installed: "
            f"pip install 'gezel-knowledge[{extra}]'",
            subject=extra,
        )
        self.module = module
        self.extra = extra


def require_extra(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingExtra` saying which extra provides it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(module, extra, purpose) from exc
