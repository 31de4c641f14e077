"""Catalog metadata given beside catalog.yaml, as the command line gives it: flat fields, the
publisher's and the licence's merged into catalog.yaml's one by one (:class:`MetadataOverrides`),
or as Python callers give it, whole values (:class:`~.catalog_yaml.CatalogMetadata`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogMetadata
from gezel_knowledge.compiler.text.names import derive_topic_id
from gezel_knowledge.errors import InvalidInput
from gezk.manifest import License, Publisher

__all__ = ["MetadataInput", "MetadataOverrides", "apply_metadata"]


@dataclass(frozen=True, slots=True)
class MetadataOverrides:
    """Catalog metadata given beside catalog.yaml; every field optional, each one set replaces
    catalog.yaml's (publisher and licence fields one by one)."""

    id: str | None = None
    version: str | None = None
    name: str | None = None
    description: str | None = None
    language: str | None = None
    publisher_id: str | None = None
    publisher_name: str | None = None
    publisher_url: str | None = None
    license_name: str | None = None
    license_spdx: str | None = None
    license_file: Path | None = None
    attribution_required: bool | None = None
    readme: Path | None = None

    def apply(self, base: CatalogMetadata) -> CatalogMetadata:
        """``base`` with these fields merged in; a publisher or licence that ``base`` lacks
        needs its required fields (:class:`InvalidInput`, ``missing-metadata``)."""
        return base.merged(
            CatalogMetadata(
                id=self.id,
                version=self.version,
                name=self.name,
                description=self.description,
                language=self.language,
                publisher=self._publisher(base.publisher),
                license=self._license(base.license),
                license_file=self.license_file,
                readme=self.readme,
            )
        )

    def _publisher(self, publisher: Publisher | None) -> Publisher | None:
        if not (self.publisher_id or self.publisher_name or self.publisher_url):
            return publisher
        if publisher is None and not self.publisher_name:
            raise InvalidInput(
                "give the publisher's name (--publisher-name)", reason="missing-metadata"
            )
        # A publisher named without an id takes the id derived from its name.
        derived = derive_topic_id(self.publisher_name) if self.publisher_name else ""
        return Publisher(
            id=self.publisher_id or (publisher.id if publisher else derived),
            name=self.publisher_name or (publisher.name if publisher else ""),
            url=self.publisher_url or (publisher.url if publisher else None),
        )

    def _license(self, license_: License | None) -> License | None:
        # A licence file alone changes no field: its text names the licence when it is a
        # common one (recognised when the build reads it).
        changed = self.license_name or self.license_spdx or self.attribution_required is not None
        if not changed:
            return license_
        if license_ is None and not self.license_name:
            raise InvalidInput(
                "give the licence's name (--license-name)", reason="missing-metadata"
            )
        return License(
            name=self.license_name or (license_.name if license_ else ""),
            attribution_required=(
                self.attribution_required
                if self.attribution_required is not None
                else (license_.attribution_required if license_ else False)
            ),
            spdx=self.license_spdx or (license_.spdx if license_ else None),
        )


MetadataInput = CatalogMetadata | MetadataOverrides
"""Metadata given beside catalog.yaml: whole values, or the command line's flat fields."""


def apply_metadata(base: CatalogMetadata, given: MetadataInput | None) -> CatalogMetadata:
    """``base`` with what is ``given`` merged in (field by field; the command line's publisher
    and licence fields one by one)."""
    if given is None:
        return base
    if isinstance(given, MetadataOverrides):
        return given.apply(base)
    return base.merged(given)
