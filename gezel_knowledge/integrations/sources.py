"""What a retriever searches: one catalog or the installed catalogs, resolved and opened once.

A retriever's ``source`` is

- an open :class:`~gezel_knowledge.reader.Catalog` (searched with its own query embedder, and
  left open: the caller owns it);
- a :class:`~gezel_knowledge.search.KnowledgeSearch` (the installed catalogs its policy
  admits; the caller owns it);
- a path to a ``.gezk`` file or an extracted catalog directory (verified and opened here, with
  the shared query embedder of its profile when one is available);
- an installed catalog's coordinate, ``publisher/catalog`` or a unique catalog id;
- ``None``: every installed, enabled catalog of the Gezel home.

``catalogs`` narrows the installed catalogs searched (``publisher/catalog`` or unique ids). A
source of one catalog must be in it, so a filter can never silently empty a retriever.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TypeAlias

from gezel_knowledge.embedders import resolve_query_embedder
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.install.state import HomeState
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog, Passage
from gezel_knowledge.results import SEARCH_MODES, SearchMode, SearchResult
from gezel_knowledge.search import KnowledgeSearch

__all__ = ["RetrievalSource", "SourceSpec"]

SourceSpec: TypeAlias = Catalog | KnowledgeSearch | str | os.PathLike[str] | None
"""What a retriever can be given as its ``source``."""


def check_mode(mode: str) -> SearchMode:
    """``mode`` as a search mode, or ``invalid-mode``."""
    for known in SEARCH_MODES:
        if mode == known:
            return known
    raise InvalidInput(
        f"search mode must be one of {', '.join(SEARCH_MODES)}, got {mode!r}",
        reason="invalid-mode",
        subject=str(mode),
    )


def check_k(k: int) -> int:
    """``k`` when it is a positive number of hits, else ``invalid-limit``."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInput(f"k must be a positive integer, got {k!r}", reason="invalid-limit")
    return k


class RetrievalSource:
    """A retriever's source, resolved: search it, read from it, close what was opened here."""

    def __init__(
        self,
        source: SourceSpec = None,
        *,
        catalogs: Sequence[str] | None = None,
        home: Path | str | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.catalogs = None if catalogs is None else tuple(catalogs)
        self._catalog: Catalog | None = None
        self._installed: KnowledgeSearch | None = None
        self._owned = False
        if isinstance(source, Catalog):
            self._catalog = source
            self._check_filter(source.publisher_id, source.id)
        elif isinstance(source, KnowledgeSearch):
            self._installed = source
        elif source is None:
            self._installed = KnowledgeSearch(HomeState(home))
            self._owned = True
        elif isinstance(source, str | os.PathLike):
            self._open(source, home, embedder)
        else:
            raise InvalidInput(
                "source must be a Catalog, a KnowledgeSearch, a catalog path, an installed "
                f"catalog or None, not {type(source).__name__}",
                reason="invalid-source",
            )

    def _open(
        self, source: str | os.PathLike[str], home: Path | str | None, embedder: Embedder | None
    ) -> None:
        path = Path(source)
        if path.exists():
            catalog = open_catalog(path)
            catalog.embedder = embedder or resolve_query_embedder(catalog.profile).embedder
            self._catalog, self._owned = catalog, True
            self._check_filter(catalog.publisher_id, catalog.id, close=True)
            return
        state = HomeState(home)
        try:
            installed = state.catalog(str(source))
        except NotFound:
            raise NotFound(
                f"{source} is neither a catalog file, a catalog directory nor an installed catalog",
                reason="catalog-not-found",
                subject=str(source),
            ) from None
        if not installed.usable:
            why = "disabled" if not installed.enabled else "quarantined or without a version"
            raise InvalidInput(
                f"installed catalog {installed.key} is {why}, so it is not searched",
                reason="catalog-not-searchable",
                subject=installed.key,
            )
        self._check_filter(installed.publisher_id, installed.catalog_id)
        self.catalogs = (installed.key,)
        self._installed, self._owned = KnowledgeSearch(state), True

    def _check_filter(self, publisher_id: str, catalog_id: str, *, close: bool = False) -> None:
        if self.catalogs is None:
            return
        if f"{publisher_id}/{catalog_id}" in self.catalogs or catalog_id in self.catalogs:
            return
        if close and self._catalog is not None:
            self._catalog.close()
        raise InvalidInput(
            f"the source is catalog {publisher_id}/{catalog_id}, which the catalogs filter "
            f"({', '.join(self.catalogs)}) leaves out",
            reason="catalog-filtered-out",
            subject=f"{publisher_id}/{catalog_id}",
        )

    @property
    def catalog(self) -> Catalog | None:
        """The one catalog searched, when the source is a single catalog file or handle."""
        return self._catalog

    @property
    def installed(self) -> KnowledgeSearch | None:
        """The search over installed catalogs, when the source is installed catalogs."""
        return self._installed

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
    ) -> SearchResult:
        """The best ``k`` hits for ``query``, with how each catalog took part."""
        if self._catalog is not None:
            return self._catalog.search(query, k=k, mode=mode, min_similarity=min_similarity)
        assert self._installed is not None
        return self._installed.search(
            query, k=k, mode=mode, min_similarity=min_similarity, catalogs=self.catalogs
        )

    async def asearch(
        self,
        query: str,
        *,
        k: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
    ) -> SearchResult:
        """:meth:`search` on a worker thread."""
        return await asyncio.to_thread(
            self.search, query, k=k, mode=mode, min_similarity=min_similarity
        )

    def read(self, reference: str) -> Passage:
        """Resolve a ``knowledge://`` reference (a citation a retriever returned)."""
        if self._catalog is not None:
            return self._catalog.read(reference)
        assert self._installed is not None
        return self._installed.read(reference)

    def close(self) -> None:
        """Close what this source opened itself; a handle the caller passed stays open."""
        if not self._owned:
            return
        if self._catalog is not None:
            self._catalog.close()
        if self._installed is not None:
            self._installed.close()
