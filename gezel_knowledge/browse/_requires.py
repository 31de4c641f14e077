"""The ``browse`` extra: checked at once, so a missing library is one line naming the extra."""

from __future__ import annotations

from gezel_knowledge.extras import require_extra

__all__ = ["BROWSE_MODULES", "require_browse"]

BROWSE_MODULES = ("starlette", "uvicorn", "jinja2", "markdown_it", "nh3")
"""What the browser imports: the ASGI stack, templates, the Markdown renderer, the sanitizer."""


def require_browse() -> None:
    """Import every library of the ``browse`` extra, or raise ``MissingExtra`` naming it."""
    for module in BROWSE_MODULES:
        require_extra(module, "browse", "gezel-knowledge browse")
