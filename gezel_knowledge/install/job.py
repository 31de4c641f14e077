"""The install job: from a file, URL or registry coordinate to a published, registered catalog.

Steps, each reported as a :class:`~gezel_knowledge.progress.ProgressEvent` of job ``install``:

``resolve``   decide what the source is (file, ``http(s)`` URL, ``publisher/catalog[@version]``
              through registry documents) and which digest was promised;
``space``     check free space for the bytes still to download plus the extracted catalog;
``download``  fetch into ``.downloads/<key>.partial``, resuming a previous attempt;
``digest``    hash the archive and compare with the promised SHA-256 (spec section 12 MUST);
``archive``   the archive checks of section 3.3 (magic, entries, manifest, sizes);
``extract``   into ``.staging`` (per-file SHA-256 checked after extraction);
``validate``  deep validation of the extracted databases;
``publish``   make it read-only and rename it into ``knowledge/<pub>/<cat>/<ver>/<digest16>``;
``register``  point the user registry at it; only then delete the previous version.

An explicit :class:`~gezel_knowledge.install.cancel.CancelToken` stops the job at the next
check point up to ``publish``; the partial download stays for a resume and nothing is
published. Publish and register happen together under the registry lock, so two processes
installing at once cannot half-register a version.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from gezel_knowledge._atomic import make_read_only, remove_tree
from gezel_knowledge.archive.verify import extract_archive, inspect_archive
from gezel_knowledge.errors import (
    Cancelled,
    IntegrityFailure,
    InvalidInput,
    KnowledgeError,
    NotFound,
)
from gezel_knowledge.install._time import utc_now
from gezel_knowledge.install.cancel import CancelToken
from gezel_knowledge.install.download import DownloadResult, download, is_url, sidecar_path
from gezel_knowledge.install.errors import InsufficientSpace
from gezel_knowledge.install.locking import FileLock
from gezel_knowledge.install.registry import (
    InstalledCatalog,
    InstalledVersion,
    RegistrySnapshot,
    catalog_key,
)
from gezel_knowledge.install.registry_document import (
    CatalogCoordinate,
    RegistryDocument,
    resolve_release,
)
from gezel_knowledge.install.space import check_free_space
from gezel_knowledge.progress import ProgressEvent, ProgressSink, emit_safely
from gezel_knowledge.validate import ValidationReport, validate_catalog
from gezk.errors import GezkError
from gezk.signing import TrustAnchors

if TYPE_CHECKING:
    from gezel_knowledge.install.home import KnowledgeHome

__all__ = ["InstallResult", "InstallStatus", "normalize_sha256", "run_install"]

InstallStatus = Literal["installed", "unchanged", "activated"]
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_BLOCK = 1 << 20


@dataclass(frozen=True, slots=True)
class InstallResult:
    """What an install did and where the catalog now lives."""

    status: InstallStatus
    """``installed`` (new bytes published), ``unchanged`` (same bytes already active) or
    ``activated`` (same bytes were installed but another version was active)."""
    catalog: InstalledCatalog
    version: InstalledVersion
    path: Path
    previous: InstalledVersion | None = None
    """The version that was active before, when the install replaced it."""
    download: DownloadResult | None = None

    @property
    def key(self) -> str:
        """``publisher/catalog``."""
        return self.catalog.key


def normalize_sha256(value: str | None) -> str | None:
    """Accept ``HEX`` or ``sha256:HEX`` in any case; return lowercase hex or raise."""
    if value is None:
        return None
    text = value.strip().lower().removeprefix("sha256:")
    if not _HEX64.match(text):
        raise InvalidInput(
            f"not a SHA-256 digest (64 hex digits): {value!r}",
            reason="invalid-digest",
            subject=value,
        )
    return text


@dataclass(frozen=True, slots=True)
class _Source:
    kind: Literal["file", "url"]
    location: str
    expected_sha256: str | None
    archive_bytes: int | None
    label: str


class _Job:
    def __init__(
        self,
        home: KnowledgeHome,
        progress: ProgressSink | None,
        cancel: CancelToken,
    ) -> None:
        self.home = home
        self.progress = progress
        self.cancel = cancel

    def emit(
        self,
        step: str,
        done: int = 0,
        total: int | None = None,
        unit: str = "bytes",
        message: str = "",
    ) -> None:
        emit_safely(self.progress, ProgressEvent("install", step, done, total, unit, message))

    def check(self) -> None:
        self.cancel.check("install")


def run_install(
    home: KnowledgeHome,
    source: str | Path,
    expected_sha256: str | None = None,
    progress: ProgressSink | None = None,
    *,
    cancel: CancelToken | None = None,
    trust: TrustAnchors | None = None,
    registries: tuple[RegistryDocument, ...] = (),
    keep_previous: bool = False,
    require_signature: bool = False,
) -> InstallResult:
    """Run the install job (see the module docstring); used by :meth:`KnowledgeHome.install`."""
    job = _Job(home, progress, cancel or CancelToken())
    expected = normalize_sha256(expected_sha256)
    job.emit("resolve", message=str(source))
    src = _resolve(source, expected, registries, trust)
    job.check()
    if src.expected_sha256 is not None:
        early = _already_active(home.snapshot(), src.expected_sha256, home)
        if early is not None:
            job.emit("register", 1, 1, "steps", "already installed")
            return early
    if src.kind == "url":
        key = src.expected_sha256 or hashlib.sha256(src.location.encode("utf-8")).hexdigest()
        partial = home.downloads_dir / f"{key}.partial"
        home.downloads_dir.mkdir(parents=True, exist_ok=True)
        # One process at a time per partial file; a second installer waits, then resumes.
        with FileLock(home.downloads_dir / f"{key}.lock", timeout=None):
            return _install_url(
                job, src, partial, trust, keep_previous=keep_previous, require=require_signature
            )
    path = Path(src.location)
    job.emit("space", message="checking free space")
    size = path.stat().st_size
    check_free_space(
        home.knowledge_dir, size, what=f"extracting {path.name}", probe=home.free_space
    )
    return _install_archive(
        job,
        path,
        src,
        fetched=None,
        trust=trust,
        keep_previous=keep_previous,
        require_signature=require_signature,
    )


def _resolve(
    source: str | Path,
    expected: str | None,
    registries: tuple[RegistryDocument, ...],
    trust: TrustAnchors | None,
) -> _Source:
    text = str(source)
    if isinstance(source, str) and is_url(text):
        return _Source("url", text, expected, None, text)
    path = Path(source)
    if path.exists():
        if not path.is_file():
            raise InvalidInput(f"{path} is not a catalog file", reason="not-a-file", subject=text)
        return _Source("file", str(path), expected, None, str(path.absolute()))
    if isinstance(source, str) and CatalogCoordinate.looks_like(text):
        release = resolve_release(text, registries, trust=trust)
        if expected is not None and expected != release.content_digest:
            raise InvalidInput(
                f"--sha256 {expected} disagrees with the registry digest "
                f"{release.content_digest} of {release.coordinate}",
                reason="digest-conflict",
                subject=text,
            )
        return _Source(
            "url",
            release.url,
            release.content_digest,
            release.archive_bytes,
            str(release.coordinate),
        )
    raise NotFound(
        f"{text} is not a file, an http(s) URL or a publisher/catalog[@version] coordinate",
        reason="source-not-found",
        subject=text,
    )


def _already_active(
    snapshot: RegistrySnapshot, sha256: str, home: KnowledgeHome
) -> InstallResult | None:
    for catalog in snapshot:
        active = catalog.active
        if (
            active is not None
            and active.archive_sha256 == sha256
            and active.quarantine is None
            and home.path_of(active).is_dir()
        ):
            return InstallResult("unchanged", catalog, active, home.path_of(active))
    return None


def _install_url(
    job: _Job,
    src: _Source,
    partial: Path,
    trust: TrustAnchors | None,
    *,
    keep_previous: bool,
    require: bool,
) -> InstallResult:
    home = job.home
    job.emit("space", message="checking free space")
    if src.archive_bytes is not None:
        have = partial.stat().st_size if partial.exists() else 0
        remaining = max(0, src.archive_bytes - have)
        # Stored ZIP entries: the extracted catalog is about as large as the archive.
        check_free_space(
            home.knowledge_dir,
            remaining + src.archive_bytes,
            what=f"downloading and extracting {src.label}",
            probe=home.free_space,
        )

    def before_write(remaining: int | None) -> None:
        if remaining is None:
            return
        size = remaining + (partial.stat().st_size if partial.exists() else 0)
        check_free_space(
            home.knowledge_dir,
            remaining + size,
            what=f"downloading and extracting {src.label}",
            probe=home.free_space,
        )

    result = download(
        src.location,
        partial,
        expected_size=src.archive_bytes,
        cancel=job.cancel,
        progress=job.progress,
        before_write=before_write,
        opener=home.opener,
    )
    job.check()
    try:
        installed = _install_archive(
            job,
            partial,
            src,
            fetched=result,
            trust=trust,
            keep_previous=keep_previous,
            require_signature=require,
        )
    except (Cancelled, InsufficientSpace):
        raise  # the bytes are fine: keep them for the next attempt
    except (KnowledgeError, GezkError):
        # The download is complete, so this is about its content (wrong digest, a corrupt or
        # invalid catalog): resuming from these bytes could never succeed.
        _forget_partial(partial)
        raise
    _forget_partial(partial)
    return installed


def _forget_partial(partial: Path) -> None:
    for path in (partial, sidecar_path(partial)):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _hash_file(job: _Job, path: Path) -> str:
    total = path.stat().st_size
    digest = hashlib.sha256()
    done = 0
    job.emit("digest", 0, total)
    with path.open("rb") as fh:
        while block := fh.read(_BLOCK):
            job.check()
            digest.update(block)
            done += len(block)
            job.emit("digest", done, total)
    return digest.hexdigest()


def _install_archive(
    job: _Job,
    archive: Path,
    src: _Source,
    *,
    fetched: DownloadResult | None,
    trust: TrustAnchors | None,
    keep_previous: bool,
    require_signature: bool,
) -> InstallResult:
    home = job.home
    digest = _hash_file(job, archive)
    if src.expected_sha256 is not None and digest != src.expected_sha256:
        raise IntegrityFailure(
            f"archive SHA-256 is {digest}, but {src.expected_sha256} was promised for {src.label}",
            reason="digest-mismatch",
            subject=src.label,
        )
    job.check()
    job.emit("archive", 0, 1, "steps", "checking archive")
    info = inspect_archive(archive, expected_sha256=digest)
    manifest = info.manifest
    job.emit("archive", 1, 1, "steps")
    key = catalog_key(manifest.publisher_id, manifest.id)
    target = home.version_dir(manifest.publisher_id, manifest.id, manifest.version, digest)

    existing = home.snapshot().get(key)
    reuse = existing.version_by_digest(digest) if existing is not None else None
    if reuse is not None and reuse.quarantine is None and home.path_of(reuse).is_dir():
        return _activate_existing(job, key, digest, fetched)

    extracted = sum(f.size_bytes for f in manifest.files) + len(info.manifest_bytes)
    job.emit("space", message="checking free space for extraction")
    check_free_space(
        home.knowledge_dir, extracted, what=f"extracting {src.label}", probe=home.free_space
    )
    job.check()
    staging_root = home.staging_dir / f"{manifest.id}-{digest[:16]}-{uuid.uuid4().hex[:12]}"
    staging = staging_root / "catalog"
    try:
        job.emit("extract", 0, extracted, message="extracting")
        extract_archive(archive, staging, expected_sha256=digest)
        job.emit("extract", extracted, extracted)
        job.check()
        job.emit("validate", 0, 1, "steps", "deep validation")
        report = validate_catalog(staging, deep=True, trust=trust)
        if not report.ok:
            first = report.errors[0]
            raise IntegrityFailure(
                f"{src.label} failed validation: {first}",
                reason=first.reason,
                subject=first.subject or src.label,
            )
        job.emit("validate", 1, 1, "steps")
        # The last point at which cancelling leaves nothing behind but the partial download.
        job.check()
        record = InstalledVersion(
            version=manifest.version,
            archive_sha256=digest,
            path=home.relative(target),
            archive_bytes=info.size_bytes,
            extracted_bytes=extracted,
            installed_at=utc_now(),
            format_version=manifest.format_version,
            embedding_profile=manifest.embedding.id,
            name=manifest.name,
            source=src.label,
            provenance=_provenance(report, src.label, require_signature),
        )
        return _publish(
            job,
            key=key,
            publisher_id=manifest.publisher_id,
            catalog_id=manifest.id,
            staging=staging,
            target=target,
            record=record,
            fetched=fetched,
            keep_previous=keep_previous,
        )
    finally:
        remove_tree(staging_root)


def _provenance(report: ValidationReport, label: str, require_signature: bool) -> str:
    """The provenance recorded for the version; refuses a signature that fails to verify."""
    verdict = report.provenance
    if verdict.status in ("signature-invalid", "malformed-signature"):
        # A signature by a trusted key that does not verify means the manifest was altered.
        raise IntegrityFailure(f"{label}: {verdict.message}", reason=verdict.status, subject=label)
    if require_signature and not verdict.verified:
        raise IntegrityFailure(
            f"{label} has no signature verified by a trusted key ({verdict.status}): "
            f"{verdict.message}",
            reason="unverified-provenance",
            subject=label,
        )
    if verdict.verified and verdict.key_id:
        return f"verified:{verdict.key_id}"
    return verdict.status


def _publish(
    job: _Job,
    *,
    key: str,
    publisher_id: str,
    catalog_id: str,
    staging: Path,
    target: Path,
    record: InstalledVersion,
    fetched: DownloadResult | None,
    keep_previous: bool,
) -> InstallResult:
    home = job.home
    job.emit("publish", 0, 1, "steps", str(target))
    make_read_only(staging)
    # The top directory stays writable until it is in place: moving a directory to another
    # parent needs write permission on the directory itself.
    os.chmod(staging, os.stat(staging).st_mode | stat.S_IWUSR)
    discard: list[Path] = []
    with home.registry.lock():
        snap = home.registry.read()
        current = snap.get(key)
        same = current.version_by_digest(record.archive_sha256) if current else None
        published = False
        if same is not None and same.quarantine is None and home.path_of(same).is_dir():
            # Another process published these bytes while we were extracting.
            pass
        else:
            published = True
            if target.exists():
                # An orphan from an interrupted run or a quarantined copy being repaired.
                discard.append(_move_aside(home, target))
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(staging, target)
            os.chmod(
                target, os.stat(target).st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
            )
            same = record
        job.emit("publish", 1, 1, "steps")
        job.emit("register", 0, 1, "steps")
        catalog = current or InstalledCatalog(publisher_id, catalog_id, enabled=True)
        previous = catalog.active
        catalog = replace(
            catalog.with_version(same).with_quarantine(same.archive_sha256, None),
            active_sha256=same.archive_sha256,
        )
        if not keep_previous:
            for old in catalog.versions:
                if old.archive_sha256 != same.archive_sha256:
                    discard.append(home.path_of(old))
                    catalog = catalog.without_version(old.archive_sha256)
        home.registry.write(snap.with_catalog(catalog))
    job.emit("register", 1, 1, "steps")
    # Only now, with the new version active, does the previous one go.
    home._discard(discard)
    # Publishing over a quarantined copy of the same bytes is a repair: "installed".
    status: InstallStatus = "installed"
    if not published and previous is not None and previous.archive_sha256 == same.archive_sha256:
        status = "unchanged"
    return InstallResult(
        status,
        catalog,
        same,
        home.path_of(same),
        previous
        if previous is not None and previous.archive_sha256 != same.archive_sha256
        else None,
        fetched,
    )


def _move_aside(home: KnowledgeHome, path: Path) -> Path:
    home.trash_dir.mkdir(parents=True, exist_ok=True)
    grave = home.trash_dir / f"{path.name}-{uuid.uuid4().hex[:12]}"
    os.chmod(path, os.stat(path).st_mode | stat.S_IWUSR)
    path.rename(grave)
    return grave


def _activate_existing(
    job: _Job, key: str, digest: str, fetched: DownloadResult | None
) -> InstallResult:
    home = job.home
    previous: list[InstalledVersion | None] = []

    def change(snap: RegistrySnapshot) -> RegistrySnapshot:
        current = snap.find(key)
        previous.append(current.active)
        return snap.with_catalog(replace(current, active_sha256=digest))

    job.emit("register", 0, 1, "steps")
    catalog = home.registry.update(change).find(key)
    job.emit("register", 1, 1, "steps")
    version = catalog.active
    assert version is not None
    before = previous[-1]
    if before is not None and before.archive_sha256 == digest:
        return InstallResult("unchanged", catalog, version, home.path_of(version), None, fetched)
    return InstallResult("activated", catalog, version, home.path_of(version), before, fetched)
