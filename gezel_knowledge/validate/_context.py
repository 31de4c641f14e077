"""Shared state of one validation run: the catalog, its connections, and the findings so far."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gezel_knowledge.archive.findings import Finding, Severity
from gezel_knowledge.archive.limits import ArchiveLimits
from gezk.errors import ReasonedError
from gezk.manifest import CatalogManifest

# A broken catalog can produce a finding per row; past this many per reason, count the rest.
_PER_REASON = 20
_VALUE_ERRORS = (ValueError, TypeError, AttributeError, LookupError, OverflowError)


@dataclass
class Context:
    """One validation run."""

    root: Path
    manifest: CatalogManifest
    limits: ArchiveLimits
    check_digests: bool = True
    findings: list[Finding] = field(default_factory=list)
    router: sqlite3.Connection | None = None
    shard_conns: dict[int, sqlite3.Connection] = field(default_factory=dict)
    _counts: Counter[str] = field(default_factory=Counter)
    _dropped: Counter[str] = field(default_factory=Counter)

    @property
    def schema(self) -> int:
        """The index schema version the manifest declares."""
        return self.manifest.index_schema_version

    def add(
        self, reason: str, message: str, subject: str | None = None, severity: Severity = "error"
    ) -> None:
        """Record a finding (beyond the per-reason cap, only count it)."""
        self._counts[reason] += 1
        if self._counts[reason] > _PER_REASON:
            self._dropped[reason] += 1
            return
        self.findings.append(Finding(reason, message, subject, severity))

    def guard(self, what: str, check: Callable[[], None]) -> None:
        """Run a group of checks; a crash in one group becomes a finding, not an abort."""
        try:
            check()
        except sqlite3.Error as exc:
            self.add("corrupt-database", f"{what}: {exc}", what)
        except ReasonedError as exc:
            self.add(exc.reason, f"{what}: {exc}", exc.subject or what)
        except _VALUE_ERRORS as exc:
            # SQLite stores whatever a writer gave it: a value of an unexpected type reaches a
            # check (text where a count belongs, bytes where text does).
            self.add("invalid-value", f"{what}: {type(exc).__name__}: {exc}", what)

    def finish(self) -> list[Finding]:
        """The findings, with a summary line for each reason that hit the cap."""
        out = list(self.findings)
        for reason, n in self._dropped.items():
            out.append(Finding(reason, f"{n} more findings with this reason were not listed"))
        return out

    def close(self) -> None:
        """Close every connection the run opened."""
        for conn in {id(c): c for c in [self.router, *self.shard_conns.values()] if c}.values():
            conn.close()
        self.router = None
        self.shard_conns.clear()
