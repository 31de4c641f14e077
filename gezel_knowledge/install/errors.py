"""Errors specific to installing catalogs, grouped by what the caller can do about them."""

from __future__ import annotations

from gezel_knowledge.errors import KnowledgeError

__all__ = [
    "DownloadFailed",
    "InsufficientSpace",
    "NetworkNotAllowed",
    "SharedPlacementUnavailable",
]


class InsufficientSpace(KnowledgeError):
    """The disk holding the knowledge home has too little free space for the job: free some."""

    default_reason = "insufficient-space"
    category = "unavailable"


class DownloadFailed(KnowledgeError):
    """The archive could not be fetched (network, server status); a later call can resume."""

    default_reason = "download-failed"
    category = "unavailable"


class SharedPlacementUnavailable(KnowledgeError):
    """Shared placement was required but is impossible: configure a writable shared store,
    trust the registry, or install privately."""

    default_reason = "shared-store-unavailable"
    category = "unavailable"


class NetworkNotAllowed(KnowledgeError):
    """Background work needs the network, which the app-network policy forbids: allow it, or
    run the update as an explicit request."""

    default_reason = "network-not-allowed"
    category = "unavailable"
