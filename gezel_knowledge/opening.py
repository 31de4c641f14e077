"""Opening a catalog by path: an extracted directory as it is, or a ``.gezk`` file verified and
extracted once into a cache (spec section 3.3).

A directory is opened as it is (it was verified when it was extracted or installed). A ``.gezk``
file goes through :func:`~gezel_knowledge.validate.extract_verified` into a cache directory named
by the archive's SHA-256, so different bytes with the same version label never share a
directory, and nothing that fails validation is ever published to the cache.

This sits above both the reader and validation: validation probes a catalog through the reader's
own search and body primitives, and opening an archive needs validation.

Unless told otherwise, a catalog opened here finds its own query embedder, as the command line
does: on its first semantic search, through
:func:`~gezel_knowledge.embedders.resolve_query_embedder` (the installed, digest-verified model
of the catalog's embedding profile). Nothing is loaded for browsing or keyword search.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from gezel_knowledge import embedders
from gezel_knowledge.archive.limits import DEFAULT_LIMITS, ArchiveLimits
from gezel_knowledge.archive.paths import MANIFEST_PATH
from gezel_knowledge.archive.verify import ArchiveFile
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import IntegrityFailure, InvalidInput, NotFound
from gezel_knowledge.home import gezel_home
from gezel_knowledge.reader import DEFAULT_BIT_CACHE_BYTES, Catalog, open_extracted
from gezel_knowledge.validate.extract import extract_verified
from gezk.profiles import EmbeddingProfile

__all__ = ["default_cache_dir", "open_catalog"]


def default_cache_dir() -> Path:
    """Where ``.gezk`` files opened directly are extracted: ``<GEZEL_HOME>/cache/catalogs``.

    Installed catalogs live in the knowledge home instead; this cache only holds verified
    extractions of files opened by path, keyed by archive digest, and may be deleted.
    """
    return gezel_home() / "cache" / "catalogs"


def _extracted(
    path: Path, cache_dir: Path, expected_sha256: str | None, limits: ArchiveLimits
) -> tuple[Path, str]:
    # One open file: the digest that names the cache directory is the digest of the bytes
    # extracted into it, and the file is hashed once.
    with ArchiveFile(path, limits=limits) as archive:
        digest = archive.sha256
        if expected_sha256 is not None and digest != expected_sha256.lower():
            raise IntegrityFailure(
                f"archive SHA-256 is {digest}, expected {expected_sha256}",
                reason="archive-digest-mismatch",
                subject=str(path),
            )
        target = cache_dir / digest
        if (target / MANIFEST_PATH).is_file():
            return target, digest
        try:
            extract_verified(archive, target)
        except (InvalidInput, OSError):
            # Another process published the same bytes first; its copy is identical.
            if not (target / MANIFEST_PATH).is_file():
                raise
    return target, digest


def _find_embedder(profile: EmbeddingProfile) -> embedders.EmbedderResolution:
    return embedders.resolve_query_embedder(profile)


def open_catalog(
    path: Path | str,
    *,
    embedder: Embedder | Literal["auto"] | None = "auto",
    cache_dir: Path | str | None = None,
    expected_sha256: str | None = None,
    bit_cache_bytes: int = DEFAULT_BIT_CACHE_BYTES,
    limits: ArchiveLimits = DEFAULT_LIMITS,
) -> Catalog:
    """Open a catalog: an extracted directory, or a ``.gezk`` verified and extracted to a cache.

    ``embedder``: ``"auto"`` finds the installed model of the catalog's embedding profile on
    the first semantic search (when there is none, results say why and a warning is logged
    once); an :class:`~gezel_knowledge.embedders.Embedder` of the catalog's vector space; or
    ``None`` for browsing and keyword search only.
    """
    p = Path(path)
    digest: str | None = None
    if p.is_dir():
        root = p
    elif p.is_file():
        cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        root, digest = _extracted(p, cache, expected_sha256, limits)
    else:
        raise NotFound(f"no catalog at {p}", reason="catalog-not-found", subject=str(p))
    auto = embedder == "auto"
    return open_extracted(
        root,
        embedder=None if isinstance(embedder, str) else embedder,
        archive_sha256=digest,
        bit_cache_bytes=bit_cache_bytes,
        limits=limits,
        find_embedder=_find_embedder if auto else None,
    )
