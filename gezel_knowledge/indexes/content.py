"""The workspace content index (seed, "From a file to a searchable passage", "Mutable vector
search").

Two passes over a workspace folder, each resumable on its own:

- The **structural pass** (:meth:`ContentIndex.update`, :mod:`._structure`) needs no model. It
  discovers and classifies files, gates on modification time, size and content hash, extracts
  symbols, imports, headings and document text, chunks text with the workspace chunker, and
  removes the rows of deleted files. Every file is findable by name and keyword as soon as this
  pass has seen it.
- The **enrichment pass** (:meth:`ContentIndex.enrich`, :mod:`._enrich`) adds text embeddings
  into the sqlite-vec table ``vec_text``, optional summaries and optional image embeddings.

Search (:mod:`._content_search`) fuses independently ranked lists by reciprocal rank fusion:
vector neighbours, FTS5 over symbols, over file names/titles/summaries and over chunk text (and
image neighbours with an image embedder). :class:`ContentIndex` implements
:class:`~gezel_knowledge.searchable.Searchable`.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from gezel_knowledge._faults import storage_faults
from gezel_knowledge._locking import FileLock
from gezel_knowledge._rows import fetch_all
from gezel_knowledge._untrusted import check_count, check_text
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.fusion import GEZEL, FusionPreset
from gezel_knowledge.indexes._content_schema import CONTENT_SCHEMA, CONTENT_SCHEMA_VERSION
from gezel_knowledge.indexes._content_search import ContentQuery, search_content
from gezel_knowledge.indexes._content_types import (
    ContentStatus,
    Describer,
    EnrichmentReport,
    ImageEmbedder,
    IndexOptions,
    IndexReport,
    StructuralReport,
    Summarizer,
    Transcriber,
)
from gezel_knowledge.indexes._enrich import Enrichment
from gezel_knowledge.indexes._home import content_db_path
from gezel_knowledge.indexes._storage import (
    open_index,
    read_meta,
    read_stamp,
    transaction,
    write_meta,
)
from gezel_knowledge.indexes._structure import StructuralPass
from gezel_knowledge.indexes._symbols import Symbol
from gezel_knowledge.indexes._vectors import vec_table
from gezel_knowledge.progress import ProgressSink, metered
from gezel_knowledge.query import QueryVectors, check_min_similarity, query_vectors_for
from gezel_knowledge.rerank import Reranker, rerank_depth, rerank_result
from gezel_knowledge.results import SearchMode, SearchResult

__all__ = [
    "CONTENT_SCHEMA_VERSION",
    "ContentIndex",
    "ContentStatus",
    "Describer",
    "EnrichmentReport",
    "ImageEmbedder",
    "IndexOptions",
    "IndexReport",
    "StructuralReport",
    "Summarizer",
    "Transcriber",
    "index_workspace",
    "search_workspace",
]


class ContentIndex:
    """The content index of one workspace folder, stored outside it (see :func:`content_db_path`).

    ``embedder`` (text) and ``image_embedder`` are the query embedders search uses and the
    defaults :meth:`enrich` embeds with. Use as a context manager or call :meth:`close`.
    """

    def __init__(
        self,
        workspace: Path | str,
        *,
        embedder: Embedder | None = None,
        image_embedder: ImageEmbedder | None = None,
        db_path: Path | str | None = None,
        home: Path | str | None = None,
        options: IndexOptions | None = None,
    ) -> None:
        root = Path(workspace).expanduser()
        if not root.is_dir():
            raise NotFound(f"workspace {root} is not a directory", subject=str(root))
        self.workspace = root.resolve()
        self.embedder = embedder
        self.image_embedder = image_embedder
        self.options = options or IndexOptions()
        self.db_path = Path(db_path) if db_path is not None else content_db_path(root, home)
        self._conn = open_index(self.db_path, CONTENT_SCHEMA)
        with self._faults("write"):
            meta = read_meta(self._conn)
            if "workspace" not in meta:
                with transaction(self._conn):
                    write_meta(self._conn, {"workspace": str(self.workspace)})

    def _faults(self, doing: str) -> contextlib.AbstractContextManager[None]:
        """Machine faults (a full disk, a read-only home, a lock held) as
        :class:`~gezel_knowledge.errors.StorageUnavailable` naming the database; a pass that
        fails keeps every batch it committed, and nothing of the one it was writing."""
        return storage_faults(self.db_path, f"{doing} the content index")

    def close(self) -> None:
        """Close the database connection."""
        self._conn.close()

    def __enter__(self) -> ContentIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _writer(self) -> FileLock:
        # One structural pass at a time per index: a pass reads what is indexed, then writes
        # what changed, so two interleaved passes would both insert the same new file.
        # (Enrichment merges instead: it stores a vector only for a chunk still without one.)
        return FileLock(self.db_path.with_name(self.db_path.name + ".lock"), timeout=None)

    def update(self, *, progress: ProgressSink | None = None) -> StructuralReport:
        """Run the structural pass: bring files, chunks, symbols and imports up to date.

        Passes over one index run one at a time, across processes: a second waits for the first
        and then finds only what changed since.
        """
        progress = metered(progress)  # stamps each step's rate and time left on its events
        with self._faults("write"), self._writer():
            return StructuralPass(self._conn, self.workspace, self.options, progress).run()

    def enrich(
        self,
        embedder: Embedder | None = None,
        *,
        summarizer: Summarizer | None = None,
        image_embedder: ImageEmbedder | None = None,
        transcriber: Transcriber | None = None,
        describer: Describer | None = None,
        batch_size: int = 32,
        progress: ProgressSink | None = None,
    ) -> EnrichmentReport:
        """Run the enrichment pass for whatever is not yet enriched; safe to interrupt and
        call again (each batch commits on its own). The embedders default to the index's own.
        Concurrent enrichments of one index may embed at once; each vector is stored once.

        ``transcriber`` turns audio files and ``describer`` images into text that becomes the
        file's searchable summary (keyword search finds the file by it); each runs once per
        file content."""
        progress = metered(progress)
        with self._faults("write"):
            return Enrichment(self._conn, self.workspace, self.db_path, progress).run(
                embedder or self.embedder,
                summarizer,
                image_embedder or self.image_embedder,
                batch_size,
                transcriber=transcriber,
                describer=describer,
            )

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
        per_path: int = 3,
    ) -> SearchResult:
        """Hybrid search: vector neighbours (when :attr:`embedder` matches the index's stamp)
        and FTS5 over symbols, names/summaries and chunks, fused by rank (the ``gezel`` preset
        unless ``fusion`` says otherwise); overlapping locations merged; at most ``per_path``
        hits per file. When vectors cannot take part the keyword lists answer alone and the
        result says why.
        """
        check_text(query, "the search query")
        if not query.strip():
            raise InvalidInput("the search query is empty", reason="empty-query")
        check_count(k, "k")
        check_count(per_path, "per_path")
        if k <= 0 or per_path <= 0:
            raise InvalidInput("k and per_path must be positive", reason="invalid-limit")
        check_min_similarity(min_similarity)
        request = ContentQuery(
            text=query,
            vectors=query_vectors_for(query, query_vectors),
            k=rerank_depth(k, reranker),
            mode=mode,
            per_path=per_path,
            fusion=fusion or GEZEL,
            embedder=self.embedder,
            image_embedder=self.image_embedder,
            min_similarity=min_similarity,
        )
        with self._faults("search"):
            found = search_content(self._conn, self.workspace, request)
        return rerank_result(reranker, found, k)

    def status(self) -> ContentStatus:
        """Counts of what the index holds and which embedder its vectors came from."""
        conn = self._conn

        def count(sql: str) -> int:
            (n,) = conn.execute(sql).fetchone()
            return int(n)

        stamp = read_stamp(conn, "text")
        table = vec_table(conn, "vec_text")
        return ContentStatus(
            workspace=str(self.workspace),
            database=str(self.db_path),
            files=count("SELECT count(*) FROM files"),
            chunks=count("SELECT count(*) FROM chunks"),
            chunks_embedded=count("SELECT count(*) FROM chunks WHERE embedded = 1"),
            symbols=count("SELECT count(*) FROM symbols"),
            summaries=count("SELECT count(*) FROM files WHERE summary != ''"),
            images=count("SELECT count(*) FROM files WHERE kind = 'image'"),
            images_embedded=count(
                "SELECT count(*) FROM files f JOIN image_vectors v "
                "ON v.content_hash = f.content_hash"
            ),
            text_stamp=None if stamp is None else stamp.stamp,
            vector_dimensions=None if table is None else table.dimensions,
            vector_metric=None if table is None else table.metric,
        )

    def imports(self, path: str) -> list[str]:
        """The modules a code file imports, as extracted by the structural pass."""
        rows = fetch_all(
            self._conn,
            "SELECT i.module FROM imports i JOIN files f ON f.id = i.file_id "
            "WHERE f.path = ? ORDER BY i.module",
            (path,),
        )
        return [str(r["module"]) for r in rows]

    def symbols(self, path: str) -> list[Symbol]:
        """The symbols the structural pass extracted from a code file, in line order."""
        rows = fetch_all(
            self._conn,
            "SELECT s.name, s.qualname, s.kind, s.line_start, s.line_end FROM symbols s "
            "JOIN files f ON f.id = s.file_id WHERE f.path = ? ORDER BY s.line_start, s.id",
            (path,),
        )
        return [
            Symbol(
                str(r["name"]),
                str(r["qualname"]),
                str(r["kind"]),
                int(r["line_start"]),
                int(r["line_end"]),
            )
            for r in rows
        ]


def index_workspace(
    workspace: Path | str,
    *,
    embedder: Embedder | None = None,
    summarizer: Summarizer | None = None,
    image_embedder: ImageEmbedder | None = None,
    transcriber: Transcriber | None = None,
    describer: Describer | None = None,
    db_path: Path | str | None = None,
    home: Path | str | None = None,
    options: IndexOptions | None = None,
    progress: ProgressSink | None = None,
) -> IndexReport:
    """Run the structural pass over ``workspace`` and, when given an embedder, summarizer,
    image embedder, transcriber or describer, the enrichment pass."""
    with ContentIndex(
        workspace,
        embedder=embedder,
        image_embedder=image_embedder,
        db_path=db_path,
        home=home,
        options=options,
    ) as index:
        structure = index.update(progress=progress)
        enrichment = None
        providers = (embedder, summarizer, image_embedder, transcriber, describer)
        if any(p is not None for p in providers):
            enrichment = index.enrich(
                summarizer=summarizer,
                transcriber=transcriber,
                describer=describer,
                progress=progress,
            )
        return IndexReport(
            workspace=str(index.workspace),
            database=str(index.db_path),
            structure=structure,
            enrichment=enrichment,
        )


def search_workspace(
    workspace: Path | str,
    query: str,
    *,
    k: int = 10,
    mode: SearchMode = "hybrid",
    min_similarity: float | None = None,
    embedder: Embedder | None = None,
    image_embedder: ImageEmbedder | None = None,
    per_path: int = 3,
    db_path: Path | str | None = None,
    home: Path | str | None = None,
) -> SearchResult:
    """Search the content index of ``workspace`` (built earlier by :func:`index_workspace`)
    with the given query embedders."""
    root = Path(workspace).expanduser()
    path = Path(db_path) if db_path is not None else content_db_path(root, home)
    if not path.exists():
        raise NotFound(
            f"no content index for {root} at {path}; run 'gezel-knowledge index {root}' first",
            subject=str(path),
        )
    with ContentIndex(
        root, embedder=embedder, image_embedder=image_embedder, db_path=path
    ) as index:
        return index.search(query, k=k, mode=mode, min_similarity=min_similarity, per_path=per_path)
