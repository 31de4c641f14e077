"""``compile_catalog``: sources to a deterministic, optionally signed ``.gezk`` 0.7 archive.

The build runs in a scratch folder beside the output and in four passes:

1. **Read, chunk, embed** (documents in ``(topicPathKey, documentId)`` order, one at a time):
   load and normalise the body, chunk it (``markdown-chunks@2``), encode it (brotli or none),
   stage it; look every embed input up in the content-hash vector cache, embed the misses in
   bounded batches, and append the unit vectors to a spill file. Bodies are never all in
   memory; the vectors are (as a memory map).
2. **Assign shards** by topic or semantic fill; compute the ``centered-sign`` center when the
   profile is a template.
3. **Write** each shard (or the router's embedded shard), its vectors and centroids, then the
   router; seal every database with ``VACUUM INTO``.
4. **Verify and pack**: run the smoke queries against the sealed router, assemble and validate
   the manifest, sign it when a key is given, and write the archive (temp file, then rename).

Nothing depends on the wall clock or on iteration order of unordered containers, so identical
inputs give identical bytes.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from numpy.typing import NDArray

from gezel_knowledge._version import __version__
from gezel_knowledge.archive.verify import file_sha256
from gezel_knowledge.archive.writer import write_archive
from gezel_knowledge.compiler.chunking import (
    Chunk,
    UnitCounter,
    chunk_markdown,
    embed_header,
    unit_counter,
)
from gezel_knowledge.compiler.databases import (
    MAX_BODY_BYTES,
    SealedFile,
    ShardRow,
    Staging,
    create_database,
    encode_body,
    fill_router,
    fill_shard,
    seal,
)
from gezel_knowledge.compiler.document_list import load_document_list
from gezel_knowledge.compiler.errors import BuildWarning, SourceError
from gezel_knowledge.compiler.kmeans import route_centroids
from gezel_knowledge.compiler.manifest import manifest_bytes, manifest_object
from gezel_knowledge.compiler.markdown_tree import load_markdown_tree
from gezel_knowledge.compiler.metadata import (
    CatalogFile,
    CatalogMetadata,
    SmokeQuery,
    normalize_created_at,
)
from gezel_knowledge.compiler.parquet_document_list import load_parquet_document_list
from gezel_knowledge.compiler.sharding import ShardFill, assign_shards, document_vectors
from gezel_knowledge.compiler.smoke import derive_smoke_queries, smoke_query_passes
from gezel_knowledge.compiler.source import CatalogSource, LinkBase
from gezel_knowledge.compiler.validation import ValidDocument, validate_documents, validate_topics
from gezel_knowledge.compiler.vector_cache import VectorCache, embed_input_key
from gezel_knowledge.compiler.window import choose_chunking
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.progress import ProgressEvent, ProgressSink, emit_safely
from gezk import ddl
from gezk.errors import InvalidIdentifier, InvalidProfile, SchemaViolation
from gezk.ids import validate_catalog_id, validate_publisher_id, validate_version
from gezk.jcs import canonicalize
from gezk.profiles import ChunkingProfile, EmbeddingProfile, chunking_profile
from gezk.schemas import validate_manifest, validate_source_notices
from gezk.signing import sign_manifest
from gezk.spatial import coverage
from gezk.versions import WRITTEN

__all__ = ["BuildResult", "compile_catalog", "load_source"]

ROUTER_PATH = "index/router.db"
DEFAULT_SHARD_TARGET = 200_000
DEFAULT_SHARD_MAX = 250_000
DEFAULT_EMBED_BATCH = 64
TOOLCHAIN_NAME = "gezel-knowledge"


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What a build produced."""

    path: Path
    sha256: str
    size_bytes: int
    catalog_id: str
    version: str
    documents: int
    chunks: int
    shards: int
    assets: int
    embedded: int
    """Passages embedded in this build."""
    cached: int
    """Passages whose vectors came from the cache (or repeated an input of this build)."""
    warnings: tuple[BuildWarning, ...]
    manifest: Mapping[str, Any]
    seconds: float
    embed_seconds: float
    """Time spent inside the embedder."""


def load_source(
    path: Path | str,
    *,
    metadata: CatalogMetadata | None = None,
    catalog: CatalogFile | None = None,
) -> CatalogSource:
    """A Markdown tree (a folder) or a document list (a ``.jsonl`` or ``.parquet`` file).

    ``catalog`` (a catalog.yaml path, or metadata already read from one) is used instead of the
    source's own catalog.yaml; ``metadata`` overrides either field by field.
    """
    source = Path(path)
    if source.is_dir():
        return load_markdown_tree(source, metadata=metadata, catalog=catalog)
    if source.is_file() and source.suffix.lower() in (".jsonl", ".ndjson"):
        return load_document_list(source, metadata=metadata, catalog=catalog)
    if source.is_file() and source.suffix.lower() == ".parquet":
        return load_parquet_document_list(source, metadata=metadata, catalog=catalog)
    raise InvalidInput(
        f"{source} is neither a folder of Markdown nor a .jsonl or .parquet document list",
        reason="unknown-source",
        subject=str(source),
    )


class _Progress:
    def __init__(self, sink: ProgressSink | None) -> None:
        self.sink = sink

    def __call__(
        self, step: str, done: int, total: int | None, unit: str, message: str = ""
    ) -> None:
        emit_safely(self.sink, ProgressEvent("build", step, done, total, unit, message))


@dataclass(slots=True)
class _Staged:
    doc: ValidDocument
    seq: int
    first_row: int
    chunk_count: int


class _Embedding:
    """Batches embed inputs, consults the cache, writes unit vectors to the spill file."""

    def __init__(
        self, embedder: Embedder, cache: VectorCache, spill: Path, batch: int, dimensions: int
    ) -> None:
        self.embedder = embedder
        self.cache = cache
        self.spill = spill.open("wb")
        self.batch = batch
        self.dimensions = dimensions
        self.pending: list[tuple[bytes, str]] = []
        self.added = 0
        self.embedded = 0
        self.cached = 0
        self.seconds = 0.0

    def add(self, text: str) -> None:
        """Queue ``header + text``; the embedder prefixes the passage instruction itself."""
        key = embed_input_key(self.embedder.profile.passage_instruction + text)
        self.pending.append((key, text))
        self.added += 1
        if len(self.pending) >= self.batch:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        keys = [k for k, _ in self.pending]
        found = self.cache.get_many(keys)
        missing: dict[bytes, str] = {}
        for key, text in self.pending:
            if key not in found and key not in missing:
                missing[key] = text
        if missing:
            started = time.perf_counter()
            raw = self.embedder.embed_passages(list(missing.values()))
            self.seconds += time.perf_counter() - started
            vectors = _unit_rows(raw, len(missing), self.dimensions)
            fresh = dict(zip(missing, vectors, strict=True))
            self.cache.put_many(fresh.items())
            found.update(fresh)
            self.embedded += len(missing)
        self.cached += len(self.pending) - len(missing)
        block = np.stack([found[k] for k in keys]).astype("<f4")
        self.spill.write(block.tobytes())
        self.pending.clear()

    def close(self) -> None:
        self.flush()
        self.spill.close()


def _unit_rows(raw: Any, n: int, dimensions: int) -> NDArray[np.float32]:
    vectors = np.asarray(raw, dtype=np.float64)
    if vectors.shape != (n, dimensions):
        raise InvalidInput(
            f"the embedder returned vectors of shape {vectors.shape}, expected ({n}, {dimensions})",
            reason="embedder-shape",
        )
    if not np.isfinite(vectors).all():
        raise InvalidInput("the embedder returned non-finite values", reason="embedder-values")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if (norms == 0).any():
        raise InvalidInput("the embedder returned a zero vector", reason="embedder-values")
    out: NDArray[np.float32] = (vectors / norms).astype(np.float32)
    return out


def _check_chunking(profile: ChunkingProfile) -> None:
    """A chunking profile that takes a registered id must be that registered profile."""
    try:
        registered = chunking_profile(profile.id)
    except InvalidProfile:
        return
    if registered != profile:
        raise InvalidInput(
            f"chunking profile {profile.id!r} differs from the registered {profile.id}; "
            "give a modified profile its own id",
            reason="invalid-profile",
            subject=profile.id,
        )


def _require_file(path: Path | None, what: str, hint: str) -> Path:
    if path is None or not path.is_file():
        shown = f" ({path})" if path is not None else ""
        raise SourceError(f"{what} is missing{shown}: {hint}", reason="missing-input")
    return path


def _check_identity(metadata: CatalogMetadata) -> None:
    checks = (
        (validate_catalog_id, metadata.id, "catalog id"),
        (validate_version, metadata.version, "catalog version"),
        (
            validate_publisher_id,
            metadata.publisher.id if metadata.publisher else None,
            "publisher id",
        ),
    )
    for check, value, what in checks:
        try:
            check(value)
        except InvalidIdentifier as exc:
            raise SourceError(f"{what}: {exc.message}", reason=exc.reason) from None


def compile_catalog(
    source: Path | str | CatalogSource,
    output: Path | str,
    *,
    embedder: Embedder,
    metadata: CatalogMetadata | None = None,
    catalog: CatalogFile | None = None,
    created_at: str | None = None,
    signing_key: Ed25519PrivateKey | None = None,
    shard_fill: ShardFill = "topic",
    shard_target: int = DEFAULT_SHARD_TARGET,
    shard_max: int = DEFAULT_SHARD_MAX,
    cache_dir: Path | None = None,
    chunking: ChunkingProfile | str | None = None,
    embed_batch: int = DEFAULT_EMBED_BATCH,
    progress: ProgressSink | None = None,
) -> BuildResult:
    """Build a ``.gezk`` catalog at ``output`` from a Markdown tree, a document list or a source.

    ``catalog`` replaces the source's catalog.yaml (see :func:`load_source`); it cannot be
    combined with an already loaded :class:`CatalogSource`. ``created_at`` (ISO 8601) is an
    input, never the clock: it falls back to ``createdAt`` in
    catalog.yaml and is otherwise required. ``signing_key`` is an Ed25519 private key; without it
    the manifest is unsigned. ``cache_dir`` holds the persistent content-hash -> vector cache
    (none when ``None``). ``chunking`` is a profile or a registered id, else catalog.yaml's
    ``chunking``, else the largest registered profile whose embed inputs fit the embedder's
    window; a requested profile that does not fit raises :class:`ChunkingDoesNotFit`.
    """
    started = time.perf_counter()
    report = _Progress(progress)
    if shard_target <= 0 or shard_max < shard_target:
        raise InvalidInput(
            f"shard target {shard_target} and maximum {shard_max} must satisfy "
            "0 < target <= maximum",
            reason="invalid-shard-size",
        )
    if shard_fill not in ("topic", "semantic"):
        raise InvalidInput(f"unknown shard fill {shard_fill!r}", reason="invalid-shard-fill")
    if isinstance(source, CatalogSource) and catalog is not None:
        raise InvalidInput(
            "catalog= names the catalog.yaml to load a source with; this source is already "
            "loaded (pass metadata= to override its fields)",
            reason="catalog-with-loaded-source",
        )
    src = (
        source
        if isinstance(source, CatalogSource)
        else load_source(source, metadata=metadata, catalog=catalog)
    )
    meta = src.metadata.merged(metadata) if isinstance(source, CatalogSource) else src.metadata
    meta.require()
    _check_identity(meta)
    if not (meta.id and meta.version and meta.publisher and meta.license and meta.language):
        raise AssertionError("require() checked the identity fields")  # pragma: no cover
    stamp = created_at or meta.created_at
    if not stamp:
        raise SourceError(
            "createdAt is required: pass it (--created-at) or set createdAt in catalog.yaml",
            reason="missing-created-at",
        )
    created = normalize_created_at(stamp)
    readme = _require_file(
        meta.readme or src.readme, "README.md", "a catalog ships a README describing it"
    )
    notice = _require_file(
        meta.license.notice_file or src.license_notice,
        "the licence notice",
        "add a LICENSE file or set license.file in catalog.yaml",
    )
    notices = meta.source_notices or src.source_notices
    if notices is not None:
        _require_file(notices, "the source notices file", "fix sourceNotices in catalog.yaml")

    profile = embedder.profile
    profile.check(allow_template=True)
    requested = chunking if chunking is not None else meta.chunking
    if isinstance(requested, ChunkingProfile):
        _check_chunking(requested)
    chunking = choose_chunking(profile, embedder.tokenizer, requested)
    counter = unit_counter(chunking, embedder.tokenizer)
    topics = validate_topics(src.topics)
    documents = validate_documents(src.documents, topics, meta.language)
    warnings: list[BuildWarning] = list(src.warnings)
    output = Path(output).absolute()
    output.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{output.name}.build-", dir=output.parent))
    cache = VectorCache(cache_dir, profile)
    try:
        links = LinkBase(meta.publisher.id, meta.id)
        staging = Staging(work / "staging.db")
        embedding = _Embedding(
            embedder, cache, work / "vectors.f32", embed_batch, profile.dimensions
        )
        staged: list[_Staged] = []
        total_chunks = 0
        for seq, doc in enumerate(documents):
            body, chunks = _read_and_chunk(doc, links, chunking, counter, warnings)
            body_codec, body_blob = encode_body(body)
            del body
            first_row = embedding.added
            staging.add(
                seq,
                doc,
                body_codec=body_codec,
                body_blob=body_blob,
                chunks=chunks,
                first_row=first_row,
            )
            headers: dict[tuple[str, ...], str] = {}
            for chunk in chunks:
                header = headers.get(chunk.heading_path)
                if header is None:
                    header = embed_header(
                        doc.source.title,
                        chunk.heading_path,
                        counter.count,
                        chunking.context_header_max,
                    )
                    headers[chunk.heading_path] = header
                embedding.add(header + chunk.text)
            staged.append(_Staged(doc, seq, first_row, len(chunks)))
            total_chunks += len(chunks)
            report(
                "read",
                seq + 1,
                len(documents),
                "documents",
                f"{total_chunks:,} chunks, {embedding.embedded:,} embedded, "
                f"{embedding.cached:,} cached",
            )
        embedding.close()
        report(
            "embed",
            total_chunks,
            total_chunks,
            "chunks",
            f"{embedding.embedded:,} embedded, {embedding.cached:,} cached",
        )
        vectors: NDArray[np.float32] = (
            np.memmap(
                work / "vectors.f32",
                dtype="<f4",
                mode="r",
                shape=(total_chunks, profile.dimensions),
            )
            if total_chunks
            else np.zeros((0, profile.dimensions), dtype=np.float32)
        )

        center = None
        if profile.is_template:
            center = _center(vectors, profile)
            profile = profile.with_center(center)

        doc_vectors = None
        if shard_fill == "semantic" and total_chunks > shard_target:
            doc_vectors = document_vectors(
                vectors, [s.first_row for s in staged], [s.chunk_count for s in staged]
            )
        shard_of = assign_shards(
            [s.chunk_count for s in staged],
            fill=shard_fill,
            target=shard_target,
            maximum=shard_max,
            catalog_id=meta.id,
            doc_ids=[s.doc.source.id for s in staged],
            vectors=doc_vectors,
        )
        staging.assign({s.seq: shard for s, shard in zip(staged, shard_of, strict=True)})
        staging.close()
        shard_ids = sorted(set(shard_of)) or [0]
        embedded_shard = len(shard_ids) == 1 and total_chunks <= shard_target

        common = {
            "format_version": WRITTEN.format_version,
            "index_schema_version": str(WRITTEN.index_schema_version),
            "catalog_id": meta.id,
            "catalog_version": meta.version,
            "embedding_profile_id": profile.id,
            "chunking_profile_id": chunking.id,
        }
        toolchain = {"name": TOOLCHAIN_NAME, "version": __version__}
        router_meta = {
            **common,
            "embedding_profile_json": canonicalize(profile.to_json()).decode("utf-8"),
            "chunking_profile_json": canonicalize(chunking.to_json()).decode("utf-8"),
            "created_at": created,
            "toolchain_json": canonicalize(toolchain).decode("utf-8"),
        }
        (work / "out" / "index" / "shards").mkdir(parents=True)
        router_conn = create_database(work / "router.build.db", router=True, shard=embedded_shard)
        shard_rows: list[ShardRow] = []
        sealed: dict[str, SealedFile] = {}
        for number, shard_id in enumerate(shard_ids, start=1):
            report("write", number - 1, len(shard_ids), "shards")
            if embedded_shard:
                conn = router_conn
                path = ROUTER_PATH
            else:
                conn = create_database(
                    work / f"shard-{shard_id}.build.db", router=False, shard=True
                )
                path = f"index/shards/{shard_id:03d}.db"
            content = fill_shard(conn, work / "staging.db", shard_id, vectors, center)
            centroids, weights = route_centroids(vectors, content.rows, meta.id, shard_id)
            size = 0
            if not embedded_shard:
                ddl.write_meta(
                    conn, {**common, "shard_id": str(shard_id), "chunk_count": str(content.chunks)}
                )
                sealed[path] = seal(conn, work / "out" / path)
                size = sealed[path].size
            shard_rows.append(
                ShardRow(
                    shard_id,
                    path,
                    content.chunks,
                    content.documents,
                    content.topic_ids,
                    centroids,
                    weights,
                    size,
                )
            )
        report("write", len(shard_ids), len(shard_ids), "shards")
        # The router of an externally sharded catalog holds no shard: it echoes shard -1 and
        # the chunks it holds, none (an embedded router echoes shard 0 and every chunk). The
        # reference writes neither key in that case, but section 5.1 has every database echo
        # both, and no reader can rely on values the reference does not write.
        if embedded_shard:
            router_meta.update({"shard_id": "0", "chunk_count": str(total_chunks)})
        else:
            router_meta.update({"shard_id": "-1", "chunk_count": "0"})
        ddl.write_meta(router_conn, router_meta)
        fill_router(router_conn, work / "staging.db", list(topics.values()), documents, shard_rows)
        sealed[ROUTER_PATH] = seal(router_conn, work / "out" / ROUTER_PATH)
        del vectors

        smoke = _smoke_queries(sealed[ROUTER_PATH].path, meta, documents)
        entries: dict[str, Path | bytes] = {
            "README.md": readme,
            "LICENSES/catalog.txt": notice,
            **{path: s.path for path, s in sealed.items()},
            **{asset.path: asset.file for asset in src.assets},
        }
        if notices is not None:
            entries["LICENSES/source-notices.json"] = _source_notices(notices)
        known = {path: (s.size, s.sha256) for path, s in sealed.items()}
        files = [
            _file_entry(path, entries[path], known.get(path))
            for path in sorted(entries, key=lambda p: p.encode("utf-8"))
        ]
        shard_entries = [
            {
                "id": row.shard_id,
                "path": row.path,
                "chunks": row.chunks,
                "documents": row.documents,
                "centroids": int(row.centroids.shape[0]),
                "sha256": sealed[row.path].sha256,
            }
            for row in shard_rows
        ]
        manifest = manifest_object(
            metadata=meta,
            created_at=created,
            embedding=profile.to_json(),
            chunking=chunking.to_json(),
            topics=list(topics.values()),
            router={
                "shardTargetChunks": shard_target,
                "shards": shard_entries,
                "totalCentroids": sum(e["centroids"] for e in shard_entries),
            },
            counts={
                "documents": len(documents),
                "chunks": total_chunks,
                "shards": len(shard_rows),
                "assets": len(src.assets),
            },
            files=files,
            spatial=_spatial(documents),
            smoke_queries=smoke,
            toolchain=toolchain,
            format_version=WRITTEN.format_version,
            index_schema_version=WRITTEN.index_schema_version,
        )
        validate_manifest(manifest)
        if signing_key is not None:
            manifest = sign_manifest(manifest, signing_key)
        entries["manifest.json"] = manifest_bytes(manifest)
        report("archive", 0, 1, "files")
        digest = write_archive(output, entries)
        report("archive", 1, 1, "files")
        return BuildResult(
            path=output,
            sha256=digest,
            size_bytes=output.stat().st_size,
            catalog_id=meta.id,
            version=meta.version,
            documents=len(documents),
            chunks=total_chunks,
            shards=len(shard_rows),
            assets=len(src.assets),
            embedded=embedding.embedded,
            cached=embedding.cached,
            warnings=tuple(warnings),
            manifest=manifest,
            seconds=time.perf_counter() - started,
            embed_seconds=embedding.seconds,
        )
    finally:
        cache.close()
        shutil.rmtree(work, ignore_errors=True)


def _read_and_chunk(
    doc: ValidDocument,
    links: LinkBase,
    chunking: ChunkingProfile,
    counter: UnitCounter,
    warnings: list[BuildWarning],
) -> tuple[bytes, list[Chunk]]:
    text = doc.source.load_body(links)
    body = text.encode("utf-8")
    size = len(body)
    src = doc.source
    if size > MAX_BODY_BYTES:
        raise SourceError(
            f"body is {size:,} bytes (limit {MAX_BODY_BYTES:,})",
            reason="body-too-large",
            document=src.id,
            path=src.origin,
            line=src.origin_line,
        )
    chunks = chunk_markdown(src.id, src.title, text, chunking, counter)
    if not chunks:
        warnings.append(
            BuildWarning(
                "empty-document",
                "has no text to search (no passages)",
                document=src.id,
                path=src.origin,
                line=src.origin_line,
            )
        )
    return body, chunks


def _center(vectors: NDArray[np.float32], profile: EmbeddingProfile) -> NDArray[np.float32]:
    """The normalised mean of the catalog's passage vectors, as float32."""
    if vectors.shape[0] == 0:
        raise SourceError(
            f"profile {profile.id} needs passage vectors to compute its center; "
            "the catalog has none",
            reason="no-passages",
        )
    total = np.zeros(vectors.shape[1], dtype=np.float64)
    for start in range(0, vectors.shape[0], 65_536):
        total += vectors[start : start + 65_536].astype(np.float64).sum(axis=0)
    norm = np.linalg.norm(total)
    if norm == 0:
        raise SourceError(
            "the passage vectors average to zero; no center exists", reason="no-center"
        )
    return (total / norm).astype(np.float32)


def _spatial(documents: Sequence[ValidDocument]) -> dict[str, Any]:
    points = [
        (loc.latitude, loc.longitude)
        for d in documents
        for loc in d.locations
        if loc.role == "subject"
    ]
    return {
        "schema": "document-points@1",
        "crs": "EPSG:4326",
        "distanceModel": "sphere-6371000",
        "locationCount": sum(len(d.locations) for d in documents),
        "locatedDocuments": sum(1 for d in documents if d.locations),
        "coverage": [bounds.to_json() for bounds in coverage(points)],
    }


def _smoke_queries(
    router: Path, meta: CatalogMetadata, documents: Sequence[ValidDocument]
) -> tuple[SmokeQuery, ...]:
    conn = sqlite3.connect(f"{router.as_uri()}?mode=ro", uri=True)
    try:
        if meta.smoke_queries:
            for query in meta.smoke_queries:
                if not smoke_query_passes(conn, query):
                    raise SourceError(
                        f"smoke query {query.query!r} does not find "
                        f"{list(query.expected_document_ids)} in its top ten",
                        reason="smoke-query-failed",
                    )
            return meta.smoke_queries
        return derive_smoke_queries(conn, [(d.source.id, d.source.title) for d in documents])
    finally:
        conn.close()


def _source_notices(path: Path) -> bytes:
    data = path.read_bytes()
    try:
        obj = json.loads(data)
    except json.JSONDecodeError as exc:
        raise SourceError(
            f"invalid JSON: {exc.msg}",
            reason="invalid-source-notices",
            path=str(path),
            line=exc.lineno,
        ) from None
    try:
        validate_source_notices(obj)
    except SchemaViolation as exc:
        raise SourceError(exc.message, reason="invalid-source-notices", path=str(path)) from None
    return data


def _file_entry(
    path: str, source: Path | bytes, known: tuple[int, str] | None = None
) -> dict[str, Any]:
    if known is not None:
        return {"path": path, "sizeBytes": known[0], "sha256": known[1]}
    if isinstance(source, bytes):
        return {
            "path": path,
            "sizeBytes": len(source),
            "sha256": hashlib.sha256(source).hexdigest(),
        }
    return {"path": path, "sizeBytes": source.stat().st_size, "sha256": file_sha256(source)}
