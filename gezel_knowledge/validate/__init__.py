"""Catalog validation (spec sections 3-8): every structural and deep check, and a separate
provenance verdict (section 12); and the one verified extraction of an archive."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezel_knowledge.archive.findings import Finding as Finding
    from gezel_knowledge.archive.findings import Severity as Severity
    from gezel_knowledge.validate.catalog import validate_archive as validate_archive
    from gezel_knowledge.validate.catalog import validate_catalog as validate_catalog
    from gezel_knowledge.validate.catalog import validate_path as validate_path
    from gezel_knowledge.validate.extract import extract_verified as extract_verified
    from gezel_knowledge.validate.provenance import provenance_verdict as provenance_verdict
    from gezel_knowledge.validate.report import ProvenanceStatus as ProvenanceStatus
    from gezel_knowledge.validate.report import ProvenanceVerdict as ProvenanceVerdict
    from gezel_knowledge.validate.report import ValidationReport as ValidationReport
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezel_knowledge.archive.findings": (
                "Finding",
                "Severity",
            ),
            "gezel_knowledge.validate.catalog": (
                "validate_archive",
                "validate_catalog",
                "validate_path",
            ),
            "gezel_knowledge.validate.extract": ("extract_verified",),
            "gezel_knowledge.validate.provenance": ("provenance_verdict",),
            "gezel_knowledge.validate.report": (
                "ProvenanceStatus",
                "ProvenanceVerdict",
                "ValidationReport",
            ),
        },
    )
