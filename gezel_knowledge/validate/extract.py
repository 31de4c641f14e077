"""From an untrusted ``.gezk`` to a verified, extracted catalog directory (spec 3.3, 3.4, 12).

The one path every caller that extracts an archive to read it takes (opening a file by path, the
install job): the archive checks and the checked extraction of
:class:`~gezel_knowledge.archive.ArchiveFile`, then validation of the extracted copy while it is
still a staging directory, so a catalog that fails is never published at the destination.
Extraction has just verified every size, digest and asset, so validation does not hash again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from gezel_knowledge.archive.findings import Finding, error_for
from gezel_knowledge.archive.verify import ArchiveFile
from gezel_knowledge.errors import KnowledgeError
from gezel_knowledge.validate.catalog import validate_catalog
from gezel_knowledge.validate.report import ValidationReport
from gezk.signing import TrustAnchors

__all__ = ["extract_verified"]


def extract_verified(
    archive: ArchiveFile,
    dest: Path,
    *,
    expected_sha256: str | None = None,
    deep: bool = False,
    trust: TrustAnchors | None = None,
    label: str | None = None,
    on_extracted: Callable[[], None] | None = None,
) -> ValidationReport:
    """Verify ``archive``, extract it to ``dest`` and validate the copy before publishing it.

    Raises the first problem as a typed error (naming ``label``, when given, as the catalog that
    failed validation) and leaves nothing at ``dest``. ``on_extracted`` runs between extraction
    and validation (for progress and cancellation; what it raises aborts the same way). The
    report's ``provenance`` carries the signature verdict under ``trust``.
    """
    reports: list[ValidationReport] = []

    def validate_staged(staged: Path) -> None:
        if on_extracted is not None:
            on_extracted()
        report = validate_catalog(
            staged, deep=deep, trust=trust, limits=archive.limits, check_digests=False
        )
        if report.errors:
            raise _refusal(report.errors[0], label)
        reports.append(report)

    archive.extract(dest, expected_sha256, on_staged=validate_staged)
    return replace(reports[0], path=dest, archive_sha256=archive.sha256)


def _refusal(first: Finding, label: str | None) -> KnowledgeError:
    error = error_for(first)
    if label is None:
        return error
    return type(error)(
        f"{label} failed validation: {first}",
        reason=first.reason,
        subject=first.subject or label,
    )
