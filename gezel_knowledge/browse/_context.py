"""What every page handler is given: the library, the renderer, and caches per catalog handle."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from starlette.requests import Request

from gezel_knowledge.browse._library import Library
from gezel_knowledge.browse._markdown import LinkMap, RenderedBody, render_body
from gezel_knowledge.browse._outline import Outline
from gezel_knowledge.browse._respond import Renderer
from gezel_knowledge.browse._security import GuardSettings
from gezel_knowledge.browse._urls import asset_url, cite_url
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.reader import Catalog

__all__ = ["Browser", "catalog_key"]

_log = logging.getLogger(__name__)
_KEPT_BODIES = 64


def _key(catalog: Catalog) -> str:
    return f"{catalog.publisher_id}/{catalog.id}"


@dataclass
class Browser:
    """One running browser: what it serves and how it answers."""

    library: Library
    renderer: Renderer
    settings: GuardSettings
    memory_embedder: Embedder | None = None
    _outlines: dict[int, tuple[Catalog, Outline]] = field(default_factory=dict)
    _bodies: OrderedDict[tuple[int, str, tuple[int, int] | None], tuple[Catalog, RenderedBody]] = (
        field(default_factory=OrderedDict)
    )
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

    def rendered(
        self, catalog: Catalog, document_id: str, highlight: tuple[int, int] | None
    ) -> RenderedBody:
        """A document's body as sanitised HTML; the last bodies shown are kept (Markdown
        parsing is most of a long document's page)."""
        key = (id(catalog), document_id, highlight)
        with self._lock:
            held = self._bodies.get(key)
            if held is not None and held[0] is catalog:
                self._bodies.move_to_end(key)
                return held[1]
        links = LinkMap(cite=cite_url, asset=lambda path: asset_url(_key(catalog), path))
        body = render_body(catalog.body(document_id), links, highlight=highlight)
        with self._lock:
            self._bodies[key] = (catalog, body)
            while len(self._bodies) > _KEPT_BODIES:
                self._bodies.popitem(last=False)
        return body

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
