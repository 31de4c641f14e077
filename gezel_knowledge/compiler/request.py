"""A build as a person asks for it: catalog.yaml beside the source, a few fields given beside it,
the embedder and the signing key by name (what ``gezel-knowledge build`` takes).

:func:`build_catalog` resolves those into the inputs :func:`compile_catalog` takes and builds:
the source's own catalog.yaml (or the one named instead) with :class:`MetadataOverrides` merged
into it, publisher and licence fields one by one; the embedding profile named, else
catalog.yaml's ``embedder``, else the default model; the private key read from its file; and
``createdAt`` from the caller, else catalog.yaml, else the caller's clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gezel_knowledge.compiler.build import (
    DEFAULT_SHARD_MAX,
    DEFAULT_SHARD_TARGET,
    BuildResult,
    compile_catalog,
    load_source,
)
from gezel_knowledge.compiler.metadata import CatalogFile, CatalogMetadata, source_metadata
from gezel_knowledge.compiler.sharding import ShardFill
from gezel_knowledge.compiler.signing import load_private_key
from gezel_knowledge.embedders import Embedder, default_embedder, load_embedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.progress import ProgressSink
from gezk.manifest import License, Publisher
from gezk.profiles import embedding_profile

__all__ = ["MetadataOverrides", "build_catalog", "own_catalog_yaml"]


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
        if publisher is None and not (self.publisher_id and self.publisher_name):
            raise InvalidInput(
                "give both the publisher's id and name (--publisher-id, --publisher-name)",
                reason="missing-metadata",
            )
        return Publisher(
            id=self.publisher_id or (publisher.id if publisher else ""),
            name=self.publisher_name or (publisher.name if publisher else ""),
            url=self.publisher_url or (publisher.url if publisher else None),
        )

    def _license(self, license_: License | None) -> License | None:
        changed = (
            self.license_name
            or self.license_spdx
            or self.license_file
            or self.attribution_required is not None
        )
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


def own_catalog_yaml(source: Path | str) -> Path:
    """Where a source's own catalog.yaml is: inside a folder, beside a document list."""
    path = Path(source)
    return path / "catalog.yaml" if path.is_dir() else path.parent / "catalog.yaml"


def _embedder(embedder: Embedder | str | None, declared: str | None) -> Embedder:
    if embedder is not None and not isinstance(embedder, str):
        return embedder
    profile_id = embedder or declared
    if profile_id is None:
        return default_embedder()
    return load_embedder(embedding_profile(profile_id))


def build_catalog(
    source: Path | str,
    output: Path | str,
    *,
    catalog: CatalogFile | None = None,
    overrides: MetadataOverrides | None = None,
    embedder: Embedder | str | None = None,
    created_at: str | None = None,
    clock: Callable[[], str] | None = None,
    signing_key_file: Path | str | None = None,
    cache_dir: Path | None = None,
    chunking: str | None = None,
    shard_fill: ShardFill = "topic",
    shard_target: int = DEFAULT_SHARD_TARGET,
    shard_max: int = DEFAULT_SHARD_MAX,
    jobs: int | None = None,
    ray: bool | str | None = None,
    progress: ProgressSink | None = None,
    strict: bool = False,
) -> BuildResult:
    """Build ``source`` into ``output`` as the ``build`` command does.

    ``catalog`` replaces the source's own catalog.yaml and ``overrides`` is merged into either.
    ``embedder`` is an embedder or a profile id (default: catalog.yaml's ``embedder``, else
    :func:`default_embedder`). ``createdAt`` is ``created_at``, else catalog.yaml's, else
    ``clock()`` when a clock is given (the build stays deterministic without one).
    ``signing_key_file`` is an Ed25519 private key in PEM. ``cache_dir`` holds the vector cache
    (none when ``None``). ``jobs`` and ``ray`` choose where passages are chunked and embedded
    (see :func:`compile_catalog`). ``strict`` turns warnings into :class:`WarningsAsErrors`.
    """
    # catalog.yaml is read once, here: the overrides are merged into it and the loader is
    # handed the result, on which it layers what it derives from the source itself.
    base = source_metadata(own_catalog_yaml(source), catalog)
    loaded = load_source(source, catalog=overrides.apply(base) if overrides else base)
    metadata = loaded.metadata
    stamp = created_at or metadata.created_at or (clock() if clock is not None else None)
    return compile_catalog(
        loaded,
        output,
        embedder=_embedder(embedder, metadata.embedder),
        created_at=stamp,
        signing_key=load_private_key(signing_key_file) if signing_key_file else None,
        shard_fill=shard_fill,
        shard_target=shard_target,
        shard_max=shard_max,
        cache_dir=cache_dir,
        chunking=chunking,
        jobs=jobs,
        ray=ray,
        progress=progress,
        strict=strict,
    )
