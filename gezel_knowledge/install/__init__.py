"""Installed catalogs: the knowledge home, install jobs, the user registry and project policy.

``KnowledgeHome`` is the entry point (``GEZEL_HOME`` or ``~/.gezel``); :func:`install` installs
into the default home. :class:`~gezel_knowledge.search.KnowledgeSearch` (re-exported here)
searches the installed catalogs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gezel_knowledge.install.cancel import CancelToken
from gezel_knowledge.install.download import DownloadResult, download
from gezel_knowledge.install.errors import (
    DownloadFailed,
    InsufficientSpace,
    NetworkNotAllowed,
    SharedPlacementUnavailable,
)
from gezel_knowledge.install.home import KnowledgeHome, gezel_home
from gezel_knowledge.install.job import InstallResult, InstallStatus, PlacementRequest
from gezel_knowledge.install.locking import FileLock, LockTimeout
from gezel_knowledge.install.mount import MountFailed
from gezel_knowledge.install.policy import CatalogPolicy, PolicyMode, eligible_catalogs
from gezel_knowledge.install.registry import (
    InstalledCatalog,
    InstalledVersion,
    Placement,
    Quarantine,
    RegistrySnapshot,
    UserRegistry,
)
from gezel_knowledge.install.registry_document import (
    CatalogCoordinate,
    RegistryDocument,
    RegistryRelease,
    load_registry_document,
    locate_release,
    resolve_release,
)
from gezel_knowledge.install.shared_store import (
    ENV_SHARED_STORE,
    ReclaimReport,
    SharedEntry,
    SharedReference,
    SharedStore,
)
from gezel_knowledge.install.space import check_free_space, disk_free_space
from gezel_knowledge.install.status import HomeStatus, PartialDownload, ProfileReadiness
from gezel_knowledge.install.updates import (
    AvailableUpdate,
    RegistryProblem,
    UpdateCheck,
    UpdateFailure,
    UpdatePolicy,
    UpdateReport,
)
from gezel_knowledge.progress import ProgressSink

__all__ = [
    "ENV_SHARED_STORE",
    "AvailableUpdate",
    "CancelToken",
    "CatalogCoordinate",
    "CatalogPolicy",
    "DownloadFailed",
    "DownloadResult",
    "FileLock",
    "HomeStatus",
    "InstallResult",
    "InstallStatus",
    "InstalledCatalog",
    "InstalledVersion",
    "InsufficientSpace",
    "KnowledgeHome",
    "KnowledgeResults",
    "KnowledgeSearch",
    "LockTimeout",
    "MountFailed",
    "NetworkNotAllowed",
    "PartialDownload",
    "Placement",
    "PlacementRequest",
    "PolicyMode",
    "ProfileReadiness",
    "Quarantine",
    "ReclaimReport",
    "RegistryDocument",
    "RegistryProblem",
    "RegistryRelease",
    "RegistrySnapshot",
    "SharedEntry",
    "SharedPlacementUnavailable",
    "SharedReference",
    "SharedStore",
    "UpdateCheck",
    "UpdateFailure",
    "UpdatePolicy",
    "UpdateReport",
    "UserRegistry",
    "check_free_space",
    "disk_free_space",
    "download",
    "eligible_catalogs",
    "gezel_home",
    "install",
    "load_registry_document",
    "locate_release",
    "resolve_release",
]


def install(
    source: str | Path,
    expected_sha256: str | None = None,
    progress: ProgressSink | None = None,
    **options: Any,
) -> InstallResult:
    """Install a catalog into the default home (see :meth:`KnowledgeHome.install`)."""
    return KnowledgeHome().install(source, expected_sha256, progress, **options)


def __getattr__(name: str) -> Any:
    # KnowledgeSearch lives in gezel_knowledge.search, which imports this package: re-export
    # it lazily so that either package can be imported first.
    if name in ("KnowledgeResults", "KnowledgeSearch"):
        from gezel_knowledge.search import knowledge_search  # noqa: PLC0415

        return getattr(knowledge_search, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
