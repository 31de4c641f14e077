"""How ``validate`` and ``inspect`` print a validation report: every finding, then a verdict."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gezel_knowledge.cli._output import plural, to_jsonable
from gezel_knowledge.validate import ValidationReport

__all__ = ["finding_lines", "report_view", "verdict"]


def report_view(report: ValidationReport) -> dict[str, Any]:
    """The JSON of a report: ``ok``, then its fields (``manifest`` is the catalog's
    ``manifest.json``, emitted verbatim as the spec defines it)."""
    return {"ok": report.ok, **to_jsonable(report)}


def finding_lines(report: ValidationReport) -> Iterator[str]:
    """One line per finding: severity, reason, message and subject."""
    for f in report.findings:
        where = f" [{f.subject}]" if f.subject else ""
        yield f"{f.severity}: {f.reason}: {f.message}{where}"


def verdict(report: ValidationReport) -> str:
    """``valid`` or ``INVALID (2 errors)``, and which checks ran."""
    state = "valid" if report.ok else f"INVALID ({plural(len(report.errors), 'error')})"
    return f"{state} ({'deep' if report.deep else 'structural'} checks)"
