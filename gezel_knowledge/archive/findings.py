"""A single problem found while checking a catalog, and the error that carries the first one.

The refusals are those of spec sections 3.3 and 3.4 and the catalog rules of sections 4-8.

Archive inspection stops at the first error (nothing after it can be trusted), while validation
collects every finding; both speak the same vocabulary of kebab-case ``reason`` strings, listed
in ``docs/security.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gezel_knowledge.errors import IntegrityFailure, KnowledgeError, Unsupported

__all__ = ["Finding", "Severity", "error_for"]

Severity = Literal["error", "warning"]

# Reasons that mean "well-formed but a generation this reader does not read".
_UNSUPPORTED = frozenset(
    {"unsupported-format", "unsupported-feature", "version-mismatch", "unsupported-encoding"}
)


@dataclass(frozen=True, slots=True)
class Finding:
    """One check that failed: a stable ``reason``, a one-line message and what it is about."""

    reason: str
    message: str
    subject: str | None = None
    severity: Severity = "error"

    def __str__(self) -> str:
        where = f" ({self.subject})" if self.subject else ""
        return f"{self.reason}: {self.message}{where}"


def error_for(finding: Finding) -> KnowledgeError:
    """The typed exception that reports ``finding`` to a caller who cannot continue."""
    cls = Unsupported if finding.reason in _UNSUPPORTED else IntegrityFailure
    # The one-line error must say what failed (which entry, which file), as a finding does.
    subject = finding.subject
    named = not subject or subject in finding.message
    message = finding.message if named else f"{subject}: {finding.message}"
    return cls(message, reason=finding.reason, subject=subject)
