"""A LangChain retriever over Gezel knowledge (the ``langchain`` extra: ``langchain-core``).

:class:`GezelRetriever` is a ``langchain_core`` ``BaseRetriever``, so ``invoke``/``ainvoke``,
``batch`` and every chain that takes a retriever work with it. A hit becomes a ``Document``
whose ``id`` is its ``knowledge://`` citation, whose ``page_content`` is the passage and whose
``metadata`` is :mod:`gezel_knowledge.integrations.passages`' mapping (the relevance is
``metadata["relevance"]``: rank-based, not a probability). Asynchronous retrieval runs the
search on a worker thread.

LangChain sends nothing anywhere unless LangSmith tracing is turned on
(``LANGSMITH_TRACING=true``); this module does not turn it on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gezel_knowledge.extras import MissingExtra
from gezel_knowledge.integrations.passages import RetrievedPassage, retrieved_passages
from gezel_knowledge.integrations.sources import RetrievalSource, check_k, check_mode
from gezel_knowledge.results import SearchMode, SearchResult

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from pydantic import ConfigDict, PrivateAttr
except ImportError as exc:  # pragma: no cover - exercised by the missing-extra test
    raise MissingExtra("langchain_core", "langchain", "the LangChain retriever") from exc

__all__ = ["GezelRetriever", "to_document"]


def to_document(passage: RetrievedPassage) -> Document:
    """A retrieved passage as a LangChain ``Document`` (id = citation)."""
    return Document(id=passage.id, page_content=passage.text, metadata=passage.metadata_dict())


class GezelRetriever(BaseRetriever):
    """Retrieve cited passages from a catalog, a path, an installed catalog or all of them.

    ``GezelRetriever(source=..., k=10, mode="hybrid", catalogs=None)``; see
    :mod:`gezel_knowledge.integrations.sources` for what ``source`` may be. Call
    :meth:`close` (or use it as a context manager) to close what it opened.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    source: Any = None
    """A ``Catalog``, a ``KnowledgeSearch``, a catalog path, an installed catalog, or ``None``
    for every installed catalog."""
    k: int = 10
    """How many passages to return."""
    mode: SearchMode = "hybrid"
    """``hybrid``, ``vector`` or ``keyword``."""
    catalogs: list[str] | None = None
    """Only these installed catalogs (``publisher/catalog`` or unique ids)."""
    home: Path | str | None = None
    """The Gezel home of installed catalogs (default ``$GEZEL_HOME`` or ``~/.gezel``)."""
    min_similarity: float | None = None
    """The cosine below which a vector neighbour is not evidence (default: the profile's)."""
    embedder: Any = None
    """The query embedder for a catalog opened by path (default: its profile's shared one)."""

    _source: RetrievalSource = PrivateAttr()

    def __init__(self, **data: Any) -> None:
        """Check the settings and open the source."""
        super().__init__(**data)
        # After pydantic's own validation, not inside it (model_post_init): there an
        # InvalidInput, being a ValueError, would come out as a pydantic ValidationError.
        check_k(self.k)
        check_mode(self.mode)
        self._source = RetrievalSource(
            self.source,
            catalogs=self.catalogs,
            home=self.home,
            embedder=self.embedder,
        )

    @property
    def retrieval_source(self) -> RetrievalSource:
        """What this retriever searches."""
        return self._source

    def search(self, query: str) -> SearchResult:
        """The whole search result behind a retrieval (reports, signals and all)."""
        return self._source.search(
            query, k=self.k, mode=self.mode, min_similarity=self.min_similarity
        )

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return [to_document(p) for p in retrieved_passages(self.search(query).hits)]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        result = await self._source.asearch(
            query, k=self.k, mode=self.mode, min_similarity=self.min_similarity
        )
        return [to_document(p) for p in retrieved_passages(result.hits)]

    def close(self) -> None:
        """Close the catalogs this retriever opened itself."""
        self._source.close()

    def __enter__(self) -> GezelRetriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
