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
``extract``   into ``.staging`` (per-file SHA-256 checked after extraction);
``validate``  deep validation of the extracted databases;
``publish``   make it read-only and rename it into ``knowledge/<pub>/<cat>/<ver>/<digest16>``
              (or into the shared store's ``catalogs/<sha256>``);
``register``  point the user registry at it; only then release the previous version.

A trusted coordinate whose bytes the shared store already holds skips download, extraction and
validation: the entry was verified by whoever published it and cannot be modified, so the job
only checks that its declared files are present and records this user's reference.

An explicit :class:`~gezel_knowledge.install.cancel.CancelToken` stops the job at the next
check point up to ``publish``; the partial download stays for a resume and nothing is
published. Publish and register happen together under the registry lock (the store lock, then
the registry lock, for shared placement), so two processes installing at once cannot
half-register a version.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from gezel_knowledge._atomic import move_to_trash, publish_read_only, remove_tree
from gezel_knowledge._locking import FileLock
from gezel_knowledge.archive.paths import MANIFEST_PATH
from gezel_knowledge.archive.verify import ArchiveFile
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
from gezel_knowledge.install.errors import InsufficientSpace, SharedPlacementUnavailable
from gezel_knowledge.install.mount import check_files
from gezel_knowledge.install.registry import (
    InstalledCatalog,
    InstalledVersion,
    Placement,
    RegistrySnapshot,
    catalog_key,
)
from gezel_knowledge.install.registry_document import (
    CatalogCoordinate,
    RegistryDocument,
    RegistryRelease,
    locate_release,
)
from gezel_knowledge.install.shared_store import SharedEntry, SharedStore
from gezel_knowledge.install.space import check_free_space
from gezel_knowledge.install.state import HomeState
from gezel_knowledge.progress import ProgressEvent, ProgressSink, emit_safely
from gezel_knowledge.validate import ProvenanceVerdict, provenance_verdict, validate_catalog
from gezk.errors import GezkError
from gezk.ids import is_sha256_hex
from gezk.signing import TrustAnchors

__all__ = [
    "InstallResult",
    "InstallStatus",
    "PlacementRequest",
    "normalize_sha256",
    "run_install",
]

InstallStatus = Literal["installed", "unchanged", "activated", "kept"]
PlacementRequest = Literal["auto", "private", "shared"]
"""``auto``: shared when the source is a trusted coordinate and a writable shared store is
configured, else private; ``private``: always private; ``shared``: shared or fail."""

_PLACEMENT_REQUESTS: tuple[PlacementRequest, ...] = ("auto", "private", "shared")
_BLOCK = 1 << 20


@dataclass(frozen=True, slots=True)
class InstallResult:
    """What an install did and where the catalog now lives."""

    status: InstallStatus
    """``installed`` (new bytes published or shared bytes newly referenced), ``unchanged`` (same
    bytes already active), ``activated`` (same bytes were installed but another version was
    active) or ``kept`` (a bundled install left a newer, non-bundled version active)."""
    catalog: InstalledCatalog
    version: InstalledVersion
    path: Path
    previous: InstalledVersion | None = None
    """The version that was active before, when the install replaced it."""
    download: DownloadResult | None = None
    placement_reason: str | None = None
    """Why this install is private (``private-requested``, ``local-import``, ``arbitrary-url``,
    ``unverified-registry``, ``no-shared-store``, ``shared-store-unavailable``,
    ``shared-copy-damaged``); ``None`` when it is shared or nothing was installed."""
    placement_message: str | None = None
    """The same, as one human-readable line (names the store and the failure)."""

    @property
    def key(self) -> str:
        """``publisher/catalog``."""
        return self.catalog.key

    @property
    def placement(self) -> Placement:
        """Where the active bytes live: ``private`` or ``shared``."""
        return self.version.placement


def normalize_sha256(value: str | None) -> str | None:
    """Accept ``HEX`` or ``sha256:HEX`` in any case; return lowercase hex or raise."""
    if value is None:
        return None
    text = value.strip().lower().removeprefix("sha256:")
    if not is_sha256_hex(text):
        raise InvalidInput(
            f"not a SHA-256 digest (64 hex digits): {value!r}",
            reason="invalid-digest",
            subject=value,
        )
    return text


@dataclass(frozen=True, slots=True)
class _Source:
    kind: Literal["file", "url", "coordinate"]
    location: str
    expected_sha256: str | None
    archive_bytes: int | None
    label: str
    release: RegistryRelease | None = None
    trusted: bool = False
    """A coordinate resolved through a registry document verified against trust anchors."""
    registry: str | None = None


@dataclass(frozen=True, slots=True)
class _Placement:
    store: SharedStore | None
    reason: str | None = None
    message: str | None = None

    @property
    def kind(self) -> Placement:
        return "private" if self.store is None else "shared"

    def describe(self) -> str:
        if self.store is not None:
            return f"shared store {self.store.root}"
        return f"private ({self.reason}: {self.message})"


class _SharedCopyDamaged(Exception):
    """The shared store's entry for the promised digest fails its file check."""


class _Job:
    def __init__(
        self,
        home: HomeState,
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


@dataclass(frozen=True, slots=True)
class _Options:
    trust: TrustAnchors | None
    keep_previous: bool
    require_signature: bool
    placement: PlacementRequest
    """The caller's request, carried to every later placement decision: ``shared`` must fail,
    never quietly become private."""


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
) -> InstallResult:
    """Run the install job (see the module docstring); used by :meth:`KnowledgeHome.install`.

    ``label`` replaces the source recorded in the registry (bundled installs use it).
    """
    job = _Job(home, progress, cancel or CancelToken())
    options = _Options(trust, keep_previous, require_signature, placement)
    expected = normalize_sha256(expected_sha256)
    if placement not in _PLACEMENT_REQUESTS:
        raise InvalidInput(
            f"placement must be one of {', '.join(_PLACEMENT_REQUESTS)}, got {placement!r}",
            reason="invalid-placement",
            subject=str(placement),
        )
    job.emit("resolve", message=str(source))
    src = _resolve(source, expected, registries, trust)
    if label is not None:
        src = replace(src, label=label)
    place = _choose_placement(home, src, placement)
    job.emit("placement", 1, 1, "steps", place.describe())
    job.check()
    if src.expected_sha256 is not None:
        early = _already_active(home.snapshot(), src.expected_sha256, home)
        if early is not None:
            job.emit("register", 1, 1, "steps", "already installed")
            return early
        if place.store is not None:
            try:
                adopted = _adopt_shared(
                    job,
                    place=place,
                    src=src,
                    digest=src.expected_sha256,
                    options=options,
                    fetched=None,
                )
            except _SharedCopyDamaged as exc:
                place = _damaged(src, options.placement, place, str(exc))
                job.emit("placement", 1, 1, "steps", place.describe())
            else:
                if adopted is not None:
                    return adopted
    if src.kind != "file":
        key = src.expected_sha256 or hashlib.sha256(src.location.encode("utf-8")).hexdigest()
        partial = home.downloads_dir / f"{key}.partial"
        home.downloads_dir.mkdir(parents=True, exist_ok=True)
        # One process at a time per partial file; a second installer waits, then resumes.
        with FileLock(home.downloads_dir / f"{key}.lock", timeout=None):
            return _install_url(job, src, place, partial, options)
    path = Path(src.location)
    job.emit("space", message="checking free space")
    size = path.stat().st_size
    check_free_space(
        home.knowledge_dir, size, what=f"extracting {path.name}", probe=home.free_space
    )
    return _install_archive(job, path, src, place=place, fetched=None, options=options)


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
        release, registry = locate_release(text, registries, trust=trust)
        if expected is not None and expected != release.content_digest:
            raise InvalidInput(
                f"--sha256 {expected} disagrees with the registry digest "
                f"{release.content_digest} of {release.coordinate}",
                reason="digest-conflict",
                subject=text,
            )
        return _Source(
            "coordinate",
            release.url,
            release.content_digest,
            release.archive_bytes,
            str(release.coordinate),
            release=release,
            trusted=trust is not None,
            registry=_registry_location(registry),
        )
    raise NotFound(
        f"{text} is not a file, an http(s) URL or a publisher/catalog[@version] coordinate",
        reason="source-not-found",
        subject=text,
    )


def _registry_location(registry: RegistryDocument) -> str | None:
    """Where a registry document can be read again (for update checks), if anywhere."""
    if registry.source == "<memory>":
        return None
    if is_url(registry.source):
        return registry.source
    return str(Path(registry.source).absolute())


def _choose_placement(home: HomeState, src: _Source, request: PlacementRequest) -> _Placement:
    """Shared for a trusted coordinate when a usable store is configured; else private, why."""
    if request == "private":
        return _Placement(None, "private-requested", "private placement was requested")
    if src.kind == "file":
        reason, message = "local-import", "local imports use private storage"
    elif src.kind == "url":
        reason, message = "arbitrary-url", "installs from a URL use private storage"
    elif not src.trusted:
        reason = "unverified-registry"
        message = "the registry document was not verified against trust anchors"
    else:
        store = home.shared_store
        if store is None:
            reason = "no-shared-store"
            message = "no shared store is configured (GEZEL_SHARED_STORE)"
        else:
            problem = store.problem()
            if problem is None:
                return _Placement(store)
            reason, message = "shared-store-unavailable", problem
    if request == "shared":
        raise SharedPlacementUnavailable(
            f"{src.label} cannot be placed in a shared store: {message}",
            reason=reason,
            subject=src.label,
        )
    return _Placement(None, reason, message)


def _damaged(
    src: _Source, request: PlacementRequest, place: _Placement, problem: str
) -> _Placement:
    message = f"the shared store's copy is damaged ({problem}); installing privately"
    if request == "shared":
        raise SharedPlacementUnavailable(
            f"{src.label}: {message}", reason="shared-copy-damaged", subject=src.label
        )
    return _Placement(None, "shared-copy-damaged", message)


def _already_active(
    snapshot: RegistrySnapshot, sha256: str, home: HomeState
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
    place: _Placement,
    partial: Path,
    options: _Options,
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
            job, partial, src, place=place, fetched=result, options=options
        )
    except (Cancelled, InsufficientSpace, SharedPlacementUnavailable):
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


def _check_release(src: _Source, publisher_id: str, catalog_id: str, version: str) -> None:
    """A coordinate's bytes must be the release the registry named, not some other catalog."""
    release = src.release
    if release is None:
        return
    got = (publisher_id, catalog_id, version)
    want = (release.publisher_id, release.catalog_id, release.version)
    if got != want:
        raise IntegrityFailure(
            f"{src.label} resolved to an archive of {publisher_id}/{catalog_id}@{version}",
            reason="release-mismatch",
            subject=src.label,
        )


def _install_archive(
    job: _Job,
    archive: Path,
    src: _Source,
    *,
    place: _Placement,
    fetched: DownloadResult | None,
    options: _Options,
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
        return _install_checked(
            job, opened, digest, src, place=place, fetched=fetched, options=options
        )


def _install_checked(
    job: _Job,
    opened: ArchiveFile,
    digest: str,
    src: _Source,
    *,
    place: _Placement,
    fetched: DownloadResult | None,
    options: _Options,
) -> InstallResult:
    home = job.home
    job.emit("archive", 0, 1, "steps", "checking archive")
    info = opened.inspect(digest)
    manifest = info.manifest
    _check_release(src, manifest.publisher_id, manifest.id, manifest.version)
    job.emit("archive", 1, 1, "steps")
    key = catalog_key(manifest.publisher_id, manifest.id)
    target = home.version_dir(manifest.publisher_id, manifest.id, manifest.version, digest)

    existing = home.snapshot().get(key)
    reuse = existing.version_by_digest(digest) if existing is not None else None
    if reuse is not None and reuse.quarantine is None and home.path_of(reuse).is_dir():
        return _activate_existing(job, key, digest, fetched)

    if place.store is not None:
        try:
            # Another process may have published these bytes while this one downloaded them.
            adopted = _adopt_shared(
                job, place=place, src=src, digest=digest, options=options, fetched=fetched
            )
        except _SharedCopyDamaged as exc:
            place = _damaged(src, options.placement, place, str(exc))
            job.emit("placement", 1, 1, "steps", place.describe())
        else:
            if adopted is not None:
                return adopted

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
    if place.store is not None:
        staging_root = place.store.new_staging(label)
    else:
        staging_root = home.staging_dir / f"{label}-{uuid.uuid4().hex[:12]}"
    staging = staging_root / "catalog"
    try:
        job.emit("extract", 0, extracted, message="extracting")
        opened.extract(staging, digest)
        job.emit("extract", extracted, extracted)
        job.check()
        job.emit("validate", 0, 1, "steps", "deep validation")
        report = validate_catalog(staging, deep=True, trust=options.trust)
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
            path=home.relative(target)
            if place.store is None
            else str(place.store.catalog_dir(digest)),
            archive_bytes=info.size_bytes,
            extracted_bytes=extracted,
            installed_at=utc_now(),
            format_version=manifest.format_version,
            embedding_profile=manifest.embedding.id,
            name=manifest.name,
            source=src.label,
            provenance=_provenance(report.provenance, src.label, options.require_signature),
            placement=place.kind,
            placement_reason=place.reason,
            registry=src.registry,
        )
        if place.store is not None:
            return _publish_shared(
                job,
                place=place,
                staged=staging_root,
                record=record,
                publisher_id=manifest.publisher_id,
                catalog_id=manifest.id,
                fetched=fetched,
                options=options,
            )
        return _publish(
            job,
            publisher_id=manifest.publisher_id,
            catalog_id=manifest.id,
            staging=staging,
            target=target,
            record=record,
            fetched=fetched,
            keep_previous=options.keep_previous,
            place=place,
        )
    finally:
        remove_tree(staging_root)


def _provenance(verdict: ProvenanceVerdict, label: str, require_signature: bool) -> str:
    """The provenance recorded for the version; refuses a signature that fails to verify."""
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


def _adopt_shared(
    job: _Job,
    *,
    place: _Placement,
    src: _Source,
    digest: str,
    options: _Options,
    fetched: DownloadResult | None,
) -> InstallResult | None:
    """Reference bytes the shared store already holds; ``None`` when it does not hold them."""
    store = place.store
    assert store is not None
    if not store.has(digest):
        return None
    home = job.home
    with store.lock():
        try:
            entry = store.entry(digest)
            if entry is None:
                return None  # reclaimed a moment ago: download and publish afresh
            root = store.catalog_dir(digest)
            check_files(root)
            raw = json.loads((root / MANIFEST_PATH).read_bytes())
        except (KnowledgeError, GezkError, OSError, ValueError) as exc:
            raise _SharedCopyDamaged(str(exc)) from exc
        _check_release(src, entry.publisher_id, entry.catalog_id, entry.version)
        provenance = _provenance(
            provenance_verdict(raw, options.trust), src.label, options.require_signature
        )
        job.emit("publish", 1, 1, "steps", f"reusing {root}")
        key = catalog_key(entry.publisher_id, entry.catalog_id)
        record = InstalledVersion(
            version=entry.version,
            archive_sha256=digest,
            path=str(root),
            archive_bytes=entry.archive_bytes,
            extracted_bytes=entry.extracted_bytes,
            installed_at=utc_now(),
            format_version=entry.format_version,
            embedding_profile=entry.embedding_profile,
            name=entry.name,
            source=src.label,
            provenance=provenance,
            placement="shared",
            registry=src.registry,
        )
        store.add_reference(digest, home.root, catalog=key, version=entry.version)
        with home.registry.lock():
            result, release = _register(
                job,
                home.registry.read(),
                publisher_id=entry.publisher_id,
                catalog_id=entry.catalog_id,
                record=record,
                fetched=fetched,
                keep_previous=options.keep_previous,
                published=False,
                place=place,
            )
    # Outside the store lock: releasing a shared version takes that lock itself.
    home.release(release)
    return result


def _publish_shared(
    job: _Job,
    *,
    place: _Placement,
    staged: Path,
    record: InstalledVersion,
    publisher_id: str,
    catalog_id: str,
    fetched: DownloadResult | None,
    options: _Options,
) -> InstallResult:
    store = place.store
    assert store is not None
    home = job.home
    key = catalog_key(publisher_id, catalog_id)
    entry = SharedEntry(
        archive_sha256=record.archive_sha256,
        publisher_id=publisher_id,
        catalog_id=catalog_id,
        version=record.version,
        archive_bytes=record.archive_bytes,
        extracted_bytes=record.extracted_bytes,
        format_version=record.format_version,
        embedding_profile=record.embedding_profile,
        name=record.name,
        source=record.source,
        published_at=record.installed_at,
    )
    job.emit("publish", 0, 1, "steps", str(store.entry_dir(record.archive_sha256)))
    with store.lock():
        store.publish(staged, entry)
        job.emit("publish", 1, 1, "steps")
        store.add_reference(record.archive_sha256, home.root, catalog=key, version=record.version)
        with home.registry.lock():
            result, release = _register(
                job,
                home.registry.read(),
                publisher_id=publisher_id,
                catalog_id=catalog_id,
                record=record,
                fetched=fetched,
                keep_previous=options.keep_previous,
                published=True,
                place=place,
            )
    home.release(release)
    return result


def _publish(
    job: _Job,
    *,
    publisher_id: str,
    catalog_id: str,
    staging: Path,
    target: Path,
    record: InstalledVersion,
    fetched: DownloadResult | None,
    keep_previous: bool,
    place: _Placement,
) -> InstallResult:
    home = job.home
    job.emit("publish", 0, 1, "steps", str(target))
    aside: list[Path] = []
    with home.registry.lock():
        snap = home.registry.read()
        current = snap.get(catalog_key(publisher_id, catalog_id))
        same = current.version_by_digest(record.archive_sha256) if current else None
        published = False
        if same is not None and same.quarantine is None and home.path_of(same).is_dir():
            # Another process published these bytes while we were extracting.
            record = same
        else:
            published = True
            if target.exists():
                # An orphan from an interrupted run or a quarantined copy being repaired.
                aside.append(move_to_trash(target, home.trash_dir))
            publish_read_only(staging, target)
        job.emit("publish", 1, 1, "steps")
        result, release = _register(
            job,
            snap,
            publisher_id=publisher_id,
            catalog_id=catalog_id,
            record=record,
            fetched=fetched,
            keep_previous=keep_previous,
            published=published,
            place=place,
        )
    home.discard(aside)
    home.release(release)
    return result


def _register(
    job: _Job,
    snap: RegistrySnapshot,
    *,
    publisher_id: str,
    catalog_id: str,
    record: InstalledVersion,
    fetched: DownloadResult | None,
    keep_previous: bool,
    published: bool,
    place: _Placement,
) -> tuple[InstallResult, list[InstalledVersion]]:
    """Point the registry at ``record`` (caller holds the registry lock and read ``snap`` under
    it); return the result and the versions to release once the lock is dropped."""
    home = job.home
    job.emit("register", 0, 1, "steps")
    current = snap.get(catalog_key(publisher_id, catalog_id))
    catalog = current or InstalledCatalog(publisher_id, catalog_id, enabled=True)
    previous = catalog.active
    sha = record.archive_sha256
    catalog = replace(
        catalog.with_version(record).with_quarantine(sha, None),
        active_sha256=sha,
    )
    release: list[InstalledVersion] = []
    replaced = current.version_by_digest(sha) if current is not None else None
    if replaced is not None and (replaced.placement, replaced.path) != (
        record.placement,
        record.path,
    ):
        # The same bytes, kept until now in the other placement: its files go.
        release.append(replaced)
    if not keep_previous:
        for old in catalog.versions:
            if old.archive_sha256 != sha:
                release.append(old)
                catalog = catalog.without_version(old.archive_sha256)
    home.registry.write(snap.with_catalog(catalog))
    job.emit("register", 1, 1, "steps")
    # Publishing over a quarantined copy of the same bytes is a repair: "installed".
    status: InstallStatus = "installed"
    if not published and previous is not None and previous.archive_sha256 == sha:
        status = "unchanged"
    result = InstallResult(
        status,
        catalog,
        record,
        home.path_of(record),
        previous if previous is not None and previous.archive_sha256 != sha else None,
        fetched,
        place.reason,
        place.message,
    )
    return result, release


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
