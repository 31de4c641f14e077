"""What is installed and whether it can answer (seed "Diagnosing missing results").

A successful keyword query proves the lexical path works, not that embeddings are ready, so the
status reports both separately: each installed catalog with its state (enabled, disabled,
quarantined and why), and for each embedding profile in use whether a verified query embedder
is available, with the reason when not. ``check=True`` also mounts every enabled catalog
(quarantining the ones that fail) and re-checks quarantined ones (clearing those that now open),
and first removes what killed or refused jobs left (staging, trash, downloads that cannot be
resumed), reporting each.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from gezel_knowledge.embedders import EmbedderResolution, resolve_query_embedder
from gezel_knowledge.install.mount import MountFailed, mount, recheck
from gezel_knowledge.install.registry import InstalledCatalog
from gezel_knowledge.install.state import HomeState
from gezel_knowledge.reader import read_manifest
from gezk.errors import ReasonedError
from gezk.profiles import EmbeddingProfile

__all__ = ["HomeStatus", "PartialDownload", "ProfileReadiness", "home_status"]


@dataclass(frozen=True, slots=True)
class ProfileReadiness:
    """Whether catalogs of one embedding profile can be searched semantically."""

    profile: str
    ready: bool
    catalogs: tuple[str, ...]
    reason: str | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class PartialDownload:
    """A download kept for resume."""

    name: str
    bytes: int


@dataclass(frozen=True, slots=True)
class HomeStatus:
    """The installed catalogs, their embedding readiness, and pending downloads."""

    home: str
    catalogs: tuple[InstalledCatalog, ...]
    embedding: tuple[ProfileReadiness, ...]
    partial_downloads: tuple[PartialDownload, ...]
    shared_store: str | None = None
    """The configured shared store, if any."""
    shared_store_problem: str | None = None
    """Why new installs cannot be placed in it now (they fall back to private)."""
    cleaned: tuple[str, ...] = ()
    """Leftovers of killed or refused jobs removed by ``check`` (relative to ``knowledge/``)."""

    @property
    def quarantined(self) -> tuple[InstalledCatalog, ...]:
        """Installed catalogs whose active version is quarantined."""
        return tuple(c for c in self.catalogs if c.quarantine is not None)


def home_status(
    home: HomeState,
    *,
    check: bool = False,
    resolve_embedder: Callable[[EmbeddingProfile], EmbedderResolution] | None = None,
) -> HomeStatus:
    """Collect the status of ``home`` (mounting everything first when ``check``)."""
    resolve = resolve_embedder or resolve_query_embedder
    cleaned = home.clean_leftovers() if check else ()
    if check:
        for catalog in home.installed():
            if catalog.quarantine is not None:
                recheck(home, catalog.key)
            elif catalog.usable:
                # A failure is recorded as a quarantine, which the status then shows.
                with contextlib.suppress(MountFailed):
                    mount(home, catalog).close()
    catalogs = tuple(home.installed())
    profiles: dict[EmbeddingProfile, list[str]] = {}
    unreadable: list[str] = []
    for catalog in catalogs:
        active = catalog.active
        if active is None or active.quarantine is not None:
            continue
        try:
            profile = read_manifest(home.path_of(active)).embedding
        except (ReasonedError, OSError):
            unreadable.append(catalog.key)
            continue
        profiles.setdefault(profile, []).append(catalog.key)
    readiness: list[ProfileReadiness] = []
    for profile, keys in profiles.items():
        resolution = resolve(profile)
        readiness.append(
            ProfileReadiness(
                profile.id,
                resolution.available,
                tuple(keys),
                resolution.reason,
                resolution.message,
            )
        )
    if unreadable:
        readiness.append(
            ProfileReadiness(
                "unknown",
                False,
                tuple(unreadable),
                "unreadable-manifest",
                "the installed manifest could not be read; run status --check",
            )
        )
    partials = (
        tuple(
            PartialDownload(p.name, p.stat().st_size)
            for p in sorted(home.downloads_dir.glob("*.partial"))
        )
        if home.downloads_dir.is_dir()
        else ()
    )
    readiness.sort(key=lambda r: r.profile)
    store = home.shared_store
    return HomeStatus(
        str(home.root),
        catalogs,
        tuple(readiness),
        partials,
        None if store is None else str(store.root),
        None if store is None else store.problem(probe_write=False),
        cleaned,
    )
