"""Opening an extracted catalog directory: its manifest, then the catalog handle (spec 3.3).

The directory is trusted as it is: it was verified when it was extracted or installed. Opening a
``.gezk`` file by path (verify, extract to a cache, then this) is
:func:`gezel_knowledge.opening.open_catalog`, a layer above the reader and validation.
"""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.archive.limits import DEFAULT_LIMITS, ArchiveLimits
from gezel_knowledge.archive.manifest import parse_manifest_bytes
from gezel_knowledge.archive.paths import MANIFEST_PATH
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import IntegrityFailure, NotFound
from gezel_knowledge.reader.catalog import Catalog, EmbedderFinder
from gezel_knowledge.reader.vectors import DEFAULT_BIT_CACHE_BYTES
from gezk.manifest import CatalogManifest

__all__ = ["open_extracted", "read_manifest"]


def read_manifest(root: Path, limits: ArchiveLimits = DEFAULT_LIMITS) -> CatalogManifest:
    """Read and parse an extracted catalog's ``manifest.json``."""
    path = root / MANIFEST_PATH
    if not path.is_file():
        raise NotFound(f"{root} has no manifest.json", reason="missing-manifest", subject=str(root))
    if path.stat().st_size > limits.max_manifest_bytes:
        raise IntegrityFailure(
            "manifest.json exceeds the size limit", reason="manifest-too-large", subject=str(path)
        )
    return parse_manifest_bytes(path.read_bytes())


def open_extracted(
    root: Path,
    *,
    embedder: Embedder | None = None,
    archive_sha256: str | None = None,
    bit_cache_bytes: int = DEFAULT_BIT_CACHE_BYTES,
    limits: ArchiveLimits = DEFAULT_LIMITS,
    find_embedder: EmbedderFinder | None = None,
    derived_dir: Path | None = None,
) -> Catalog:
    """Open the catalog extracted at ``root`` (already verified); ``archive_sha256`` is the
    digest of the archive it came from, when known. ``find_embedder`` finds a query embedder on
    the first semantic search when ``embedder`` is ``None``. ``derived_dir`` is where the
    shards' derived keyword indexes are cached (default: under ``<GEZEL_HOME>/cache/keyword``)."""
    return Catalog(
        root,
        read_manifest(root, limits),
        embedder=embedder,
        archive_sha256=archive_sha256,
        bit_cache_bytes=bit_cache_bytes,
        limits=limits,
        find_embedder=find_embedder,
        derived_dir=derived_dir,
    )
