"""The install job: from a file, URL or registry coordinate to a published, registered catalog.

Steps, each reported as a :class:`~gezel_knowledge.progress.ProgressEvent` of job ``install``:

``resolve``   decide what the source is (file, ``http(s)`` URL, ``publisher/catalog[@version]``
              through registry documents) and which digest was promised;
``placement`` decide where the bytes go: the machine's shared store (a trusted coordinate when
              a writable store is configured) or this user's private home, with the reason;
``space``     check free space for the bytes still to download plus the extracted catalog;
``download``  fetch into ``.downloads/<key>.partial``, resuming a previous attempt;
``digest``    hash the archive and compare with the promised SHA-256 (spec section 12 MUST);
``archive``   the archive checks of section 3.3 (magic, entries, manifest, sizes);
``extract``   into ``.staging`` (sizes, SHA-256 and assets checked as each file is written);
``validate``  deep validation of the extracted copy before it leaves its temporary directory
              (:func:`~gezel_knowledge.validate.extract_verified`, the one path from an
              archive to a verified directory);
``publish``   make it read-only and rename it into ``knowledge/<pub>/<cat>/<ver>/<digest16>``
              (or into the shared store's ``catalogs/<sha256>``);
``register``  point the user registry at it; only then release the previous version.

Trust that was established stays established: when the active version was verified by a
trusted key, bytes that key does not verify (unsigned, another signer, or no ``--trust`` given)
do not replace it (``trust-change``, checked from the manifest before extraction and again under
the registry lock) unless the caller passes ``allow_trust_change``.

A trusted coordinate whose bytes the shared store already holds skips download, extraction and
validation: the entry was verified by whoever published it and cannot be modified, so the job
only checks that its declared files are present and records this user's reference.

An explicit :class:`~gezel_knowledge.install.cancel.CancelToken` stops the job at the next
check point up to ``publish``; the partial download stays for a resume and nothing is
published. Publish and register happen together under the registry lock (the store lock, then
the registry lock, for shared placement), so two processes installing at once cannot
half-register a version.

This module runs the steps in order; deciding the source is :mod:`.source`, the placement
:mod:`.placement`, and publishing and registering :mod:`.publish`.
"""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import replace
from pathlib import Path

from gezel_knowledge._atomic import remove_tree
from gezel_knowledge._locking import FileLock
from gezel_knowledge.archive.paths import MANIFEST_PATH
from gezel_knowledge.archive.verify import ArchiveFile, ArchiveInfo
from gezel_knowledge.errors import Cancelled, IntegrityFailure
from gezel_knowledge.install._time import utc_now
from gezel_knowledge.install.cancel import CancelToken
from gezel_knowledge.install.context import JobContext
from gezel_knowledge.install.download import DownloadResult, download, sidecar_path
from gezel_knowledge.install.errors import (
    DownloadFailed,
    InsufficientSpace,
    SharedPlacementUnavailable,
)
from gezel_knowledge.install.placement import (
    PlacementChoice,
    PlacementRequest,
    check_placement_request,
    choose_placement,
    damaged_placement,
)
from gezel_knowledge.install.publish import (
    SharedCopyDamaged,
    VersionGone,
    activate_existing,
    adopt_shared,
    already_active,
    check_trust_continuity,
    publish_private,
    publish_shared,
    recorded_provenance,
)
from gezel_knowledge.install.registry import InstalledVersion, catalog_key
from gezel_knowledge.install.registry_document import RegistryDocument
from gezel_knowledge.install.result import InstallResult
from gezel_knowledge.install.source import (
    InstallSource,
    check_release,
    normalize_sha256,
    resolve_source,
)
from gezel_knowledge.install.space import check_free_space
from gezel_knowledge.install.staging import staging_directory
from gezel_knowledge.install.state import HomeState
from gezel_knowledge.progress import ProgressSink
from gezel_knowledge.validate import extract_verified, provenance_verdict
from gezk import untrusted_json
from gezk.errors import ReasonedError
from gezk.signing import TrustAnchors

__all__ = ["run_install"]

_BLOCK = 1 << 20


def run_install(
    home: HomeState,
    source: str | Path,
    expected_sha256: str | None = None,
    progress: ProgressSink | None = None,
    *,
    cancel: CancelToken | None = None,
    trust: TrustAnchors | None = None,
    registries: tuple[RegistryDocument, ...] = (),
    keep_previous: bool = False,
    require_signature: bool = False,
    placement: PlacementRequest = "auto",
    label: str | None = None,
    max_download_bytes: int | None = None,
    allow_trust_change: bool = False,
) -> InstallResult:
    """Run the install job (see the module docstring); used by :meth:`KnowledgeHome.install`.

    ``label`` replaces the source recorded in the registry (bundled installs use it).
    ``max_download_bytes`` caps a download whose size no registry entry declares (default
    :data:`~gezel_knowledge.install.download.DEFAULT_MAX_DOWNLOAD_BYTES`).
    """
    job = JobContext(
        home,
        progress,
        cancel or CancelToken(),
        trust,
        keep_previous,
        require_signature,
        placement,
        allow_trust_change,
    )
    # What killed installs left: found under each item's own lock (see staging.py).
    cleaned = home.clean_leftovers()
    result = _run(
        job,
        source,
        expected_sha256=expected_sha256,
        registries=registries,
        placement=placement,
        label=label,
        max_download_bytes=max_download_bytes,
    )
    return replace(result, cleaned=cleaned) if cleaned else result


def _run(
    job: JobContext,
    source: str | Path,
    *,
    expected_sha256: str | None,
    registries: tuple[RegistryDocument, ...],
    placement: PlacementRequest,
    label: str | None,
    max_download_bytes: int | None,
) -> InstallResult:
    home, trust = job.home, job.trust
    expected = normalize_sha256(expected_sha256)
    check_placement_request(placement)
    job.emit("resolve", message=str(source))
    src = resolve_source(source, expected, registries, trust)
    if label is not None:
        src = replace(src, label=label)
    place = choose_placement(home, src, placement)
    job.emit("placement", 1, 1, "steps", place.describe())
    job.check()
    if src.expected_sha256 is not None:
        early = already_active(home.snapshot(), src.expected_sha256, home)
        if early is not None:
            _check_required_signature(job, src, (early.path / MANIFEST_PATH).read_bytes())
            job.emit("register", 1, 1, "steps", "already installed")
            return early
        adopted, place = _adopt_or_fall_back(job, place, src, src.expected_sha256, None)
        if adopted is not None:
            return adopted
    if src.kind != "file":
        key = src.expected_sha256 or hashlib.sha256(src.location.encode("utf-8")).hexdigest()
        partial = home.downloads_dir / f"{key}.partial"
        home.downloads_dir.mkdir(parents=True, exist_ok=True)
        # One process at a time per partial file; a second installer waits, then resumes.
        with FileLock(home.downloads_dir / f"{key}.lock", timeout=None):
            return _install_url(job, src, place, partial, max_download_bytes)
    path = Path(src.location)
    job.emit("space", message="checking free space")
    size = path.stat().st_size
    check_free_space(
        home.knowledge_dir, size, what=f"extracting {path.name}", probe=home.free_space
    )
    return _install_archive(job, path, src, place=place, fetched=None)


def _adopt_or_fall_back(
    job: JobContext,
    place: PlacementChoice,
    src: InstallSource,
    digest: str,
    fetched: DownloadResult | None,
) -> tuple[InstallResult | None, PlacementChoice]:
    """Reference the shared store's copy when it holds these bytes; when that copy is damaged,
    carry on privately (or fail, for a ``shared`` request)."""
    if place.store is None:
        return None, place
    try:
        return adopt_shared(job, place=place, src=src, digest=digest, fetched=fetched), place
    except SharedCopyDamaged as exc:
        place = damaged_placement(src, job.placement, str(exc))
        job.emit("placement", 1, 1, "steps", place.describe())
        return None, place


def _install_url(
    job: JobContext,
    src: InstallSource,
    place: PlacementChoice,
    partial: Path,
    max_bytes: int | None,
) -> InstallResult:
    home = job.home

    def partial_size() -> int:
        return partial.stat().st_size if partial.exists() else 0

    def check_space(remaining: int, archive: int) -> None:
        # The bytes still to download, plus the extracted catalog: stored ZIP entries make it
        # about as large as the whole archive.
        check_free_space(
            home.knowledge_dir,
            remaining + archive,
            what=f"downloading and extracting {src.label}",
            probe=home.free_space,
        )

    job.emit("space", message="checking free space")
    if src.archive_bytes is not None:
        check_space(max(0, src.archive_bytes - partial_size()), src.archive_bytes)

    def before_write(remaining: int | None) -> None:
        if remaining is not None:
            check_space(remaining, remaining + partial_size())

    def written(size: int) -> None:
        # Checked as bytes arrive, so a body of unknown length cannot fill the disk: the bytes
        # written are on disk already, and extracting them needs about as much again.
        check_space(0, size)

    try:
        result = download(
            src.location,
            partial,
            expected_size=src.archive_bytes,
            cancel=job.cancel,
            progress=job.progress,
            before_write=before_write,
            opener=home.opener,
            max_bytes=max_bytes,
            on_written=written,
        )
    except BaseException as exc:
        # A refusal (a status, a size, a server that never delivers) cannot be resumed, and an
        # empty partial holds nothing to resume: neither is left behind.
        refused = isinstance(exc, DownloadFailed) and exc.reason != "download-failed"
        if refused or partial_size() == 0:
            _forget_partial(partial)
        raise
    job.check()
    try:
        installed = _install_archive(job, partial, src, place=place, fetched=result)
    except (Cancelled, InsufficientSpace, SharedPlacementUnavailable):
        raise  # the bytes are fine: keep them for the next attempt
    except ReasonedError:
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


def _hash_file(job: JobContext, path: Path) -> str:
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
    job: JobContext,
    archive: Path,
    src: InstallSource,
    *,
    place: PlacementChoice,
    fetched: DownloadResult | None,
) -> InstallResult:
    digest = _hash_file(job, archive)
    if src.expected_sha256 is not None and digest != src.expected_sha256:
        raise IntegrityFailure(
            f"archive SHA-256 is {digest}, but {src.expected_sha256} was promised for {src.label}",
            reason="digest-mismatch",
            subject=src.label,
        )
    job.check()
    # One open file for the archive checks and the extraction: it is scanned once, and the
    # bytes extracted are those of the file that was checked.
    with ArchiveFile(archive) as opened:
        return _install_checked(job, opened, digest, src, place=place, fetched=fetched)


def _install_checked(
    job: JobContext,
    opened: ArchiveFile,
    digest: str,
    src: InstallSource,
    *,
    place: PlacementChoice,
    fetched: DownloadResult | None,
) -> InstallResult:
    home = job.home
    job.emit("archive", 0, 1, "steps", "checking archive")
    info = opened.inspect(digest)
    manifest = info.manifest
    check_release(src, manifest.publisher.id, manifest.id, manifest.version)
    job.emit("archive", 1, 1, "steps")
    key = catalog_key(manifest.publisher.id, manifest.id)
    target = home.version_dir(manifest.publisher.id, manifest.id, manifest.version, digest)

    existing = home.snapshot().get(key)
    # The verdict on these bytes under this job's trust, before anything is extracted: a
    # required signature that is missing, or a verified catalog about to be replaced by bytes
    # its key does not verify, is refused now (and again under the registry lock).
    provenance = _provenance(job, src, info.manifest_bytes)
    active = existing.active if existing is not None else None
    if active is not None and active.archive_sha256 != digest:
        check_trust_continuity(active, provenance, src.label, allow=job.allow_trust_change)
    reuse = existing.version_by_digest(digest) if existing is not None else None
    if reuse is not None and reuse.quarantine is None and home.path_of(reuse).is_dir():
        # Looked up without the lock: activate_existing checks again under it.
        with contextlib.suppress(VersionGone):
            return activate_existing(job, key, digest, fetched, provenance=provenance)

    # Another process may have published these bytes while this one downloaded them.
    adopted, place = _adopt_or_fall_back(job, place, src, digest, fetched)
    if adopted is not None:
        return adopted
    return _extract_and_publish(job, opened, info, src, target, place=place, fetched=fetched)


def _check_required_signature(job: JobContext, src: InstallSource, manifest: bytes) -> None:
    """With ``require_signature``, refuse bytes installed already whose manifest no trusted key
    signs: reusing an installed copy skips deep validation, never the signature demand."""
    if job.require_signature:
        _provenance(job, src, manifest)


def _provenance(job: JobContext, src: InstallSource, manifest: bytes) -> str:
    """The provenance these manifest bytes would be recorded with under this job's trust;
    raises as recording would (an altered signature, a required one missing)."""
    verdict = provenance_verdict(untrusted_json.loads(manifest), job.trust)
    return recorded_provenance(verdict, src.label, job.require_signature)


def _extract_and_publish(
    job: JobContext,
    opened: ArchiveFile,
    info: ArchiveInfo,
    src: InstallSource,
    target: Path,
    *,
    place: PlacementChoice,
    fetched: DownloadResult | None,
) -> InstallResult:
    """Extract and deeply validate into staging, then publish (privately at ``target``) and
    register."""
    home = job.home
    manifest, digest = info.manifest, info.sha256
    extracted = sum(f.size_bytes for f in manifest.files) + len(info.manifest_bytes)
    job.emit("space", message="checking free space for extraction")
    check_free_space(
        home.knowledge_dir if place.store is None else place.store.root,
        extracted,
        what=f"extracting {src.label}",
        probe=home.free_space,
    )
    job.check()
    label = f"{manifest.id}-{digest[:16]}"
    work = (src, target, place, fetched)
    if place.store is not None:
        staging_root = place.store.new_staging(label)
        try:
            return _publish_from(job, opened, info, staging_root, work)
        finally:
            remove_tree(staging_root)
    # Held by its lock while it exists, so a killed run's copy is found and removed later.
    with staging_directory(home.staging_dir, label) as staging_root:
        return _publish_from(job, opened, info, staging_root, work)


def _publish_from(
    job: JobContext,
    opened: ArchiveFile,
    info: ArchiveInfo,
    staging_root: Path,
    work: tuple[InstallSource, Path, PlacementChoice, DownloadResult | None],
) -> InstallResult:
    """Extract and validate into ``staging_root/catalog``, then publish and register."""
    src, target, place, fetched = work
    home = job.home
    manifest, digest = info.manifest, info.sha256
    extracted = sum(f.size_bytes for f in manifest.files) + len(info.manifest_bytes)
    staging = staging_root / "catalog"

    def extracted_now() -> None:
        job.emit("extract", extracted, extracted)
        job.check()
        job.emit("validate", 0, 1, "steps", "deep validation")

    job.emit("extract", 0, extracted, message="extracting")
    report = extract_verified(
        opened,
        staging,
        expected_sha256=digest,
        deep=True,
        trust=job.trust,
        label=src.label,
        on_extracted=extracted_now,
    )
    job.emit("validate", 1, 1, "steps")
    # The last point at which cancelling leaves nothing behind but the partial download.
    job.check()
    record = InstalledVersion(
        version=manifest.version,
        archive_sha256=digest,
        path=home.relative(target) if place.store is None else str(place.store.catalog_dir(digest)),
        archive_bytes=info.size_bytes,
        extracted_bytes=extracted,
        installed_at=utc_now(),
        format_version=manifest.format_version,
        embedding_profile=manifest.embedding.id,
        name=manifest.name,
        source=src.label,
        provenance=recorded_provenance(report.provenance, src.label, job.require_signature),
        placement=place.kind,
        placement_reason=place.reason,
        registry=src.registry,
    )
    if place.store is not None:
        return publish_shared(
            job,
            place=place,
            staged=staging_root,
            record=record,
            publisher_id=manifest.publisher.id,
            catalog_id=manifest.id,
            fetched=fetched,
        )
    return publish_private(
        job,
        place=place,
        staging=staging,
        target=target,
        record=record,
        publisher_id=manifest.publisher.id,
        catalog_id=manifest.id,
        fetched=fetched,
    )
