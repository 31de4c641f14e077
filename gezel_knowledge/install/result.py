"""What an install did: the outcome of the install job, a bundled install or an update."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gezel_knowledge.install.download import DownloadResult
from gezel_knowledge.install.registry import InstalledCatalog, InstalledVersion, Placement

__all__ = ["InstallResult", "InstallStatus"]

InstallStatus = Literal["installed", "unchanged", "activated", "kept"]


@dataclass(frozen=True, slots=True)
class InstallResult:
    """What an install did and where the catalog now lives."""

    status: InstallStatus
    """``installed`` (new bytes published or shared bytes newly referenced), ``unchanged`` (same
    bytes already active), ``activated`` (same bytes were installed but another version was
    active) or ``kept`` (a bundled install left a newer, non-bundled version active)."""
    catalog: InstalledCatalog
    version: InstalledVersion
    path: Path
    previous: InstalledVersion | None = None
    """The version that was active before, when the install replaced it."""
    download: DownloadResult | None = None
    placement_reason: str | None = None
    """Why this install is private (``private-requested``, ``local-import``, ``arbitrary-url``,
    ``unverified-registry``, ``no-shared-store``, ``shared-store-unavailable``,
    ``shared-copy-damaged``); ``None`` when it is shared or nothing was installed."""
    placement_message: str | None = None
    """The same, as one human-readable line (names the store and the failure)."""
    cleaned: tuple[str, ...] = ()
    """Leftovers of killed or refused jobs this install removed first (relative to
    ``knowledge/``: ``.staging/...``, ``.trash/...``, ``.downloads/...``)."""

    @property
    def key(self) -> str:
        """``publisher/catalog``."""
        return self.catalog.key

    @property
    def signature_dropped(self) -> bool:
        """Whether this install replaced a signed copy of the same version with unsigned bytes
        (a reinstall from an unsigned archive loses the publisher's signature)."""
        previous = self.previous
        return (
            previous is not None
            and previous.version == self.version.version
            and previous.provenance != "unsigned"
            and self.version.provenance == "unsigned"
        )

    @property
    def placement(self) -> Placement:
        """Where the active bytes live: ``private`` or ``shared``."""
        return self.version.placement
