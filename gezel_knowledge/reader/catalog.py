"""An opened catalog: browse, read, and search it (spec sections 5, 8.4, 9 and 11).

A :class:`Catalog` owns read-only connections to the router and, lazily, to each shard, plus an
LRU cache of the shards' sign bits. It is safe to share between threads: every public method
holds the handle's lock, so calls run one at a time (SQLite connections and the caches are not
shared concurrently). Use one handle per thread for parallel queries.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from gezel_knowledge.archive.layout import shard_path_for
from gezel_knowledge.archive.limits import DEFAULT_LIMITS, ArchiveLimits
from gezel_knowledge.archive.manifest import CatalogManifest
from gezel_knowledge.archive.paths import ROUTER_PATH
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import IntegrityFailure, InvalidInput, KnowledgeError, NotFound
from gezel_knowledge.fusion import relevance
from gezel_knowledge.hits import Provenance, SearchHit
from gezel_knowledge.reader import browse
from gezel_knowledge.reader._sqlite import open_catalog_database
from gezel_knowledge.reader.body import decode_body, slice_lines
from gezel_knowledge.reader.floors import cosine_floor
from gezel_knowledge.reader.fts import query_terms, terms_match_expression
from gezel_knowledge.reader.hybrid import (
    KEYWORD,
    TITLE,
    VECTOR,
    ChunkRow,
    Fused,
    RankedDocument,
    RankedPassage,
    fuse,
)
from gezel_knowledge.reader.models import (
    Document,
    DocumentLocation,
    DocumentPage,
    DocumentSummary,
    NearbyPage,
    NearbyResult,
    Passage,
    SearchMode,
    SearchResult,
    Stage1,
    Topic,
)
from gezel_knowledge.reader.spatial import Eligible, eligible_documents
from gezel_knowledge.reader.vectors import (
    DEFAULT_BIT_CACHE_BYTES,
    DEFAULT_FINAL_K,
    EXPLICIT_SHARD_BUDGET,
    BitCache,
    ShardHit,
    load_sign_bits,
    rank_shards,
    search_shard,
)
from gezk.ddl import read_meta
from gezk.profiles import EmbeddingProfile, same_vector_space
from gezk.quantize import PackedBits, QueryTables
from gezk.spatial import RadiusQuery
from gezk.uri import KnowledgeUri, parse_fragment

__all__ = ["Catalog", "ShardInfo"]

_CHUNK_COLUMNS = (
    "id, chunk_uid, document_id, ordinal, title, heading_path, line_start, line_end, text"
)
_JOINED_CHUNK_COLUMNS = ", ".join("c." + c.strip() for c in _CHUNK_COLUMNS.split(","))
_MODES = ("hybrid", "vector", "keyword")

COMMON_TERM_FRACTION = 0.05
"""Passage search skips query terms found in more than this fraction of a shard's passages."""

COMMON_TERM_MIN_CHUNKS = 20_000
"""Shards smaller than this search every query term (scoring all their matches is cheap)."""


@dataclass(frozen=True, slots=True)
class ShardInfo:
    """A shard as the router lists it."""

    id: int
    path: str
    chunk_count: int
    document_count: int


def _heading_path(raw: object) -> tuple[str, ...]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return ()
    if not isinstance(value, list):
        return ()
    return tuple(str(v) for v in value if isinstance(v, str))


def _chunk_row(shard_id: int, r: Sequence[Any]) -> ChunkRow:
    return ChunkRow(
        shard_id=shard_id,
        chunk_id=int(r[0]),
        chunk_uid=str(r[1]),
        document_id=str(r[2]),
        ordinal=int(r[3]),
        title=str(r[4]),
        heading_path=_heading_path(r[5]),
        line_start=int(r[6]),
        line_end=int(r[7]),
        text=str(r[8]),
    )


class Catalog:
    """A read-only handle on one extracted catalog; open one with ``open_catalog``."""

    def __init__(
        self,
        root: Path,
        manifest: CatalogManifest,
        *,
        embedder: Embedder | None = None,
        archive_sha256: str | None = None,
        bit_cache_bytes: int = DEFAULT_BIT_CACHE_BYTES,
        limits: ArchiveLimits = DEFAULT_LIMITS,
    ) -> None:
        self.root = Path(root)
        self.manifest = manifest
        self.embedder = embedder
        self.archive_sha256 = archive_sha256
        self._limits = limits
        self._schema = manifest.index_schema_version
        self._lock = threading.RLock()
        self._bits = BitCache(bit_cache_bytes)
        self._centroids: tuple[NDArray[np.int64], NDArray[np.float32]] | None = None
        self._router = open_catalog_database(self.root / ROUTER_PATH, self._schema)
        self._conns: dict[str, sqlite3.Connection] = {ROUTER_PATH: self._router}
        try:
            self._check_router_meta()
            self._shards = self._load_shards()
        except BaseException:
            self._router.close()
            raise

    # -- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close every database connection and drop cached vectors."""
        with self._lock:
            for conn in self._conns.values():
                conn.close()
            self._conns.clear()
            self._bits.clear()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- identity ----------------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The catalog id (unique per publisher)."""
        return self.manifest.id

    @property
    def publisher_id(self) -> str:
        """The publisher id."""
        return self.manifest.publisher_id

    @property
    def version(self) -> str:
        """The catalog's content version."""
        return self.manifest.version

    @property
    def profile(self) -> EmbeddingProfile:
        """The catalog's embedding profile (its vector-space identity)."""
        return self.manifest.embedding

    @property
    def shards(self) -> tuple[ShardInfo, ...]:
        """The router's shards, by id."""
        return self._shards

    @property
    def resident_vector_bytes(self) -> int:
        """Bytes of sign bits currently cached by this handle."""
        with self._lock:
            return self._bits.resident_bytes

    def provenance(self) -> Provenance:
        """Where hits from this catalog come from."""
        return Provenance(self.publisher_id, self.id, self.version, self.archive_sha256)

    def citation(
        self,
        document_id: str,
        *,
        chunk_uid: str | None = None,
        lines: tuple[int, int | None] | None = None,
    ) -> str:
        """The canonical ``knowledge://`` reference to a document, chunk or line range."""
        start, end = lines if lines is not None else (None, None)
        return str(KnowledgeUri(self.publisher_id, self.id, document_id, chunk_uid, start, end))

    # -- opening checks ----------------------------------------------------------------------

    def _check_router_meta(self) -> None:
        meta = read_meta(self._router)
        for key, value in self.manifest.meta_echoes().items():
            if meta.get(key) != value:
                raise IntegrityFailure(
                    f"router meta {key} is {meta.get(key)!r}, the manifest says {value!r}",
                    reason="meta-mismatch",
                    subject=key,
                )

    def _load_shards(self) -> tuple[ShardInfo, ...]:
        declared = {f.path for f in self.manifest.files}
        shards: list[ShardInfo] = []
        for sid, path, chunks, docs in self._router.execute(
            "SELECT id, path, chunk_count, document_count FROM shards ORDER BY id"
        ):
            if path != ROUTER_PATH and (path != shard_path_for(sid) or path not in declared):
                raise IntegrityFailure(
                    f"shard {sid} path {path!r} is not a declared shard file",
                    reason="invalid-shard-path",
                    subject=str(path),
                )
            shards.append(ShardInfo(int(sid), str(path), int(chunks), int(docs)))
        return tuple(shards)

    def _shard(self, shard_id: int) -> ShardInfo:
        for s in self._shards:
            if s.id == shard_id:
                return s
        raise IntegrityFailure(
            f"shard {shard_id} is not in the router",
            reason="unknown-shard",
            subject=str(shard_id),
        )

    def _conn(self, shard: ShardInfo) -> sqlite3.Connection:
        conn = self._conns.get(shard.path)
        if conn is not None:
            return conn
        if not self._conns:
            raise InvalidInput("the catalog is closed", reason="catalog-closed")
        conn = open_catalog_database(self.root.joinpath(*shard.path.split("/")), self._schema)
        try:
            meta = read_meta(conn)
            expected = {
                "catalog_id": self.id,
                "catalog_version": self.version,
                "shard_id": str(shard.id),
                "embedding_profile_id": self.profile.id,
                "chunk_count": str(shard.chunk_count),
            }
            for key, value in expected.items():
                if meta.get(key) != value:
                    raise IntegrityFailure(
                        f"{shard.path} meta {key} is {meta.get(key)!r}, expected {value!r}: "
                        "the shard belongs to another catalog or build",
                        reason="shard-mismatch",
                        subject=shard.path,
                    )
        except BaseException:
            conn.close()
            raise
        self._conns[shard.path] = conn
        return conn

    def _router_conn(self) -> sqlite3.Connection:
        if not self._conns:
            raise InvalidInput("the catalog is closed", reason="catalog-closed")
        return self._router

    # -- browsing ----------------------------------------------------------------------------

    def topics(self) -> list[Topic]:
        """Every topic in tree order with direct placements and distinct subtree documents."""
        with self._lock:
            return browse.topics(self._router_conn(), self._schema)

    def list_documents(
        self,
        topic: str | None = None,
        *,
        descendants: bool = True,
        limit: int = 50,
        offset: int = 0,
    ) -> DocumentPage:
        """A page of documents: in a topic (with its subtree unless ``descendants=False``) or
        all of them; deduplicated before ordering and pagination (spec Appendix A)."""
        if limit < 1 or offset < 0:
            raise InvalidInput(
                "limit must be positive and offset non-negative", reason="invalid-page"
            )
        with self._lock:
            return browse.list_documents(
                self._router_conn(),
                self._schema,
                topic,
                descendants=descendants,
                limit=min(limit, 10_000),
                offset=offset,
            )

    def _document_row(self, document_id: str) -> sqlite3.Row | tuple[Any, ...]:
        extra = ", ordinal, meta_json" if self._schema >= 3 else ", NULL, NULL"
        row = (
            self._router_conn()
            .execute(
                "SELECT id, title, slug, summary, language, topic_id, shard_id, chunk_count,"
                " source_url, source_revision, source_updated_at, attribution_json"
                + extra
                + " FROM documents WHERE id = ?",
                (document_id,),
            )
            .fetchone()
        )
        if row is None:
            raise NotFound(
                f"no document {document_id!r} in {self.publisher_id}/{self.id}",
                reason="document-not-found",
                subject=document_id,
            )
        return tuple(row)

    def document(self, document_id: str) -> Document:
        """A document's primary metadata, placements, locations and citation."""
        with self._lock:
            r = self._document_row(document_id)
            conn = self._router_conn()
            ordinal = None if r[12] is None else int(r[12])
            locations: tuple[DocumentLocation, ...] = ()
            if self._schema >= 4:
                locations = tuple(
                    DocumentLocation(
                        loc[0],
                        float(loc[1]),
                        float(loc[2]),
                        loc[3],
                        _frozen(browse.parse_json_object(loc[4])),
                    )
                    for loc in conn.execute(
                        "SELECT location_id, latitude, longitude, role, provenance_json"
                        " FROM document_locations WHERE document_id = ? ORDER BY location_id",
                        (document_id,),
                    )
                )
            return Document(
                id=r[0],
                title=r[1],
                slug=r[2],
                summary=r[3],
                language=r[4],
                topic_id=r[5],
                topic_path=browse.topic_path(conn, r[5]),
                ordinal=ordinal,
                shard_id=int(r[6]),
                chunk_count=int(r[7]),
                source_url=r[8],
                source_revision=r[9],
                source_updated_at=r[10],
                attribution=_frozen(browse.parse_json_object(r[11])),
                meta=_frozen(browse.parse_json_object(r[13])),
                placements=browse.placements(conn, self._schema, r[0], r[5], ordinal),
                locations=locations,
                citation=self.citation(r[0]),
            )

    def body(self, document_id: str) -> str:
        """The document's normalized Markdown body (decompression capped at 16 MiB)."""
        with self._lock:
            row = (
                self._router_conn()
                .execute("SELECT body_codec, body_blob FROM documents WHERE id = ?", (document_id,))
                .fetchone()
            )
            if row is None:
                raise NotFound(
                    f"no document {document_id!r} in {self.publisher_id}/{self.id}",
                    reason="document-not-found",
                    subject=document_id,
                )
            return decode_body(document_id, row[0], row[1], self._limits.max_body_bytes)

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

    # -- references --------------------------------------------------------------------------

    def read(self, reference: str | KnowledgeUri) -> Passage:
        """Resolve a ``knowledge://`` reference or a document id (optionally ``#line=a-b`` or
        ``#chunk=<uid>``) to the whole body, a line slice or a chunk with its lines."""
        document_id, chunk, start, end = self._parse_reference(reference)
        with self._lock:
            if chunk is not None:
                return self._read_chunk(document_id, chunk)
            body = self.body(document_id)
            title = self._document_row(document_id)[1]
            if start is None:
                return Passage(self.citation(document_id), "document", document_id, title, body)
            if start < 1:
                raise InvalidInput(
                    "line numbers start at 1", reason="line-out-of-range", subject=str(start)
                )
            text = slice_lines(body, start, end)
            last = start if end is None else end
            return Passage(
                self.citation(document_id, lines=(start, end)),
                "lines",
                document_id,
                title,
                text,
                line_start=start,
                line_end=last,
            )

    def _parse_reference(
        self, reference: str | KnowledgeUri
    ) -> tuple[str, str | None, int | None, int | None]:
        if isinstance(reference, str) and reference.startswith("knowledge://"):
            reference = KnowledgeUri.parse(reference)
        if isinstance(reference, KnowledgeUri):
            if (reference.publisher_id, reference.catalog_id) != (self.publisher_id, self.id):
                raise NotFound(
                    f"{reference} cites catalog {reference.catalog_ref}, not "
                    f"{self.publisher_id}/{self.id}",
                    reason="other-catalog",
                    subject=str(reference),
                )
            return (
                reference.document_id,
                reference.chunk,
                reference.line_start,
                reference.line_end,
            )
        text = str(reference)
        with self._lock:
            exists = (
                self._router_conn()
                .execute("SELECT 1 FROM documents WHERE id = ?", (text,))
                .fetchone()
            )
        if exists or "#" not in text:
            return text, None, None, None
        document_id, _, fragment = text.rpartition("#")
        parsed = parse_fragment(fragment)
        if parsed is None:
            raise InvalidInput(
                f"unknown fragment {fragment!r} (expected chunk=<32 hex> or line=<n>[-<m>])",
                reason="invalid-reference",
                subject=text,
            )
        chunk, start, end = parsed
        if start is not None and end is not None and end < start:
            raise InvalidInput(
                f"line range {start}-{end} ends before it starts",
                reason="invalid-reference",
                subject=text,
            )
        return document_id, chunk, start, end

    def _read_chunk(self, document_id: str, uid: str) -> Passage:
        r = self._document_row(document_id)
        shard = self._shard(int(r[6]))
        row = (
            self._conn(shard)
            .execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE chunk_uid = ? AND document_id = ?",
                (uid, document_id),
            )
            .fetchone()
        )
        if row is None:
            raise NotFound(
                f"document {document_id!r} has no chunk {uid} (was the catalog updated?)",
                reason="chunk-not-found",
                subject=uid,
            )
        c = _chunk_row(shard.id, row)
        return Passage(
            self.citation(document_id, chunk_uid=uid),
            "chunk",
            document_id,
            r[1],
            c.text,
            line_start=c.line_start,
            line_end=c.line_end,
            chunk_uid=uid,
            heading_path=c.heading_path,
        )

    # -- keyword retrieval -------------------------------------------------------------------

    def _title_matches(
        self, match: str, limit: int, eligible: Sequence[str] | None
    ) -> list[RankedDocument]:
        where = ""
        params: list[Any] = [match]
        if eligible is not None:
            where = " AND f.document_id IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(list(eligible)))
        # Title matches weigh most, then aliases, then the summary.
        rows = (
            self._router_conn()
            .execute(
                "SELECT f.document_id, bm25(fts_documents, 4.0, 1.0, 2.0) AS s"
                " FROM fts_documents f JOIN documents d ON d.id = f.document_id"
                f" WHERE fts_documents MATCH ?{where} ORDER BY s, f.document_id LIMIT ?",
                [*params, limit],
            )
            .fetchall()
        )
        return [RankedDocument(r[0], -float(r[1])) for r in rows]

    def _passage_terms(self, shard: ShardInfo, terms: Sequence[str]) -> list[str]:
        """The terms worth a passage search in this shard (see :data:`COMMON_TERM_FRACTION`).

        In a large shard, a term in more than that fraction of the passages adds almost nothing
        to BM25 (its IDF is near zero) but makes FTS5 score every passage holding it; it is
        dropped while rarer query terms remain.
        """
        if shard.chunk_count < COMMON_TERM_MIN_CHUNKS:
            return list(terms)
        limit = int(COMMON_TERM_FRACTION * shard.chunk_count)
        frequency: dict[str, int] = {}
        for term in terms:
            # Counting stops one past the limit: a common term costs no more than a rare one.
            row = (
                self._conn(shard)
                .execute(
                    "SELECT COUNT(*) FROM (SELECT 1 FROM fts_chunks WHERE fts_chunks MATCH ?"
                    " LIMIT ?)",
                    (terms_match_expression([term]), limit + 1),
                )
                .fetchone()
            )
            frequency[term] = int(row[0])
        present = [t for t in terms if frequency[t] > 0]
        rare = [t for t in present if frequency[t] <= limit]
        return rare or present

    def _keyword_passages(
        self,
        terms: Sequence[str],
        shards: Sequence[ShardInfo],
        limit: int,
        eligible: Sequence[str] | None,
    ) -> list[RankedPassage]:
        found: list[RankedPassage] = []
        for shard in shards:
            shard_match = terms_match_expression(self._passage_terms(shard, terms))
            if shard_match is None:
                continue
            where = ""
            params: list[Any] = [shard_match]
            if eligible is not None:
                # External-content FTS: the filter reads chunks, so join inside the subquery.
                where = (
                    " AND rowid IN (SELECT id FROM chunks WHERE document_id IN"
                    " (SELECT value FROM json_each(?)))"
                )
                params.append(json.dumps(list(eligible)))
            # Rank inside FTS first and join the few winners: joining every match to chunks
            # before sorting costs more than the ranking itself.
            rows = (
                self._conn(shard)
                .execute(
                    f"SELECT {_JOINED_CHUNK_COLUMNS}, r.s FROM (SELECT rowid AS id,"
                    " bm25(fts_chunks, 2.0, 1.5, 1.0) AS s"
                    f" FROM fts_chunks WHERE fts_chunks MATCH ?{where} ORDER BY s LIMIT ?) r"
                    " JOIN chunks c ON c.id = r.id ORDER BY r.s, c.id",
                    [*params, limit],
                )
                .fetchall()
            )
            found += [RankedPassage(_chunk_row(shard.id, r[:9]), -float(r[9])) for r in rows]
        found.sort(key=lambda p: (-p.score, p.row.shard_id, p.row.chunk_id))
        return found[:limit]

    def keyword_search(self, query: str, *, k: int = 10) -> SearchResult:
        """Keyword-only search over titles/summaries/aliases and passages."""
        return self.search(query, mode="keyword", k=k)

    # -- vector retrieval --------------------------------------------------------------------

    def _centroid_matrix(self) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
        if self._centroids is None:
            d = self.profile.dimensions
            rows = (
                self._router_conn()
                .execute("SELECT shard_id, embedding FROM route_centroids ORDER BY id")
                .fetchall()
            )
            if any(not isinstance(r[1], bytes) or len(r[1]) != 4 * d for r in rows):
                raise IntegrityFailure(
                    f"route_centroids rows are not {d} little-endian float32 values",
                    reason="invalid-centroids",
                )
            ids = np.array([int(r[0]) for r in rows], dtype=np.int64)
            mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), d)
            self._centroids = (ids, mat.astype(np.float32))
        return self._centroids

    def score_shards(self, query_vector: ArrayLike) -> list[tuple[int, float]]:
        """Each routable shard's best centroid cosine, best first (for cross-catalog routing)."""
        q = self._unit_query(query_vector)
        with self._lock:
            ids, mat = self._centroid_matrix()
            return rank_shards(ids, mat, q)

    def route(self, query_vector: ArrayLike, shard_budget: int) -> list[int]:
        """The shards a query scans within this catalog: all when they fit the budget."""
        populated = [s.id for s in self._shards if s.chunk_count > 0]
        if len(populated) <= shard_budget:
            return populated
        return [sid for sid, _ in self.score_shards(query_vector)[: max(0, shard_budget)]]

    def _unit_query(self, query_vector: ArrayLike) -> NDArray[np.float32]:
        q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.profile.dimensions:
            raise InvalidInput(
                f"query vector has {q.shape[0]} dimensions, the catalog's profile "
                f"{self.profile.id} has {self.profile.dimensions}",
                reason="dimension-mismatch",
            )
        norm = float(np.linalg.norm(q))
        if not np.isfinite(norm) or norm == 0.0:
            raise InvalidInput("query vector is zero or not finite", reason="invalid-vector")
        return q / np.float32(norm)

    def _sign_bits(self, shard: ShardInfo) -> PackedBits:
        return self._bits.get(
            shard.id,
            lambda: load_sign_bits(
                self._conn(shard), shard.id, shard.chunk_count, self.profile.dimensions
            ),
        )

    def _chunk_rows(self, shard: ShardInfo, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        rows = (
            self._conn(shard)
            .execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(chunk_ids)),),
            )
            .fetchall()
        )
        return {int(r[0]): _chunk_row(shard.id, r) for r in rows}

    def _eligible_mask(self, shard: ShardInfo, eligible: Sequence[str]) -> NDArray[np.bool_]:
        mask = np.zeros(shard.chunk_count, dtype=np.bool_)
        ids = [
            r[0]
            for r in self._conn(shard).execute(
                "SELECT id FROM chunks WHERE document_id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(eligible)),),
            )
        ]
        if ids:
            idx = np.asarray(ids, dtype=np.int64) - 1
            if int(idx.min()) < 0 or int(idx.max()) >= shard.chunk_count:
                raise IntegrityFailure(
                    f"shard {shard.id} chunk ids are not dense", reason="vectors-misaligned"
                )
            mask[idx] = True
        return mask

    def _vector_shards(
        self,
        query: NDArray[np.float32],
        shards: Sequence[int] | None,
        shard_budget: int,
        eligible: Sequence[str] | None,
    ) -> list[int]:
        """Which shards a vector search scans: every shard holding an eligible document (radius),
        else the caller's choice, else this catalog's routing within the budget."""
        if eligible is not None:
            wanted = {
                int(r[0])
                for r in self._router_conn().execute(
                    "SELECT DISTINCT shard_id FROM documents"
                    " WHERE id IN (SELECT value FROM json_each(?))",
                    (json.dumps(list(eligible)),),
                )
            }
            return [s.id for s in self._shards if s.id in wanted]
        if shards is not None:
            return list(shards)
        return self.route(query, shard_budget)

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
        passages, _ = self._vector_search(
            query_vector,
            shards=shards,
            shard_budget=shard_budget,
            final_k=final_k,
            stage1=stage1,
            eligible=eligible,
        )
        return passages

    def _vector_search(
        self,
        query_vector: ArrayLike,
        *,
        shards: Sequence[int] | None,
        shard_budget: int,
        final_k: int,
        stage1: Stage1,
        eligible: Sequence[str] | None,
    ) -> tuple[list[RankedPassage], list[int]]:
        """:meth:`vector_passages` and the shards it scanned (routing runs once per query)."""
        q = self._unit_query(query_vector)
        if stage1 not in ("lut", "hamming"):
            raise InvalidInput(f"unknown stage-1 scan {stage1!r}", reason="invalid-stage1")
        with self._lock:
            shard_ids = self._vector_shards(q, shards, shard_budget, eligible)
            center = self.profile.center_array()
            tables = QueryTables.build(q, center) if stage1 == "lut" else None
            hits: list[ShardHit] = []
            for sid in shard_ids:
                shard = self._shard(sid)
                if shard.chunk_count == 0:
                    continue
                bits = self._sign_bits(shard)
                mask = self._eligible_mask(shard, eligible) if eligible is not None else None
                hits += search_shard(
                    self._conn(shard),
                    sid,
                    bits,
                    q,
                    final_k=final_k,
                    center=center,
                    stage1=stage1,
                    tables=tables,
                    mask=mask,
                )
                self._bits.trim()
            hits.sort(key=lambda h: (-h.score, h.shard_id, h.chunk_id))
            out: list[RankedPassage] = []
            by_shard: dict[int, list[int]] = {}
            for h in hits:
                by_shard.setdefault(h.shard_id, []).append(h.chunk_id)
            rows = {
                (sid, cid): row
                for sid, cids in by_shard.items()
                for cid, row in self._chunk_rows(self._shard(sid), cids).items()
            }
            for h in hits:
                row = rows.get((h.shard_id, h.chunk_id))
                if row is None:
                    raise IntegrityFailure(
                        f"shard {h.shard_id} has a vector for missing chunk {h.chunk_id}",
                        reason="vectors-misaligned",
                    )
                out.append(RankedPassage(row, h.score))
            return out, shard_ids

    # -- search ------------------------------------------------------------------------------

    def _embed(self, query: str) -> tuple[NDArray[np.float32] | None, str | None]:
        embedder = self.embedder
        if embedder is None:
            return None, (
                f"no query embedder for the catalog's profile {self.profile.id} was supplied"
            )
        if not same_vector_space(embedder.profile, self.profile):
            return None, (
                f"the embedder produces {embedder.profile.id} vectors; this catalog needs "
                f"{self.profile.id}"
            )
        try:
            vectors = embedder.embed_queries([query])
        except KnowledgeError as exc:
            return None, f"the query embedder failed: {exc}"
        return np.asarray(vectors, dtype=np.float32)[0], None

    def search(
        self,
        query: str,
        *,
        mode: SearchMode = "hybrid",
        k: int = 10,
        near: RadiusQuery | None = None,
        shard_budget: int = EXPLICIT_SHARD_BUDGET,
        final_k: int = DEFAULT_FINAL_K,
        stage1: Stage1 = "lut",
        min_cosine: float | None = None,
    ) -> SearchResult:
        """Search the catalog: ``hybrid`` (default), ``vector`` or ``keyword``.

        Without an embedder for the catalog's profile, keyword lists still run and
        :attr:`SearchResult.semantic_unavailable` says why vectors did not. ``near`` restricts
        every list to documents with a subject point in the radius (text-free discovery when
        ``query`` has no words).
        """
        vector: NDArray[np.float32] | None = None
        unavailable: str | None = None
        if mode != "keyword" and query.strip():
            vector, unavailable = self._embed(query)
        return self._search(
            query,
            vector,
            mode=mode,
            k=k,
            near=near,
            shards=None,
            shard_budget=shard_budget,
            final_k=final_k,
            stage1=stage1,
            min_cosine=min_cosine,
            unavailable=unavailable,
        )

    def search_with_vector(
        self,
        query_text: str,
        query_vector: ArrayLike | None,
        *,
        mode: SearchMode = "hybrid",
        k: int = 10,
        near: RadiusQuery | None = None,
        shards: Sequence[int] | None = None,
        shard_budget: int = EXPLICIT_SHARD_BUDGET,
        final_k: int = DEFAULT_FINAL_K,
        stage1: Stage1 = "lut",
        min_cosine: float | None = None,
    ) -> SearchResult:
        """:meth:`search` with a query vector embedded by the caller (once per vector space).

        ``shards`` names the shards to scan when the caller already spent a routing budget
        across catalogs; otherwise this catalog routes within ``shard_budget``.
        """
        vector = None if query_vector is None else self._unit_query(query_vector)
        unavailable = None if vector is not None else "no query vector was supplied"
        return self._search(
            query_text,
            vector,
            mode=mode,
            k=k,
            near=near,
            shards=shards,
            shard_budget=shard_budget,
            final_k=final_k,
            stage1=stage1,
            min_cosine=min_cosine,
            unavailable=unavailable,
        )

    def _search(
        self,
        query: str,
        vector: NDArray[np.float32] | None,
        *,
        mode: SearchMode,
        k: int,
        near: RadiusQuery | None,
        shards: Sequence[int] | None,
        shard_budget: int,
        final_k: int,
        stage1: Stage1,
        min_cosine: float | None,
        unavailable: str | None,
    ) -> SearchResult:
        if mode not in _MODES:
            raise InvalidInput(f"unknown search mode {mode!r}", reason="invalid-mode")
        if k < 1 or final_k < 1 or shard_budget < 0:
            raise InvalidInput("k and final_k must be positive", reason="invalid-limit")
        terms = query_terms(query)
        match = terms_match_expression(terms)
        if mode == "keyword":
            unavailable = None
        with self._lock:
            eligible_rows: list[Eligible] | None = None
            eligible: list[str] | None = None
            if near is not None:
                eligible_rows = eligible_documents(self._router_conn(), self._schema, near)
                eligible = [e.document_id for e in eligible_rows]
            if match is None and (vector is None or mode == "keyword"):
                if eligible_rows is None:
                    return SearchResult(query, mode, (), unavailable, (), None)
                return self._discovery_result(query, mode, eligible_rows, k)
            depth = max(final_k, 3 * k)
            lists: dict[str, list[RankedPassage] | list[RankedDocument]] = {}
            searched: list[int] = []
            if eligible is not None and not eligible:
                return SearchResult(query, mode, (), unavailable, (), 0)
            if mode != "keyword" and vector is not None:
                passages, searched = self._vector_search(
                    vector,
                    shards=shards,
                    shard_budget=shard_budget,
                    final_k=final_k,
                    stage1=stage1,
                    eligible=eligible,
                )
                floor = min_cosine if min_cosine is not None else cosine_floor(self.profile)
                if floor is not None:
                    passages = [p for p in passages if p.score >= floor]
                lists[VECTOR] = passages
            if mode != "vector" and match is not None:
                lists[TITLE] = self._title_matches(match, depth, eligible)
                # Routed shards bound the passage search when vectors routed; otherwise all.
                keyword_shards = (
                    [self._shard(s) for s in searched]
                    if VECTOR in lists and eligible is None
                    else list(self._shards)
                )
                lists[KEYWORD] = self._keyword_passages(terms, keyword_shards, depth, eligible)
                if not searched:
                    searched = [s.id for s in keyword_shards]
            fused = fuse(lists)[:k]
            distances = {e.document_id: e for e in eligible_rows or []}
            hits = tuple(self._hit(i, f, distances.get(f.document_id)) for i, f in enumerate(fused))
            return SearchResult(
                query,
                mode,
                hits,
                None if mode == "keyword" else unavailable,
                tuple(searched),
                None if eligible is None else len(eligible),
            )

    def _first_passage(self, document_id: str) -> ChunkRow | None:
        r = self._document_row(document_id)
        shard = self._shard(int(r[6]))
        if shard.chunk_count == 0:
            return None
        row = (
            self._conn(shard)
            .execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE document_id = ? ORDER BY ordinal"
                " LIMIT 1",
                (document_id,),
            )
            .fetchone()
        )
        return None if row is None else _chunk_row(shard.id, row)

    def _hit(self, rank: int, fused: Fused, place: Eligible | None) -> SearchHit:
        passage = fused.passage or self._first_passage(fused.document_id)
        title = str(self._document_row(fused.document_id)[1])
        citation = self.citation(
            fused.document_id, chunk_uid=passage.chunk_uid if passage else None
        )
        return SearchHit(
            source_kind="catalog",
            source=f"{self.publisher_id}/{self.id}",
            document_id=fused.document_id,
            title=title,
            text=passage.text if passage else "",
            citation=citation,
            rank=rank,
            relevance=relevance(rank),
            heading_path=passage.heading_path if passage else (),
            line_start=passage.line_start if passage else None,
            line_end=passage.line_end if passage else None,
            chunk_uid=passage.chunk_uid if passage else None,
            signals=fused.signals,
            provenance=self.provenance(),
            distance_meters=place.distance_meters if place else None,
            matched_location=place.location_id if place else None,
        )

    def _discovery_result(
        self, query: str, mode: SearchMode, eligible: list[Eligible], k: int
    ) -> SearchResult:
        hits = tuple(
            self._hit(i, Fused(e.document_id, 0.0, None, ()), e) for i, e in enumerate(eligible[:k])
        )
        return SearchResult(query, mode, hits, None, (), len(eligible))

    # -- radius discovery --------------------------------------------------------------------

    def nearby(self, query: RadiusQuery, *, limit: int = 50, offset: int = 0) -> NearbyPage:
        """Documents with a subject point within the radius: nearest first, then by id."""
        if limit < 1 or offset < 0:
            raise InvalidInput(
                "limit must be positive and offset non-negative", reason="invalid-page"
            )
        with self._lock:
            conn = self._router_conn()
            found = eligible_documents(conn, self._schema, query)
            page = found[offset : offset + limit]
            results = []
            for e in page:
                r = self._document_row(e.document_id)
                results.append(
                    NearbyResult(
                        document=DocumentSummary(r[0], r[1], r[2], r[5], r[12], r[3]),
                        distance_meters=e.distance_meters,
                        location=DocumentLocation(
                            e.location_id, e.latitude, e.longitude, "subject"
                        ),
                        citation=self.citation(e.document_id),
                    )
                )
            return NearbyPage(tuple(results), len(found), offset, limit, query.validate())


def _frozen(value: dict[str, Any] | None) -> MappingProxyType[str, Any] | None:
    return None if value is None else MappingProxyType(value)
