"""Catalog metadata: what ``catalog.yaml`` (or the caller) says about the catalog being built.

Every field is optional here, because metadata arrives in layers: what a documentation
generator's own configuration says (``mkdocs.yml``'s ``site_name``, ``book.toml``'s ``title``...,
:mod:`~gezel_knowledge.compiler.generators.base`), then ``catalog.yaml`` next to the sources (or the
one catalog file the caller names instead, :func:`source_metadata`), then explicit values from the
caller or the CLI; each layer wins field by field (:meth:`CatalogMetadata.merged`).
:meth:`CatalogMetadata.require` checks that the merged result names everything a manifest needs
and reports every missing or invalid field at once (:class:`MetadataError`), each with where to
set it.

Reading ``catalog.yaml`` never stops at the first bad value: a value of the wrong shape is
recorded as a :class:`MetadataProblem` (reported by :meth:`~CatalogMetadata.require` with the
missing fields), and an unknown key is a warning naming the nearest known key. Only a file that
cannot be read at all (unreadable, not UTF-8, not YAML, not a mapping) stops at once.

``catalog.yaml``::

    id: gezel-handbook            # catalog id (DNS-label grammar); default: derived from name
    version: 2026.12.1            # default: the build date, YYYY.M.D
    name: Gezel knowledge handbook
    description: How to build and search .gezk catalogs.
    language: en
    publisher: {id: gezel-docs, name: Gezel documentation, url: https://example.org}
    license: {name: CC BY 4.0, spdx: CC-BY-4.0, attributionRequired: true, file: LICENSE}
    readme: README.md             # default: README.md beside catalog.yaml, else generated
    sourceUrl: https://example.org/handbook   # where the sources live (generated README)
    sourceNotices: sources.json   # optional, becomes LICENSES/source-notices.json
    sourceSnapshot: {name: handbook, date: 2026-12-01}
    createdAt: 2026-12-01T00:00:00Z
    smokeQueries: [{query: shard routing, expectedDocumentIds: [search/routing]}]
    embedder: bge-small-en-v1.5@1 # the CLI's default --embedder for this catalog
    chunking: markdown-chunks@2   # default: the largest profile the embedder's window fits
    outline: auto       # or mdbook, gitbook, mkdocs, jupyter-book, myst, sphinx, hugo, ...
    exclude: [drafts/**]
    topics: [{id: guide, name: Guide, description: ..., order: 1, parentId: ...}]
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from gezel_knowledge.compiler.errors import BuildWarning, SourceError
from gezel_knowledge.compiler.text.data import (
    YamlNode,
    load_yaml,
    load_yaml_nodes,
    read_file_bytes,
    resolved_path,
)
from gezk.errors import InvalidIdentifier
from gezk.ids import validate_catalog_id, validate_publisher_id, validate_version
from gezk.manifest import License, Publisher, SmokeQuery, SourceSnapshot

__all__ = [
    "CATALOG_KEYS",
    "CatalogFile",
    "CatalogIdentity",
    "CatalogMetadata",
    "MetadataError",
    "MetadataProblem",
    "TopicDeclaration",
    "load_catalog_yaml",
    "normalize_created_at",
    "source_metadata",
]

_TOPIC_KEYS = ("id", "name", "parentId", "description", "order")
CATALOG_KEYS: Mapping[str, tuple[str, ...]] = {
    "id": (),
    "version": (),
    "name": (),
    "description": (),
    "language": (),
    "publisher": ("id", "name", "url"),
    "license": ("name", "spdx", "attributionRequired", "file"),
    "readme": (),
    "sourceUrl": (),
    "sourceNotices": (),
    "sourceSnapshot": ("name", "date", "taxonomyVersion"),
    "createdAt": (),
    "smokeQueries": (),
    "embedder": (),
    "chunking": (),
    "outline": (),
    "exclude": (),
    "topics": _TOPIC_KEYS,
    "rootTopic": _TOPIC_KEYS,
}
"""Every key catalog.yaml may hold, and the keys of its mappings (or of its list's items)."""

_WHERE_TO_SET = {
    "id": "`id` in catalog.yaml or --catalog-id (or a `name` to derive it from)",
    "name": "`name` in catalog.yaml or --name",
    "language": "`language` in catalog.yaml or --language",
    "publisher": "`publisher: {id, name}` in catalog.yaml or --publisher-name",
    "license": "`license: {name, attributionRequired}` in catalog.yaml or --license-name",
}


@dataclass(frozen=True, slots=True)
class TopicDeclaration:
    """A topic declared by the author (catalog.yaml ``topics``), for document-list inputs."""

    id: str
    name: str
    parent_id: str | None = None
    description: str | None = None
    order: int | None = None


@dataclass(frozen=True, slots=True)
class MetadataProblem:
    """One missing or invalid metadata field: its dotted name, what is wrong, and a reason."""

    field: str
    message: str
    reason: str = "invalid-catalog-yaml"
    path: str | None = None
    """The catalog.yaml the value was read from, when it came from one."""


class MetadataError(SourceError):
    """Catalog metadata that cannot be built with: every problem found, in one message."""

    default_reason = "invalid-metadata"

    def __init__(self, problems: Sequence[MetadataProblem]) -> None:
        reasons = {p.reason for p in problems}
        path = next((p.path for p in problems if p.path is not None), None)
        reason = reasons.pop() if len(reasons) == 1 else "invalid-metadata"
        listed = "; ".join(p.message for p in problems)
        count = len(problems)
        lead = "catalog metadata" if count == 1 else f"catalog metadata has {count} problems"
        super().__init__(f"{lead}: {listed}", reason=reason, path=path)
        self.problems = tuple(problems)


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
    source_url: str | None = None
    """Where the sources are published (a site or repository URL), for the generated README."""
    source_notices: Path | None = None
    outline: str | None = None
    exclude: tuple[str, ...] | None = None
    topics: tuple[TopicDeclaration, ...] | None = None
    root_topic: TopicDeclaration | None = field(default=None)
    embedder: str | None = None
    """The embedding profile id the CLI builds with when no ``--embedder`` is given."""
    chunking: str | None = None
    """The chunking profile id to build with (default: chosen to fit the embedder's window)."""
    problems: tuple[MetadataProblem, ...] = ()
    """Invalid values found while reading (reported by :meth:`require`); kept across merges."""
    warnings: tuple[BuildWarning, ...] = ()
    """Unknown keys and the like; kept across merges."""

    def merged(self, overrides: CatalogMetadata | None) -> CatalogMetadata:
        """This metadata with every field that ``overrides`` sets replaced (problems and
        warnings of both are kept)."""
        if overrides is None:
            return self
        changes: dict[str, Any] = {
            f.name: getattr(overrides, f.name)
            for f in fields(overrides)
            if getattr(overrides, f.name) is not None
        }
        changes["problems"] = self.problems + overrides.problems
        changes["warnings"] = self.warnings + overrides.warnings
        return replace(self, **changes)

    def require(
        self, extra: Sequence[MetadataProblem] = (), *, pending: frozenset[str] = frozenset()
    ) -> CatalogIdentity:
        """What every manifest carries; raise :class:`MetadataError` listing every missing or
        invalid field (those read from catalog.yaml, these, and ``extra``) at once.
        ``pending``: fields not reported missing because an input still to be given (the
        licence notice) may state them."""
        problems = list(self.problems)
        # A field whose input is at fault (license.file) is not reported missing as well.
        named = {p.field.split(".")[0] for p in (*problems, *extra)} | pending
        if self.id is None and self.name is None:
            named.add("id")  # derived from the name, asked for once
        for name, hint in _WHERE_TO_SET.items():
            if getattr(self, name) is None and name not in named:
                problems.append(
                    MetadataProblem(name, f"{name} is missing: set {hint}", "missing-metadata")
                )
        if self.version is None and "version" not in named:
            problems.append(
                MetadataProblem(
                    "version",
                    "version is missing: set `version` in catalog.yaml or --catalog-version",
                    "missing-metadata",
                )
            )
        problems.extend(self._identifier_problems())
        problems.extend(extra)
        if problems:
            raise MetadataError(problems)
        # No problem means every field is set; these conditions only narrow the types.
        if self.id is None or self.version is None or self.name is None:
            raise AssertionError("unreachable")  # pragma: no cover
        if self.language is None or self.publisher is None or self.license is None:
            raise AssertionError("unreachable")  # pragma: no cover
        return CatalogIdentity(
            self.id, self.version, self.name, self.language, self.publisher, self.license
        )

    def _identifier_problems(self) -> list[MetadataProblem]:
        checks = (
            (validate_catalog_id, self.id, "id", "catalog id"),
            (validate_version, self.version, "version", "catalog version"),
            (
                validate_publisher_id,
                self.publisher.id if self.publisher else None,
                "publisher.id",
                "publisher id",
            ),
        )
        found = []
        for check, value, name, what in checks:
            if value is None:
                continue
            try:
                check(value)
            except InvalidIdentifier as exc:
                found.append(MetadataProblem(name, f"{what}: {exc.message}", exc.reason))
        return found


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


class _Reader:
    """Reads catalog.yaml values, recording every value of the wrong shape as a problem."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.problems: list[MetadataProblem] = []

    def fail(self, name: str, message: str) -> None:
        self.problems.append(MetadataProblem(name, message, path=self.where))

    def text(
        self, data: Mapping[str, Any], key: str, prefix: str = "", *, required: bool = False
    ) -> str | None:
        value = data.get(key)
        name = prefix + key
        if value is None:
            if required:
                self.fail(name, f"{name} is required")
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            self.fail(name, f"{name} must be a string")
            return None
        return str(value)

    def mapping(self, data: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            self.fail(key, f"{key} must be a mapping")
            return None
        return value

    def sequence(self, data: Mapping[str, Any], key: str) -> Sequence[Any] | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, list):
            self.fail(key, f"{key} must be a list")
            return None
        return value

    def topic(self, item: Any, name: str) -> TopicDeclaration | None:
        if not isinstance(item, Mapping):
            self.fail(name, f"each of {name} must be a mapping")
            return None
        order = item.get("order")
        if order is not None and (isinstance(order, bool) or not isinstance(order, int)):
            self.fail(f"{name}.order", f"{name} order must be an integer")
            order = None
        topic_id = self.text(item, "id", f"{name}.", required=True)
        if topic_id is None:
            return None
        return TopicDeclaration(
            id=topic_id,
            name=self.text(item, "name", f"{name}.") or topic_id,
            parent_id=self.text(item, "parentId", f"{name}."),
            description=self.text(item, "description", f"{name}."),
            order=order,
        )

    def version(self, data: Mapping[str, Any]) -> str | None:
        if isinstance(data.get("version"), float):
            # YAML reads 1.10 as the number 1.1: a version is an identity and must stay verbatim.
            self.fail("version", f"version {data['version']!r} was read as a number: quote it")
            return None
        return self.text(data, "version")

    def publisher(self, data: Mapping[str, Any]) -> Publisher | None:
        publisher = self.mapping(data, "publisher")
        if publisher is None:
            return None
        pid = self.text(publisher, "id", "publisher.", required=True)
        name = self.text(publisher, "name", "publisher.", required=True)
        url = self.text(publisher, "url", "publisher.")
        return None if pid is None or name is None else Publisher(id=pid, name=name, url=url)

    def license(self, data: Mapping[str, Any]) -> License | None:
        license_ = self.mapping(data, "license")
        if license_ is None:
            return None
        name = self.text(license_, "name", "license.", required=True)
        attribution = license_.get("attributionRequired")
        if not isinstance(attribution, bool):
            self.fail(
                "license.attributionRequired", "license.attributionRequired must be true or false"
            )
            return None
        spdx = self.text(license_, "spdx", "license.")
        return None if name is None else License(name, attribution, spdx)

    def snapshot(self, data: Mapping[str, Any]) -> SourceSnapshot | None:
        snapshot = self.mapping(data, "sourceSnapshot")
        if snapshot is None:
            return None
        name = self.text(snapshot, "name", "sourceSnapshot.", required=True)
        date = self.text(snapshot, "date", "sourceSnapshot.", required=True)
        taxonomy = self.text(snapshot, "taxonomyVersion", "sourceSnapshot.")
        return None if name is None or date is None else SourceSnapshot(name, date, taxonomy)

    def smoke_queries(self, data: Mapping[str, Any]) -> tuple[SmokeQuery, ...] | None:
        smoke = self.sequence(data, "smokeQueries")
        if smoke is None:
            return None
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
                self.fail(
                    "smokeQueries",
                    "each smoke query needs a query string and a non-empty expectedDocumentIds",
                )
                return None
            parsed.append(SmokeQuery(item["query"], tuple(ids)))
        return tuple(parsed)

    def topics(self, data: Mapping[str, Any]) -> tuple[TopicDeclaration, ...] | None:
        topics = self.sequence(data, "topics")
        if topics is None:
            return None
        declared = [self.topic(t, "topics") for t in topics]
        return tuple(t for t in declared if t is not None)


def _parse_catalog_metadata(data: Mapping[str, Any], base: Path, where: str) -> CatalogMetadata:
    """Metadata from a parsed ``catalog.yaml`` mapping; relative file names resolve at ``base``."""
    read = _Reader(where)
    license_ = read.mapping(data, "license")
    exclude = read.sequence(data, "exclude")
    root_topic = read.mapping(data, "rootTopic")

    def file(name: str | None) -> Path | None:
        return None if name is None else (base / name)

    return CatalogMetadata(
        id=read.text(data, "id"),
        version=read.version(data),
        name=read.text(data, "name"),
        description=read.text(data, "description"),
        language=read.text(data, "language"),
        publisher=read.publisher(data),
        license=read.license(data),
        license_file=None if license_ is None else file(read.text(license_, "file", "license.")),
        created_at=read.text(data, "createdAt"),
        source_snapshot=read.snapshot(data),
        smoke_queries=read.smoke_queries(data),
        readme=file(read.text(data, "readme")),
        source_url=read.text(data, "sourceUrl"),
        source_notices=file(read.text(data, "sourceNotices")),
        outline=read.text(data, "outline"),
        exclude=None if exclude is None else tuple(str(p) for p in exclude),
        topics=read.topics(data),
        root_topic=None if root_topic is None else read.topic(root_topic, "rootTopic"),
        embedder=read.text(data, "embedder"),
        chunking=read.text(data, "chunking"),
        problems=tuple(read.problems),
    )


def _unknown_keys(root: YamlNode, where: str) -> list[BuildWarning]:
    """A warning for every key catalog.yaml does not know, naming the nearest known one."""
    found: list[BuildWarning] = []

    def check(mapping: dict[str, YamlNode], known: Sequence[str], prefix: str) -> None:
        for key, node in mapping.items():
            if key in known:
                continue
            near = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            hint = f" (did you mean {prefix + near[0]!r}?)" if near else ""
            found.append(
                BuildWarning(
                    "unknown-key",
                    f"unknown key {prefix + key!r} is ignored{hint}",
                    path=where,
                    line=node.line,
                )
            )

    if not isinstance(root.value, dict):
        return found
    check(root.value, tuple(CATALOG_KEYS), "")
    for key, nested in CATALOG_KEYS.items():
        node = root.value.get(key)
        if not nested or node is None:
            continue
        items = node.value if isinstance(node.value, list) else [node]
        for item in items:
            if isinstance(item.value, dict):
                check(item.value, nested, f"{key}.")
    return found


def load_catalog_yaml(path: Path, *, within: Path | None = None) -> CatalogMetadata:
    """Read a ``catalog.yaml`` file into :class:`CatalogMetadata` (values of the wrong shape
    become its :attr:`~CatalogMetadata.problems`, unknown keys its warnings); a source's own
    must resolve inside its folder (``within``), and every one is a regular file of at most
    16 MiB, checked before it is read."""
    where = str(path)
    if within is not None:
        resolved = resolved_path(path, where=where)
        if not resolved.is_relative_to(resolved_path(within, where=str(within))):
            raise SourceError(
                f"resolves outside the source folder ({resolved})", reason="unsafe-path", path=where
            )
    data = read_file_bytes(path, where=where)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"is not UTF-8 text (byte {exc.start}); save it as UTF-8",
            reason="invalid-encoding",
            path=where,
        ) from None
    value = load_yaml(text, path=where)
    if value is None:
        return CatalogMetadata()
    if not isinstance(value, Mapping):
        raise SourceError(
            "catalog.yaml must be a mapping of keys to values",
            reason="invalid-catalog-yaml",
            path=where,
        )
    metadata = _parse_catalog_metadata(value, path.parent, where)
    warnings = _unknown_keys(load_yaml_nodes(text, path=where), where)
    return replace(metadata, warnings=tuple(warnings))


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
    return load_catalog_yaml(own, within=own.parent) if own.is_file() else CatalogMetadata()
