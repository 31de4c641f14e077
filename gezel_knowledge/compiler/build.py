"""``compile_catalog``: sources to a deterministic, optionally signed ``.gezk`` 0.7 archive.

The one front door of the compiler: the ``build`` command and Python callers alike pass a
source, an output path and one :class:`~gezel_knowledge.compiler.options.BuildOptions`. The
build runs in a scratch folder beside the output, and its memory does not grow with the corpus:
documents, bodies, chunks and vectors live in scratch files, never all in Python.

0. **List** (:mod:`~gezel_knowledge.compiler.passes.reading`): validate the documents one at a
   time into a staging database, which sorts them into ``(topicPathKey, documentId)`` order.
1. **Read, chunk, embed**, in that order: load and normalise each body; chunk it
   (``markdown-chunks@2``), encode it (brotli or none) and embed every chunk's input that the
   content-hash vector cache does not hold, in this process or in worker processes
   (``jobs``); stage bodies and chunks, and append one unit vector per chunk to a spill file.
2. **Assign shards** by topic or semantic fill; compute the ``centered-sign`` center when the
   profile is a template.
3. **Write** each shard (or the router's embedded shard), its vectors and centroids (k-means
   over a bounded, strided sample of the shard's vectors), then the router; seal every database
   with ``VACUUM INTO`` (:mod:`~gezel_knowledge.compiler.writing.shards`).
4. **Verify and pack**: run the smoke queries against the sealed router, assemble and validate
   the manifest, sign it when a key is given (:mod:`~gezel_knowledge.compiler.writing.catalog`),
   and write the archive (temp file, then rename).

Nothing depends on the wall clock, on iteration order of unordered containers, or on how the
embedding was split between processes, so identical inputs give identical bytes.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gezel_knowledge._faults import storage_faults
from gezel_knowledge._files import check_output_file
from gezel_knowledge._version import __version__
from gezel_knowledge.archive.writer import write_archive
from gezel_knowledge.compiler.errors import BuildWarning, SourceError, refuse_warnings
from gezel_knowledge.compiler.metadata.catalog_yaml import (
    CatalogFile,
    CatalogIdentity,
    CatalogMetadata,
)
from gezel_knowledge.compiler.metadata.overrides import MetadataInput, apply_metadata
from gezel_knowledge.compiler.options import BuildOptions
from gezel_knowledge.compiler.passes.chunking import UnitCounter, unit_counter
from gezel_knowledge.compiler.passes.embedding import PassageVectors, passage_center
from gezel_knowledge.compiler.passes.executors import (
    Executor,
    InlineExecutor,
    ProcessExecutor,
    SizedExecutor,
    WorkerSetup,
)
from gezel_knowledge.compiler.passes.passages import EmbedderRecipe, PassageWorker
from gezel_knowledge.compiler.passes.ray_executor import RayExecutor, RaySettings
from gezel_knowledge.compiler.passes.reading import ReadPass, list_documents
from gezel_knowledge.compiler.passes.sharding import (
    assign_shards,
    check_document_size,
    document_vectors,
)
from gezel_knowledge.compiler.passes.spill import VectorSpill
from gezel_knowledge.compiler.passes.staging import Staging
from gezel_knowledge.compiler.passes.vector_cache import VectorCache
from gezel_knowledge.compiler.passes.window import choose_chunking
from gezel_knowledge.compiler.sources.document_list import load_document_list
from gezel_knowledge.compiler.sources.inputs import check_inputs
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from gezel_knowledge.compiler.sources.parquet_document_list import load_parquet_document_list
from gezel_knowledge.compiler.sources.source import CatalogSource, LinkBase
from gezel_knowledge.compiler.sources.validation import validate_topics
from gezel_knowledge.compiler.writing.catalog import CatalogFiles, archive_entries, build_manifest
from gezel_knowledge.compiler.writing.manifest import manifest_bytes
from gezel_knowledge.compiler.writing.shards import DatabaseFacts, write_databases
from gezel_knowledge.compiler.writing.signing import load_private_key
from gezel_knowledge.embedders import default_embedder, load_embedder
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.embedders.cores import usable_cores
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.progress import ProgressEvent, ProgressMeter, ProgressSink
from gezk.errors import InvalidProfile
from gezk.manifest import CatalogManifest, Toolchain
from gezk.profiles import ChunkingProfile, EmbeddingProfile, chunking_profile, embedding_profile
from gezk.toc import Topic

__all__ = ["BuildResult", "compile_catalog", "load_source"]

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
    notes: tuple[str, ...] = ()
    """What the author may want to know that is no warning (:attr:`CatalogSource.notes`)."""


def load_source(
    path: Path | str,
    *,
    metadata: MetadataInput | None = None,
    catalog: CatalogFile | None = None,
    allow_read: Path | None = None,
) -> CatalogSource:
    """A Markdown tree (a folder) or a document list (a ``.jsonl`` or ``.parquet`` file).

    ``catalog`` (a catalog.yaml path, or metadata already read from one) is used instead of the
    source's own catalog.yaml; ``metadata`` overrides either field by field; ``allow_read``
    (:attr:`BuildOptions.allow_read`) is the folder above a tree its site may read from.
    """
    source = Path(path)
    try:
        if source.is_dir():
            return load_markdown_tree(
                source, metadata=metadata, catalog=catalog, allow_read=allow_read
            )
        if source.is_file() and source.suffix.lower() in (".jsonl", ".ndjson"):
            return load_document_list(source, metadata=metadata, catalog=catalog)
        if source.is_file() and source.suffix.lower() == ".parquet":
            return load_parquet_document_list(source, metadata=metadata, catalog=catalog)
    except RecursionError:
        # An outline nested beyond what reading it can follow (DocFX toc.yml files including
        # each other hundreds deep, folders inside folders): refused, never a traceback.
        raise SourceError(
            "the source's outline or folders nest too deep to read",
            reason="too-deep",
            path=str(source),
        ) from None
    except RuntimeError as exc:
        # pathlib's word for a loop of symbolic links, from any resolve() of the source's paths
        # (an outline, a configuration, a page): the source's fault, not a crash.
        if "Symlink loop" not in str(exc):
            raise
        raise SourceError(
            f"a loop of symbolic links: {exc}", reason="symlink-loop", path=str(source)
        ) from None
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
class _Run:
    """How a build runs: when it started, the options, the embedder, Ray, key, progress."""

    started: float
    options: BuildOptions
    embedder: Embedder
    ray: RaySettings | None
    signing_key: Ed25519PrivateKey | None
    report: _Progress


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


def compile_catalog(
    source: Path | str | CatalogSource,
    output: Path | str,
    options: BuildOptions | None = None,
    *,
    progress: ProgressSink | None = None,
) -> BuildResult:
    """Build a ``.gezk`` catalog at ``output`` from a Markdown tree, a document list or a source
    already loaded, as ``options`` say (:class:`BuildOptions`; its defaults are the ``build``
    command's).

    ``options.catalog`` cannot be combined with an already loaded :class:`CatalogSource` (pass
    ``metadata`` to override its fields). ``createdAt`` is an input, never the clock unless
    ``options.clock`` is given. A strict build raises :class:`WarningsAsErrors`, listing every
    warning, as soon as one is known and before the archive is written.
    """
    options = options or BuildOptions()
    if isinstance(source, CatalogSource) and options.catalog is not None:
        raise InvalidInput(
            "catalog= names the catalog.yaml to load a source with; this source is already "
            "loaded (pass metadata= to override its fields)",
            reason="catalog-with-loaded-source",
        )
    # Refused now, not after the whole build (a folder of that name, a file above it).
    output = check_output_file(output, "the catalog")
    if isinstance(source, CatalogSource):
        loaded = source
        metadata = apply_metadata(source.metadata, options.metadata)
    else:
        loaded = load_source(
            source,
            metadata=options.metadata,
            catalog=options.catalog,
            allow_read=options.allow_read,
        )
        metadata = loaded.metadata
    embedder = _embedder(options.embedder, metadata.embedder)
    run = _Run(
        time.perf_counter(),
        options,
        embedder,
        _ray(options),
        _signing_key(options.signing_key),
        _Progress(progress),
    )
    created_at = options.created_at or metadata.created_at
    if created_at is None and options.clock is not None:
        created_at = options.clock()
    plan = _plan(
        loaded,
        metadata,
        embedder,
        created_at=created_at,
        chunking=options.chunking,
        named=_named_files(options, metadata),
    )
    if options.strict:
        refuse_warnings(plan.source.warnings)
    output.parent.mkdir(parents=True, exist_ok=True)
    cache = VectorCache(options.cache_dir, plan.profile)
    work: Path | None = None
    try:
        # Made inside the try: an interruption (SIGINT, SIGTERM through the CLI) at any point
        # after it exists still removes it. A full disk or a read-only folder while the staging
        # database, the vectors or the archive are written is a typed error naming the output.
        with storage_faults(output, "build the catalog"):
            work = Path(tempfile.mkdtemp(prefix=f".{output.name}.build-", dir=output.parent))
            return _build(plan, run, output, work, cache)
    finally:
        cache.close()
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)


def _embedder(embedder: Embedder | str | None, declared: str | None) -> Embedder:
    """The embedder given, else the profile named (by the options, else catalog.yaml), else
    the default model."""
    if embedder is not None and not isinstance(embedder, str):
        return embedder
    profile_id = embedder or declared
    if profile_id is None:
        return default_embedder()
    return load_embedder(embedding_profile(profile_id))


def _signing_key(key: Ed25519PrivateKey | Path | str | None) -> Ed25519PrivateKey | None:
    if key is None or isinstance(key, Ed25519PrivateKey):
        return key
    return load_private_key(key)


def _ray(options: BuildOptions) -> RaySettings | None:
    if options.ray is None or options.ray is False:
        return None
    return RaySettings(
        address=None if options.ray is True else str(options.ray), workers=options.jobs
    )


def _toolchain() -> Toolchain:
    """What this build is made with (manifest ``toolchain``, router ``toolchain_json``)."""
    return Toolchain(TOOLCHAIN_NAME, __version__)


def _build(plan: _Plan, run: _Run, output: Path, work: Path, cache: VectorCache) -> BuildResult:
    """The passes of the module docstring, in ``work``; the archive goes to ``output``."""
    options = run.options
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
        if options.strict:
            refuse_warnings(warnings)
        # Pass 2: the center of a template profile, and the shards.
        center = passage_center(spill, plan.profile) if plan.profile.is_template else None
        profile = plan.profile if center is None else plan.profile.with_center(center)
        shard_ids = _assign_shards(plan, staging, spill, options)
        staging.close()
        # Pass 3: the databases.
        facts = DatabaseFacts(
            catalog_id=plan.identity.id,
            catalog_version=plan.identity.version,
            created_at=plan.created_at,
            profile=profile,
            chunking=plan.chunking,
            toolchain=_toolchain(),
            shard_target=options.shard_target,
        )

        def written(done: int, total: int) -> None:
            run.report("write", done, total, "shards")

        databases = write_databases(
            work,
            shard_ids,
            plan.topics.values(),
            facts,
            vectors=spill,
            center=center,
            report=written,
        )
    finally:
        staging.close()
        spill.close()
    # Pass 4: smoke queries, the manifest, the archive.
    files = CatalogFiles(plan.readme, plan.notice, plan.source_notices, plan.source.assets)
    entries = archive_entries(files, databases.sealed)
    manifest = build_manifest(
        plan.metadata,
        plan.identity,
        facts,
        topics=tuple(plan.topics.values()),
        entries=entries,
        databases=databases,
        documents=documents,
        assets=len(plan.source.assets),
        signing_key=run.signing_key,
    )
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
        notes=plan.source.notes,
    )


# --- checking the inputs ----------------------------------------------------------------------


def _named_files(options: BuildOptions, metadata: CatalogMetadata) -> frozenset[Path]:
    """The files the user named, which may lie outside the source folder: those of the
    overrides, and, when a catalog.yaml was given instead of the source's own, those it names
    (the source's own catalog.yaml is part of the source, and confined with it)."""
    given: list[Path | None] = []
    if options.metadata is not None:
        given += [options.metadata.readme, options.metadata.license_file]
        if isinstance(options.metadata, CatalogMetadata):
            given.append(options.metadata.source_notices)
    if options.catalog is not None:
        given += [metadata.readme, metadata.license_file, metadata.source_notices]
    return frozenset(p for p in given if p is not None)


def _plan(
    source: CatalogSource,
    metadata: CatalogMetadata,
    embedder: Embedder,
    *,
    created_at: str | None,
    chunking: ChunkingProfile | str | None,
    named: frozenset[Path] = frozenset(),
) -> _Plan:
    """Check everything a build needs before it reads a body."""
    checked = check_inputs(source, metadata, created_at, named=named)
    profile = embedder.profile
    profile.check(allow_template=True)
    chosen = _chunking(embedder, chunking if chunking is not None else metadata.chunking)
    topics = validate_topics(source.topics)
    return _Plan(
        source=source,
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
        batch_documents=run.options.embed_batch,
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
        setup = WorkerSetup(recipe, plan.chunking, run.options.embed_batch, cache.reader())
        return RayExecutor(setup, run.ray, work, staged)

    def known(keys: Sequence[bytes]) -> set[bytes]:
        return set(staging.first_rows(keys)) | cache.known(keys)

    inline = InlineExecutor(
        PassageWorker(
            run.embedder,
            plan.chunking,
            plan.counter,
            embed_batch=run.options.embed_batch,
            known=known,
        )
    )
    jobs = run.options.jobs if run.options.jobs is not None else usable_cores()
    if jobs == 1 or recipe is None:
        return inline
    pool = ProcessExecutor(
        WorkerSetup(recipe, plan.chunking, run.options.embed_batch, cache.reader()), jobs
    )
    return pool if run.options.jobs is not None else SizedExecutor(inline, pool)


# --- pass 2: shards ---------------------------------------------------------------------------


def _assign_shards(
    plan: _Plan, staging: Staging, vectors: VectorSpill, options: BuildOptions
) -> list[int]:
    """Give every staged document its shard; the shard ids used."""
    counts = staging.chunk_counts()
    too_large = np.flatnonzero(counts > options.shard_max)
    if too_large.size:
        check_document_size(
            int(counts[too_large[0]]), options.shard_max, staging.document_id(int(too_large[0]))
        )
    doc_vectors = None
    if options.shard_fill == "semantic" and int(counts.sum()) > options.shard_target:
        doc_vectors = document_vectors(
            vectors, staging.spans(), counts.shape[0], vectors.dimensions
        )
    shards = assign_shards(
        counts,
        fill=options.shard_fill,
        target=options.shard_target,
        maximum=options.shard_max,
        catalog_id=plan.identity.id,
        vectors=doc_vectors,
    )
    staging.assign(enumerate(shards.tolist()))
    return sorted(set(shards.tolist()))
