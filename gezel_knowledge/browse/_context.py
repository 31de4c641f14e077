"""What every page handler is given: the library, the renderer, and caches per catalog handle."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request

from gezel_knowledge.browse._library import Library
from gezel_knowledge.browse._outline import Outline
from gezel_knowledge.browse._respond import Renderer
from gezel_knowledge.browse._security import GuardSettings
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.reader import Catalog

__all__ = ["Browser", "catalog_key"]


@dataclass
class Browser:
    """One running browser: what it serves and how it answers."""

    library: Library
    renderer: Renderer
    settings: GuardSettings
    memory_embedder: Embedder | None = None
    _outlines: dict[int, tuple[Catalog, Outline]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def outline(self, catalog: Catalog) -> Outline:
        """The catalog's outline, read once per handle."""
        with self._lock:
            held = self._outlines.get(id(catalog))
            if held is not None and held[0] is catalog:
                return held[1]
        outline = Outline.of(catalog)
        with self._lock:
            self._outlines[id(catalog)] = (catalog, outline)
        return outline

    def common(self) -> dict[str, Any]:
        """Values every template may use."""
        return {"served": [c.key for c in self.library.cards()]}


def catalog_key(request: Request) -> str:
    """``publisher/catalog`` from a catalog route's path parameters."""
    return f"{request.path_params['publisher']}/{request.path_params['catalog']}"
