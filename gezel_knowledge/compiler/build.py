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
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from numpy.typing import NDArray

from gezel_knowledge._files import check_output_file
from gezel_knowledge._version import __version__
from gezel_knowledge.archive.verify import file_sha256
from gezel_knowledge.archive.writer import write_archive
from gezel_knowledge.compiler.chunking import (
    Chunk,
    UnitCounter,
    chunk_markdown,
    embed_inputs,
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
from gezel_knowledge.compiler.embedding import PassageEmbedding, passage_center, spilled_vectors
from gezel_knowledge.compiler.errors import BuildWarning, SourceError, refuse_warnings
from gezel_knowledge.compiler.inputs import check_inputs
from gezel_knowledge.compiler.kmeans import route_centroids
from gezel_knowledge.compiler.manifest import catalog_manifest, manifest_bytes
from gezel_knowledge.compiler.markdown_tree import load_markdown_tree
from gezel_knowledge.compiler.metadata import (
    CatalogFile,
    CatalogIdentity,
    CatalogMetadata,
)
from gezel_knowledge.compiler.parquet_document_list import load_parquet_document_list
from gezel_knowledge.compiler.sharding import ShardFill, assign_shards, document_vectors
from gezel_knowledge.compiler.smoke import derive_smoke_queries, smoke_query_passes
from gezel_knowledge.compiler.source import CatalogSource, LinkBase
from gezel_knowledge.compiler.validation import ValidDocument, validate_documents, validate_topics
from gezel_knowledge.compiler.vector_cache import VectorCache
from gezel_knowledge.compiler.window import choose_chunking
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.progress import ProgressEvent, ProgressMeter, ProgressSink
from gezk import ddl
from gezk.errors import InvalidProfile, SchemaViolation
from gezk.jcs import canonicalize
from gezk.manifest import (
    CatalogManifest,
    DeclaredFile,
    ManifestCounts,
    ManifestShard,
    Router,
    Signature,
    SmokeQuery,
    Toolchain,
)
from gezk.profiles import ChunkingProfile, EmbeddingProfile, chunking_profile
from gezk.schemas import validate_manifest, validate_source_notices
from gezk.signing import sign_manifest
from gezk.spatial import SpatialSummary
from gezk.toc import Topic
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
    manifest: CatalogManifest
    """The manifest written into the archive (signed when a key was given)."""
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
        self.meter = ProgressMeter(sink)

    def __call__(
        self,
        step: str,
        done: int,
        total: int | None,
        unit: str,
        message: str = "",
        *,
        embedded: int | None = None,
    ) -> None:
        # The rate counts passages with vectors (embedded or cached), the time left documents.
        event = ProgressEvent("build", step, done, total, unit, message)
        self.meter.emit(event, work=embedded, work_unit="passages")


@dataclass(frozen=True, slots=True)
class _Sharding:
    """How documents are spread over shards (spec section 8.1)."""

    fill: ShardFill
    target: int
    maximum: int


@dataclass(frozen=True, slots=True)
class _Run:
    """How a build runs: when it started, the embedder and its batch, sharding, key, progress."""

    started: float
    embedder: Embedder
    embed_batch: int
    sharding: _Sharding
    signing_key: Ed25519PrivateKey | None
    report: _Progress
    strict: bool = False


@dataclass(frozen=True, slots=True)
class _Plan:
    """A build's checked inputs: what everything after reading the bodies is built from."""

    source: CatalogSource
    metadata: CatalogMetadata
    identity: CatalogIdentity
    created_at: str
    readme: Path | bytes
    """The source's README, or the one generated from the metadata."""
    notice: Path
    source_notices: Path | None
    profile: EmbeddingProfile
    """The embedder's profile; a ``centered-sign`` template gets its center after pass 1."""
    chunking: ChunkingProfile
    counter: UnitCounter
    topics: dict[str, Topic]
    documents: list[ValidDocument]


@dataclass(slots=True)
class _Staged:
    doc: ValidDocument
    seq: int
    first_row: int
    chunk_count: int


@dataclass(frozen=True, slots=True)
class _Databases:
    """The sealed databases by archive path, the router's ``shards`` rows, the chunk count."""

    shard_rows: list[ShardRow]
    sealed: dict[str, SealedFile]
    chunks: int


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
    strict: bool = False,
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
    ``strict`` turns warnings into an error (:class:`WarningsAsErrors`, listing them all),
    raised as soon as one is known and before the archive is written.
    """
    run = _Run(
        time.perf_counter(),
        embedder,
        embed_batch,
        _sharding(shard_fill, shard_target, shard_max),
        signing_key,
        _Progress(progress),
        strict,
    )
    if isinstance(source, CatalogSource) and catalog is not None:
        raise InvalidInput(
            "catalog= names the catalog.yaml to load a source with; this source is already "
            "loaded (pass metadata= to override its fields)",
            reason="catalog-with-loaded-source",
        )
    # Refused now, not after the whole build (a folder of that name, a file above it).
    output = check_output_file(output, "the catalog")
    plan = _plan(
        source,
        embedder,
        metadata=metadata,
        catalog=catalog,
        created_at=created_at,
        chunking=chunking,
    )
    if strict:
        refuse_warnings(plan.source.warnings)
    output.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{output.name}.build-", dir=output.parent))
    cache = VectorCache(cache_dir, plan.profile)
    try:
        return _build(plan, run, output, work, cache)
    finally:
        cache.close()
        shutil.rmtree(work, ignore_errors=True)


def _build(plan: _Plan, run: _Run, output: Path, work: Path, cache: VectorCache) -> BuildResult:
    """The four passes of the module docstring, in ``work``; the archive goes to ``output``."""
    # Pass 1: read, chunk, embed.
    warnings: list[BuildWarning] = list(plan.source.warnings)
    staging = Staging(work / "staging.db")
    embedding = PassageEmbedding(
        run.embedder, cache, work / "vectors.f32", run.embed_batch, plan.profile.dimensions
    )
    staged = _read_chunk_embed(plan, staging, embedding, warnings, run.report)
    if run.strict:
        refuse_warnings(warnings)
    total_chunks = sum(s.chunk_count for s in staged)
    vectors = spilled_vectors(work / "vectors.f32", total_chunks, plan.profile.dimensions)
    # Pass 2: the center of a template profile, and the shards.
    center = passage_center(vectors, plan.profile) if plan.profile.is_template else None
    profile = plan.profile if center is None else plan.profile.with_center(center)
    shard_of = _assign_shards(plan, staged, vectors, run.sharding)
    staging.assign({s.seq: shard for s, shard in zip(staged, shard_of, strict=True)})
    staging.close()
    # Pass 3: the databases.
    databases = _write_databases(
        plan, work, profile=profile, vectors=vectors, center=center, shard_of=shard_of, run=run
    )
    del vectors
    # Pass 4: smoke queries, the manifest, the archive.
    entries = _entries(plan, databases.sealed)
    manifest = _manifest(plan, entries, databases, profile=profile, run=run)
    entries["manifest.json"] = manifest_bytes(manifest.to_json())
    run.report("archive", 0, 1, "files")
    digest = write_archive(output, entries)
    run.report("archive", 1, 1, "files")
    return BuildResult(
        path=output,
        sha256=digest,
        size_bytes=output.stat().st_size,
        catalog_id=plan.identity.id,
        version=plan.identity.version,
        documents=len(plan.documents),
        chunks=total_chunks,
        shards=len(databases.shard_rows),
        assets=len(plan.source.assets),
        embedded=embedding.embedded,
        cached=embedding.cached,
        warnings=tuple(warnings),
        manifest=manifest,
        seconds=time.perf_counter() - run.started,
        embed_seconds=embedding.seconds,
    )


# --- checking the inputs ----------------------------------------------------------------------


def _sharding(fill: ShardFill, target: int, maximum: int) -> _Sharding:
    if target <= 0 or maximum < target:
        raise InvalidInput(
            f"shard target {target} and maximum {maximum} must satisfy 0 < target <= maximum",
            reason="invalid-shard-size",
        )
    if fill not in ("topic", "semantic"):
        raise InvalidInput(f"unknown shard fill {fill!r}", reason="invalid-shard-fill")
    return _Sharding(fill, target, maximum)


def _plan(
    source: Path | str | CatalogSource,
    embedder: Embedder,
    *,
    metadata: CatalogMetadata | None,
    catalog: CatalogFile | None,
    created_at: str | None,
    chunking: ChunkingProfile | str | None,
) -> _Plan:
    """Load the source and check everything a build needs before it reads a body."""
    if isinstance(source, CatalogSource):
        src, meta = source, source.metadata.merged(metadata)
    else:
        src = load_source(source, metadata=metadata, catalog=catalog)
        meta = src.metadata
    checked = check_inputs(src, meta, created_at or meta.created_at)
    profile = embedder.profile
    profile.check(allow_template=True)
    chosen = _chunking(embedder, chunking if chunking is not None else meta.chunking)
    topics = validate_topics(src.topics)
    return _Plan(
        source=src,
        metadata=checked.metadata,
        identity=checked.identity,
        created_at=checked.created_at,
        readme=checked.readme,
        notice=checked.notice,
        source_notices=checked.source_notices,
        profile=profile,
        chunking=chosen,
        counter=unit_counter(chosen, embedder.tokenizer),
        topics=topics,
        documents=validate_documents(src.documents, topics, checked.identity.language),
    )


def _chunking(embedder: Embedder, requested: ChunkingProfile | str | None) -> ChunkingProfile:
    """The requested chunking profile, checked, or the largest one the window fits."""
    if isinstance(requested, ChunkingProfile):
        _check_chunking(requested)
    return choose_chunking(embedder.profile, embedder.tokenizer, requested)


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


# --- pass 1: read, chunk, embed ---------------------------------------------------------------


def _read_chunk_embed(
    plan: _Plan,
    staging: Staging,
    embedding: PassageEmbedding,
    warnings: list[BuildWarning],
    report: _Progress,
) -> list[_Staged]:
    """Stage every document's encoded body and chunks; queue every chunk's embed input."""
    links = LinkBase(plan.identity.publisher.id, plan.identity.id)
    staged: list[_Staged] = []
    total_chunks = 0
    for seq, doc in enumerate(plan.documents):
        body, chunks = _read_and_chunk(doc, links, plan.chunking, plan.counter, warnings)
        body_codec, body_blob = encode_body(body)
        del body
        first_row = embedding.added
        staging.add(
            seq, doc, body_codec=body_codec, body_blob=body_blob, chunks=chunks, first_row=first_row
        )
        _queue_embed_inputs(plan, doc, chunks, embedding)
        staged.append(_Staged(doc, seq, first_row, len(chunks)))
        total_chunks += len(chunks)
        report(
            "read",
            seq + 1,
            len(plan.documents),
            "documents",
            f"{total_chunks:,} chunks, {embedding.embedded:,} embedded, "
            f"{embedding.cached:,} cached",
            embedded=embedding.embedded + embedding.cached,
        )
    embedding.close()
    report(
        "embed",
        total_chunks,
        total_chunks,
        "chunks",
        f"{embedding.embedded:,} embedded, {embedding.cached:,} cached",
    )
    return staged


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


def _queue_embed_inputs(
    plan: _Plan, doc: ValidDocument, chunks: Sequence[Chunk], embedding: PassageEmbedding
) -> None:
    """Queue ``context header + text`` of each chunk."""
    for text in embed_inputs(doc.source.title, chunks, plan.counter, plan.chunking):
        embedding.add(text)


# --- pass 2: shards ---------------------------------------------------------------------------


def _assign_shards(
    plan: _Plan, staged: Sequence[_Staged], vectors: NDArray[np.float32], sharding: _Sharding
) -> list[int]:
    """The shard of each staged document, in staging order."""
    doc_vectors = None
    if sharding.fill == "semantic" and vectors.shape[0] > sharding.target:
        doc_vectors = document_vectors(
            vectors, [s.first_row for s in staged], [s.chunk_count for s in staged]
        )
    return assign_shards(
        [s.chunk_count for s in staged],
        fill=sharding.fill,
        target=sharding.target,
        maximum=sharding.maximum,
        catalog_id=plan.identity.id,
        doc_ids=[s.doc.source.id for s in staged],
        vectors=doc_vectors,
    )


# --- pass 3: databases ------------------------------------------------------------------------


def _write_databases(
    plan: _Plan,
    work: Path,
    *,
    profile: EmbeddingProfile,
    vectors: NDArray[np.float32],
    center: NDArray[np.float32] | None,
    shard_of: Sequence[int],
    run: _Run,
) -> _Databases:
    """Write and seal every shard, then the router (which may embed the only shard)."""
    shard_ids = sorted(set(shard_of)) or [0]
    total_chunks = int(vectors.shape[0])
    embedded_shard = len(shard_ids) == 1 and total_chunks <= run.sharding.target
    common = {
        "format_version": WRITTEN.format_version,
        "index_schema_version": str(WRITTEN.index_schema_version),
        "catalog_id": plan.identity.id,
        "catalog_version": plan.identity.version,
        "embedding_profile_id": profile.id,
        "chunking_profile_id": plan.chunking.id,
    }
    (work / "out" / "index" / "shards").mkdir(parents=True)
    router_conn = create_database(work / "router.build.db", router=True, shard=embedded_shard)
    shard_rows: list[ShardRow] = []
    sealed: dict[str, SealedFile] = {}
    for number, shard_id in enumerate(shard_ids, start=1):
        run.report("write", number - 1, len(shard_ids), "shards")
        shard_rows.append(
            _write_shard(
                plan,
                work,
                shard_id,
                router=router_conn if embedded_shard else None,
                vectors=vectors,
                center=center,
                common=common,
                sealed=sealed,
            )
        )
    run.report("write", len(shard_ids), len(shard_ids), "shards")
    # The router of an externally sharded catalog holds no shard: it echoes shard -1 and
    # the chunks it holds, none (an embedded router echoes shard 0 and every chunk). The
    # reference writes neither key in that case, but section 5.1 has every database echo
    # both, and no reader can rely on values the reference does not write.
    held = {"shard_id": "0", "chunk_count": str(total_chunks)}
    if not embedded_shard:
        held = {"shard_id": "-1", "chunk_count": "0"}
    ddl.write_meta(router_conn, {**_router_meta(plan, profile, common), **held})
    topics = list(plan.topics.values())
    fill_router(router_conn, work / "staging.db", topics, plan.documents, shard_rows)
    sealed[ROUTER_PATH] = seal(router_conn, work / "out" / ROUTER_PATH)
    return _Databases(shard_rows, sealed, total_chunks)


def _router_meta(plan: _Plan, profile: EmbeddingProfile, common: dict[str, str]) -> dict[str, str]:
    """The router's ``meta`` rows but the shard it holds: the echoes, profiles, provenance."""
    return {
        **common,
        "embedding_profile_json": canonicalize(profile.to_json()).decode("utf-8"),
        "chunking_profile_json": canonicalize(plan.chunking.to_json()).decode("utf-8"),
        "created_at": plan.created_at,
        "toolchain_json": canonicalize(_toolchain().to_json()).decode("utf-8"),
    }


def _write_shard(
    plan: _Plan,
    work: Path,
    shard_id: int,
    *,
    router: sqlite3.Connection | None,
    vectors: NDArray[np.float32],
    center: NDArray[np.float32] | None,
    common: dict[str, str],
    sealed: dict[str, SealedFile],
) -> ShardRow:
    """Fill one shard (into ``router`` when the shard is embedded there, else sealed alone)."""
    if router is not None:
        conn, path = router, ROUTER_PATH
    else:
        conn = create_database(work / f"shard-{shard_id}.build.db", router=False, shard=True)
        path = f"index/shards/{shard_id:03d}.db"
    content = fill_shard(conn, work / "staging.db", shard_id, vectors, center)
    centroids, weights = route_centroids(vectors, content.rows, plan.identity.id, shard_id)
    size = 0
    if router is None:
        echoes = {**common, "shard_id": str(shard_id), "chunk_count": str(content.chunks)}
        ddl.write_meta(conn, echoes)
        sealed[path] = seal(conn, work / "out" / path)
        size = sealed[path].size
    return ShardRow(
        shard_id,
        path,
        content.chunks,
        content.documents,
        content.topic_ids,
        centroids,
        weights,
        size,
    )


# --- pass 4: manifest and archive -------------------------------------------------------------


def _toolchain() -> Toolchain:
    """What this build is made with (manifest ``toolchain``, router ``toolchain_json``)."""
    return Toolchain(TOOLCHAIN_NAME, __version__)


def _entries(plan: _Plan, sealed: dict[str, SealedFile]) -> dict[str, Path | bytes]:
    """Every archive entry but ``mimetype`` and ``manifest.json``, by archive path."""
    entries: dict[str, Path | bytes] = {
        "README.md": plan.readme,
        "LICENSES/catalog.txt": plan.notice,
        **{path: s.path for path, s in sealed.items()},
        **{asset.path: asset.file for asset in plan.source.assets},
    }
    if plan.source_notices is not None:
        entries["LICENSES/source-notices.json"] = _source_notices(plan.source_notices)
    return entries


def _manifest(
    plan: _Plan,
    entries: dict[str, Path | bytes],
    databases: _Databases,
    *,
    profile: EmbeddingProfile,
    run: _Run,
) -> CatalogManifest:
    """The manifest, checked against its schema and signed when a key is given."""
    sealed = databases.sealed
    smoke = _smoke_queries(sealed[ROUTER_PATH].path, plan.metadata, plan.documents)
    known = {path: (s.size, s.sha256) for path, s in sealed.items()}
    shards = tuple(
        ManifestShard(
            id=row.shard_id,
            path=row.path,
            chunks=row.chunks,
            documents=row.documents,
            centroids=int(row.centroids.shape[0]),
            sha256=sealed[row.path].sha256,
        )
        for row in databases.shard_rows
    )
    manifest = catalog_manifest(
        plan.metadata,
        plan.identity,
        created_at=plan.created_at,
        embedding=profile,
        chunking=plan.chunking,
        topics=plan.topics.values(),
        router=Router(run.sharding.target, shards, sum(s.centroids for s in shards)),
        counts=ManifestCounts(
            documents=len(plan.documents),
            chunks=databases.chunks,
            shards=len(shards),
            assets=len(plan.source.assets),
        ),
        files=[
            _file_entry(path, entries[path], known.get(path))
            for path in sorted(entries, key=lambda p: p.encode("utf-8"))
        ],
        spatial=SpatialSummary.of(
            (d.source.id, location) for d in plan.documents for location in d.locations
        ),
        smoke_queries=smoke,
        toolchain=_toolchain(),
    )
    validate_manifest(manifest.to_json())
    if run.signing_key is None:
        return manifest
    signature = sign_manifest(manifest.to_json(), run.signing_key)["signature"]
    return replace(manifest, signature=Signature(signature["keyId"], signature["value"]))


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
) -> DeclaredFile:
    if known is not None:
        return DeclaredFile(path, known[0], known[1])
    if isinstance(source, bytes):
        return DeclaredFile(path, len(source), hashlib.sha256(source).hexdigest())
    return DeclaredFile(path, source.stat().st_size, file_sha256(source))
