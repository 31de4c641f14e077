"""Errors specific to installing catalogs, grouped by what the caller can do about them."""

from __future__ import annotations

from gezel_knowledge.errors import KnowledgeError

__all__ = ["DownloadFailed", "InsufficientSpace"]


class InsufficientSpace(KnowledgeError):
    """The disk holding the knowledge home has too little free space for the job: free some."""

    default_reason = "insufficient-space"


class DownloadFailed(KnowledgeError):
    """The archive could not be fetched (network, server status); a later call can resume."""

    default_reason = "download-failed"
