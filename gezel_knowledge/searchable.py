"""The search seam every knowledge source implements.

:class:`~gezel_knowledge.reader.Catalog` (one catalog),
:class:`~gezel_knowledge.search.KnowledgeSearch` (the installed catalogs),
:class:`~gezel_knowledge.indexes.ContentIndex` (a workspace) and
:class:`~gezel_knowledge.indexes.MemoryIndex` (memory) answer the same call with the same
:class:`~gezel_knowledge.results.SearchResult`, so a caller (a retriever, a tool server, the
search across a session's sources) can hold any of them.

A source owns its query embedder: it is given when the source is made (``embedder=``, or a
resolver by embedding profile for the installed catalogs). Per call, ``query_vectors`` lets
sources searched for one question share the query's embeddings, and an optional ``reranker``
reorders the best fused hits.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from gezel_knowledge.fusion import FusionPreset
from gezel_knowledge.query import QueryVectors
from gezel_knowledge.rerank import Reranker
from gezel_knowledge.results import SearchMode, SearchResult

__all__ = ["Searchable"]


@runtime_checkable
class Searchable(Protocol):
    """A knowledge source that answers a text query with ranked, cited hits."""

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
        fusion: FusionPreset | None = None,
        query_vectors: QueryVectors | None = None,
        reranker: Reranker | None = None,
    ) -> SearchResult:
        """Up to ``k`` hits for ``query``, best first.

        ``mode`` picks the ranked lists (``hybrid``: all; ``vector``; ``keyword``).
        ``min_similarity`` is the cosine below which a vector neighbour is not evidence
        (``None``: the source's default, a catalog profile's measured floor). ``fusion`` is the
        rank-fusion preset (``None``: the source's default). ``query_vectors`` shares the query's
        embeddings with other sources searched for it. ``reranker`` reorders the best fused hits
        (:mod:`gezel_knowledge.rerank`).
        """
        ...
