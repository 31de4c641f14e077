"""Catalog metadata: what ``catalog.yaml`` (or the caller) says about the catalog being built.

Every field is optional here, because metadata arrives in layers: ``catalog.yaml`` next to the
sources (or the one catalog file the caller names instead, :func:`source_metadata`), then
explicit values from the caller or the CLI, which win field by field
(:meth:`CatalogMetadata.merged`). :meth:`CatalogMetadata.require` checks that the merged result
names everything a manifest needs, with a message that says where to set what is missing.

``catalog.yaml``::

    id: gezel-handbook            # catalog id (DNS-label grammar)
    version: 2026.12.1
    name: Gezel knowledge handbook
    description: How to build and search .gezk catalogs.
    language: en
    publisher: {id: gezel-docs, name: Gezel documentation, url: https://example.org}
    license: {name: CC BY 4.0, spdx: CC-BY-4.0, attributionRequired: true, file: LICENSE}
    readme: README.md             # default: README.md beside catalog.yaml
    sourceNotices: sources.json   # optional, becomes LICENSES/source-notices.json
    sourceSnapshot: {name: handbook, date: 2026-12-01}
    createdAt: 2026-12-01T00:00:00Z
    smokeQueries: [{query: shard routing, expectedDocumentIds: [search/routing]}]
    embedder: bge-small-en-v1.5@1 # the CLI's default --embedder for this catalog
    chunking: markdown-chunks@2   # default: the largest profile the embedder's window fits
    outline: auto       # or gitbook, mkdocs, jupyter-book, docfx, hugo, topic-yaml, folders
    exclude: [drafts/**]
    topics: [{id: guide, name: Guide, description: ..., order: 1, parentId: ...}]
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.frontmatter import load_yaml
from gezk.manifest import License, Publisher, SmokeQuery, SourceSnapshot

__all__ = [
    "OUTLINE_KINDS",
    "CatalogFile",
    "CatalogIdentity",
    "CatalogMetadata",
    "TopicDeclaration",
    "load_catalog_yaml",
    "normalize_created_at",
    "source_metadata",
]

OUTLINE_KINDS = (
    "auto",
    "gitbook",
    "mkdocs",
    "jupyter-book",
    "docfx",
    "hugo",
    "topic-yaml",
    "folders",
)


@dataclass(frozen=True, slots=True)
class TopicDeclaration:
    """A topic declared by the author (catalog.yaml ``topics``), for document-list inputs."""

    id: str
    name: str
    parent_id: str | None = None
    description: str | None = None
    order: int | None = None


@dataclass(frozen=True, slots=True)
class CatalogMetadata:
    """Catalog identity and provenance; every field optional until :meth:`require`."""

    id: str | None = None
    version: str | None = None
    name: str | None = None
    description: str | None = None
    language: str | None = None
    publisher: Publisher | None = None
    license: License | None = None
    license_file: Path | None = None
    """The licence notice (catalog.yaml ``license.file``), shipped as ``license.noticePath``."""
    created_at: str | None = None
    source_snapshot: SourceSnapshot | None = None
    smoke_queries: tuple[SmokeQuery, ...] | None = None
    readme: Path | None = None
    source_notices: Path | None = None
    outline: str | None = None
    exclude: tuple[str, ...] | None = None
    topics: tuple[TopicDeclaration, ...] | None = None
    root_topic: TopicDeclaration | None = field(default=None)
    embedder: str | None = None
    """The embedding profile id the CLI builds with when no ``--embedder`` is given."""
    chunking: str | None = None
    """The chunking profile id to build with (default: chosen to fit the embedder's window)."""

    def merged(self, overrides: CatalogMetadata | None) -> CatalogMetadata:
        """This metadata with every field that ``overrides`` sets replaced."""
        if overrides is None:
            return self
        changes = {
            f.name: getattr(overrides, f.name)
            for f in fields(overrides)
            if getattr(overrides, f.name) is not None
        }
        return replace(self, **changes)

    def require(self) -> CatalogIdentity:
        """What every manifest carries; raise :class:`SourceError` naming what is missing."""
        hints = {
            "id": "`id` in catalog.yaml or --catalog-id",
            "version": "`version` in catalog.yaml or --catalog-version",
            "name": "`name` in catalog.yaml or --name",
            "language": "`language` in catalog.yaml or --language",
            "publisher": "`publisher: {id, name}` in catalog.yaml or --publisher-id and "
            "--publisher-name",
            "license": "`license: {name, attributionRequired}` in catalog.yaml or --license-name",
        }
        for name, hint in hints.items():
            if getattr(self, name) is None:
                raise SourceError(
                    f"catalog metadata is missing {name}: set {hint}",
                    reason="missing-metadata",
                )
        # Checked just above; these conditions only narrow the types.
        if self.id is None or self.version is None or self.name is None:
            raise AssertionError("unreachable")  # pragma: no cover
        if self.language is None or self.publisher is None or self.license is None:
            raise AssertionError("unreachable")  # pragma: no cover
        return CatalogIdentity(
            self.id, self.version, self.name, self.language, self.publisher, self.license
        )


@dataclass(frozen=True, slots=True)
class CatalogIdentity:
    """The metadata every manifest carries, as :meth:`CatalogMetadata.require` guarantees it."""

    id: str
    version: str
    name: str
    language: str
    publisher: Publisher
    license: License


def normalize_created_at(value: str) -> str:
    """An ISO 8601 instant as ``YYYY-MM-DDTHH:MM:SS.sssZ`` (UTC); dates mean midnight UTC."""
    text = value.strip()
    try:
        if len(text) == 10:
            moment = dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)
        else:
            moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise SourceError(
            f"createdAt {value!r} is not an ISO 8601 date or date-time",
            reason="invalid-created-at",
        ) from None
    if moment.tzinfo is None:
        raise SourceError(
            f"createdAt {value!r} has no time zone (add 'Z' for UTC)",
            reason="invalid-created-at",
        )
    moment = moment.astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _str(data: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    value = data.get(key)
    if value is None:
        if required:
            raise SourceError(f"{key} is required", reason="invalid-catalog-yaml", path=where)
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise SourceError(f"{key} must be a string", reason="invalid-catalog-yaml", path=where)
    return str(value)


def _mapping(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise SourceError(f"{key} must be a mapping", reason="invalid-catalog-yaml", path=where)
    return value


def _list(data: Mapping[str, Any], key: str, where: str) -> Sequence[Any] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list):
        raise SourceError(f"{key} must be a list", reason="invalid-catalog-yaml", path=where)
    return value


def _topic(item: Any, where: str) -> TopicDeclaration:
    if not isinstance(item, Mapping):
        raise SourceError("each topic must be a mapping", reason="invalid-catalog-yaml", path=where)
    order = item.get("order")
    if order is not None and (isinstance(order, bool) or not isinstance(order, int)):
        raise SourceError(
            "topic order must be an integer", reason="invalid-catalog-yaml", path=where
        )
    return TopicDeclaration(
        id=_str(item, "id", where, required=True) or "",
        name=_str(item, "name", where) or _str(item, "id", where) or "",
        parent_id=_str(item, "parentId", where),
        description=_str(item, "description", where),
        order=order,
    )


def _parse_catalog_metadata(data: Mapping[str, Any], base: Path, where: str) -> CatalogMetadata:
    """Metadata from a parsed ``catalog.yaml`` mapping; relative file names resolve at ``base``."""
    publisher = _mapping(data, "publisher", where)
    license_ = _mapping(data, "license", where)
    snapshot = _mapping(data, "sourceSnapshot", where)
    smoke = _list(data, "smokeQueries", where)
    topics = _list(data, "topics", where)
    exclude = _list(data, "exclude", where)
    root_topic = _mapping(data, "rootTopic", where)
    outline = _str(data, "outline", where)
    if isinstance(data.get("version"), float):
        # YAML reads 1.10 as the number 1.1: a version is an identity and must stay verbatim.
        raise SourceError(
            f"version {data['version']!r} was read as a number: quote it in catalog.yaml",
            reason="invalid-catalog-yaml",
            path=where,
        )
    if outline is not None and outline not in OUTLINE_KINDS:
        raise SourceError(
            f"outline must be one of {', '.join(OUTLINE_KINDS)}, not {outline!r}",
            reason="invalid-catalog-yaml",
            path=where,
        )
    attribution = license_.get("attributionRequired") if license_ else None
    if license_ is not None and not isinstance(attribution, bool):
        raise SourceError(
            "license.attributionRequired must be true or false",
            reason="invalid-catalog-yaml",
            path=where,
        )
    queries: tuple[SmokeQuery, ...] | None = None
    if smoke is not None:
        parsed = []
        for item in smoke:
            ids = item.get("expectedDocumentIds") if isinstance(item, Mapping) else None
            if (
                not isinstance(item, Mapping)
                or not isinstance(item.get("query"), str)
                or not isinstance(ids, list)
                or not ids
                or not all(isinstance(i, str) for i in ids)
            ):
                raise SourceError(
                    "each smoke query needs a query string and a non-empty expectedDocumentIds",
                    reason="invalid-catalog-yaml",
                    path=where,
                )
            parsed.append(SmokeQuery(item["query"], tuple(ids)))
        queries = tuple(parsed)

    def file(name: str | None) -> Path | None:
        return None if name is None else (base / name)

    return CatalogMetadata(
        id=_str(data, "id", where),
        version=_str(data, "version", where),
        name=_str(data, "name", where),
        description=_str(data, "description", where),
        language=_str(data, "language", where),
        publisher=None
        if publisher is None
        else Publisher(
            id=_str(publisher, "id", where, required=True) or "",
            name=_str(publisher, "name", where, required=True) or "",
            url=_str(publisher, "url", where),
        ),
        license=None
        if license_ is None
        else License(
            name=_str(license_, "name", where, required=True) or "",
            attribution_required=bool(attribution),
            spdx=_str(license_, "spdx", where),
        ),
        license_file=None if license_ is None else file(_str(license_, "file", where)),
        created_at=_str(data, "createdAt", where),
        source_snapshot=None
        if snapshot is None
        else SourceSnapshot(
            name=_str(snapshot, "name", where, required=True) or "",
            date=_str(snapshot, "date", where, required=True) or "",
            taxonomy_version=_str(snapshot, "taxonomyVersion", where),
        ),
        smoke_queries=queries,
        readme=file(_str(data, "readme", where)),
        source_notices=file(_str(data, "sourceNotices", where)),
        outline=outline,
        exclude=None if exclude is None else tuple(str(p) for p in exclude),
        topics=None if topics is None else tuple(_topic(t, where) for t in topics),
        root_topic=None if root_topic is None else _topic(root_topic, where),
        embedder=_str(data, "embedder", where),
        chunking=_str(data, "chunking", where),
    )


def load_catalog_yaml(path: Path) -> CatalogMetadata:
    """Read a ``catalog.yaml`` file into :class:`CatalogMetadata`."""
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SourceError(
            f"cannot read catalog metadata: {exc.strerror}", reason="unreadable", path=where
        ) from None
    data = load_yaml(text, path=where)
    if data is None:
        return CatalogMetadata()
    if not isinstance(data, Mapping):
        raise SourceError(
            "catalog.yaml must be a mapping of keys to values",
            reason="invalid-catalog-yaml",
            path=where,
        )
    return _parse_catalog_metadata(data, path.parent, where)


CatalogFile = Path | str | CatalogMetadata
"""A catalog.yaml to read instead of a source's own, or metadata already read from one."""


def source_metadata(own: Path, catalog: CatalogFile | None) -> CatalogMetadata:
    """The metadata a source is built with: ``catalog`` when given (read if it is a path),
    else the source's ``own`` catalog.yaml when it exists. Never both: a named catalog file
    replaces the source's, it is not layered over it."""
    if isinstance(catalog, CatalogMetadata):
        return catalog
    if catalog is not None:
        return load_catalog_yaml(Path(catalog))
    return load_catalog_yaml(own) if own.is_file() else CatalogMetadata()
