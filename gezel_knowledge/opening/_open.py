"""``open_catalog``: a directory as it is, or a ``.gezk`` through the extraction cache."""

from __future__ import annotations

import atexit
import os
import tempfile
from pathlib import Path
from typing import Literal

from gezel_knowledge import embedders
from gezel_knowledge._atomic import remove_tree
from gezel_knowledge.archive.limits import DEFAULT_LIMITS, ArchiveLimits
from gezel_knowledge.archive.paths import MANIFEST_PATH
from gezel_knowledge.archive.verify import ArchiveFile
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import IntegrityFailure, NotFound
from gezel_knowledge.opening._cache import CANNOT_WRITE, CatalogCache, Lease
from gezel_knowledge.opening._digests import FileIdentity, remember_digest, remembered_digest
from gezel_knowledge.reader import DEFAULT_BIT_CACHE_BYTES, Catalog, open_extracted
from gezel_knowledge.reader.catalog import EmbedderFinder
from gezk.profiles import EmbeddingProfile

__all__ = ["open_catalog"]


def _check_expected(digest: str, expected: str | None, path: Path) -> None:
    if expected is not None and digest != expected.lower():
        raise IntegrityFailure(
            f"archive SHA-256 is {digest}, expected {expected}",
            reason="archive-digest-mismatch",
            subject=str(path),
        )


def _reuse(cache: CatalogCache, digest: str, limits: ArchiveLimits) -> bool:
    """Whether the cache holds a valid, intact extraction of ``digest`` (raises the recorded
    refusal of bytes already refused)."""
    verdict = cache.verdict(digest, limits)
    if verdict is None:
        return False
    if verdict.status == "refused":
        raise verdict.refusal()
    return verdict.status == "valid" and cache.files_intact(verdict)


def _held(cache: CatalogCache, digest: str, limits: ArchiveLimits) -> Lease | None:
    """A lease on a valid, intact entry of ``digest`` (taken before the entry is checked, so
    no prune removes it in between), or ``None``."""
    lease = cache.hold(digest)
    try:
        if _reuse(cache, digest, limits):
            return lease
    except BaseException:
        lease.release()
        raise
    lease.release()
    return None


def _extracted(
    path: Path, cache: CatalogCache, expected: str | None, limits: ArchiveLimits
) -> tuple[str, Lease, bool]:
    """The verified entry of the archive at ``path``: its digest, a lease on it, and whether
    this call extracted it."""
    digest = remembered_digest(cache.memo_dir, path, FileIdentity.of(os.stat(path)))
    if digest is not None:
        _check_expected(digest, expected, path)
        lease = _held(cache, digest, limits)
        if lease is not None:
            cache.touch(digest)
            return digest, lease, False
    # One open file: the digest that names the entry is the digest of the bytes extracted.
    with ArchiveFile(path, limits=limits) as archive:
        before = FileIdentity.of(archive.stat())
        digest = archive.sha256
        if FileIdentity.of(archive.stat()) == before:
            remember_digest(cache.memo_dir, path, before, digest)
        _check_expected(digest, expected, path)
        lease = cache.hold(digest)
        try:
            with cache.extraction_lock(digest):
                # Another process may have published these bytes while this one waited.
                published = not _reuse(cache, digest, limits)
                if published:
                    cache.publish(archive, digest)
        except BaseException:
            lease.release()
            raise
    cache.touch(digest)
    return digest, lease, published


_private_cache: list[Path] = []


def _private_cache_dir() -> Path:
    """This process's own extraction cache (made once, owner-only, removed at exit): another
    user cannot have put a verdict or a catalog in it, as one could in a shared temp path."""
    if not _private_cache:
        folder = Path(tempfile.mkdtemp(prefix="gezel-knowledge-catalogs-"))
        atexit.register(remove_tree, folder)
        _private_cache.append(folder)
    return _private_cache[0]


def _finder(model_dir: Path | str | None) -> EmbedderFinder:
    def find(profile: EmbeddingProfile) -> embedders.EmbedderResolution:
        return embedders.resolve_query_embedder(profile, model_dir=model_dir)

    return find


def open_catalog(
    path: Path | str,
    *,
    embedder: Embedder | Literal["auto"] | None = "auto",
    cache_dir: Path | str | None = None,
    expected_sha256: str | None = None,
    bit_cache_bytes: int = DEFAULT_BIT_CACHE_BYTES,
    limits: ArchiveLimits = DEFAULT_LIMITS,
    cache_budget_bytes: int | None = None,
    model_dir: Path | str | None = None,
) -> Catalog:
    """Open a catalog: an extracted directory, or a ``.gezk`` verified and extracted to a cache.

    A ``.gezk`` is deeply validated on its first extraction; later opens of the unchanged file
    reuse the verdict without hashing or validating again (see :mod:`gezel_knowledge.opening`).
    When the default cache cannot be written (a read-only home), the archive is verified and
    extracted into a private cache of this process instead, removed when it exits.
    ``embedder``: ``"auto"`` finds the installed model of the catalog's embedding profile on
    the first semantic search (when there is none, results say why and a warning is logged
    once); an :class:`~gezel_knowledge.embedders.Embedder` of the catalog's vector space; or
    ``None`` for browsing and keyword search only. ``model_dir`` is where ``"auto"`` looks for
    the model files first.
    """
    p = Path(path)
    given = None if isinstance(embedder, str) else embedder
    find = _finder(model_dir) if embedder == "auto" else None
    if p.is_dir():
        if not (p / MANIFEST_PATH).is_file():
            raise NotFound(
                f"{p} is not an extracted catalog (no manifest.json)",
                reason="catalog-not-found",
                subject=str(p),
            )
        return open_extracted(
            p,
            embedder=given,
            bit_cache_bytes=bit_cache_bytes,
            limits=limits,
            find_embedder=find,
        )
    if not p.is_file():
        raise NotFound(f"no catalog at {p}", reason="catalog-not-found", subject=str(p))
    cache = CatalogCache(cache_dir, budget_bytes=cache_budget_bytes)
    try:
        digest, lease, published = _extracted(p, cache, expected_sha256, limits)
    except OSError as exc:
        if cache_dir is not None or exc.errno not in CANNOT_WRITE:
            raise
        # The home cannot be written (a read-only home, a locked-down account): this process
        # verifies and extracts into a private cache of its own, removed when it exits.
        cache = CatalogCache(_private_cache_dir(), budget_bytes=cache_budget_bytes)
        digest, lease, published = _extracted(p, cache, expected_sha256, limits)
    try:
        catalog = open_extracted(
            cache.entry_dir(digest),
            embedder=given,
            archive_sha256=digest,
            bit_cache_bytes=bit_cache_bytes,
            limits=limits,
            find_embedder=find,
            derived_dir=cache.derived_dir(digest),
        )
    except BaseException:
        lease.release()
        raise
    lease.attach(catalog)
    if published:
        cache.prune_quietly(keep=(digest,))
    return catalog
