"""The knowledge home: installed catalogs under one Gezel home and the user's commands on them.

:class:`KnowledgeHome` is a thin face: the layout, the registry and their simple changes are its
:class:`~gezel_knowledge.install.state.HomeState`; installing, bundled installs, updates,
mounting and the status report are the modules :mod:`~gezel_knowledge.install.job`,
:mod:`~gezel_knowledge.install.bundled`, :mod:`~gezel_knowledge.install.updates`,
:mod:`~gezel_knowledge.install.mount` and :mod:`~gezel_knowledge.install.status`, each taking
that state. The home's layout is described in :mod:`~gezel_knowledge.install.state`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from gezel_knowledge.embedders import EmbedderResolution
from gezel_knowledge.home import gezel_home
from gezel_knowledge.install.bundled import install_bundled, install_handbook
from gezel_knowledge.install.cancel import CancelToken
from gezel_knowledge.install.job import run_install
from gezel_knowledge.install.mount import mount, read_reference, recheck
from gezel_knowledge.install.placement import PlacementRequest
from gezel_knowledge.install.registry import InstalledCatalog
from gezel_knowledge.install.registry_document import RegistryDocument
from gezel_knowledge.install.result import InstallResult
from gezel_knowledge.install.state import HomeState
from gezel_knowledge.install.status import HomeStatus, home_status
from gezel_knowledge.install.updates import (
    RegistrySource,
    UpdateCheck,
    UpdatePolicy,
    UpdateReport,
    apply_updates,
    check_updates,
)
from gezel_knowledge.progress import ProgressSink
from gezel_knowledge.reader import Catalog, Passage
from gezk.profiles import EmbeddingProfile
from gezk.signing import TrustAnchors
from gezk.uri import KnowledgeUri

__all__ = ["KnowledgeHome", "gezel_home", "install_catalog"]


class KnowledgeHome(HomeState):
    """Installed catalogs under one Gezel home: layout, registry, and the user's commands.

    ``KnowledgeHome(path=None, *, free_space, opener, lock_timeout, shared_store)``: see
    :class:`~gezel_knowledge.install.state.HomeState` for the arguments.
    """

    def install(
        self,
        source: str | Path,
        expected_sha256: str | None = None,
        progress: ProgressSink | None = None,
        *,
        cancel: CancelToken | None = None,
        trust: TrustAnchors | None = None,
        registries: Sequence[RegistryDocument] = (),
        keep_previous: bool = False,
        require_signature: bool = False,
        placement: PlacementRequest = "auto",
        max_download_bytes: int | None = None,
        allow_trust_change: bool = False,
    ) -> InstallResult:
        """Install a catalog from a ``.gezk`` path, an ``http(s)`` URL, or a registry coordinate.

        See :mod:`gezel_knowledge.install.job` for the steps. ``trust`` checks the manifest
        signature (recorded as the version's provenance) and, for coordinates, the registry's;
        a signature that does not verify always fails, and ``require_signature`` also refuses
        unsigned catalogs and unknown keys. ``placement`` is ``auto`` (the shared store for a
        trusted coordinate when one is configured and writable, else private), ``private``,
        or ``shared`` (fail rather than install privately). A download never exceeds the size
        the registry entry declares or, when none does, ``max_download_bytes`` (default
        :data:`~gezel_knowledge.install.download.DEFAULT_MAX_DOWNLOAD_BYTES`, 32 GiB + 64 MiB).
        A version verified by a trusted key is replaced only by bytes the same key verifies
        (``trust-change`` otherwise) unless ``allow_trust_change``.
        """
        return run_install(
            self,
            source,
            expected_sha256,
            progress,
            cancel=cancel,
            trust=trust,
            registries=tuple(registries),
            keep_previous=keep_previous,
            require_signature=require_signature,
            placement=placement,
            max_download_bytes=max_download_bytes,
            allow_trust_change=allow_trust_change,
        )

    def install_bundled(
        self,
        archive: Path | str,
        *,
        progress: ProgressSink | None = None,
        cancel: CancelToken | None = None,
    ) -> InstallResult:
        """Install or refresh a catalog bundled with the application (the built-in Handboek):
        same bytes are a no-op, changed bytes replace it keeping the enabled setting."""
        return install_bundled(self, archive, progress=progress, cancel=cancel)

    def install_handbook(
        self,
        *,
        progress: ProgressSink | None = None,
        cancel: CancelToken | None = None,
    ) -> InstallResult | None:
        """Install or refresh this package's bundled Handboek (``None`` when left out with
        ``GEZEL_HANDBOOK=off``); the command line does this on first use."""
        return install_handbook(self, progress=progress, cancel=cancel)

    def check_updates(
        self,
        registries: Sequence[RegistrySource] | None = None,
        *,
        policy: UpdatePolicy,
        trust: TrustAnchors | None = None,
        catalogs: Sequence[str] | None = None,
    ) -> UpdateCheck:
        """Newer releases of the installed catalogs (or of ``catalogs``) in registry
        documents; downloads nothing.

        ``registries`` defaults to the documents the catalogs were installed through; a URL is
        fetched only when ``policy`` allows network use.
        """
        return check_updates(self, registries, policy=policy, trust=trust, catalogs=catalogs)

    def apply_updates(
        self,
        registries: Sequence[RegistrySource] | None = None,
        *,
        policy: UpdatePolicy,
        trust: TrustAnchors | None = None,
        catalogs: Sequence[str] | None = None,
        progress: ProgressSink | None = None,
        cancel: CancelToken | None = None,
        placement: PlacementRequest = "auto",
    ) -> UpdateReport:
        """Install the available updates through the install job (enabled setting kept);
        refuses with ``NetworkNotAllowed`` when ``policy`` forbids the download."""
        return apply_updates(
            self,
            registries,
            policy=policy,
            trust=trust,
            catalogs=catalogs,
            progress=progress,
            cancel=cancel,
            placement=placement,
        )

    def mount(self, ref: str, *, allow_disabled: bool = False) -> Catalog:
        """Open an installed catalog's active version (quarantining it if that fails)."""
        return mount(self, self.catalog(ref), allow_disabled=allow_disabled)

    def recheck(self, ref: str) -> InstalledCatalog:
        """Mount a quarantined catalog again; clear the quarantine when it opens."""
        return recheck(self, ref)

    def status(
        self,
        *,
        check: bool = False,
        resolve_embedder: Callable[[EmbeddingProfile], EmbedderResolution] | None = None,
    ) -> HomeStatus:
        """Installed catalogs, quarantines, embedding readiness and pending downloads."""
        return home_status(self, check=check, resolve_embedder=resolve_embedder)

    def read(self, reference: str | KnowledgeUri) -> Passage:
        """Resolve a ``knowledge://`` reference through the installed catalogs.

        The URI names no version: it resolves through the active version of
        ``publisher/catalog``. A disabled catalog is still readable (enabled state governs
        search); a quarantined one is not.
        """
        return read_reference(self, reference)


def install_catalog(
    source: str | Path,
    expected_sha256: str | None = None,
    progress: ProgressSink | None = None,
    *,
    home: str | Path | None = None,
    cancel: CancelToken | None = None,
    trust: TrustAnchors | None = None,
    registries: Sequence[RegistryDocument] = (),
    keep_previous: bool = False,
    require_signature: bool = False,
    placement: PlacementRequest = "auto",
) -> InstallResult:
    """Install a catalog into ``home`` (default: ``GEZEL_HOME`` or ``~/.gezel``); the arguments
    are those of :meth:`KnowledgeHome.install`."""
    return KnowledgeHome(home).install(
        source,
        expected_sha256,
        progress,
        cancel=cancel,
        trust=trust,
        registries=registries,
        keep_previous=keep_previous,
        require_signature=require_signature,
        placement=placement,
    )
