"""The outcome of validating a catalog: every finding, plus a separate provenance verdict (spec
section 12)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gezel_knowledge.archive.findings import Finding
from gezk.manifest import CatalogManifest

__all__ = ["ProvenanceStatus", "ProvenanceVerdict", "ValidationReport"]

ProvenanceStatus = Literal[
    "verified",
    "unsigned",
    "no-trust-anchors",
    "unknown-key",
    "signature-invalid",
    "malformed-signature",
]
"""Only ``verified`` means the manifest was signed by a key the caller trusts."""


@dataclass(frozen=True, slots=True)
class ProvenanceVerdict:
    """Who vouches for the manifest: verified only against caller-supplied trust anchors."""

    status: ProvenanceStatus
    message: str
    key_id: str | None = None

    @property
    def verified(self) -> bool:
        """Whether the signature verified against a trusted key."""
        return self.status == "verified"


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """All findings of a validation run; structural validity and provenance are separate."""

    path: Path
    deep: bool
    findings: tuple[Finding, ...]
    provenance: ProvenanceVerdict
    manifest: CatalogManifest | None = None
    archive_sha256: str | None = None
    checks: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when no finding is an error (warnings allowed); says nothing about provenance."""
        return not any(f.severity == "error" for f in self.findings)

    @property
    def errors(self) -> tuple[Finding, ...]:
        """Findings of severity ``error``."""
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        """Findings of severity ``warning``."""
        return tuple(f for f in self.findings if f.severity == "warning")

    def reasons(self) -> list[str]:
        """The distinct reasons found, in first-seen order."""
        seen: list[str] = []
        for f in self.findings:
            if f.reason not in seen:
                seen.append(f.reason)
        return seen
