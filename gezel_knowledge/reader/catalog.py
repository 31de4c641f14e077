"""An opened catalog: browse, read, and search it (spec sections 5, 8.4, 9 and 11).

A :class:`Catalog` owns read-only connections to the router and, lazily, to each shard
(:mod:`._store`), plus an LRU cache of the shards' sign bits (:mod:`._semantic`). Reading lives in
:mod:`._documents`, the keyword lists in :mod:`._keyword`, the search pipeline and its hits in
:mod:`._search`. It is safe to share between threads: every public method holds the handle's
lock, so calls run one at a time (SQLite connections and the caches are not shared
concurrently). Use one handle per thread for parallel queries. The ``a``-prefixed methods run
the same work on a worker thread, so a caller's event loop never waits on SQLite or a scan.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from gezel_knowledge import display
from gezel_knowledge._untrusted import check_count, check_text
from gezel_knowledge.archive.limits import DEFAULT_LIMITS, ArchiveLimits
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import IntegrityFailure, InvalidInput, ModelUnavailable, NotFound
from gezel_knowledge.fusion import DEFAULT_FUSION, FusionPreset
from gezel_knowledge.hits import Provenance
from gezel_knowledge.query import QueryVectors, query_vectors_for
from gezel_knowledge.reader import _documents, browse
from gezel_knowledge.reader._rows import ShardInfo
from gezel_knowledge.reader._search import CatalogQuery, Semantic, embed_query, search_catalog
from gezel_knowledge.reader._semantic import VectorSearch
from gezel_knowledge.reader._sqlite import catalog_errors
from gezel_knowledge.reader._store import CatalogStore
from gezel_knowledge.reader.browse import ListingOrder
from gezel_knowledge.reader.hybrid import RankedPassage
from gezel_knowledge.reader.models import (
    Document,
    DocumentPage,
    NearbyPage,
    Passage,
    Stage1,
    TopicListing,
)
from gezel_knowledge.reader.toc_order import TopicOrder
from gezel_knowledge.reader.vectors import (
    DEFAULT_BIT_CACHE_BYTES,
    DEFAULT_FINAL_K,
    EXPLICIT_SHARD_BUDGET,
)
from gezel_knowledge.rerank import Reranker
from gezel_knowledge.results import SearchMode, SearchResult
from gezk.manifest import CatalogManifest
from gezk.profiles import EmbeddingProfile
from gezk.spatial import RadiusQuery
from gezk.uri import KnowledgeUri

if TYPE_CHECKING:
    from gezel_knowledge.embedders.shared import EmbedderResolution

__all__ = ["Catalog", "EmbedderFinder", "ShardInfo"]

EmbedderFinder = Callable[[EmbeddingProfile], "EmbedderResolution"]
"""Finds the query embedder of a catalog's profile (``resolve_query_embedder``), or says why not."""

_log = logging.getLogger(__name__)


def _check_page(limit: int, offset: int) -> None:
    check_count(limit, "limit", reason="invalid-page")
    check_count(offset, "offset", reason="invalid-page")
    if limit < 1 or offset < 0:
        raise InvalidInput("limit must be positive and offset non-negative", reason="invalid-page")


class Catalog:
    """A read-only handle on one extracted catalog; open one with ``open_catalog``.

    It implements :class:`~gezel_knowledge.searchable.Searchable`. :attr:`embedder` is the query
    embedder of the catalog's vector space (``None``: keyword lists only, and results say why).
    With ``find_embedder`` and no ``embedder``, the first search that needs vectors asks it for
    one; when there is none, that search logs a warning (once per handle) and every result says
    why semantic search is off.
    """

    def __init__(
        self,
        root: Path,
        manifest: CatalogManifest,
        *,
        embedder: Embedder | None = None,
        archive_sha256: str | None = None,
        bit_cache_bytes: int = DEFAULT_BIT_CACHE_BYTES,
        limits: ArchiveLimits = DEFAULT_LIMITS,
        find_embedder: EmbedderFinder | None = None,
        derived_dir: Path | None = None,
    ) -> None:
        self.root = Path(root)
        self.manifest = manifest
        self.embedder = embedder
        self._find_embedder = find_embedder
        self._no_embedder: Semantic | None = None
        self._limits = limits
        self._lock = threading.RLock()
        with catalog_errors(f"{manifest.publisher.id}/{manifest.id}"):
            self._store = CatalogStore(self.root, manifest, archive_sha256, derived_dir)
            self._vectors = VectorSearch(self._store, manifest.embedding, bit_cache_bytes)

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Hold the handle's lock; what the catalog's contents make fail is a typed error."""
        with self._lock, catalog_errors(self._store.name):
            yield

    # -- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close every database connection and drop cached vectors."""
        with self._lock:
            self._store.close()
            self._vectors.bits.clear()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        documents = sum(s.document_count for s in self.shards)
        chunks = sum(s.chunk_count for s in self.shards)
        return (
            f"<Catalog {self.publisher_id}/{self.id} {self.version}: {documents} documents, "
            f"{chunks} passages in {len(self.shards)} shards, {self.profile.id}, at {self.root}>"
        )

    def _repr_html_(self) -> str:
        facts: list[tuple[str, object]] = [
            ("name", self.manifest.name),
            ("citation prefix", f"knowledge://{self.publisher_id}/{self.id}/"),
            ("version", self.version),
            ("documents", sum(s.document_count for s in self.shards)),
            ("passages", sum(s.chunk_count for s in self.shards)),
            ("shards", len(self.shards)),
            ("embedding profile", self.profile.id),
            ("query embedder", self._embedder_state()),
            ("archive sha256", self.archive_sha256),
            ("files", self.root),
        ]
        return display.catalog_html(f"Catalog {self.publisher_id}/{self.id}", facts)

    def _embedder_state(self) -> str:
        """What the notebook display says of the query embedder, without loading it."""
        if self.embedder is not None:
            return "ready"
        if self._find_embedder is not None:
            return f"{self.profile.id}'s, loaded on the first semantic search"
        if self._no_embedder is not None:
            return f"none: keyword search only ({self._no_embedder.message})"
        return "none: keyword search only"

    # -- identity ----------------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The catalog id (unique per publisher)."""
        return self.manifest.id

    @property
    def publisher_id(self) -> str:
        """The publisher id."""
        return self.manifest.publisher.id

    @property
    def version(self) -> str:
        """The catalog's content version."""
        return self.manifest.version

    @property
    def profile(self) -> EmbeddingProfile:
        """The catalog's embedding profile (its vector-space identity)."""
        return self.manifest.embedding

    @property
    def archive_sha256(self) -> str | None:
        """The SHA-256 of the ``.gezk`` these files came from, when known."""
        return self._store.archive_sha256

    @archive_sha256.setter
    def archive_sha256(self, value: str | None) -> None:
        self._store.archive_sha256 = value

    @property
    def shards(self) -> tuple[ShardInfo, ...]:
        """The router's shards, by id."""
        return self._store.shards

    @property
    def resident_vector_bytes(self) -> int:
        """Bytes of sign bits currently cached by this handle."""
        with self._lock:
            return self._vectors.bits.resident_bytes

    def provenance(self) -> Provenance:
        """Where hits from this catalog come from."""
        return self._store.provenance

    def citation(
        self,
        document_id: str,
        *,
        chunk_uid: str | None = None,
        lines: tuple[int, int | None] | None = None,
    ) -> str:
        """The canonical ``knowledge://`` reference to a document, chunk or line range."""
        return self._store.cite(document_id, chunk_uid=chunk_uid, lines=lines)

    # -- browsing and reading ----------------------------------------------------------------

    def topics(self) -> TopicListing:
        """Every topic in tree order with direct placements and distinct subtree documents."""
        with self._reading():
            return TopicListing(browse.topics(self._store.router, self._store.schema))

    def list_documents(
        self,
        topic: str | None = None,
        *,
        descendants: bool = True,
        limit: int = 50,
        offset: int = 0,
        order: ListingOrder = "spec",
    ) -> DocumentPage:
        """A page of documents: in a topic (with its subtree unless ``descendants=False``) or
        all of them; deduplicated before ordering and pagination (spec Appendix A).

        ``order="spec"`` lists by ordinal across topics as the spec prescribes (section 5.2);
        ``order="toc"`` in table-of-contents order: topics depth first, each topic's documents
        by ordinal before its subtopics."""
        _check_page(limit, offset)
        with self._reading():
            return browse.list_documents(
                self._store.router,
                self._store.schema,
                topic,
                descendants=descendants,
                limit=min(limit, 10_000),
                offset=offset,
                order=order,
            )

    def topic_order(self, topic_id: str) -> TopicOrder:
        """The documents placed at ``topic_id`` itself in table-of-contents order, served a page
        or a neighbour at a time from the indexes (what ``list_documents(topic_id,
        descendants=False, order="toc")`` lists, without ranking the whole topic per page)."""
        with self._reading():
            return TopicOrder(self._read_router, self._store.schema, topic_id)

    def _read_router(self, work: Callable[[sqlite3.Connection], Any]) -> Any:
        with self._reading():
            return work(self._store.router)

    def document(self, document_id: str) -> Document:
        """A document's primary metadata, placements, locations and citation."""
        with self._reading():
            return _documents.document(self._store, document_id)

    def body(self, document_id: str) -> str:
        """The document's normalized Markdown body (decompression capped at 16 MiB)."""
        with self._reading():
            return _documents.body(self._store, document_id, self._limits.max_body_bytes)

    def asset(self, path: str) -> bytes:
        """The bytes of a declared asset (``assets/...``); never resolved outside the catalog."""
        declared = self.manifest.file(path)
        if declared is None or not path.startswith("assets/"):
            raise NotFound(
                f"no asset {path!r} in this catalog", reason="asset-not-found", subject=path
            )
        data = self.root.joinpath(*path.split("/")).read_bytes()
        if len(data) != declared.size_bytes:
            raise IntegrityFailure(
                f"asset {path} differs from the manifest", reason="size-mismatch", subject=path
            )
        return data

    def read(self, reference: str | KnowledgeUri) -> Passage:
        """Resolve a ``knowledge://`` reference or a document id (optionally ``#line=a-b`` or
        ``#chunk=<uid>``) to the whole body, a line slice or a chunk with its lines."""
        with self._reading():
            return _documents.read(self._store, reference, self._limits.max_body_bytes)

    async def aread(self, reference: str | KnowledgeUri) -> Passage:
        """:meth:`read` on a worker thread."""
        # Imported here: an awaiting caller's event loop has loaded asyncio already, and a
        # command that never awaits should not pay for it (0.02 s of a fresh search).
        import asyncio  # noqa: PLC0415

        return await asyncio.to_thread(self.read, reference)

    def nearby(self, query: RadiusQuery, *, limit: int = 50, offset: int = 0) -> NearbyPage:
        """Documents with a subject point within the radius: nearest first, then by id."""
        _check_page(limit, offset)
        with self._reading():
            return _documents.nearby(self._store, query, limit, offset)

    # -- vectors -----------------------------------------------------------------------------

    def score_shards(self, query_vector: ArrayLike) -> list[tuple[int, float]]:
        """Each routable shard's best centroid cosine, best first (for cross-catalog routing)."""
        with self._reading():
            return self._vectors.score_shards(query_vector)

    def route(self, query_vector: ArrayLike, shard_budget: int) -> list[int]:
        """The shards a query scans within this catalog: all when they fit the budget."""
        with self._reading():
            return self._vectors.route(query_vector, shard_budget)

    def prepare_keyword_index(self, *, wait: bool = True) -> int:
        """Load or build every shard's derived keyword index now (``wait=False``: start the
        builds in the background and return); returns how many shards have theirs ready.

        Searches do this by themselves, off the query path; a long-running process or a
        benchmark may want the indexes before its first question.
        """
        with self._lock:
            shards = self._store.shards
            keyword = self._store.keyword
        # Not under the handle's lock: a build takes seconds on a large shard, and searches
        # meanwhile run on FTS5.
        return sum(keyword.get(shard, wait=wait, start=True) is not None for shard in shards)

    def vector_passages(
        self,
        query_vector: ArrayLike,
        *,
        shards: Sequence[int] | None = None,
        shard_budget: int = EXPLICIT_SHARD_BUDGET,
        final_k: int = DEFAULT_FINAL_K,
        stage1: Stage1 = "lut",
        eligible: Sequence[str] | None = None,
    ) -> list[RankedPassage]:
        """Two-stage semantic passages (best cosine first), before any cosine floor."""
        with self._reading():
            passages, _ = self._vectors.passages(
                query_vector,
                shards=shards,
                shard_budget=shard_budget,
                final_k=final_k,
                stage1=stage1,
                eligible=eligible,
            )
            return passages

    # -- search ------------------------------------------------------------------------------

    def _query_embedder(self) -> tuple[Embedder | None, Semantic | None]:
        """The query embedder, found on first use when the handle was given a finder; else
        ``None`` and why."""
        with self._lock:
            if self.embedder is None and self._find_embedder is not None:
                found = self._find_embedder(self.profile)
                self._find_embedder = None
                self.embedder = found.embedder
                if found.embedder is None:
                    message = found.message or f"no query embedder for {self.profile.id}"
                    self._no_embedder = Semantic(
                        "unavailable", found.reason or "no-embedder", message
                    )
                    _log.warning(
                        "%s/%s: semantic search is off: %s", self.publisher_id, self.id, message
                    )
            return self.embedder, None if self.embedder is not None else self._no_embedder

    def query_embedder(self) -> tuple[Embedder | None, str | None, str | None]:
        """``(embedder, reason, message)``: the query embedder this handle was opened with (or
        found for its profile), or ``None`` and why semantic search is off."""
        embedder, missing = self._query_embedder()
        if embedder is not None:
            return embedder, None, None
        if missing is not None:
            return None, missing.reason, missing.message
        return None, "no-embedder", f"no query embedder for {self.profile.id} was supplied"

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
        near: RadiusQuery | None = None,
        shard_budget: int = EXPLICIT_SHARD_BUDGET,
        final_k: int = DEFAULT_FINAL_K,
        stage1: Stage1 = "lut",
    ) -> SearchResult:
        """Search the catalog: ``hybrid`` (default), ``vector`` or ``keyword``.

        Without an embedder for the catalog's profile, hybrid search runs the keyword lists and
        the result's report says why vectors did not (:attr:`SearchResult.semantic_unavailable`);
        ``vector`` mode raises :class:`ModelUnavailable` instead of answering with nothing. A
        query with neither text nor ``near`` raises :class:`InvalidInput` (``empty-query``).
        ``min_similarity`` replaces the profile's measured cosine floor; ``fusion`` the default
        preset (:data:`~gezel_knowledge.fusion.DEFAULT_FUSION`); ``reranker`` reorders the best
        fused hits (:mod:`gezel_knowledge.rerank`). ``near`` restricts every list to documents
        with a subject point in the radius (text-free discovery when ``query`` has no words).
        """
        check_text(query, "the search query")  # before .strip(): None is a typed refusal
        vector: NDArray[np.float32] | None = None
        semantic = Semantic("off")
        if mode != "keyword" and query.strip():
            vectors = query_vectors_for(query, query_vectors)
            embedder, missing = self._query_embedder()
            vector, semantic = embed_query(embedder, self.profile, query, vectors)
            if missing is not None:
                semantic = missing
            if mode == "vector" and vector is None:
                # Vector mode has nothing else to answer with: an empty result would hide why.
                raise ModelUnavailable(
                    f"vector search is unavailable: {semantic.message}",
                    reason="vector-search-unavailable",
                    subject=self.profile.id,
                )
        request = CatalogQuery(
            query,
            vector,
            semantic,
            mode,
            k,
            fusion or DEFAULT_FUSION,
            near=near,
            shard_budget=shard_budget,
            final_k=final_k,
            stage1=stage1,
            min_similarity=min_similarity,
            reranker=reranker,
        )
        with self._reading():
            return search_catalog(self._store, self._vectors, request)

    async def asearch(
        self,
        query: str,
        *,
        k: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
        fusion: FusionPreset | None = None,
        query_vectors: QueryVectors | None = None,
        reranker: Reranker | None = None,
        near: RadiusQuery | None = None,
        shard_budget: int = EXPLICIT_SHARD_BUDGET,
        final_k: int = DEFAULT_FINAL_K,
        stage1: Stage1 = "lut",
    ) -> SearchResult:
        """:meth:`search` on a worker thread: embedding the query, SQLite and the vector scans
        stay off the caller's event loop. Concurrent calls take turns on this handle."""
        # Imported here: an awaiting caller's event loop has loaded asyncio already, and a
        # command that never awaits should not pay for it (0.02 s of a fresh search).
        import asyncio  # noqa: PLC0415

        return await asyncio.to_thread(
            self.search,
            query,
            k=k,
            mode=mode,
            min_similarity=min_similarity,
            fusion=fusion,
            query_vectors=query_vectors,
            reranker=reranker,
            near=near,
            shard_budget=shard_budget,
            final_k=final_k,
            stage1=stage1,
        )

    def search_with_vector(
        self,
        query_text: str,
        query_vector: ArrayLike | None,
        *,
        k: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
        fusion: FusionPreset | None = None,
        reranker: Reranker | None = None,
        near: RadiusQuery | None = None,
        shards: Sequence[int] | None = None,
        shard_budget: int = EXPLICIT_SHARD_BUDGET,
        final_k: int = DEFAULT_FINAL_K,
        stage1: Stage1 = "lut",
    ) -> SearchResult:
        """:meth:`search` with the query's vector computed and routed by the caller.

        ``shards`` names the shards to scan when the caller already spent a routing budget
        across catalogs; otherwise this catalog routes within ``shard_budget``. Without a
        vector, the keyword lists answer alone.
        """
        vector = None if query_vector is None else self._vectors.unit_query(query_vector)
        semantic = (
            Semantic("used")
            if vector is not None
            else Semantic("unavailable", "no-query-vector", "no query vector was supplied")
        )
        request = CatalogQuery(
            query_text,
            vector,
            semantic,
            mode,
            k,
            fusion or DEFAULT_FUSION,
            near=near,
            shards=shards,
            shard_budget=shard_budget,
            final_k=final_k,
            stage1=stage1,
            min_similarity=min_similarity,
            reranker=reranker,
        )
        with self._reading():
            return search_catalog(self._store, self._vectors, request)

    def _conn(self, shard: ShardInfo) -> sqlite3.Connection:
        # The shard's connection, for benchmarks that time the kernels on it directly.
        with self._reading():
            return self._store.connection(shard)
