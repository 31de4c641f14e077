"""Publisher registry documents (``kind: gezk-registry``, spec section 12).

A registry lists a publisher's releases with their download ``url``, ``archiveBytes`` and
``contentDigest`` (the archive's SHA-256). It only *locates* bytes: whatever it says, an install
still verifies the archive against ``contentDigest`` before extracting. A registry may be signed
exactly like a manifest; :meth:`RegistryDocument.verify` checks that signature against the
caller's trust anchors, and resolution of ``publisher/catalog[@version]`` can be made to require
it.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gezel_knowledge.errors import IntegrityFailure, InvalidInput, NotFound
from gezel_knowledge.install.download import is_url
from gezel_knowledge.install.errors import DownloadFailed
from gezel_knowledge.validate.catalog import validate_archive
from gezk import untrusted_json
from gezk.errors import InvalidIdentifier
from gezk.ids import validate_catalog_id, validate_publisher_id, validate_version
from gezk.schemas import validate_registry
from gezk.signing import TrustAnchors, sign_manifest, verify_manifest

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from gezk.manifest import CatalogManifest

__all__ = [
    "CatalogCoordinate",
    "RegistryDocument",
    "RegistryRelease",
    "build_registry",
    "load_registry_document",
    "locate_release",
    "resolve_release",
    "version_sort_key",
]

_COORDINATE = re.compile(r"^([^/@\s]+)/([^/@\s]+)(?:@(\S+))?$")


@dataclass(frozen=True, slots=True)
class CatalogCoordinate:
    """``publisher/catalog[@version]``: a catalog by name, optionally pinned to a version."""

    publisher_id: str
    catalog_id: str
    version: str | None = None

    def __str__(self) -> str:
        base = f"{self.publisher_id}/{self.catalog_id}"
        return base if self.version is None else f"{base}@{self.version}"

    @classmethod
    def parse(cls, text: str) -> CatalogCoordinate:
        """Parse and validate ``publisher/catalog[@version]``."""
        match = _COORDINATE.match(text.strip())
        if match is None:
            raise InvalidInput(
                f"not a catalog coordinate (publisher/catalog[@version]): {text!r}",
                reason="invalid-coordinate",
                subject=text,
            )
        publisher, catalog, version = match.groups()
        return cls(
            validate_publisher_id(publisher),
            validate_catalog_id(catalog),
            None if version is None else validate_version(version),
        )

    @classmethod
    def looks_like(cls, text: str) -> bool:
        """Whether ``text`` has the shape of a coordinate (not a path or URL)."""
        return _COORDINATE.match(text.strip()) is not None and not is_url(text)


def _coordinate(value: CatalogCoordinate | str) -> CatalogCoordinate:
    return value if isinstance(value, CatalogCoordinate) else CatalogCoordinate.parse(value)


@dataclass(frozen=True, slots=True)
class RegistryRelease:
    """One release row of a registry: where the bytes are and what they must hash to."""

    publisher_id: str
    catalog_id: str
    version: str
    name: str
    language: str
    documents: int
    archive_bytes: int
    content_digest: str
    url: str
    license_name: str
    attribution_required: bool
    description: str | None = None

    @property
    def coordinate(self) -> CatalogCoordinate:
        """``publisher/catalog@version`` of this release."""
        return CatalogCoordinate(self.publisher_id, self.catalog_id, self.version)

    def to_json(self) -> dict[str, Any]:
        """The registry document's ``catalogs[]`` row."""
        row: dict[str, Any] = {
            "catalogId": self.catalog_id,
            "version": self.version,
            "name": self.name,
            "language": self.language,
            "documents": self.documents,
            "archiveBytes": self.archive_bytes,
            "contentDigest": self.content_digest,
            "url": self.url,
            "license": {
                "name": self.license_name,
                "attributionRequired": self.attribution_required,
            },
        }
        if self.description is not None:
            row["description"] = self.description
        return row

    @classmethod
    def for_archive(cls, archive: Path | str, url: str) -> RegistryRelease:
        """The release row of a built ``.gezk`` that will be served at ``url`` (publisher side:
        the archive is checked and hashed, its manifest supplies the rest)."""
        return _inspect_release(archive, url)[0]


def _inspect_release(archive: Path | str, url: str) -> tuple[RegistryRelease, CatalogManifest]:
    """:meth:`RegistryRelease.for_archive` and the archive's manifest, from one validation.

    Every entry is read and checked (a registry must never promise damaged bytes, and the
    archive structure alone does not show a flipped byte inside an entry)."""
    if not is_url(url):
        raise InvalidInput(f"a release URL must be http(s): {url!r}", subject=url)
    report = validate_archive(archive)
    if report.errors or report.manifest is None or report.archive_sha256 is None:
        first = report.errors[0] if report.errors else None
        raise IntegrityFailure(
            f"{archive} cannot be listed: {first or 'its manifest cannot be read'}",
            reason=first.reason if first else "invalid-manifest",
            subject=str(archive),
        )
    m = report.manifest
    release = RegistryRelease(
        publisher_id=m.publisher.id,
        catalog_id=m.id,
        version=m.version,
        name=m.name,
        language=m.language,
        documents=m.counts.documents,
        archive_bytes=Path(archive).stat().st_size,
        content_digest=report.archive_sha256,
        url=url,
        license_name=m.license.name,
        attribution_required=m.license.attribution_required,
        description=m.description,
    )
    return release, m


def version_sort_key(version: str) -> tuple[tuple[int, int, str], ...]:
    """Order versions naturally: numeric runs compare as numbers (``2026.10`` > ``2026.9``).

    A pre-release suffix after ``-`` sorts before the release it precedes; ``+build`` metadata
    sorts after. This is semver order for semver values and a sensible order otherwise.
    """
    main, _, build = version.partition("+")
    core, dash, pre = main.partition("-")
    key = [_natural(p) for p in re.split(r"[._]", core)]
    # A release (no pre-release) outranks every pre-release of the same core.
    key.append((1, 0, "") if not dash else (0, 0, ""))
    if dash:
        key.extend(_natural(p) for p in re.split(r"[._-]", pre))
    key.append((2, 0, build) if build else (1, 0, ""))
    return tuple(key)


def _natural(part: str) -> tuple[int, int, str]:
    # Every element is (tag, number, text) so comparisons never mix int and str.
    return (1, int(part), "") if part.isdigit() else (0, 0, part)


@dataclass(frozen=True, slots=True)
class RegistryDocument:
    """A parsed, schema-valid registry document."""

    publisher_id: str
    publisher_name: str
    format_version: str
    generated_at: str
    releases: tuple[RegistryRelease, ...]
    raw: Mapping[str, Any]
    source: str = "<memory>"

    @property
    def signed(self) -> bool:
        """Whether the document carries a signature (verified or not)."""
        return "signature" in self.raw

    @classmethod
    def parse(cls, obj: Any, *, source: str = "<memory>") -> RegistryDocument:
        """Validate ``obj`` against the registry schema and read its releases."""
        try:
            if isinstance(obj, bytes | str):
                obj = untrusted_json.loads(obj)
            else:
                untrusted_json.check_depth(obj)
        except ValueError as exc:
            raise InvalidInput(
                f"registry document {source} is not acceptable JSON: {exc}",
                reason="invalid-registry",
                subject=source,
            ) from exc
        if not isinstance(obj, dict):
            raise InvalidInput(
                f"registry document {source} is not a JSON object",
                reason="invalid-registry",
                subject=source,
            )
        validate_registry(obj)
        publisher = obj["publisher"]
        publisher_id = validate_publisher_id(publisher["id"])
        releases: list[RegistryRelease] = []
        for index, row in enumerate(obj["catalogs"]):
            try:
                releases.append(
                    RegistryRelease(
                        publisher_id=publisher_id,
                        catalog_id=validate_catalog_id(row["catalogId"]),
                        version=validate_version(row["version"]),
                        name=row["name"],
                        language=row["language"],
                        documents=int(row["documents"]),
                        archive_bytes=int(row["archiveBytes"]),
                        content_digest=row["contentDigest"],
                        url=row["url"],
                        license_name=row["license"]["name"],
                        attribution_required=bool(row["license"]["attributionRequired"]),
                        description=row.get("description"),
                    )
                )
            except InvalidIdentifier:
                raise  # an identifier breaking its grammar says so itself
            except (KeyError, TypeError, ValueError) as exc:  # pragma: no cover - schema-checked
                raise InvalidInput(
                    f"registry document {source}: catalogs[{index}] is malformed: {exc}",
                    reason="invalid-registry",
                    subject=source,
                ) from exc
            if not is_url(row["url"]):
                raise InvalidInput(
                    f"registry document {source}: catalogs[{index}].url is not http(s): "
                    f"{row['url']!r}",
                    reason="invalid-registry",
                    subject=source,
                )
        return cls(
            publisher_id=publisher_id,
            publisher_name=publisher["name"],
            format_version=obj["formatVersion"],
            generated_at=obj["generatedAt"],
            releases=tuple(releases),
            raw=obj,
            source=source,
        )

    @classmethod
    def build(
        cls,
        publisher_id: str,
        publisher_name: str,
        releases: Sequence[RegistryRelease],
        *,
        generated_at: str,
        sign_with: Ed25519PrivateKey | None = None,
        format_version: str = "0.7",
    ) -> RegistryDocument:
        """A registry document listing ``releases`` (all of ``publisher_id``), optionally
        signed; ``.raw`` is the JSON to publish."""
        rows = []
        for release in releases:
            if release.publisher_id != publisher_id:
                raise InvalidInput(
                    f"{release.coordinate} is not published by {publisher_id}",
                    reason="invalid-registry",
                    subject=str(release.coordinate),
                )
            rows.append(release.to_json())
        rows.sort(key=lambda r: (r["catalogId"], version_sort_key(r["version"])))
        obj: dict[str, Any] = {
            "kind": "gezk-registry",
            "formatVersion": format_version,
            "publisher": {"id": publisher_id, "name": publisher_name},
            "generatedAt": generated_at,
            "catalogs": rows,
        }
        if sign_with is not None:
            obj = sign_manifest(obj, sign_with)
        return cls.parse(obj)

    def to_bytes(self) -> bytes:
        """The document as UTF-8 JSON, ready to publish."""
        return (json.dumps(dict(self.raw), ensure_ascii=False, indent=2) + "\n").encode("utf-8")

    def verify(self, anchors: TrustAnchors) -> str:
        """Check the signature against ``anchors``; return the signing key id.

        Raises :class:`gezk.errors.SignatureError` (``unsigned``, ``unknown-key``,
        ``signature-invalid``, ``malformed-signature``).
        """
        return verify_manifest(dict(self.raw), anchors)

    def releases_of(self, catalog_id: str) -> list[RegistryRelease]:
        """This publisher's releases of one catalog, newest first."""
        rows = [r for r in self.releases if r.catalog_id == catalog_id]
        return sorted(rows, key=lambda r: version_sort_key(r.version), reverse=True)

    def resolve(self, coordinate: CatalogCoordinate | str) -> RegistryRelease:
        """The release a coordinate names: that version, or the newest when none is given."""
        coord = _coordinate(coordinate)
        if coord.publisher_id != self.publisher_id:
            raise NotFound(
                f"registry {self.source} lists publisher {self.publisher_id}, not "
                f"{coord.publisher_id}",
                reason="not-in-registry",
                subject=str(coord),
            )
        rows = self.releases_of(coord.catalog_id)
        if coord.version is not None:
            rows = [r for r in rows if r.version == coord.version]
        if not rows:
            raise NotFound(
                f"registry {self.source} has no release {coord}",
                reason="not-in-registry",
                subject=str(coord),
            )
        return rows[0]


def resolve_release(
    coordinate: CatalogCoordinate | str,
    registries: Sequence[RegistryDocument],
    *,
    trust: TrustAnchors | None = None,
) -> RegistryRelease:
    """Resolve a coordinate through the first registry of its publisher that lists it.

    With ``trust``, only registries whose signature verifies against it are consulted.
    """
    return locate_release(coordinate, registries, trust=trust)[0]


def locate_release(
    coordinate: CatalogCoordinate | str,
    registries: Sequence[RegistryDocument],
    *,
    trust: TrustAnchors | None = None,
) -> tuple[RegistryRelease, RegistryDocument]:
    """:func:`resolve_release`, also returning the registry document that listed the release."""
    coord = _coordinate(coordinate)
    candidates = [r for r in registries if r.publisher_id == coord.publisher_id]
    if not candidates:
        raise NotFound(
            f"no registry document for publisher {coord.publisher_id} was given",
            reason="not-in-registry",
            subject=str(coord),
        )
    last: Exception | None = None
    for registry in candidates:
        if trust is not None:
            registry.verify(trust)
        try:
            return registry.resolve(coord), registry
        except NotFound as exc:
            last = exc
    assert last is not None
    raise last


def build_registry(
    archives: Sequence[Path | str],
    base_url: str,
    *,
    generated_at: str,
    sign_with: Ed25519PrivateKey | None = None,
    publisher_name: str | None = None,
) -> RegistryDocument:
    """A registry document for built archives served at ``base_url/<file name>`` (one
    publisher; the publisher name defaults to the first manifest's)."""
    if not archives:
        raise InvalidInput("a registry needs at least one archive", reason="invalid-registry")
    base = base_url.rstrip("/")
    # One inspection (a full SHA-256 of the archive) each; the first also names the publisher.
    inspected = [_inspect_release(a, f"{base}/{Path(a).name}") for a in archives]
    releases = [release for release, _ in inspected]
    if publisher_name is None:
        publisher_name = inspected[0][1].publisher.name
    return RegistryDocument.build(
        releases[0].publisher_id,
        publisher_name,
        releases,
        generated_at=generated_at,
        sign_with=sign_with,
    )


def load_registry_document(
    location: str | Path,
    *,
    opener: urllib.request.OpenerDirector | None = None,
    timeout: float = 30.0,
    max_bytes: int = 16 * 1024 * 1024,
) -> RegistryDocument:
    """Read a registry document from a file path or an ``http(s)`` URL."""
    text = str(location)
    if is_url(text):
        opener = opener or urllib.request.build_opener()
        try:
            with opener.open(text, timeout=timeout) as response:
                data = response.read(max_bytes + 1)
        except OSError as exc:
            raise DownloadFailed(f"could not fetch registry {text}: {exc}", subject=text) from exc
    else:
        path = Path(location)
        try:
            with path.open("rb") as fh:
                data = fh.read(max_bytes + 1)
        except FileNotFoundError:
            raise NotFound(f"registry document {path} does not exist", subject=str(path)) from None
    if len(data) > max_bytes:
        raise InvalidInput(
            f"registry document {text} is larger than {max_bytes} bytes",
            reason="invalid-registry",
            subject=text,
        )
    return RegistryDocument.parse(data, source=text)
