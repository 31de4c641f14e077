"""Mounting installed catalogs, and quarantining the ones that fail.

Mounting opens the active version of an installed catalog read-only. Before opening, every file
the manifest declares must exist with its declared size (a cheap ``stat``: it catches a deleted
shard or a truncated database without hashing gigabytes on every start); then the reader opens
the router and checks its ``meta`` echoes and shard map. A failure quarantines that version:
the registry records the reason and the time, the files are left exactly as they are, and the
catalog stops being eligible, so every other catalog keeps working. ``recheck`` clears a
quarantine once the catalog mounts again (for example after the user restored a file).
"""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path
from typing import Literal

from gezel_knowledge.archive.paths import MANIFEST_PATH
from gezel_knowledge.embedders import resolve_query_embedder
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import IntegrityFailure, InvalidInput, NotFound
from gezel_knowledge.install.registry import InstalledCatalog, InstalledVersion, catalog_key
from gezel_knowledge.install.state import HomeState
from gezel_knowledge.reader import Catalog, Passage, open_extracted, read_manifest
from gezk.errors import ReasonedError
from gezk.uri import KnowledgeUri

__all__ = [
    "MountFailed",
    "check_files",
    "mount",
    "mount_catalog",
    "quarantine_error",
    "read_reference",
    "recheck",
]


class MountFailed(IntegrityFailure):
    """An installed catalog could not be mounted and has been quarantined."""

    default_reason = "mount-failed"


def check_files(root: Path) -> None:
    """Raise unless every declared file exists with its declared size."""
    manifest = read_manifest(root)
    for declared in manifest.files:
        path = root.joinpath(*declared.path.split("/"))
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            raise NotFound(
                f"{declared.path} is missing", reason="missing-file", subject=declared.path
            ) from None
        if size != declared.size_bytes:
            raise IntegrityFailure(
                f"{declared.path} is {size} bytes, the manifest declares {declared.size_bytes}",
                reason="size-mismatch",
                subject=declared.path,
            )


def quarantine_error(exc: BaseException) -> tuple[str, str]:
    """The quarantine ``(reason, message)`` recorded for a failure."""
    if isinstance(exc, ReasonedError):
        return exc.reason, exc.message
    if isinstance(exc, sqlite3.Error):
        return "database-error", f"{type(exc).__name__}: {exc}"
    return "mount-failed", f"{type(exc).__name__}: {exc}"


def _open(
    home: HomeState,
    version: InstalledVersion,
    embedder: Embedder | Literal["auto"] | None = None,
    model_dir: Path | str | None = None,
) -> Catalog:
    root = home.path_of(version)
    if not (root / MANIFEST_PATH).is_file():
        raise NotFound(
            f"the installed directory {version.path} is missing or has no manifest",
            reason="missing-install",
            subject=version.path,
        )
    check_files(root)
    return open_extracted(
        root,
        embedder=None if isinstance(embedder, str) else embedder,
        archive_sha256=version.archive_sha256,
        find_embedder=functools.partial(resolve_query_embedder, model_dir=model_dir)
        if embedder == "auto"
        else None,
        derived_dir=home.derived_dir(version.archive_sha256),
    )


def mount(
    home: HomeState,
    catalog: InstalledCatalog,
    *,
    allow_disabled: bool = False,
    embedder: Embedder | Literal["auto"] | None = None,
    model_dir: Path | str | None = None,
) -> Catalog:
    """Open the active version of ``catalog``; quarantine it and raise on failure.

    ``embedder`` is the handle's query embedder, as for ``open_catalog``: an embedder,
    ``"auto"`` (its profile's shared one, found on the first semantic search) or ``None``.

    Raises :class:`MountFailed` (after recording the quarantine) when the files do not open,
    :class:`InvalidInput` when the catalog is disabled (unless ``allow_disabled``) or already
    quarantined.
    """
    version = catalog.active
    if version is None:
        raise NotFound(
            f"{catalog.key} has no active version", reason="not-installed", subject=catalog.key
        )
    if version.quarantine is not None:
        raise InvalidInput(
            f"{catalog.key}@{version.version} is quarantined ({version.quarantine.reason}: "
            f"{version.quarantine.message})",
            reason="quarantined",
            subject=catalog.key,
        )
    if not catalog.enabled and not allow_disabled:
        raise InvalidInput(f"{catalog.key} is disabled", reason="disabled", subject=catalog.key)
    try:
        return _open(home, version, embedder, model_dir)
    except (ReasonedError, sqlite3.Error, OSError) as exc:
        reason, message = quarantine_error(exc)
        home.quarantine(catalog.key, version.archive_sha256, reason, message)
        raise MountFailed(
            f"{catalog.key}@{version.version} failed to mount and was quarantined: {message}",
            subject=catalog.key,
        ) from exc


def mount_catalog(
    home: HomeState,
    catalog: InstalledCatalog,
    *,
    allow_disabled: bool = False,
    embedder: Embedder | Literal["auto"] | None = None,
    model_dir: Path | str | None = None,
) -> Catalog:
    """:func:`mount` under the name the package face exports (there, ``mount`` is this
    module)."""
    return mount(
        home, catalog, allow_disabled=allow_disabled, embedder=embedder, model_dir=model_dir
    )


def recheck(home: HomeState, ref: str) -> InstalledCatalog:
    """Try to mount a quarantined catalog again; clear its quarantine when it opens."""
    catalog = home.catalog(ref)
    version = catalog.active
    if version is None or version.quarantine is None:
        return catalog
    try:
        _open(home, version).close()
    except (ReasonedError, sqlite3.Error, OSError) as exc:
        reason, message = quarantine_error(exc)
        return home.quarantine(catalog.key, version.archive_sha256, reason, message)
    return home.clear_quarantine(catalog.key, version.archive_sha256)


def read_reference(home: HomeState, reference: str | KnowledgeUri) -> Passage:
    """Resolve a ``knowledge://`` reference through the active version of its catalog.

    A disabled catalog is still readable (enabled state governs search); a quarantined one is
    not.
    """
    uri = reference if isinstance(reference, KnowledgeUri) else KnowledgeUri.parse(reference)
    key = catalog_key(uri.publisher_id, uri.catalog_id)
    with mount(home, home.catalog(key), allow_disabled=True) as catalog:
        return catalog.read(uri)
