"""The user registry: which catalogs this user installed, which version is active, and whether
each is enabled or quarantined.

The registry is one JSON file in the knowledge home. Readers never lock: every write replaces
the whole file through a synced temp file and a rename, so a reader sees either the old or the
new document. Writers serialise through :class:`~gezel_knowledge._locking.FileLock` and
apply a pure function to the snapshot they read *under* the lock, so two processes updating at
once never lose each other's change.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from gezel_knowledge._atomic import write_atomic
from gezel_knowledge._locking import FileLock
from gezel_knowledge.errors import IntegrityFailure, InvalidInput, NotFound, Unsupported
from gezk import untrusted_json

__all__ = [
    "REGISTRY_KIND",
    "REGISTRY_SCHEMA",
    "AmbiguousCatalog",
    "InstalledCatalog",
    "InstalledVersion",
    "Placement",
    "Quarantine",
    "RegistrySnapshot",
    "UserRegistry",
    "catalog_key",
]

REGISTRY_KIND = "gezel-knowledge-installed"
REGISTRY_SCHEMA = 2
"""Schema 2 added shared placement (absolute paths into a shared store); schema 1 still reads."""

Placement = Literal["private", "shared"]
"""``private``: files under this user's home; ``shared``: an entry of the machine's shared store."""


def catalog_key(publisher_id: str, catalog_id: str) -> str:
    """The registry key of a catalog: ``publisher/catalog`` (catalog ids are per publisher)."""
    return f"{publisher_id}/{catalog_id}"


@dataclass(frozen=True, slots=True)
class Quarantine:
    """Why an installed version was taken out of service, and when."""

    reason: str
    message: str
    at: str

    def to_json(self) -> dict[str, Any]:
        """The registry JSON form."""
        return {"reason": self.reason, "message": self.message, "at": self.at}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Quarantine:
        """Parse the registry JSON form."""
        return cls(reason=str(obj["reason"]), message=str(obj["message"]), at=str(obj["at"]))


class AmbiguousCatalog(InvalidInput):
    """A bare catalog id names several installed catalogs: name one as publisher/catalog.

    :attr:`candidates` lists their ``publisher/catalog`` keys."""

    default_reason = "ambiguous-catalog"

    def __init__(self, ref: str, candidates: tuple[str, ...]) -> None:
        super().__init__(
            f"catalog id {ref} is ambiguous; name one of: {', '.join(candidates)}", subject=ref
        )
        self.candidates = candidates


@dataclass(frozen=True, slots=True)
class InstalledVersion:
    """One published, immutable copy of a catalog version (identified by its archive digest)."""

    version: str
    archive_sha256: str
    path: str
    """Directory of the extracted catalog, relative to the home, with ``/`` separators."""
    archive_bytes: int
    extracted_bytes: int
    installed_at: str
    format_version: str
    embedding_profile: str
    name: str
    source: str
    provenance: str
    """``verified:<keyId>``, ``unsigned`` or ``unverified`` (signed, key not trusted)."""
    quarantine: Quarantine | None = None
    placement: Placement = "private"
    placement_reason: str | None = None
    """Why a private copy is private (``private-requested``, ``local-import``, ...)."""
    registry: str | None = None
    """The registry document (file or URL) the release was resolved through, if any."""

    @property
    def digest_segment(self) -> str:
        """The first 16 hex digits of the archive digest (the layout's directory name)."""
        return self.archive_sha256[:16]

    def to_json(self) -> dict[str, Any]:
        """The registry JSON form."""
        obj: dict[str, Any] = {
            "version": self.version,
            "archiveSha256": self.archive_sha256,
            "path": self.path,
            "archiveBytes": self.archive_bytes,
            "extractedBytes": self.extracted_bytes,
            "installedAt": self.installed_at,
            "formatVersion": self.format_version,
            "embeddingProfile": self.embedding_profile,
            "name": self.name,
            "source": self.source,
            "provenance": self.provenance,
        }
        if self.quarantine is not None:
            obj["quarantine"] = self.quarantine.to_json()
        obj["placement"] = self.placement
        if self.placement_reason is not None:
            obj["placementReason"] = self.placement_reason
        if self.registry is not None:
            obj["registry"] = self.registry
        return obj

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> InstalledVersion:
        """Parse the registry JSON form."""
        quarantine = obj.get("quarantine")
        return cls(
            version=str(obj["version"]),
            archive_sha256=str(obj["archiveSha256"]),
            path=str(obj["path"]),
            archive_bytes=int(obj["archiveBytes"]),
            extracted_bytes=int(obj["extractedBytes"]),
            installed_at=str(obj["installedAt"]),
            format_version=str(obj["formatVersion"]),
            embedding_profile=str(obj["embeddingProfile"]),
            name=str(obj["name"]),
            source=str(obj["source"]),
            provenance=str(obj["provenance"]),
            quarantine=None if quarantine is None else Quarantine.from_json(quarantine),
            placement=_placement(obj.get("placement", "private")),
            placement_reason=_optional_str(obj.get("placementReason")),
            registry=_optional_str(obj.get("registry")),
        )


def _placement(value: Any) -> Placement:
    if value == "private":
        return "private"
    if value == "shared":
        return "shared"
    raise ValueError(f"unknown placement {value!r}")


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True, slots=True)
class InstalledCatalog:
    """A catalog the user installed: its versions, the active one, and the user's settings."""

    publisher_id: str
    catalog_id: str
    enabled: bool = True
    active_sha256: str | None = None
    versions: tuple[InstalledVersion, ...] = ()

    @property
    def key(self) -> str:
        """``publisher/catalog``."""
        return catalog_key(self.publisher_id, self.catalog_id)

    @property
    def active(self) -> InstalledVersion | None:
        """The version searches and reads resolve through, if any."""
        return self.version_by_digest(self.active_sha256) if self.active_sha256 else None

    @property
    def quarantine(self) -> Quarantine | None:
        """The active version's quarantine record, if it is quarantined."""
        active = self.active
        return None if active is None else active.quarantine

    @property
    def usable(self) -> bool:
        """Installed, enabled and not quarantined: eligible to be mounted and searched."""
        return self.enabled and self.active is not None and self.quarantine is None

    def version_by_digest(self, sha256: str) -> InstalledVersion | None:
        """The installed copy with this archive digest, if present."""
        for v in self.versions:
            if v.archive_sha256 == sha256:
                return v
        return None

    def with_version(self, version: InstalledVersion) -> InstalledCatalog:
        """This catalog with ``version`` added (replacing a record of the same digest)."""
        kept = tuple(v for v in self.versions if v.archive_sha256 != version.archive_sha256)
        return replace(self, versions=(*kept, version))

    def without_version(self, sha256: str) -> InstalledCatalog:
        """This catalog without the copy of that digest (clearing the active pointer to it)."""
        active = None if self.active_sha256 == sha256 else self.active_sha256
        kept = tuple(v for v in self.versions if v.archive_sha256 != sha256)
        return replace(self, versions=kept, active_sha256=active)

    def with_quarantine(self, sha256: str, quarantine: Quarantine | None) -> InstalledCatalog:
        """This catalog with the quarantine record of one copy set or cleared."""
        versions = tuple(
            replace(v, quarantine=quarantine) if v.archive_sha256 == sha256 else v
            for v in self.versions
        )
        return replace(self, versions=versions)

    def to_json(self) -> dict[str, Any]:
        """The registry JSON form."""
        return {
            "publisherId": self.publisher_id,
            "catalogId": self.catalog_id,
            "enabled": self.enabled,
            "active": self.active_sha256,
            "versions": [v.to_json() for v in sorted(self.versions, key=lambda v: v.installed_at)],
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> InstalledCatalog:
        """Parse the registry JSON form."""
        active = obj.get("active")
        return cls(
            publisher_id=str(obj["publisherId"]),
            catalog_id=str(obj["catalogId"]),
            enabled=bool(obj["enabled"]),
            active_sha256=None if active is None else str(active),
            versions=tuple(InstalledVersion.from_json(v) for v in obj["versions"]),
        )


@dataclass(frozen=True, slots=True)
class RegistrySnapshot:
    """An immutable view of the registry at one moment."""

    catalogs: Mapping[str, InstalledCatalog] = field(default_factory=dict)

    def __iter__(self) -> Iterator[InstalledCatalog]:
        return iter(self.catalogs[k] for k in sorted(self.catalogs))

    def __len__(self) -> int:
        return len(self.catalogs)

    def get(self, key: str) -> InstalledCatalog | None:
        """The catalog with this ``publisher/catalog`` key, if installed."""
        return self.catalogs.get(key)

    def find(self, ref: str) -> InstalledCatalog:
        """The catalog named ``publisher/catalog[@version]``, or by bare catalog id (also with
        ``@version``) when that is unique; a version must be the active one."""
        name, at, version = ref.partition("@")
        if "/" in name:
            found = self.catalogs.get(name)
            if found is None:
                raise NotFound(
                    f"catalog {name} is not installed", reason="not-installed", subject=ref
                )
        else:
            found = self._by_id(name, ref)
        if at:
            active = found.active
            if active is None or active.version != version:
                now = "no active version" if active is None else f"version {active.version} is"
                raise NotFound(
                    f"{found.key}@{version} is not installed ({now} active)",
                    reason="version-not-installed",
                    subject=ref,
                )
        return found

    def _by_id(self, catalog_id: str, ref: str) -> InstalledCatalog:
        matches = [c for c in self if c.catalog_id == catalog_id]
        if not matches:
            raise NotFound(
                f"catalog {catalog_id} is not installed", reason="not-installed", subject=ref
            )
        if len(matches) > 1:
            raise AmbiguousCatalog(ref, tuple(sorted(c.key for c in matches)))
        return matches[0]

    def with_catalog(self, catalog: InstalledCatalog) -> RegistrySnapshot:
        """This snapshot with ``catalog`` added or replaced."""
        return RegistrySnapshot({**self.catalogs, catalog.key: catalog})

    def without_catalog(self, key: str) -> RegistrySnapshot:
        """This snapshot without the catalog of that key."""
        return RegistrySnapshot({k: v for k, v in self.catalogs.items() if k != key})

    def to_json(self) -> dict[str, Any]:
        """The registry file's JSON document."""
        return {
            "kind": REGISTRY_KIND,
            "schema": REGISTRY_SCHEMA,
            "catalogs": [c.to_json() for c in self],
        }

    @classmethod
    def from_json(cls, obj: Any, *, subject: str = "registry") -> RegistrySnapshot:
        """Parse the registry file's JSON document."""
        if not isinstance(obj, dict) or obj.get("kind") != REGISTRY_KIND:
            raise IntegrityFailure(
                f"{subject} is not a gezel-knowledge registry",
                reason="registry-corrupt",
                subject=subject,
            )
        schema = obj.get("schema")
        if not isinstance(schema, int) or schema > REGISTRY_SCHEMA:
            raise Unsupported(
                f"{subject} has registry schema {schema!r}; this version reads up to "
                f"{REGISTRY_SCHEMA}",
                reason="registry-schema",
                subject=subject,
            )
        try:
            catalogs = [InstalledCatalog.from_json(c) for c in obj["catalogs"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise IntegrityFailure(
                f"{subject} is malformed: {exc}", reason="registry-corrupt", subject=subject
            ) from exc
        return cls({c.key: c for c in catalogs})


class UserRegistry:
    """The registry file, read without locks and updated under a cross-process lock."""

    def __init__(
        self,
        path: Path,
        *,
        lock_timeout: float | None = 60.0,
        use_fcntl: bool | None = None,
    ) -> None:
        self.path = Path(path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self.lock_timeout = lock_timeout
        self.use_fcntl = use_fcntl

    def read(self) -> RegistrySnapshot:
        """The current snapshot (empty when the registry does not exist yet)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return RegistrySnapshot()
        try:
            obj = untrusted_json.loads(data)
        except ValueError as exc:
            raise IntegrityFailure(
                f"registry {self.path} is not valid JSON: {exc}",
                reason="registry-corrupt",
                subject=str(self.path),
            ) from exc
        return RegistrySnapshot.from_json(obj, subject=str(self.path))

    def lock(self) -> FileLock:
        """The writers' lock; hold it around any read-modify-write of the registry."""
        return FileLock(self.lock_path, timeout=self.lock_timeout, use_fcntl=self.use_fcntl)

    def write(self, snapshot: RegistrySnapshot) -> None:
        """Replace the registry with ``snapshot`` (callers hold :meth:`lock`).

        Refuses a snapshot in which a catalog's active version is not one of its versions: the
        registry never names a version that is not there.
        """
        for catalog in snapshot:
            active = catalog.active_sha256
            if active is not None and catalog.version_by_digest(active) is None:
                raise IntegrityFailure(
                    f"{catalog.key}: the active version {active[:16]} is not installed",
                    reason="registry-invariant",
                    subject=catalog.key,
                )
        text = json.dumps(snapshot.to_json(), ensure_ascii=False, indent=2, sort_keys=False)
        write_atomic(self.path, (text + "\n").encode("utf-8"))

    def update(self, change: Callable[[RegistrySnapshot], RegistrySnapshot]) -> RegistrySnapshot:
        """Apply ``change`` to the snapshot read under the lock and write the result."""
        with self.lock():
            before = self.read()
            after = change(before)
            if after != before:
                self.write(after)
            return after
