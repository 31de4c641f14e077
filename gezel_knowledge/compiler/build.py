"""``compile_catalog``: sources to a deterministic, optionally signed ``.gezk`` 0.7 archive.

The build runs in a scratch folder beside the output, and its memory does not grow with the
corpus: documents, bodies, chunks and vectors live in scratch files, never all in Python.

0. **List** (:mod:`~gezel_knowledge.compiler.reading`): validate the documents one at a time
   into a staging database, which sorts them into ``(topicPathKey, documentId)`` order.
1. **Read, chunk, embed**, in that order: load and normalise each body; chunk it
   (``markdown-chunks@2``), encode it (brotli or none) and embed every chunk's input that the
   content-hash vector cache does not hold, in this process or in worker processes
   (``jobs``); stage bodies and chunks, and append one unit vector per chunk to a spill file.
2. **Assign shards** by topic or semantic fill; compute the ``centered-sign`` center when the
   profile is a template.
3. **Write** each shard (or the router's embedded shard), its vectors and centroids (k-means
   over a bounded, strided sample of the shard's vectors), then the router; seal every database
   with ``VACUUM INTO``.
4. **Verify and pack**: run the smoke queries against the sealed router, assemble and validate
   the manifest, sign it when a key is given, and write the archive (temp file, then rename).

Nothing depends on the wall clock, on iteration order of unordered containers, or on how the
embedding was split between processes, so identical inputs give identical bytes.
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
from gezel_knowledge.compiler.chunking import UnitCounter, unit_counter
from gezel_knowledge.compiler.databases import (
    SealedFile,
    ShardRow,
    create_database,
    fill_router,
    fill_shard,
    router_spatial_summary,
    seal,
)
from gezel_knowledge.compiler.document_list import load_document_list
from gezel_knowledge.compiler.embedding import PassageVectors, passage_center
from gezel_knowledge.compiler.errors import BuildWarning, SourceError, refuse_warnings
from gezel_knowledge.compiler.executors import (
    Executor,
    InlineExecutor,
    ProcessExecutor,
    SizedExecutor,
    WorkerSetup,
)
from gezel_knowledge.compiler.inputs import check_inputs
from gezel_knowledge.compiler.kmeans import centroid_sample_stride, route_centroids
from gezel_knowledge.compiler.manifest import catalog_manifest, manifest_bytes
from gezel_knowledge.compiler.markdown_tree import load_markdown_tree
from gezel_knowledge.compiler.metadata import (
    CatalogFile,
    CatalogIdentity,
    CatalogMetadata,
)
from gezel_knowledge.compiler.parquet_document_list import load_parquet_document_list
from gezel_knowledge.compiler.passages import EmbedderRecipe, PassageWorker
from gezel_knowledge.compiler.ray_executor import RayExecutor, RaySettings
from gezel_knowledge.compiler.reading import ReadPass, list_documents
from gezel_knowledge.compiler.sharding import (
    ShardFill,
    assign_shards,
    check_document_size,
    document_vectors,
)
from gezel_knowledge.compiler.smoke import derive_smoke_queries, smoke_query_passes
from gezel_knowledge.compiler.source import CatalogSource, LinkBase
from gezel_knowledge.compiler.spill import VectorSpill
from gezel_knowledge.compiler.staging import Staging
from gezel_knowledge.compiler.validation import validate_topics
from gezel_knowledge.compiler.vector_cache import VectorCache
from gezel_knowledge.compiler.window import choose_chunking
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.embedders.cores import usable_cores
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
    """How a build runs: when it started, the embedder, its batch and workers, sharding, key,
    progress."""

    started: float
    embedder: Embedder
    embed_batch: int
    jobs: int | None
    ray: RaySettings | None
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
    jobs: int | None = None,
    ray: str | bool | None = None,
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
    ``jobs`` is how many processes chunk and embed (default: every usable core; an embedder
    that cannot be rebuilt in another process always runs in this one); the archive is the same
    for any number. ``ray`` runs chunking and embedding on Ray instead (the ``ray`` extra):
    ``True`` on ``RAY_ADDRESS`` or else a new local instance, a string on that Ray address;
    ``jobs`` is then the number of embedding actors (default: one per CPU of the cluster). The
    archive is the local build's, byte for byte.
    """
    if jobs is not None and jobs < 1:
        raise InvalidInput(f"jobs must be at least 1, not {jobs}", reason="invalid-jobs")
    on_ray = None
    if ray is not None and ray is not False:
        on_ray = RaySettings(address=None if ray is True else str(ray), workers=jobs)
    run = _Run(
        time.perf_counter(),
        embedder,
        embed_batch,
        jobs,
        on_ray,
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
    """The passes of the module docstring, in ``work``; the archive goes to ``output``."""
    warnings: list[BuildWarning] = list(plan.source.warnings)
    staging = Staging(work / "staging.db")
    spill = VectorSpill(work / "vectors.f32", plan.profile.dimensions)
    try:
        # Passes 0 and 1: list, then read, chunk, embed.
        documents = list_documents(
            staging, plan.source.documents, plan.topics, plan.identity.language
        )
        vectors = PassageVectors(spill, staging, cache)
        total_chunks = _read_pass(plan, run, staging, vectors, warnings=warnings, work=work)
        if run.strict:
            refuse_warnings(warnings)
        # Pass 2: the center of a template profile, and the shards.
        center = passage_center(spill, plan.profile) if plan.profile.is_template else None
        profile = plan.profile if center is None else plan.profile.with_center(center)
        shard_ids = _assign_shards(plan, staging, spill, run.sharding)
        staging.close()
        # Pass 3: the databases.
        databases = _write_databases(
            plan, work, shard_ids, profile=profile, vectors=spill, center=center, run=run
        )
    finally:
        staging.close()
        spill.close()
    # Pass 4: smoke queries, the manifest, the archive.
    entries = _entries(plan, databases.sealed)
    manifest = _manifest(plan, entries, databases, documents, profile=profile, run=run)
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
        documents=documents,
        chunks=total_chunks,
        shards=len(databases.shard_rows),
        assets=len(plan.source.assets),
        embedded=vectors.embedded,
        cached=vectors.cached,
        warnings=tuple(warnings),
        manifest=manifest,
        seconds=time.perf_counter() - run.started,
        embed_seconds=vectors.seconds,
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


def _read_pass(
    plan: _Plan,
    run: _Run,
    staging: Staging,
    vectors: PassageVectors,
    *,
    warnings: list[BuildWarning],
    work: Path,
) -> int:
    """Read, chunk and embed every listed document in processing order; the chunk count."""
    reading = ReadPass(
        plan.source.documents,
        LinkBase(plan.identity.publisher.id, plan.identity.id),
        staging,
        vectors,
        warnings,
        batch_documents=run.embed_batch,
    )

    def report(done: int, total: int, chunks: int) -> None:
        run.report(
            "read",
            done,
            total,
            "documents",
            f"{chunks:,} chunks, {vectors.embedded:,} embedded, {vectors.cached:,} cached",
            embedded=vectors.embedded + vectors.cached,
        )

    executor = _executor(plan, run, staging, vectors.cache, work)
    total_chunks = reading.run(executor, report)
    run.report(
        "embed",
        total_chunks,
        total_chunks,
        "chunks",
        f"{vectors.embedded:,} embedded, {vectors.cached:,} cached",
    )
    return total_chunks


def _executor(plan: _Plan, run: _Run, staging: Staging, cache: VectorCache, work: Path) -> Executor:
    """Ray when asked; else this process, or worker processes when more than one job may run
    and the embedder can be rebuilt in them (by default only for an input large enough to pay
    for starting them)."""
    recipe = EmbedderRecipe.of(run.embedder)
    if run.ray is not None:
        if recipe is None:
            raise InvalidInput(
                f"{type(run.embedder).__name__} cannot be rebuilt on Ray workers; build on Ray "
                "with a registered embedding profile (or test-hash-embed@1)",
                reason="embedder-not-distributable",
            )

        def staged(documents: int, batches: int) -> None:
            run.report("stage", documents, staging_total, "documents", f"{batches:,} batches")

        staging_total = staging.listed_count()
        setup = WorkerSetup(recipe, plan.chunking, run.embed_batch, cache.reader())
        return RayExecutor(setup, run.ray, work, staged)

    def known(keys: Sequence[bytes]) -> set[bytes]:
        return set(staging.first_rows(keys)) | cache.known(keys)

    inline = InlineExecutor(
        PassageWorker(
            run.embedder, plan.chunking, plan.counter, embed_batch=run.embed_batch, known=known
        )
    )
    jobs = run.jobs if run.jobs is not None else usable_cores()
    if jobs == 1 or recipe is None:
        return inline
    pool = ProcessExecutor(
        WorkerSetup(recipe, plan.chunking, run.embed_batch, cache.reader()), jobs
    )
    return pool if run.jobs is not None else SizedExecutor(inline, pool)


# --- pass 2: shards ---------------------------------------------------------------------------


def _assign_shards(
    plan: _Plan, staging: Staging, vectors: VectorSpill, sharding: _Sharding
) -> list[int]:
    """Give every staged document its shard; the shard ids used."""
    counts = staging.chunk_counts()
    too_large = np.flatnonzero(counts > sharding.maximum)
    if too_large.size:
        check_document_size(
            int(counts[too_large[0]]), sharding.maximum, staging.document_id(int(too_large[0]))
        )
    doc_vectors = None
    if sharding.fill == "semantic" and int(counts.sum()) > sharding.target:
        doc_vectors = document_vectors(
            vectors, staging.spans(), counts.shape[0], vectors.dimensions
        )
    shards = assign_shards(
        counts,
        fill=sharding.fill,
        target=sharding.target,
        maximum=sharding.maximum,
        catalog_id=plan.identity.id,
        vectors=doc_vectors,
    )
    staging.assign(enumerate(shards.tolist()))
    return sorted(set(shards.tolist()))


# --- pass 3: databases ------------------------------------------------------------------------


def _write_databases(
    plan: _Plan,
    work: Path,
    shard_ids: Sequence[int],
    *,
    profile: EmbeddingProfile,
    vectors: VectorSpill,
    center: NDArray[np.float32] | None,
    run: _Run,
) -> _Databases:
    """Write and seal every shard, then the router (which may embed the only shard)."""
    shard_ids = list(shard_ids) or [0]
    total_chunks = vectors.rows
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
    fill_router(router_conn, work / "staging.db", topics, shard_rows)
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
    vectors: VectorSpill,
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
    chunks = _shard_chunks(work / "staging.db", shard_id)
    sample = VectorSpill(work / f"sample-{shard_id}.f32", vectors.dimensions)
    try:
        stride = centroid_sample_stride(chunks)
        content = fill_shard(
            conn, work / "staging.db", shard_id, vectors, center, sample=sample, stride=stride
        )
        centroids, weights = route_centroids(
            sample, content.chunks, vectors.dimensions, plan.identity.id, shard_id
        )
    finally:
        sample.close()
        sample.path.unlink()
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


def _shard_chunks(staging: Path, shard_id: int) -> int:
    conn = sqlite3.connect(f"{staging.as_uri()}?mode=ro", uri=True)
    try:
        row = conn.execute(
            "SELECT COALESCE(SUM(chunk_count), 0) FROM docs WHERE shard_id = ?", (shard_id,)
        ).fetchone()
        return int(row[0])
    finally:
        conn.close()


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
    documents: int,
    *,
    profile: EmbeddingProfile,
    run: _Run,
) -> CatalogManifest:
    """The manifest, checked against its schema and signed when a key is given."""
    sealed = databases.sealed
    router = sqlite3.connect(f"{sealed[ROUTER_PATH].path.as_uri()}?mode=ro", uri=True)
    try:
        smoke = _smoke_queries(router, plan.metadata)
        spatial = router_spatial_summary(router)
    finally:
        router.close()
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
            documents=documents,
            chunks=databases.chunks,
            shards=len(shards),
            assets=len(plan.source.assets),
        ),
        files=[
            _file_entry(path, entries[path], known.get(path))
            for path in sorted(entries, key=lambda p: p.encode("utf-8"))
        ],
        spatial=spatial,
        smoke_queries=smoke,
        toolchain=_toolchain(),
    )
    validate_manifest(manifest.to_json())
    if run.signing_key is None:
        return manifest
    signature = sign_manifest(manifest.to_json(), run.signing_key)["signature"]
    return replace(manifest, signature=Signature(signature["keyId"], signature["value"]))


def _smoke_queries(router: sqlite3.Connection, meta: CatalogMetadata) -> tuple[SmokeQuery, ...]:
    if meta.smoke_queries:
        for query in meta.smoke_queries:
            if not smoke_query_passes(router, query):
                raise SourceError(
                    f"smoke query {query.query!r} does not find "
                    f"{list(query.expected_document_ids)} in its top ten",
                    reason="smoke-query-failed",
                )
        return meta.smoke_queries
    return derive_smoke_queries(router)


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
