"""Installed catalogs: the knowledge home, install jobs, the user registry and project policy.

``KnowledgeHome`` is the entry point (``GEZEL_HOME`` or ``~/.gezel``); :func:`install_catalog`
installs into the default home. :class:`~gezel_knowledge.search.KnowledgeSearch`, a layer above
this one, searches the installed catalogs.

Names are imported on first use: searching or reading installed catalogs does not load the
download, registry-document and update machinery an install needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezel_knowledge._locking import LockTimeout as LockTimeout
    from gezel_knowledge.install.bundled import install_handbook as install_handbook
    from gezel_knowledge.install.cancel import CancelToken as CancelToken
    from gezel_knowledge.install.errors import DownloadFailed as DownloadFailed
    from gezel_knowledge.install.errors import InsufficientSpace as InsufficientSpace
    from gezel_knowledge.install.errors import NetworkNotAllowed as NetworkNotAllowed
    from gezel_knowledge.install.errors import (
        SharedPlacementUnavailable as SharedPlacementUnavailable,
    )
    from gezel_knowledge.install.home import KnowledgeHome as KnowledgeHome
    from gezel_knowledge.install.home import install_catalog as install_catalog
    from gezel_knowledge.install.mount import MountFailed as MountFailed
    from gezel_knowledge.install.mount import mount_catalog as mount_catalog
    from gezel_knowledge.install.placement import PlacementRequest as PlacementRequest
    from gezel_knowledge.install.policy import CatalogPolicy as CatalogPolicy
    from gezel_knowledge.install.policy import PolicyMode as PolicyMode
    from gezel_knowledge.install.registry import AmbiguousCatalog as AmbiguousCatalog
    from gezel_knowledge.install.registry import InstalledCatalog as InstalledCatalog
    from gezel_knowledge.install.registry import InstalledVersion as InstalledVersion
    from gezel_knowledge.install.registry import Placement as Placement
    from gezel_knowledge.install.registry import Quarantine as Quarantine
    from gezel_knowledge.install.registry_document import CatalogCoordinate as CatalogCoordinate
    from gezel_knowledge.install.registry_document import RegistryDocument as RegistryDocument
    from gezel_knowledge.install.registry_document import RegistryRelease as RegistryRelease
    from gezel_knowledge.install.registry_document import (
        load_registry_document as load_registry_document,
    )
    from gezel_knowledge.install.result import InstallResult as InstallResult
    from gezel_knowledge.install.result import InstallStatus as InstallStatus
    from gezel_knowledge.install.shared_store import ReclaimReport as ReclaimReport
    from gezel_knowledge.install.shared_store import SharedEntry as SharedEntry
    from gezel_knowledge.install.shared_store import SharedReference as SharedReference
    from gezel_knowledge.install.shared_store import SharedStore as SharedStore
    from gezel_knowledge.install.state import HomeState as HomeState
    from gezel_knowledge.install.status import HomeStatus as HomeStatus
    from gezel_knowledge.install.status import PartialDownload as PartialDownload
    from gezel_knowledge.install.status import ProfileReadiness as ProfileReadiness
    from gezel_knowledge.install.updates import AvailableUpdate as AvailableUpdate
    from gezel_knowledge.install.updates import RegistryProblem as RegistryProblem
    from gezel_knowledge.install.updates import UpdateCheck as UpdateCheck
    from gezel_knowledge.install.updates import UpdateFailure as UpdateFailure
    from gezel_knowledge.install.updates import UpdatePolicy as UpdatePolicy
    from gezel_knowledge.install.updates import UpdateReport as UpdateReport
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezel_knowledge._locking": ("LockTimeout",),
            "gezel_knowledge.install.bundled": ("install_handbook",),
            "gezel_knowledge.install.cancel": ("CancelToken",),
            "gezel_knowledge.install.errors": (
                "DownloadFailed",
                "InsufficientSpace",
                "NetworkNotAllowed",
                "SharedPlacementUnavailable",
            ),
            "gezel_knowledge.install.home": (
                "KnowledgeHome",
                "install_catalog",
            ),
            "gezel_knowledge.install.mount": (
                "MountFailed",
                "mount_catalog",
            ),
            "gezel_knowledge.install.placement": ("PlacementRequest",),
            "gezel_knowledge.install.policy": (
                "CatalogPolicy",
                "PolicyMode",
            ),
            "gezel_knowledge.install.registry": (
                "AmbiguousCatalog",
                "InstalledCatalog",
                "InstalledVersion",
                "Placement",
                "Quarantine",
            ),
            "gezel_knowledge.install.registry_document": (
                "CatalogCoordinate",
                "RegistryDocument",
                "RegistryRelease",
                "load_registry_document",
            ),
            "gezel_knowledge.install.result": (
                "InstallResult",
                "InstallStatus",
            ),
            "gezel_knowledge.install.shared_store": (
                "ReclaimReport",
                "SharedEntry",
                "SharedReference",
                "SharedStore",
            ),
            "gezel_knowledge.install.state": ("HomeState",),
            "gezel_knowledge.install.status": (
                "HomeStatus",
                "PartialDownload",
                "ProfileReadiness",
            ),
            "gezel_knowledge.install.updates": (
                "AvailableUpdate",
                "RegistryProblem",
                "UpdateCheck",
                "UpdateFailure",
                "UpdatePolicy",
                "UpdateReport",
            ),
        },
    )
