"""Catalog validation (spec sections 3-8): every structural and deep check, and a separate
provenance verdict (section 12); and the one verified extraction of an archive."""

from __future__ import annotations

from gezel_knowledge.archive.findings import Finding, Severity
from gezel_knowledge.validate._deep import PROBE_SAMPLE
from gezel_knowledge.validate.catalog import validate_archive, validate_catalog, validate_path
from gezel_knowledge.validate.extract import extract_verified
from gezel_knowledge.validate.provenance import provenance_verdict
from gezel_knowledge.validate.report import ProvenanceStatus, ProvenanceVerdict, ValidationReport
from gezel_knowledge.validate.smoke import SMOKE_TOP_N, smoke_query_hits

__all__ = [
    "PROBE_SAMPLE",
    "SMOKE_TOP_N",
    "Finding",
    "ProvenanceStatus",
    "ProvenanceVerdict",
    "Severity",
    "ValidationReport",
    "extract_verified",
    "provenance_verdict",
    "smoke_query_hits",
    "validate_archive",
    "validate_catalog",
    "validate_path",
]
