"""What a retriever searches, resolved and opened once, and the checks every surface shares.

A retriever's ``source`` is

- an open :class:`~gezel_knowledge.reader.Catalog` (searched with the query embedder it was
  opened with, and left open: the caller owns it);
- a :class:`~gezel_knowledge.search.KnowledgeSearch` (the caller owns it);
- a catalog name: a ``.gezk`` file, an extracted catalog folder, or an installed catalog
  (``publisher/catalog[@version]`` or a unique catalog id), resolved by
  :func:`~gezel_knowledge.search.named.resolve_catalog`, the rule the command line uses;
- ``None``: every installed, enabled catalog of the Gezel home.

Whatever it is, the search runs through :class:`~gezel_knowledge.search.KnowledgeSearch`, so
the same catalogs rank the same way however they were named. ``catalogs`` narrows what is
searched (``publisher/catalog`` or unique ids); a source of one catalog must be in it, so a
filter never silently empties a retriever.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias

from gezel_knowledge._untrusted import check_count
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.install.state import HomeState
from gezel_knowledge.reader import Catalog, Passage
from gezel_knowledge.results import SEARCH_MODES, SearchMode, SearchResult
from gezel_knowledge.search import KnowledgeSearch
from gezel_knowledge.search.named import NamedCatalog, open_named, resolve_catalog

__all__ = [
    "RetrievalSource",
    "SourceSpec",
    "check_k",
    "check_mode",
    "check_query",
    "text_problem",
]

SourceSpec: TypeAlias = Catalog | KnowledgeSearch | str | os.PathLike[str] | None
"""What a retriever can be given as its ``source``."""


def check_mode(mode: object) -> SearchMode:
    """``mode`` as a search mode, or ``invalid-mode``."""
    for known in SEARCH_MODES:
        if mode == known:
            return known
    raise InvalidInput(
        f"search mode must be one of {', '.join(SEARCH_MODES)}, got {mode!r}",
        reason="invalid-mode",
        subject=str(mode),
    )


def check_k(k: object, name: str = "k") -> int:
    """``k`` when it is a positive number of hits (an ``int``, not a ``bool``), else
    ``invalid-limit`` naming the parameter as the caller's framework spells it."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInput(f"{name} must be a positive integer, got {k!r}", reason="invalid-limit")
    return check_count(k, name)


def text_problem(value: object, name: str) -> str | None:
    """Why ``value`` is no string of valid Unicode (without echoing what cannot be printed),
    or ``None`` when it is one."""
    if not isinstance(value, str):
        return f"{name} must be a string, not {type(value).__name__}"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        escaped = value[exc.start].encode("unicode_escape").decode()
        return f"{name} must be valid Unicode: it holds the lone surrogate {escaped} at {exc.start}"
    return None


def check_query(query: object) -> str:
    """``query`` when it is a string of valid Unicode, else ``invalid-query``."""
    problem = text_problem(query, "the query")
    if problem is not None:
        raise InvalidInput(problem, reason="invalid-query")
    assert isinstance(query, str)
    return query


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
        self._spec: tuple[Any, ...] = (source, self.catalogs, home, embedder)
        self.named: NamedCatalog | None = None
        self._owned = True
        if isinstance(source, Catalog):
            self.search_over = KnowledgeSearch.over([source], close=False)
            self._owned = False
            self._check_filter(f"{source.publisher_id}/{source.id}", source.id)
        elif isinstance(source, KnowledgeSearch):
            self.search_over = source
            self._owned = False
        elif source is None:
            self.search_over = KnowledgeSearch(HomeState(home))
        elif isinstance(source, str | os.PathLike):
            self.search_over = self._open(source, home, embedder)
        else:
            raise InvalidInput(
                "source must be a Catalog, a KnowledgeSearch, a catalog path, an installed "
                f"catalog or None, not {type(source).__name__}",
                reason="invalid-source",
            )

    def _open(
        self, source: str | os.PathLike[str], home: Path | str | None, embedder: Embedder | None
    ) -> KnowledgeSearch:
        named = resolve_catalog(source, home=home)
        self.named = named
        if named.installed is not None:
            installed = named.installed
            if not installed.usable:
                why = "disabled" if not installed.enabled else "quarantined or without a version"
                raise InvalidInput(
                    f"installed catalog {installed.key} is {why}, so it is not searched",
                    reason="catalog-not-searchable",
                    subject=installed.key,
                )
            self._check_filter(installed.key, installed.catalog_id)
            self.catalogs = (installed.key,)
            assert named.home is not None
            return KnowledgeSearch(named.home)
        wanted: Embedder | Literal["auto"] = "auto" if embedder is None else embedder
        catalog = open_named(named, embedder=wanted)
        try:
            self._check_filter(f"{catalog.publisher_id}/{catalog.id}", catalog.id)
        except InvalidInput:
            catalog.close()
            raise
        return KnowledgeSearch.over([catalog])

    def _check_filter(self, key: str, catalog_id: str) -> None:
        if self.catalogs is None or key in self.catalogs or catalog_id in self.catalogs:
            return
        raise InvalidInput(
            f"the source is catalog {key}, which the catalogs filter "
            f"({', '.join(self.catalogs)}) leaves out",
            reason="catalog-filtered-out",
            subject=key,
        )

    def serves(
        self,
        source: SourceSpec,
        catalogs: Sequence[str] | None,
        home: Path | str | None,
        embedder: Embedder | None,
    ) -> bool:
        """Whether this source was opened for exactly these settings (so a copy of a
        retriever with other ``k`` or ``mode`` can share it instead of opening it again)."""
        wanted = (source, None if catalogs is None else tuple(catalogs), home, embedder)
        return all(a is b or a == b for a, b in zip(self._spec, wanted, strict=True))

    @property
    def catalog(self) -> Catalog | None:
        """The one catalog searched, when the source is a single catalog opened by path or
        handed over."""
        served = self.search_over.catalogs_served()
        return served[0] if len(served) == 1 else None

    @property
    def installed(self) -> KnowledgeSearch | None:
        """The search over installed catalogs, when the source is installed catalogs."""
        return None if self.search_over.served else self.search_over

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
    ) -> SearchResult:
        """The best ``k`` hits for ``query``, with how each catalog took part."""
        return self.search_over.search(
            check_query(query),
            k=check_k(k),
            mode=check_mode(mode),
            min_similarity=min_similarity,
            catalogs=self.catalogs,
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
        return self.search_over.read(reference)

    def close(self) -> None:
        """Close what this source opened itself; a handle the caller passed stays open."""
        if self._owned:
            self.search_over.close()
