"""The knowledge home's state: where installed catalogs live, the user registry, and the
changes to both that need nothing else (enable, disable, remove, quarantine, releasing versions).

The active Gezel home is ``GEZEL_HOME``, else ``~/.gezel``. Inside it::

    knowledge/
      registry.json                  the user registry (JSON, see registry.py)
      registry.json.lock             writers' lock
      <publisher>/<catalog>/<version>/<first 16 hex of the archive SHA-256>/
                                     one published, read-only extracted catalog
      .staging/                      extractions in progress (never read by search), each
                                     beside the lock its job holds (see staging.py)
      .downloads/                    partial downloads kept for resume
      .trash/                        directories being deleted

Versions placed in the machine's shared store (see :mod:`~gezel_knowledge.install.shared_store`)
are recorded with their absolute store path instead; the home keeps only the reference.

The digest segment keeps different bytes published under one version label apart. Names that
begin with a dot cannot collide with publisher ids (``[a-z0-9-]``), nor can ``registry.json``.

The install job, bundled installs, updates, mounting and the status report are modules that take
a :class:`HomeState`; :class:`~gezel_knowledge.install.home.KnowledgeHome` is the face that puts
them together, and searching the installed catalogs needs only this state.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal

from gezel_knowledge._atomic import move_to_trash, remove_tree
from gezel_knowledge.errors import IntegrityFailure, InvalidInput, KnowledgeError
from gezel_knowledge.home import gezel_home
from gezel_knowledge.install._time import utc_now
from gezel_knowledge.install.download import sweep_partials
from gezel_knowledge.install.registry import (
    InstalledCatalog,
    InstalledVersion,
    Quarantine,
    RegistrySnapshot,
    UserRegistry,
)
from gezel_knowledge.install.shared_store import SharedStore, shared_store_from
from gezel_knowledge.install.space import FreeSpaceProbe, disk_free_space
from gezel_knowledge.install.staging import sweep_staging, sweep_trash
from gezk.ids import is_sha256_hex, validate_catalog_id, validate_publisher_id, validate_version

if TYPE_CHECKING:
    import urllib.request

__all__ = ["HomeState"]


class HomeState:
    """Installed catalogs under one Gezel home: the layout, the registry and their changes."""

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        free_space: FreeSpaceProbe = disk_free_space,
        opener: urllib.request.OpenerDirector | None = None,
        lock_timeout: float | None = 60.0,
        shared_store: SharedStore | Path | str | Literal[False] | None = None,
    ) -> None:
        """``shared_store`` names the machine's shared store (default: ``GEZEL_SHARED_STORE``;
        ``False``: none, whatever the environment says)."""
        self.root = gezel_home(path)
        self.shared_store = shared_store_from(shared_store)
        self.knowledge_dir = self.root / "knowledge"
        self.registry = UserRegistry(
            self.knowledge_dir / "registry.json", lock_timeout=lock_timeout
        )
        self.free_space = free_space
        self.opener = opener

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r})"

    # -- layout -----------------------------------------------------------------------------

    @property
    def staging_dir(self) -> Path:
        """Where archives are extracted before they are published."""
        return self.knowledge_dir / ".staging"

    @property
    def downloads_dir(self) -> Path:
        """Where partial downloads wait to be resumed."""
        return self.knowledge_dir / ".downloads"

    @property
    def trash_dir(self) -> Path:
        """Where directories are moved before they are deleted."""
        return self.knowledge_dir / ".trash"

    def version_dir(self, publisher_id: str, catalog_id: str, version: str, sha256: str) -> Path:
        """``knowledge/<publisher>/<catalog>/<version>/<digest16>`` (identifiers validated)."""
        if not is_sha256_hex(sha256):
            raise InvalidInput(f"not a lowercase SHA-256 hex digest: {sha256!r}", subject=sha256)
        return (
            self.knowledge_dir
            / validate_publisher_id(publisher_id)
            / validate_catalog_id(catalog_id)
            / validate_version(version)
            / sha256[:16]
        )

    def derived_dir(self, sha256: str) -> Path:
        """Where the reader caches what it derives from an installed version (its shards'
        keyword indexes): ``<home>/cache/keyword/<archive digest>``, removed with the version."""
        return self.root / "cache" / "keyword" / sha256

    def relative(self, path: Path) -> str:
        """``path`` relative to the home, with ``/`` separators (as stored in the registry)."""
        return PurePosixPath(*path.relative_to(self.root).parts).as_posix()

    def path_of(self, version: InstalledVersion) -> Path:
        """The directory of an installed version (refusing a registry path outside the home,
        or, for a shared version, anything but a store entry's catalog directory)."""
        if version.placement == "shared":
            path = Path(version.path)
            # owns() accepts only <store>/catalogs/<that digest>/catalog.
            store = SharedStore(path.parents[2]) if len(path.parts) > 3 else None
            if (
                not path.is_absolute()
                or ".." in path.parts
                or store is None
                or store.owns(path) != version.archive_sha256
            ):
                raise IntegrityFailure(
                    f"registry path {version.path!r} is not a shared store entry of "
                    f"{version.archive_sha256}",
                    reason="registry-corrupt",
                    subject=version.path,
                )
            return path
        rel = PurePosixPath(version.path)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts or rel.parts[0] != "knowledge":
            raise IntegrityFailure(
                f"registry path {version.path!r} is outside the knowledge home",
                reason="registry-corrupt",
                subject=version.path,
            )
        return self.root.joinpath(*rel.parts)

    def store_of(self, version: InstalledVersion) -> SharedStore | None:
        """The shared store holding a shared version (``None`` for a private one)."""
        if version.placement != "shared":
            return None
        return SharedStore(self.path_of(version).parents[2])

    # -- registry views ---------------------------------------------------------------------

    def snapshot(self) -> RegistrySnapshot:
        """The registry as it is now."""
        return self.registry.read()

    def installed(self) -> list[InstalledCatalog]:
        """Every installed catalog, by key."""
        return list(self.snapshot())

    def catalog(self, ref: str) -> InstalledCatalog:
        """An installed catalog by ``publisher/catalog`` or an unambiguous bare catalog id."""
        return self.snapshot().find(ref)

    # -- user commands ----------------------------------------------------------------------

    def set_enabled(self, ref: str, enabled: bool) -> InstalledCatalog:
        """Enable or disable a catalog (kept across version updates)."""
        key = self.catalog(ref).key

        def change(snap: RegistrySnapshot) -> RegistrySnapshot:
            current = snap.find(key)
            return snap.with_catalog(replace(current, enabled=enabled))

        return self.registry.update(change).find(key)

    def enable(self, ref: str) -> InstalledCatalog:
        """Enable a catalog for search."""
        return self.set_enabled(ref, True)

    def disable(self, ref: str) -> InstalledCatalog:
        """Disable a catalog: it stays installed but no search uses it."""
        return self.set_enabled(ref, False)

    def remove(self, ref: str) -> InstalledCatalog:
        """Forget a catalog and delete its private files; return what was removed."""
        key = self.catalog(ref).key
        removed: list[InstalledCatalog] = []

        def change(snap: RegistrySnapshot) -> RegistrySnapshot:
            removed.append(snap.find(key))
            return snap.without_catalog(key)

        self.registry.update(change)
        gone = removed[-1]
        # The registry no longer points here; deleting afterwards never leaves a dangling entry.
        # Shared bytes are not this user's to delete: only the reference goes.
        self.release(gone.versions)
        with contextlib.suppress(OSError):
            self._prune_empty_parents(self.knowledge_dir / gone.publisher_id / gone.catalog_id)
        return gone

    def quarantine(self, key: str, sha256: str, reason: str, message: str) -> InstalledCatalog:
        """Take one installed copy out of service, recording why; its files are untouched."""
        record = Quarantine(reason=reason, message=" ".join(message.split()), at=utc_now())

        def change(snap: RegistrySnapshot) -> RegistrySnapshot:
            current = snap.get(key)
            if current is None or current.version_by_digest(sha256) is None:
                return snap
            return snap.with_catalog(current.with_quarantine(sha256, record))

        return self.registry.update(change).find(key)

    def clear_quarantine(self, key: str, sha256: str) -> InstalledCatalog:
        """Put a quarantined copy back in service (after a successful re-check)."""

        def change(snap: RegistrySnapshot) -> RegistrySnapshot:
            current = snap.find(key)
            return snap.with_catalog(current.with_quarantine(sha256, None))

        return self.registry.update(change).find(key)

    # -- housekeeping -----------------------------------------------------------------------

    def clean_leftovers(self) -> tuple[str, ...]:
        """Remove what killed or refused jobs left in the knowledge home; return it.

        Staging directories no running job holds, trash, and downloads that cannot be resumed
        (see :mod:`~gezel_knowledge.install.staging` and
        :func:`~gezel_knowledge.install.download.sweep_partials`), named relative to
        ``knowledge/``.
        """
        staged = [f".staging/{name}" for name in sweep_staging(self.staging_dir)]
        trash = [f".trash/{name}" for name in sweep_trash(self.trash_dir)]
        orphans = self._discard_orphan_versions()
        sweep_trash(self.trash_dir)  # the orphans just moved there, reported by their path
        downloads = [f".downloads/{name}" for name in sweep_partials(self.downloads_dir)]
        return (*staged, *trash, *orphans, *downloads)

    def _discard_orphan_versions(self) -> list[str]:
        """Move to the trash every ``<publisher>/<catalog>/<version>/<digest16>`` directory the
        registry does not list: a publish killed between its rename and its registration (both
        happen under the registry lock, which this holds, so no install is half-way now)."""
        moved: list[str] = []
        # Without a readable registry nothing is known to be an orphan: never guess.
        if not self.registry.path.is_file():
            return moved
        with contextlib.suppress(KnowledgeError), self.registry.lock():
            listed = {
                self.path_of(v)
                for c in self.registry.read()
                for v in c.versions
                if v.placement == "private"
            }
            for path in sorted(self.knowledge_dir.glob("[!.]*/[!.]*/[!.]*/[!.]*")):
                if not path.is_dir() or path in listed:
                    continue
                with contextlib.suppress(OSError):
                    move_to_trash(path, self.trash_dir)
                    moved.append(self.relative(path).removeprefix("knowledge/"))
                    self._prune_empty_parents(path.parent)
        return moved

    def release(self, versions: Sequence[InstalledVersion]) -> None:
        """Let go of versions no longer registered: delete private files, drop shared refs."""
        private: list[Path] = []
        for version in versions:
            private.append(self.derived_dir(version.archive_sha256))
            store = self.store_of(version)
            if store is None:
                private.append(self.path_of(version))
                continue
            # A store that became unwritable keeps the reference; reclaim finds it stale later
            # because this registry no longer lists the entry.
            with contextlib.suppress(OSError, KnowledgeError):
                store.release(version.archive_sha256, self.root)
        self.discard(private)

    def discard(self, paths: Sequence[Path]) -> None:
        """Move directories to the trash (one rename each), then delete them."""
        doomed: list[Path] = []
        for path in paths:
            if not path.exists():
                continue
            try:
                doomed.append(move_to_trash(path, self.trash_dir))
            except OSError:
                doomed.append(path)  # cannot be moved: delete it where it is
            with contextlib.suppress(OSError):
                self._prune_empty_parents(path.parent)
        for path in doomed:
            remove_tree(path)

    def _prune_empty_parents(self, directory: Path) -> None:
        """Remove empty ``<version>``/``<catalog>``/``<publisher>`` directories upward."""
        stop = {self.knowledge_dir, self.root, self.trash_dir}
        current = directory
        while current not in stop and self.knowledge_dir in current.parents:
            try:
                current.rmdir()
            except OSError:
                return
            current = current.parent
