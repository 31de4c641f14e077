"""Validate an extracted catalog directory or a ``.gezk`` archive, reporting every finding.

The rules are those of spec sections 3 (container), 4 (manifest), 5 (databases), 6-8 (vectors,
chunks, shards) and 12 (signatures).

Structural validation (manifest schema, files and digests, databases and their ``meta`` echoes,
shards and centroids, the table of contents and placements, documents, spatial summary) always
runs; ``deep=True`` adds SQLite integrity checks, chunk/vector alignment, the self-neighbour
probe through both search stages, the manifest's smoke queries and every body decoded. The
provenance verdict is separate: structural validity never implies a verified origin.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Mapping
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from gezel_knowledge.archive.findings import Finding
from gezel_knowledge.archive.limits import DEFAULT_LIMITS, ArchiveLimits
from gezel_knowledge.archive.manifest import parse_manifest_bytes
from gezel_knowledge.archive.paths import MANIFEST_PATH
from gezel_knowledge.archive.verify import ArchiveFile
from gezel_knowledge.errors import KnowledgeError, NotFound
from gezel_knowledge.validate._context import Context
from gezel_knowledge.validate._databases import check_router, check_shards
from gezel_knowledge.validate._deep import check_deep
from gezel_knowledge.validate._documents import check_documents
from gezel_knowledge.validate._files import check_files
from gezel_knowledge.validate._manifest import check_manifest
from gezel_knowledge.validate._spatial import check_spatial
from gezel_knowledge.validate._toc import check_toc
from gezel_knowledge.validate.provenance import provenance_verdict
from gezel_knowledge.validate.report import ProvenanceVerdict, ValidationReport
from gezk.manifest import CatalogManifest

__all__ = ["validate_archive", "validate_catalog", "validate_path"]

Trust = Mapping[str, Ed25519PublicKey]

_STRUCTURE = (
    ("manifest", check_manifest),
    ("files", check_files),
    ("router", check_router),
    ("shards", check_shards),
    ("toc", check_toc),
    ("documents", check_documents),
    ("spatial", check_spatial),
)


def _unreadable(path: Path, deep: bool, finding: Finding) -> ValidationReport:
    return ValidationReport(
        path=path,
        deep=deep,
        findings=(finding,),
        provenance=ProvenanceVerdict("unsigned", "the manifest could not be read"),
    )


def validate_catalog(
    path: Path | str,
    *,
    deep: bool = False,
    trust: Trust | None = None,
    limits: ArchiveLimits = DEFAULT_LIMITS,
    check_digests: bool = True,
) -> ValidationReport:
    """Validate an extracted catalog directory; report all findings and a provenance verdict.

    ``check_digests=False`` skips re-hashing every file (and re-checking asset contents): only
    for a directory :func:`~gezel_knowledge.archive.extract_archive` has just verified.
    """
    root = Path(path)
    manifest_path = root / MANIFEST_PATH
    if not manifest_path.is_file():
        raise NotFound(
            f"{root} is not an extracted catalog (no manifest.json)",
            reason="catalog-not-found",
            subject=str(root),
        )
    if manifest_path.stat().st_size > limits.max_manifest_bytes:
        return _unreadable(root, deep, Finding("manifest-too-large", "manifest.json is too big"))
    try:
        manifest = parse_manifest_bytes(manifest_path.read_bytes())
    except KnowledgeError as exc:
        return _unreadable(root, deep, Finding(exc.reason, exc.message, exc.subject))
    return _validate(
        root, manifest, deep=deep, trust=trust, limits=limits, check_digests=check_digests
    )


def _validate(
    root: Path,
    manifest: CatalogManifest,
    *,
    deep: bool,
    trust: Trust | None,
    limits: ArchiveLimits,
    archive_sha256: str | None = None,
    prior: tuple[Finding, ...] = (),
    check_digests: bool = True,
) -> ValidationReport:
    ctx = Context(root, manifest, limits, check_digests)
    ran: list[str] = []
    try:
        for name, check in _STRUCTURE:
            ctx.guard(name, functools.partial(check, ctx))
            ran.append(name)
        if deep:
            check_deep(ctx)
            ran.append("deep")
    finally:
        ctx.close()
    return ValidationReport(
        path=root,
        deep=deep,
        findings=(*prior, *ctx.finish()),
        provenance=provenance_verdict(manifest.raw, trust),
        manifest=manifest,
        archive_sha256=archive_sha256,
        checks=tuple(ran),
    )


def validate_archive(
    path: Path | str,
    *,
    deep: bool = False,
    trust: Trust | None = None,
    expected_sha256: str | None = None,
    limits: ArchiveLimits = DEFAULT_LIMITS,
) -> ValidationReport:
    """Validate a ``.gezk``: every archive check, then (if those pass) the extracted catalog.

    Extraction goes to a temporary directory that is removed afterwards.
    """
    archive = Path(path)
    # One open file, hashed and scanned once, for the checks and the extraction alike.
    with ArchiveFile(archive, limits=limits) as source:
        info, findings = source.scan(expected_sha256)
        if info is None or any(f.severity == "error" for f in findings):
            provenance = (
                provenance_verdict(info.manifest.raw, trust)
                if info is not None
                else ProvenanceVerdict("unsigned", "the manifest could not be read")
            )
            return ValidationReport(
                path=archive,
                deep=deep,
                findings=tuple(findings),
                provenance=provenance,
                manifest=info.manifest if info else None,
                archive_sha256=info.sha256 if info else None,
                checks=("archive",),
            )
        with tempfile.TemporaryDirectory(prefix="gezk-validate-") as tmp:
            dest = Path(tmp) / "catalog"
            try:
                source.extract(dest)
            except KnowledgeError as exc:
                return ValidationReport(
                    path=archive,
                    deep=deep,
                    findings=(*findings, Finding(exc.reason, exc.message, exc.subject)),
                    provenance=provenance_verdict(info.manifest.raw, trust),
                    manifest=info.manifest,
                    archive_sha256=info.sha256,
                    checks=("archive",),
                )
            report = _validate(
                dest,
                info.manifest,
                deep=deep,
                trust=trust,
                limits=limits,
                archive_sha256=info.sha256,
                prior=tuple(findings),
                check_digests=False,  # the extraction verified every file just now
            )
    return ValidationReport(
        path=archive,
        deep=report.deep,
        findings=report.findings,
        provenance=report.provenance,
        manifest=report.manifest,
        archive_sha256=info.sha256,
        checks=("archive", *report.checks),
    )


def validate_path(
    path: Path | str,
    *,
    deep: bool = False,
    trust: Trust | None = None,
    expected_sha256: str | None = None,
    limits: ArchiveLimits = DEFAULT_LIMITS,
) -> ValidationReport:
    """Validate what ``path`` holds: a ``.gezk`` file (:func:`validate_archive`) or an extracted
    catalog directory (:func:`validate_catalog`; ``expected_sha256`` applies to files only)."""
    p = Path(path)
    if p.is_file():
        return validate_archive(
            p, deep=deep, trust=trust, expected_sha256=expected_sha256, limits=limits
        )
    if not p.exists():
        raise NotFound(f"no catalog at {p}", reason="catalog-not-found", subject=str(p))
    return validate_catalog(p, deep=deep, trust=trust, limits=limits)
