"""A LlamaIndex retriever over Gezel knowledge (the ``llama-index`` extra:
``llama-index-core``).

:class:`GezelRetriever` is a ``llama_index.core`` ``BaseRetriever``: ``retrieve``/``aretrieve``,
query engines, and the evaluation module work with it. A hit becomes a ``NodeWithScore`` whose
node id is the hit's ``knowledge://`` citation, so ``RetrieverEvaluator`` scores retrievals
against expected citations; its text is the passage, its score the cosine of the passage to the
query, which ``SimilarityPostprocessor(similarity_cutoff=...)`` can act on (``None``, dropped by a
cutoff, where no cosine was measured; the rank-based relevance stays in the metadata), its
metadata :mod:`gezel_knowledge.integrations.passages`' mapping. Only the
title, heading path and citation are shown to a model or an embedder with the text; the other
metadata stays out of prompts. Asynchronous retrieval runs the search on a worker thread.

LlamaIndex's core sends no telemetry; its tokenizer and stopword data ship with it, and this
retriever needs neither.
"""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.extras import MissingExtra
from gezel_knowledge.integrations.passages import RetrievedPassage, retrieved_passages
from gezel_knowledge.integrations.sources import (
    RetrievalSource,
    SourceSpec,
    check_k,
    check_mode,
)
from gezel_knowledge.results import SearchMode, SearchResult

try:
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as exc:  # pragma: no cover - exercised by the missing-extra test
    raise MissingExtra("llama_index.core", "llama-index", "the LlamaIndex retriever") from exc

__all__ = ["GezelRetriever", "to_node"]

_SHOWN = ("title", "heading_path", "citation")
"""Metadata a model or an embedder sees beside the passage text."""


def to_node(passage: RetrievedPassage) -> NodeWithScore:
    """A retrieved passage as a LlamaIndex ``NodeWithScore`` (node id = citation)."""
    metadata = passage.metadata_dict()
    hidden = [key for key in metadata if key not in _SHOWN]
    node = TextNode(
        id_=passage.id,
        text=passage.text,
        metadata=metadata,
        excluded_llm_metadata_keys=hidden,
        excluded_embed_metadata_keys=hidden,
    )
    return NodeWithScore(node=node, score=passage.score)


class GezelRetriever(BaseRetriever):
    """Retrieve cited passages from a catalog, a path, an installed catalog or all of them.

    ``GezelRetriever(source, similarity_top_k=10, mode="hybrid", catalogs=None)``, with
    LlamaIndex's name for the number of nodes; see :mod:`gezel_knowledge.integrations.sources`
    for what ``source`` may be. Call :meth:`close` (or use it as a context manager) to close
    what it opened.
    """

    def __init__(
        self,
        source: SourceSpec = None,
        *,
        similarity_top_k: int = 10,
        mode: SearchMode = "hybrid",
        catalogs: list[str] | None = None,
        home: Path | str | None = None,
        min_similarity: float | None = None,
        embedder: Embedder | None = None,
        verbose: bool = False,
    ) -> None:
        self.similarity_top_k = check_k(similarity_top_k, "similarity_top_k")
        self.mode = check_mode(mode)
        self.min_similarity = min_similarity
        self.source = RetrievalSource(source, catalogs=catalogs, home=home, embedder=embedder)
        super().__init__(verbose=verbose)

    def search(self, query: str) -> SearchResult:
        """The whole search result behind a retrieval (reports, signals and all)."""
        return self.source.search(
            query, k=self.similarity_top_k, mode=self.mode, min_similarity=self.min_similarity
        )

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        hits = self.search(query_bundle.query_str).hits
        return [to_node(p) for p in retrieved_passages(hits)]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        result = await self.source.asearch(
            query_bundle.query_str,
            k=self.similarity_top_k,
            mode=self.mode,
            min_similarity=self.min_similarity,
        )
        return [to_node(p) for p in retrieved_passages(result.hits)]

    def close(self) -> None:
        """Close the catalogs this retriever opened itself."""
        self.source.close()

    def __enter__(self) -> GezelRetriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
