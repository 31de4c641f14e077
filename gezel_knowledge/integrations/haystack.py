"""A Haystack retriever component over Gezel knowledge (the ``haystack`` extra: ``haystack-ai``).

:class:`GezelRetriever` is a Haystack ``@component`` with ``run`` and ``run_async`` (inputs
``query`` and an optional ``top_k``; output ``documents``), serialisable with ``to_dict`` /
``from_dict`` so pipelines holding it save and load as YAML. A hit becomes a Haystack
``Document`` whose ``id`` is its ``knowledge://`` citation, ``content`` the passage, ``score``
the cosine of the passage to the query (``None`` where none was measured) and ``meta``
:mod:`gezel_knowledge.integrations.passages`' mapping. ``run_async`` searches on a worker
thread.

Haystack sends usage telemetry unless ``HAYSTACK_TELEMETRY_ENABLED`` says otherwise, and it
decides when it is first imported. Importing this module sets ``HAYSTACK_TELEMETRY_ENABLED`` to
``False`` unless it is already set, so nothing is sent when this module is what loads Haystack;
set the variable yourself if your program imports Haystack first.
"""

from __future__ import annotations

import os

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

# Haystack reads the switch when it is first imported, so it is set before any import below.
from pathlib import Path
from typing import Any

from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.extras import MissingExtra
from gezel_knowledge.integrations.passages import (
    RetrievedPassage,
    retrieved_passages,
)
from gezel_knowledge.integrations.sources import (
    RetrievalSource,
    SourceSpec,
    check_k,
    check_mode,
)
from gezel_knowledge.opening import default_cache_dir
from gezel_knowledge.reader import Catalog
from gezel_knowledge.results import SearchMode, SearchResult
from gezel_knowledge.search import KnowledgeSearch
from gezel_knowledge.search.named import resolve_catalog

try:
    from haystack import Document, component, default_from_dict, default_to_dict
except ImportError as exc:  # pragma: no cover - exercised by the missing-extra test
    raise MissingExtra("haystack", "haystack", "the Haystack retriever") from exc

__all__ = ["GezelRetriever", "to_document"]


def to_document(passage: RetrievedPassage) -> Document:
    """A retrieved passage as a Haystack ``Document`` (id = citation)."""
    return Document(
        id=passage.id, content=passage.text, meta=passage.metadata_dict(), score=passage.score
    )


def _home_text(home: Path | str | None) -> str | None:
    return None if home is None else str(Path(home).expanduser().resolve())


def _serialisable(source: SourceSpec, home: Path | str | None) -> tuple[str | None, str | None]:
    """``(source, home)`` as strings that reopen the same catalog from any working directory:
    absolute paths; a handle on a cached extraction (which ``cache prune`` may delete) as its
    installed coordinate pinned to its version; a search of installed catalogs as its home."""
    if isinstance(source, Catalog):
        root = source.root.resolve()
        if root.is_relative_to(default_cache_dir().resolve()):
            return f"{source.publisher_id}/{source.id}@{source.version}", _home_text(home)
        return str(root), _home_text(home)
    if isinstance(source, KnowledgeSearch):
        return None, str(source.home.root.resolve())
    if source is None:
        return None, _home_text(home)
    text = os.fspath(source)
    named = resolve_catalog(text, home=home)
    if named.path is not None:
        return str(named.path.resolve()), _home_text(home)
    return text, _home_text(home)


@component
class GezelRetriever:
    """Retrieve cited passages from a catalog, a path, an installed catalog or all of them.

    ``GezelRetriever(source, top_k=10, mode="hybrid", catalogs=None)``, with Haystack's name
    for the number of documents (``run(query, top_k=N)`` per call); see
    :mod:`gezel_knowledge.integrations.sources` for what ``source`` may be. ``to_dict`` stores
    what reopens the same catalog from anywhere: an absolute path, an installed coordinate (a
    handle on a cached ``.gezk`` extraction as ``publisher/catalog@version``) or the absolute
    Gezel home, never a handle; a query ``embedder`` given here is not stored (a catalog opened
    again gets its profile's shared embedder).
    """

    def __init__(
        self,
        source: SourceSpec = None,
        *,
        top_k: int = 10,
        mode: SearchMode = "hybrid",
        catalogs: list[str] | None = None,
        home: Path | str | None = None,
        min_similarity: float | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.top_k = check_k(top_k, "top_k")
        self.mode = check_mode(mode)
        self.catalogs = None if catalogs is None else list(catalogs)
        self.min_similarity = min_similarity
        self._spec = _serialisable(source, home)
        self.source = RetrievalSource(source, catalogs=catalogs, home=home, embedder=embedder)

    def to_dict(self) -> dict[str, Any]:
        """The component's settings, for a pipeline's YAML."""
        source, home = self._spec
        return default_to_dict(
            self,
            source=source,
            top_k=self.top_k,
            mode=self.mode,
            catalogs=self.catalogs,
            home=home,
            min_similarity=self.min_similarity,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GezelRetriever:
        """The component :meth:`to_dict` described."""
        return default_from_dict(cls, data)

    def _top_k(self, top_k: int | None) -> int:
        return self.top_k if top_k is None else check_k(top_k, "top_k")

    def search(self, query: str, top_k: int | None = None) -> SearchResult:
        """The whole search result behind a run (reports, signals and all)."""
        return self.source.search(
            query, k=self._top_k(top_k), mode=self.mode, min_similarity=self.min_similarity
        )

    @component.output_types(documents=list[Document])
    def run(self, query: str, top_k: int | None = None) -> dict[str, list[Document]]:
        """The best ``top_k`` (default: the component's) passages for ``query`` as ``documents``."""
        hits = self.search(query, top_k).hits
        return {"documents": [to_document(p) for p in retrieved_passages(hits)]}

    @component.output_types(documents=list[Document])
    async def run_async(self, query: str, top_k: int | None = None) -> dict[str, list[Document]]:
        """:meth:`run` with the search on a worker thread."""
        result = await self.source.asearch(
            query, k=self._top_k(top_k), mode=self.mode, min_similarity=self.min_similarity
        )
        return {"documents": [to_document(p) for p in retrieved_passages(result.hits)]}

    def close(self) -> None:
        """Close the catalogs this component opened itself."""
        self.source.close()
