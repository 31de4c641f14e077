"""A catalog's databases: the router, and each shard opened on first use (spec 5.1, 5.2, 5.3).

Opening checks that the router's ``meta`` echoes the manifest and that every shard path is the
declared file for its id; a shard is checked against the router and the manifest when first
opened, so a shard of another catalog or build is refused before it is read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from gezel_knowledge._rows import fetch_all, fetch_one
from gezel_knowledge.archive.layout import shard_path_for
from gezel_knowledge.archive.paths import ROUTER_PATH
from gezel_knowledge.errors import IntegrityFailure, InvalidInput, NotFound
from gezel_knowledge.hits import Provenance
from gezel_knowledge.reader._kwcache import KeywordIndexes
from gezel_knowledge.reader._rows import (
    CHUNK_COLUMNS,
    ChunkRow,
    DocumentRow,
    ShardInfo,
    document_columns,
)
from gezel_knowledge.reader._sqlite import open_catalog_database
from gezk.ddl import read_meta
from gezk.manifest import CatalogManifest
from gezk.uri import KnowledgeUri

__all__ = ["CatalogStore"]


class CatalogStore:
    """The router and shard connections of one extracted catalog, and its typed rows."""

    def __init__(
        self,
        root: Path,
        manifest: CatalogManifest,
        archive_sha256: str | None = None,
        derived_dir: Path | None = None,
    ) -> None:
        self.root = root
        self.manifest = manifest
        self.archive_sha256 = archive_sha256
        self.schema = manifest.index_schema_version
        self._router = open_catalog_database(root / ROUTER_PATH, self.schema)
        self._conns: dict[str, sqlite3.Connection] = {ROUTER_PATH: self._router}
        # (shard id, term) -> passages holding it, counted up to a bound (see _keyword).
        self.term_counts: dict[tuple[int, str], int] = {}
        # The shards' derived keyword indexes (see _kwcache), loaded or built on demand.
        self.keyword = KeywordIndexes(root, manifest, archive_sha256, derived_dir)
        try:
            self._check_router_meta()
            self.shards = self._load_shards()
        except BaseException:
            self._router.close()
            raise

    @property
    def name(self) -> str:
        """``publisher/catalog``."""
        return f"{self.manifest.publisher.id}/{self.manifest.id}"

    @property
    def provenance(self) -> Provenance:
        """Where hits from this catalog come from: the exact installed bytes, not just a name."""
        m = self.manifest
        return Provenance(m.publisher.id, m.id, m.version, self.archive_sha256)

    def close(self) -> None:
        """Close every connection; later reads raise ``catalog-closed``."""
        for conn in self._conns.values():
            conn.close()
        self._conns.clear()
        self.keyword.close()

    def cite(
        self,
        document_id: str,
        *,
        chunk_uid: str | None = None,
        lines: tuple[int, int | None] | None = None,
    ) -> str:
        """The canonical ``knowledge://`` reference to a document, chunk or line range."""
        start, end = lines if lines is not None else (None, None)
        m = self.manifest
        return str(KnowledgeUri(m.publisher.id, m.id, document_id, chunk_uid, start, end))

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
        for row in fetch_all(
            self._router, "SELECT id, path, chunk_count, document_count FROM shards ORDER BY id"
        ):
            path = row["path"]
            if path != ROUTER_PATH and (path != shard_path_for(row["id"]) or path not in declared):
                raise IntegrityFailure(
                    f"shard {row['id']} path {path!r} is not a declared shard file",
                    reason="invalid-shard-path",
                    subject=str(path),
                )
            shards.append(ShardInfo.from_row(row))
        return tuple(shards)

    def _check_shard_meta(self, shard: ShardInfo, conn: sqlite3.Connection) -> None:
        meta = read_meta(conn)
        expected = {
            "catalog_id": self.manifest.id,
            "catalog_version": self.manifest.version,
            "shard_id": str(shard.id),
            "embedding_profile_id": self.manifest.embedding.id,
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

    # -- connections -------------------------------------------------------------------------

    @property
    def router(self) -> sqlite3.Connection:
        """The router database; raises ``catalog-closed`` after :meth:`close`."""
        if not self._conns:
            raise InvalidInput("the catalog is closed", reason="catalog-closed")
        return self._router

    def shard(self, shard_id: int) -> ShardInfo:
        """The router's shard ``shard_id``."""
        for s in self.shards:
            if s.id == shard_id:
                return s
        raise IntegrityFailure(
            f"shard {shard_id} is not in the router",
            reason="unknown-shard",
            subject=str(shard_id),
        )

    def connection(self, shard: ShardInfo) -> sqlite3.Connection:
        """The shard's database, opened and checked on first use."""
        conn = self._conns.get(shard.path)
        if conn is not None:
            return conn
        if not self._conns:
            raise InvalidInput("the catalog is closed", reason="catalog-closed")
        conn = open_catalog_database(self.root.joinpath(*shard.path.split("/")), self.schema)
        try:
            self._check_shard_meta(shard, conn)
        except BaseException:
            conn.close()
            raise
        self._conns[shard.path] = conn
        return conn

    # -- rows --------------------------------------------------------------------------------

    def _not_found(self, document_id: str) -> NotFound:
        return NotFound(
            f"no document {document_id!r} in {self.name}",
            reason="document-not-found",
            subject=document_id,
        )

    def document_row(self, document_id: str) -> DocumentRow:
        """The document's router row; raises ``document-not-found``."""
        row = fetch_one(
            self.router,
            f"SELECT {document_columns(self.schema)} FROM documents WHERE id = ?",
            (document_id,),
        )
        if row is None:
            raise self._not_found(document_id)
        return DocumentRow.from_row(row)

    def has_document(self, document_id: str) -> bool:
        """Whether the router lists ``document_id``."""
        found = self.router.execute("SELECT 1 FROM documents WHERE id = ?", (document_id,))
        return found.fetchone() is not None

    def body_blob(self, document_id: str) -> tuple[str, bytes]:
        """The document's ``(body_codec, body_blob)``; raises ``document-not-found``."""
        row = fetch_one(
            self.router, "SELECT body_codec, body_blob FROM documents WHERE id = ?", (document_id,)
        )
        if row is None:
            raise self._not_found(document_id)
        return row["body_codec"], row["body_blob"]

    def chunk_rows(self, shard: ShardInfo, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        """The shard's chunks with these ids, by id."""
        rows = fetch_all(
            self.connection(shard),
            f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(chunk_ids)),),
        )
        return {int(r["id"]): ChunkRow.from_row(shard.id, r) for r in rows}

    def first_chunk(self, document_id: str) -> ChunkRow | None:
        """The document's first passage, if it has any."""
        shard = self.shard(self.document_row(document_id).shard_id)
        if shard.chunk_count == 0:
            return None
        row = fetch_one(
            self.connection(shard),
            f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE document_id = ? ORDER BY ordinal LIMIT 1",
            (document_id,),
        )
        return None if row is None else ChunkRow.from_row(shard.id, row)

    def chunk(self, document_id: str, chunk_uid: str) -> ChunkRow:
        """The document's chunk ``chunk_uid``; raises ``chunk-not-found``."""
        shard = self.shard(self.document_row(document_id).shard_id)
        row = fetch_one(
            self.connection(shard),
            f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE chunk_uid = ? AND document_id = ?",
            (chunk_uid, document_id),
        )
        if row is None:
            raise NotFound(
                f"document {document_id!r} has no chunk {chunk_uid} (was the catalog updated?)",
                reason="chunk-not-found",
                subject=chunk_uid,
            )
        return ChunkRow.from_row(shard.id, row)
