"""The ``.gezk`` container (spec section 3): verification before anything is trusted; writing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezel_knowledge.archive.findings import Finding as Finding
    from gezel_knowledge.archive.findings import Severity as Severity
    from gezel_knowledge.archive.limits import DEFAULT_LIMITS as DEFAULT_LIMITS
    from gezel_knowledge.archive.limits import ArchiveLimits as ArchiveLimits
    from gezel_knowledge.archive.verify import ArchiveEntry as ArchiveEntry
    from gezel_knowledge.archive.verify import ArchiveFile as ArchiveFile
    from gezel_knowledge.archive.verify import ArchiveInfo as ArchiveInfo
    from gezel_knowledge.archive.verify import extract_archive as extract_archive
    from gezel_knowledge.archive.verify import file_sha256 as file_sha256
    from gezel_knowledge.archive.verify import inspect_archive as inspect_archive
    from gezel_knowledge.archive.verify import scan_archive as scan_archive
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezel_knowledge.archive.findings": (
                "Finding",
                "Severity",
            ),
            "gezel_knowledge.archive.limits": (
                "DEFAULT_LIMITS",
                "ArchiveLimits",
            ),
            "gezel_knowledge.archive.verify": (
                "ArchiveEntry",
                "ArchiveFile",
                "ArchiveInfo",
                "extract_archive",
                "file_sha256",
                "inspect_archive",
                "scan_archive",
            ),
        },
    )
