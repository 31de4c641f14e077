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
from typing import Any

from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.install.download import is_url
from gezel_knowledge.install.errors import DownloadFailed
from gezk.errors import SchemaViolation
from gezk.ids import validate_catalog_id, validate_publisher_id, validate_version
from gezk.schemas import validate_registry
from gezk.signing import TrustAnchors, verify_manifest

__all__ = [
    "CatalogCoordinate",
    "RegistryDocument",
    "RegistryRelease",
    "load_registry_document",
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
        if isinstance(obj, bytes | str):
            try:
                obj = json.loads(obj)
            except ValueError as exc:
                raise InvalidInput(
                    f"registry document {source} is not JSON: {exc}",
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
            except SchemaViolation:
                raise
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
        coord = (
            coordinate
            if isinstance(coordinate, CatalogCoordinate)
            else CatalogCoordinate.parse(coordinate)
        )
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
    coord = (
        coordinate
        if isinstance(coordinate, CatalogCoordinate)
        else CatalogCoordinate.parse(coordinate)
    )
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
            return registry.resolve(coord)
        except NotFound as exc:
            last = exc
    assert last is not None
    raise last


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
