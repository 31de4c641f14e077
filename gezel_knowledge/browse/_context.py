"""What every page handler is given: the library, the renderer, and caches per catalog handle."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from starlette.requests import Request

from gezel_knowledge.browse._library import Library
from gezel_knowledge.browse._outline import Outline
from gezel_knowledge.browse._respond import Renderer
from gezel_knowledge.browse._security import GuardSettings
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.reader import Catalog

__all__ = ["Browser", "catalog_key"]

_log = logging.getLogger(__name__)


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

    def warm(self) -> None:
        """Read every served catalog's outline and each topic's document order now, so no page
        pays for it later (run on a background thread when the server starts)."""
        for card in self.library.cards():
            try:
                catalog = self.library.catalog(card.key)
                outline = self.outline(catalog)
                for topic in outline.topics:
                    if topic.direct_count:
                        outline.own_order(catalog, topic.id)
            except Exception:  # a catalog that fails here fails again, with its reason, on its page
                _log.debug("warming %s failed", card.key, exc_info=True)


def catalog_key(request: Request) -> str:
    """``publisher/catalog`` from a catalog route's path parameters."""
    return f"{request.path_params['publisher']}/{request.path_params['catalog']}"
