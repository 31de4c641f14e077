"""Installed catalogs: the knowledge home, install jobs, the user registry and project policy."""

from gezel_knowledge.install.cancel import CancelToken
from gezel_knowledge.install.download import DownloadResult, download
from gezel_knowledge.install.errors import DownloadFailed, InsufficientSpace
from gezel_knowledge.install.home import KnowledgeHome, gezel_home
from gezel_knowledge.install.locking import FileLock, LockTimeout
from gezel_knowledge.install.policy import CatalogPolicy, eligible_catalogs
from gezel_knowledge.install.registry import (
    InstalledCatalog,
    InstalledVersion,
    Quarantine,
    RegistrySnapshot,
    UserRegistry,
)
from gezel_knowledge.install.space import check_free_space, disk_free_space

__all__ = [
    "CancelToken",
    "CatalogPolicy",
    "DownloadFailed",
    "DownloadResult",
    "FileLock",
    "InstalledCatalog",
    "InstalledVersion",
    "InsufficientSpace",
    "KnowledgeHome",
    "LockTimeout",
    "Quarantine",
    "RegistrySnapshot",
    "UserRegistry",
    "check_free_space",
    "disk_free_space",
    "download",
    "eligible_catalogs",
    "gezel_home",
]
