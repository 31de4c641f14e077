"""The install job's last steps: publish the verified catalog and point the registry at it.

Publishing and registering happen together under the registry lock (the store lock, then the
registry lock, for shared placement), so two processes installing at once cannot half-register a
version; the versions a new one replaces are released only once the locks are dropped. Bytes the
shared store already holds are referenced rather than published again, after a cheap check that
every declared file is there: the entry was verified by whoever published it and cannot be
modified.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from gezel_knowledge._atomic import move_to_trash, publish_read_only
from gezel_knowledge.archive.paths import MANIFEST_PATH
from gezel_knowledge.errors import IntegrityFailure
from gezel_knowledge.install._time import utc_now
from gezel_knowledge.install.context import JobContext
from gezel_knowledge.install.download import DownloadResult
from gezel_knowledge.install.mount import check_files
from gezel_knowledge.install.placement import PlacementChoice
from gezel_knowledge.install.registry import (
    InstalledCatalog,
    InstalledVersion,
    RegistrySnapshot,
    catalog_key,
)
from gezel_knowledge.install.result import InstallResult, InstallStatus
from gezel_knowledge.install.shared_store import SharedEntry
from gezel_knowledge.install.source import InstallSource, check_release
from gezel_knowledge.install.state import HomeState
from gezel_knowledge.validate import ProvenanceVerdict, provenance_verdict
from gezk.errors import ReasonedError

__all__ = [
    "SharedCopyDamaged",
    "VersionGone",
    "activate_existing",
    "adopt_shared",
    "already_active",
    "check_trust_continuity",
    "publish_private",
    "publish_shared",
    "recorded_provenance",
]


class SharedCopyDamaged(Exception):
    """The shared store's entry for the promised digest fails its file check."""


def recorded_provenance(verdict: ProvenanceVerdict, label: str, require_signature: bool) -> str:
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


def check_trust_continuity(
    previous: InstalledVersion | None, provenance: str, label: str, *, allow: bool
) -> None:
    """Refuse to replace a version verified by a trusted key with one that key does not verify
    (``trust-change``), unless ``allow``: a catalog installed with ``--trust K`` must not turn,
    without a word, into one signed by someone else, unsigned, or checked against no key."""
    if allow or previous is None or not previous.provenance.startswith("verified:"):
        return
    if provenance == previous.provenance:
        return
    key = previous.provenance.partition(":")[2]
    now = (
        f"verified by another key ({provenance.partition(':')[2]})"
        if provenance.startswith("verified:")
        else {
            "unsigned": "unsigned",
            "no-trust-anchors": "not checked against that key (no --trust given)",
            "unknown-key": "signed by a key that is not among the --trust keys",
        }.get(provenance, provenance)
    )
    raise IntegrityFailure(
        f"{label}: the installed {previous.version} was verified by key {key}, and this one is "
        f"{now}; pass --trust with that key, or --allow-trust-change to replace it anyway",
        reason="trust-change",
        subject=label,
    )


def already_active(
    snapshot: RegistrySnapshot, sha256: str, home: HomeState
) -> InstallResult | None:
    """The install of these bytes when they are already the active, intact version."""
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


def adopt_shared(
    job: JobContext,
    *,
    place: PlacementChoice,
    src: InstallSource,
    digest: str,
    fetched: DownloadResult | None,
) -> InstallResult | None:
    """Reference bytes the shared store already holds; ``None`` when it does not hold them.

    Raises :class:`SharedCopyDamaged` when the store's entry fails its file check.
    """
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
        except (ReasonedError, OSError, ValueError) as exc:
            raise SharedCopyDamaged(str(exc)) from exc
        check_release(src, entry.publisher_id, entry.catalog_id, entry.version)
        provenance = recorded_provenance(
            provenance_verdict(raw, job.trust), src.label, job.require_signature
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
                record=record,
                fetched=fetched,
                published=False,
                place=place,
                publisher_id=entry.publisher_id,
                catalog_id=entry.catalog_id,
            )
    # Outside the store lock: releasing a shared version takes that lock itself.
    home.release(release)
    return result


def publish_shared(
    job: JobContext,
    *,
    place: PlacementChoice,
    staged: Path,
    record: InstalledVersion,
    publisher_id: str,
    catalog_id: str,
    fetched: DownloadResult | None,
) -> InstallResult:
    """Publish the staged catalog into the shared store and reference it from this home."""
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
                record=record,
                fetched=fetched,
                published=True,
                place=place,
                publisher_id=publisher_id,
                catalog_id=catalog_id,
            )
    home.release(release)
    return result


def publish_private(
    job: JobContext,
    *,
    place: PlacementChoice,
    staging: Path,
    target: Path,
    record: InstalledVersion,
    publisher_id: str,
    catalog_id: str,
    fetched: DownloadResult | None,
) -> InstallResult:
    """Make the staged catalog read-only and rename it to ``target`` in this home."""
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
            record=record,
            fetched=fetched,
            published=published,
            place=place,
            publisher_id=publisher_id,
            catalog_id=catalog_id,
        )
    home.discard(aside)
    home.release(release)
    return result


def _register(
    job: JobContext,
    snap: RegistrySnapshot,
    *,
    record: InstalledVersion,
    fetched: DownloadResult | None,
    published: bool,
    place: PlacementChoice,
    publisher_id: str,
    catalog_id: str,
) -> tuple[InstallResult, list[InstalledVersion]]:
    """Point the registry at ``record`` (caller holds the registry lock and read ``snap`` under
    it); return the result and the versions to release once the lock is dropped."""
    home = job.home
    job.emit("register", 0, 1, "steps")
    current = snap.get(catalog_key(publisher_id, catalog_id))
    catalog = current or InstalledCatalog(publisher_id, catalog_id, enabled=True)
    previous = catalog.active
    sha = record.archive_sha256
    if previous is not None and previous.archive_sha256 != sha:
        # Under the registry lock: the version being replaced is the one really active now.
        check_trust_continuity(
            previous, record.provenance, record.source, allow=job.allow_trust_change
        )
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
    if not job.keep_previous:
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


class VersionGone(Exception):
    """The installed copy to reactivate was removed or quarantined since it was looked up."""


def activate_existing(
    job: JobContext,
    key: str,
    digest: str,
    fetched: DownloadResult | None,
    *,
    provenance: str | None = None,
) -> InstallResult:
    """Make an installed, intact version of these bytes the active one again.

    The copy is looked up again under the registry lock (another process may have replaced it
    since the caller's unlocked read); raises :class:`VersionGone`, changing nothing, when it is
    no longer there, so the caller publishes the bytes afresh. ``provenance`` is the verdict
    on these bytes under this job's trust (the recorded one when not given), which must not
    break the trust of the version it replaces (:func:`check_trust_continuity`).
    """
    home = job.home
    previous: list[InstalledVersion | None] = []

    def change(snap: RegistrySnapshot) -> RegistrySnapshot:
        current = snap.get(key)
        version = current.version_by_digest(digest) if current is not None else None
        if current is None or version is None or version.quarantine is not None:
            raise VersionGone(digest)
        if not home.path_of(version).is_dir():
            raise VersionGone(digest)
        active = current.active
        if active is not None and active.archive_sha256 != digest:
            check_trust_continuity(
                active,
                provenance or version.provenance,
                version.source,
                allow=job.allow_trust_change,
            )
        previous.append(current.active)
        return snap.with_catalog(replace(current, active_sha256=digest))

    job.emit("register", 0, 1, "steps")
    catalog = home.registry.update(change).find(key)
    job.emit("register", 1, 1, "steps")
    version = catalog.active
    if version is None:
        raise VersionGone(digest)
    before = previous[-1]
    if before is not None and before.archive_sha256 == digest:
        return InstallResult("unchanged", catalog, version, home.path_of(version), None, fetched)
    return InstallResult("activated", catalog, version, home.path_of(version), before, fetched)
