"""Opening a catalog by path: an extracted directory as it is, or a ``.gezk`` file verified,
deeply validated and extracted once into a cache (spec sections 3.3, 3.4, 12).

A directory is opened as it is (it was verified when it was extracted or installed). A ``.gezk``
file goes through :func:`~gezel_knowledge.validate.extract_verified` with deep validation into a
cache directory named by the archive's SHA-256, so different bytes with the same version label
never share a directory and nothing that fails validation is ever served; the verdict is kept
with the digest. Opening the unchanged file again costs a ``stat`` of it (its digest is
remembered by device, inode, size, mtime and ctime) and of each file of its entry, not a hash
or a validation. The cache keeps to a byte budget by pruning the least recently used entries
(:class:`CatalogCache`; ``gezel-knowledge cache``).

This sits above both the reader and validation: validation probes a catalog through the reader's
own search and body primitives, and opening an archive needs validation.

Unless told otherwise, a catalog opened here finds its own query embedder, as the command line
does: on its first semantic search, through
:func:`~gezel_knowledge.embedders.resolve_query_embedder` (the installed, digest-verified model
of the catalog's embedding profile). Nothing is loaded for browsing or keyword search.
"""

from __future__ import annotations

from gezel_knowledge.opening._cache import (
    BUDGET_ENV,
    DEFAULT_CACHE_BUDGET,
    CacheEntry,
    CachePrune,
    CatalogCache,
    default_cache_dir,
    parse_size,
)
from gezel_knowledge.opening._open import open_catalog

__all__ = [
    "BUDGET_ENV",
    "DEFAULT_CACHE_BUDGET",
    "CacheEntry",
    "CachePrune",
    "CatalogCache",
    "default_cache_dir",
    "open_catalog",
    "parse_size",
]
