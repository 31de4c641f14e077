"""The ``.gezk`` container (spec section 3): verification before anything is trusted; writing."""

from __future__ import annotations

from gezel_knowledge.archive.findings import Finding, Severity
from gezel_knowledge.archive.limits import DEFAULT_LIMITS, ArchiveLimits
from gezel_knowledge.archive.paths import MIMETYPE
from gezel_knowledge.archive.verify import (
    ArchiveEntry,
    ArchiveFile,
    ArchiveInfo,
    extract_archive,
    file_sha256,
    inspect_archive,
    scan_archive,
)
from gezel_knowledge.archive.writer import write_archive

__all__ = [
    "DEFAULT_LIMITS",
    "MIMETYPE",
    "ArchiveEntry",
    "ArchiveFile",
    "ArchiveInfo",
    "ArchiveLimits",
    "Finding",
    "Severity",
    "extract_archive",
    "file_sha256",
    "inspect_archive",
    "scan_archive",
    "write_archive",
]
