"""A typed, read-only view of a catalog's ``manifest.json`` (spec section 4).

:meth:`CatalogManifest.from_json` checks the structure the reader relies on (identity, versions,
profiles, files, shards, counts) and raises :class:`~gezel_knowledge.errors.IntegrityFailure`
with reason ``invalid-manifest`` naming the JSON path otherwise; the full JSON Schema check is
part of validation. The parsed JSON stays available as :attr:`CatalogManifest.raw` (signatures
are computed over it).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from gezel_knowledge.errors import IntegrityFailure, Unsupported
from gezk.errors import InvalidProfile, UnsupportedVersion
from gezk.profiles import ChunkingProfile, EmbeddingProfile
from gezk.versions import Generation, generation

__all__ = [
    "CatalogManifest",
    "DeclaredFile",
    "LicenseInfo",
    "ManifestCounts",
    "ManifestShard",
    "ManifestTopic",
    "SmokeQuery",
    "SpatialSummary",
    "parse_manifest_bytes",
]

_SHA256_HEX = frozenset("0123456789abcdef")


def _fail(path: str, message: str) -> IntegrityFailure:
    return IntegrityFailure(f"manifest {path}: {message}", reason="invalid-manifest", subject=path)


def _get(obj: Mapping[str, Any], key: str, path: str) -> Any:
    if key not in obj:
        raise _fail(f"{path}.{key}", "is missing")
    return obj[key]


def _str(obj: Mapping[str, Any], key: str, path: str) -> str:
    value = _get(obj, key, path)
    if not isinstance(value, str):
        raise _fail(f"{path}.{key}", "must be a string")
    return value


def _opt_str(obj: Mapping[str, Any], key: str, path: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _fail(f"{path}.{key}", "must be a string")
    return value


def _int(obj: Mapping[str, Any], key: str, path: str, *, optional: bool = False) -> int:
    if optional and key not in obj:
        return 0
    value = _get(obj, key, path)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(f"{path}.{key}", "must be a non-negative integer")
    return value


def _obj(obj: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any]:
    value = _get(obj, key, path)
    if not isinstance(value, Mapping):
        raise _fail(f"{path}.{key}", "must be an object")
    return value


def _list(obj: Mapping[str, Any], key: str, path: str) -> list[Any]:
    value = _get(obj, key, path)
    if not isinstance(value, list):
        raise _fail(f"{path}.{key}", "must be an array")
    return value


def _objects(items: list[Any], path: str) -> Iterator[tuple[Mapping[str, Any], str]]:
    """Each element of a JSON array of objects, with its JSON path; refuse any other element."""
    for i, item in enumerate(items):
        p = f"{path}[{i}]"
        if not isinstance(item, Mapping):
            raise _fail(p, "must be an object")
        yield item, p


def _strings(obj: Mapping[str, Any], key: str, path: str) -> tuple[str, ...]:
    values = _list(obj, key, path)
    if not all(isinstance(x, str) for x in values):
        raise _fail(f"{path}.{key}", "must be an array of strings")
    return tuple(values)


def _sha256(value: Any, path: str) -> str:
    if not isinstance(value, str) or len(value) != 64 or not set(value) <= _SHA256_HEX:
        raise _fail(path, "must be 64 lowercase hex digits")
    return value


@dataclass(frozen=True, slots=True)
class DeclaredFile:
    """One ``files`` entry: an archive path with its byte size and SHA-256."""

    path: str
    size_bytes: int
    sha256: str


@dataclass(frozen=True, slots=True)
class ManifestShard:
    """One ``router.shards`` entry."""

    id: int
    path: str
    chunks: int
    documents: int
    centroids: int
    sha256: str


@dataclass(frozen=True, slots=True)
class ManifestTopic:
    """One ``topics`` entry of the shipped table of contents."""

    id: str
    name: str
    parent_id: str | None = None
    sort_key: str | None = None
    description: str | None = None


@dataclass(frozen=True, slots=True)
class ManifestCounts:
    """The manifest's ``counts``; ``assets`` is 0 when absent (as in 0.5)."""

    documents: int
    chunks: int
    shards: int
    assets: int = 0


@dataclass(frozen=True, slots=True)
class LicenseInfo:
    """The manifest's ``license``."""

    name: str
    notice_path: str
    attribution_required: bool
    spdx: str | None = None


@dataclass(frozen=True, slots=True)
class SmokeQuery:
    """A full-text query the publisher verified at build time, with its expected documents."""

    query: str
    expected_document_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SpatialSummary:
    """The 0.7 ``spatial`` summary; coverage as ``(west, south, east, north)`` tuples."""

    schema: str
    crs: str
    distance_model: str
    location_count: int
    located_documents: int
    coverage: tuple[tuple[float, float, float, float], ...]


@dataclass(frozen=True, slots=True)
class CatalogManifest:
    """The parts of ``manifest.json`` a reader relies on, plus the raw JSON."""

    generation: Generation
    id: str
    version: str
    name: str
    language: str
    publisher_id: str
    publisher_name: str
    created_at: str
    license: LicenseInfo
    embedding: EmbeddingProfile
    chunking: ChunkingProfile
    topics: tuple[ManifestTopic, ...]
    shards: tuple[ManifestShard, ...]
    shard_target_chunks: int
    total_centroids: int
    counts: ManifestCounts
    files: tuple[DeclaredFile, ...]
    requires_format_version: str
    requires_features: tuple[str, ...]
    smoke_queries: tuple[SmokeQuery, ...]
    description: str | None = None
    publisher_url: str | None = None
    spatial: SpatialSummary | None = None
    toolchain: str | None = None
    signature_key_id: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def format_version(self) -> str:
        """The manifest's ``formatVersion``."""
        return self.generation.format_version

    @property
    def index_schema_version(self) -> int:
        """The manifest's ``indexSchemaVersion``."""
        return self.generation.index_schema_version

    @property
    def signed(self) -> bool:
        """Whether the manifest carries a ``signature`` (not whether it verifies)."""
        return self.signature_key_id is not None

    def file(self, path: str) -> DeclaredFile | None:
        """The declared file at ``path``, if any."""
        for f in self.files:
            if f.path == path:
                return f
        return None

    def meta_echoes(self) -> dict[str, str]:
        """The ``meta`` values every database of the catalog echoes from it (spec section 5.1)."""
        return {
            "format_version": self.format_version,
            "index_schema_version": str(self.index_schema_version),
            "catalog_id": self.id,
            "catalog_version": self.version,
            "embedding_profile_id": self.embedding.id,
            "chunking_profile_id": self.chunking.id,
        }

    def to_json(self) -> dict[str, Any]:
        """A deep copy of the manifest JSON as shipped."""
        return copy.deepcopy(dict(self.raw))

    @classmethod
    def from_json(cls, obj: Any) -> CatalogManifest:
        """Parse manifest JSON; refuse unsupported generations and malformed structure."""
        if not isinstance(obj, Mapping):
            raise _fail("$", "must be a JSON object")
        if obj.get("kind") != "gezk-catalog":
            raise _fail("$.kind", f"must be 'gezk-catalog', got {obj.get('kind')!r}")
        try:
            gen = generation(obj.get("formatVersion"), obj.get("indexSchemaVersion"))
        except UnsupportedVersion as exc:
            raise Unsupported(exc.message, reason=exc.reason, subject=exc.subject) from exc
        if isinstance(obj.get("indexSchemaVersion"), bool):
            raise _fail("$.indexSchemaVersion", "must be an integer")
        try:
            embedding = EmbeddingProfile.from_json(_obj(obj, "embedding", "$"))
            chunking = ChunkingProfile.from_json(_obj(obj, "chunking", "$"))
        except InvalidProfile as exc:
            if exc.reason == "unsupported-encoding":
                raise Unsupported(exc.message, reason=exc.reason, subject=exc.subject) from exc
            raise IntegrityFailure(
                f"manifest profile: {exc.message}", reason="invalid-manifest", subject="$.embedding"
            ) from exc
        publisher = _obj(obj, "publisher", "$")
        lic = _obj(obj, "license", "$")
        router = _obj(obj, "router", "$")
        counts = _obj(obj, "counts", "$")
        requires = _obj(obj, "requires", "$")
        attribution = lic.get("attributionRequired")
        if not isinstance(attribution, bool):
            raise _fail("$.license.attributionRequired", "must be a boolean")

        files = tuple(
            DeclaredFile(
                path=_str(item, "path", p),
                size_bytes=_int(item, "sizeBytes", p),
                sha256=_sha256(item.get("sha256"), f"{p}.sha256"),
            )
            for item, p in _objects(_list(obj, "files", "$"), "$.files")
        )
        shards = tuple(
            ManifestShard(
                id=_int(item, "id", p),
                path=_str(item, "path", p),
                chunks=_int(item, "chunks", p),
                documents=_int(item, "documents", p),
                centroids=_int(item, "centroids", p),
                sha256=_sha256(item.get("sha256"), f"{p}.sha256"),
            )
            for item, p in _objects(_list(router, "shards", "$.router"), "$.router.shards")
        )
        topics = tuple(
            ManifestTopic(
                id=_str(item, "id", p),
                name=_str(item, "name", p),
                parent_id=_opt_str(item, "parentId", p),
                sort_key=_opt_str(item, "sortKey", p),
                description=_opt_str(item, "description", p),
            )
            for item, p in _objects(_list(obj, "topics", "$"), "$.topics")
        )
        smoke = tuple(
            SmokeQuery(
                expected_document_ids=_strings(item, "expectedDocumentIds", p),
                query=_str(item, "query", p),
            )
            for item, p in _objects(obj.get("smokeQueries") or [], "$.smokeQueries")
        )
        features = requires.get("features") or []
        if not isinstance(features, list) or not all(isinstance(x, str) for x in features):
            raise _fail("$.requires.features", "must be an array of strings")
        signature = obj.get("signature")
        key_id: str | None = None
        if signature is not None:
            if not isinstance(signature, Mapping) or not isinstance(signature.get("keyId"), str):
                raise _fail("$.signature", "must be an object with a keyId")
            key_id = signature["keyId"]
        toolchain = obj.get("toolchain")
        toolchain_text: str | None = None
        if isinstance(toolchain, Mapping):
            toolchain_text = f"{toolchain.get('name', '?')} {toolchain.get('version', '?')}"
        return cls(
            generation=gen,
            id=_str(obj, "id", "$"),
            version=_str(obj, "version", "$"),
            name=_str(obj, "name", "$"),
            language=_str(obj, "language", "$"),
            publisher_id=_str(publisher, "id", "$.publisher"),
            publisher_name=_str(publisher, "name", "$.publisher"),
            created_at=_str(obj, "createdAt", "$"),
            license=LicenseInfo(
                name=_str(lic, "name", "$.license"),
                notice_path=_str(lic, "noticePath", "$.license"),
                attribution_required=attribution,
                spdx=_opt_str(lic, "spdx", "$.license"),
            ),
            embedding=embedding,
            chunking=chunking,
            topics=topics,
            shards=shards,
            shard_target_chunks=_int(router, "shardTargetChunks", "$.router"),
            total_centroids=_int(router, "totalCentroids", "$.router"),
            counts=ManifestCounts(
                documents=_int(counts, "documents", "$.counts"),
                chunks=_int(counts, "chunks", "$.counts"),
                shards=_int(counts, "shards", "$.counts"),
                assets=_int(counts, "assets", "$.counts", optional=True),
            ),
            files=files,
            requires_format_version=_str(requires, "formatVersion", "$.requires"),
            requires_features=tuple(features),
            smoke_queries=smoke,
            description=_opt_str(obj, "description", "$"),
            publisher_url=_opt_str(publisher, "url", "$.publisher"),
            spatial=_spatial(obj.get("spatial")),
            toolchain=toolchain_text,
            signature_key_id=key_id,
            raw=obj,
        )


def _spatial(value: Any) -> SpatialSummary | None:
    if value is None:
        return None
    p = "$.spatial"
    if not isinstance(value, Mapping):
        raise _fail(p, "must be an object")
    boxes: list[tuple[float, float, float, float]] = []
    for box, bp in _objects(_list(value, "coverage", p), f"{p}.coverage"):
        parts = []
        for key in ("west", "south", "east", "north"):
            v = box.get(key)
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise _fail(f"{bp}.{key}", "must be a number")
            parts.append(float(v))
        boxes.append((parts[0], parts[1], parts[2], parts[3]))
    return SpatialSummary(
        schema=_str(value, "schema", p),
        crs=_str(value, "crs", p),
        distance_model=_str(value, "distanceModel", p),
        location_count=_int(value, "locationCount", p),
        located_documents=_int(value, "locatedDocuments", p),
        coverage=tuple(boxes),
    )


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Two parsers that disagree on which duplicate wins could verify one manifest and act on
    # another; a manifest with a repeated key is refused outright.
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_manifest_bytes(data: bytes) -> tuple[Any, CatalogManifest]:
    """Decode UTF-8 JSON manifest bytes; return the JSON and its typed view."""
    try:
        obj = json.loads(
            data.decode("utf-8"),
            object_pairs_hook=_no_duplicate_keys,
            parse_constant=_no_constant,
        )
    except (UnicodeDecodeError, ValueError) as exc:
        raise IntegrityFailure(
            f"manifest.json is not UTF-8 JSON: {exc}", reason="invalid-manifest", subject="$"
        ) from exc
    return obj, CatalogManifest.from_json(obj)
