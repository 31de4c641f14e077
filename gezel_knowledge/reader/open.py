"""Opening a catalog from an extracted directory or a ``.gezk`` file (spec section 3.3).

A directory is opened as it is (it was verified when it was extracted or installed). A ``.gezk``
file is verified and extracted once into a cache directory named by the archive's SHA-256, so
different bytes with the same version label never share a directory; the extraction is
validated (structure, counts, placements, spatial summary) before it is published to the cache.
"""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.archive.findings import error_for
from gezel_knowledge.archive.limits import DEFAULT_LIMITS, ArchiveLimits
from gezel_knowledge.archive.manifest import CatalogManifest, parse_manifest_bytes
from gezel_knowledge.archive.paths import MANIFEST_PATH
from gezel_knowledge.archive.verify import ArchiveFile
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import IntegrityFailure, InvalidInput, NotFound
from gezel_knowledge.home import gezel_home
from gezel_knowledge.reader.catalog import Catalog
from gezel_knowledge.reader.vectors import DEFAULT_BIT_CACHE_BYTES

__all__ = ["default_cache_dir", "open_catalog", "read_manifest"]


def default_cache_dir() -> Path:
    """Where ``.gezk`` files opened directly are extracted: ``<GEZEL_HOME>/cache/catalogs``.

    Installed catalogs live in the knowledge home instead; this cache only holds verified
    extractions of files opened by path, keyed by archive digest, and may be deleted.
    """
    return gezel_home() / "cache" / "catalogs"


def read_manifest(root: Path, limits: ArchiveLimits = DEFAULT_LIMITS) -> CatalogManifest:
    """Read and parse an extracted catalog's ``manifest.json``."""
    path = root / MANIFEST_PATH
    if not path.is_file():
        raise NotFound(f"{root} has no manifest.json", reason="missing-manifest", subject=str(root))
    if path.stat().st_size > limits.max_manifest_bytes:
        raise IntegrityFailure(
            "manifest.json exceeds the size limit", reason="manifest-too-large", subject=str(path)
        )
    _, manifest = parse_manifest_bytes(path.read_bytes())
    return manifest


def _validate_staged(root: Path) -> None:
    # Imported here: validation uses the reader's search primitives.
    from gezel_knowledge.validate import validate_catalog  # noqa: PLC0415

    # extract_archive has verified every size, digest and asset just before this runs.
    report = validate_catalog(root, deep=False, check_digests=False)
    if report.errors:
        raise error_for(report.errors[0])


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
            archive.extract(target, on_staged=_validate_staged)
        except (InvalidInput, OSError):
            # Another process published the same bytes first; its copy is identical.
            if not (target / MANIFEST_PATH).is_file():
                raise
    return target, digest


def open_catalog(
    path: Path | str,
    *,
    embedder: Embedder | None = None,
    cache_dir: Path | str | None = None,
    expected_sha256: str | None = None,
    bit_cache_bytes: int = DEFAULT_BIT_CACHE_BYTES,
    limits: ArchiveLimits = DEFAULT_LIMITS,
) -> Catalog:
    """Open a catalog: an extracted directory, or a ``.gezk`` verified and extracted to a cache.

    ``embedder`` must produce the catalog profile's vector space for semantic search; without
    one, browsing and keyword search work and search results say why vectors were not used.
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
    manifest = read_manifest(root, limits)
    return Catalog(
        root,
        manifest,
        embedder=embedder,
        archive_sha256=digest,
        bit_cache_bytes=bit_cache_bytes,
        limits=limits,
    )
