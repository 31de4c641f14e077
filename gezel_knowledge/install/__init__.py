"""Installed catalogs: the knowledge home, install jobs, the user registry and project policy.

``KnowledgeHome`` is the entry point (``GEZEL_HOME`` or ``~/.gezel``); :func:`install` installs
into the default home. :class:`~gezel_knowledge.search.KnowledgeSearch`, a layer above this one,
searches the installed catalogs.

Names are imported on first use: searching or reading installed catalogs does not load the
download, registry-document and update machinery an install needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_exports

if TYPE_CHECKING:
    from gezel_knowledge._locking import FileLock, LockTimeout
    from gezel_knowledge.install.bundled import install_handbook
    from gezel_knowledge.install.cancel import CancelToken
    from gezel_knowledge.install.download import DownloadResult, download
    from gezel_knowledge.install.errors import (
        DownloadFailed,
        InsufficientSpace,
        NetworkNotAllowed,
        SharedPlacementUnavailable,
    )
    from gezel_knowledge.install.home import KnowledgeHome, gezel_home, install
    from gezel_knowledge.install.mount import MountFailed, mount_catalog
    from gezel_knowledge.install.placement import PlacementRequest
    from gezel_knowledge.install.policy import CatalogPolicy, PolicyMode, eligible_catalogs
    from gezel_knowledge.install.registry import (
        AmbiguousCatalog,
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
    from gezel_knowledge.install.result import InstallResult, InstallStatus
    from gezel_knowledge.install.shared_store import (
        ENV_SHARED_STORE,
        ReclaimReport,
        SharedEntry,
        SharedReference,
        SharedStore,
    )
    from gezel_knowledge.install.space import check_free_space, disk_free_space
    from gezel_knowledge.install.state import HomeState
    from gezel_knowledge.install.status import HomeStatus, PartialDownload, ProfileReadiness
    from gezel_knowledge.install.updates import (
        AvailableUpdate,
        RegistryProblem,
        UpdateCheck,
        UpdateFailure,
        UpdatePolicy,
        UpdateReport,
    )

_LAZY: dict[str, str] = {
    "AmbiguousCatalog": "gezel_knowledge.install.registry",
    "CancelToken": "gezel_knowledge.install.cancel",
    "DownloadResult": "gezel_knowledge.install.download",
    "download": "gezel_knowledge.install.download",
    "DownloadFailed": "gezel_knowledge.install.errors",
    "InsufficientSpace": "gezel_knowledge.install.errors",
    "NetworkNotAllowed": "gezel_knowledge.install.errors",
    "SharedPlacementUnavailable": "gezel_knowledge.install.errors",
    "KnowledgeHome": "gezel_knowledge.install.home",
    "gezel_home": "gezel_knowledge.install.home",
    "install": "gezel_knowledge.install.home",
    "InstallResult": "gezel_knowledge.install.result",
    "InstallStatus": "gezel_knowledge.install.result",
    "PlacementRequest": "gezel_knowledge.install.placement",
    "FileLock": "gezel_knowledge._locking",
    "LockTimeout": "gezel_knowledge._locking",
    "MountFailed": "gezel_knowledge.install.mount",
    "mount_catalog": "gezel_knowledge.install.mount",
    "install_handbook": "gezel_knowledge.install.bundled",
    "CatalogPolicy": "gezel_knowledge.install.policy",
    "PolicyMode": "gezel_knowledge.install.policy",
    "eligible_catalogs": "gezel_knowledge.install.policy",
    "InstalledCatalog": "gezel_knowledge.install.registry",
    "InstalledVersion": "gezel_knowledge.install.registry",
    "Placement": "gezel_knowledge.install.registry",
    "Quarantine": "gezel_knowledge.install.registry",
    "RegistrySnapshot": "gezel_knowledge.install.registry",
    "UserRegistry": "gezel_knowledge.install.registry",
    "CatalogCoordinate": "gezel_knowledge.install.registry_document",
    "RegistryDocument": "gezel_knowledge.install.registry_document",
    "RegistryRelease": "gezel_knowledge.install.registry_document",
    "load_registry_document": "gezel_knowledge.install.registry_document",
    "locate_release": "gezel_knowledge.install.registry_document",
    "resolve_release": "gezel_knowledge.install.registry_document",
    "ENV_SHARED_STORE": "gezel_knowledge.install.shared_store",
    "ReclaimReport": "gezel_knowledge.install.shared_store",
    "SharedEntry": "gezel_knowledge.install.shared_store",
    "SharedReference": "gezel_knowledge.install.shared_store",
    "SharedStore": "gezel_knowledge.install.shared_store",
    "check_free_space": "gezel_knowledge.install.space",
    "disk_free_space": "gezel_knowledge.install.space",
    "HomeState": "gezel_knowledge.install.state",
    "HomeStatus": "gezel_knowledge.install.status",
    "PartialDownload": "gezel_knowledge.install.status",
    "ProfileReadiness": "gezel_knowledge.install.status",
    "AvailableUpdate": "gezel_knowledge.install.updates",
    "RegistryProblem": "gezel_knowledge.install.updates",
    "UpdateCheck": "gezel_knowledge.install.updates",
    "UpdateFailure": "gezel_knowledge.install.updates",
    "UpdatePolicy": "gezel_knowledge.install.updates",
    "UpdateReport": "gezel_knowledge.install.updates",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())

__all__ = [
    "ENV_SHARED_STORE",
    "AmbiguousCatalog",
    "AvailableUpdate",
    "CancelToken",
    "CatalogCoordinate",
    "CatalogPolicy",
    "DownloadFailed",
    "DownloadResult",
    "FileLock",
    "HomeState",
    "HomeStatus",
    "InstallResult",
    "InstallStatus",
    "InstalledCatalog",
    "InstalledVersion",
    "InsufficientSpace",
    "KnowledgeHome",
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
    "install_handbook",
    "load_registry_document",
    "locate_release",
    "mount_catalog",
    "resolve_release",
]
