"""The catalog manifest, ``manifest.json`` (spec section 4), as one typed value.

:meth:`CatalogManifest.parse` reads manifest bytes, or a JSON object already parsed, of any
supported generation (0.5, 0.6, 0.7); :meth:`CatalogManifest.to_json` gives the manifest JSON
back, members in the order of the spec's example and optional members exactly when present, so
``CatalogManifest.parse(m.to_json()) == m``.

Parsing checks ``kind``, the version pairing and the ``requires`` this implementation must meet
(:class:`~gezk.errors.UnsupportedVersion`, see :meth:`Requirements.check`), the profiles
(:class:`~gezk.errors.InvalidProfile` with reason ``unsupported-encoding`` for a vector encoding
this implementation lacks), and the type of every member the value holds, with the limits the
archive checks trust: sizes and counts are non-negative integers, digests 64 hex digits. A strict
parse (the default) then checks the bundled JSON Schema of the manifest's generation and the
section 4 rules beside it (:func:`gezk.schemas.manifest_errors`). Any other problem raises
:class:`~gezk.errors.InvalidManifest` (reason ``invalid-manifest``) whose ``subject`` is the JSON
path of the most relevant problem.

A lenient parse (``strict=False``) stops before the schema, never before the requirements: it is
what a reader uses to open a catalog and a validator to report every finding (the validator
checks the schema itself, over :attr:`CatalogManifest.raw`), and it spares them the JSON Schema
machinery.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from gezk import untrusted_json
from gezk.errors import InvalidManifest, InvalidProfile, UnsupportedVersion
from gezk.ids import is_sha256_hex
from gezk.profiles import ChunkingProfile, EmbeddingProfile
from gezk.schemas import SchemaFinding, manifest_errors
from gezk.spatial import Bounds, SpatialSummary
from gezk.toc import Topic
from gezk.versions import SUPPORTED, Generation, generation

__all__ = [
    "CATALOG_NOTICE_PATH",
    "KIND",
    "CatalogManifest",
    "DeclaredFile",
    "License",
    "ManifestCounts",
    "ManifestShard",
    "Publisher",
    "Requirements",
    "Router",
    "Signature",
    "SmokeQuery",
    "SourceSnapshot",
    "Toolchain",
]

KIND: Final = "gezk-catalog"
CATALOG_NOTICE_PATH: Final = "LICENSES/catalog.txt"
"""Where a compiler ships the catalog's licence notice (``license.noticePath``)."""


@dataclass(frozen=True, slots=True)
class Publisher:
    """Who publishes the catalog (``publisher``)."""

    id: str
    name: str
    url: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``publisher`` object."""
        out: dict[str, Any] = {"id": self.id, "name": self.name}
        if self.url is not None:
            out["url"] = self.url
        return out


@dataclass(frozen=True, slots=True)
class SourceSnapshot:
    """Which snapshot of its sources the catalog was built from (``sourceSnapshot``)."""

    name: str
    date: str
    taxonomy_version: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``sourceSnapshot`` object."""
        out: dict[str, Any] = {"name": self.name, "date": self.date}
        if self.taxonomy_version is not None:
            out["taxonomyVersion"] = self.taxonomy_version
        return out


@dataclass(frozen=True, slots=True)
class License:
    """The content licence (``license``); its notice is the archive entry ``notice_path``."""

    name: str
    attribution_required: bool
    spdx: str | None = None
    notice_path: str = CATALOG_NOTICE_PATH

    def to_json(self) -> dict[str, Any]:
        """The ``license`` object."""
        out: dict[str, Any] = {"name": self.name}
        if self.spdx is not None:
            out["spdx"] = self.spdx
        out["noticePath"] = self.notice_path
        out["attributionRequired"] = self.attribution_required
        return out


@dataclass(frozen=True, slots=True)
class ManifestShard:
    """One ``router.shards`` entry: a shard database and what it holds."""

    id: int
    path: str
    chunks: int
    documents: int
    centroids: int
    sha256: str

    def to_json(self) -> dict[str, Any]:
        """The ``router.shards`` entry."""
        return {
            "id": self.id,
            "path": self.path,
            "chunks": self.chunks,
            "documents": self.documents,
            "centroids": self.centroids,
            "sha256": self.sha256,
        }


@dataclass(frozen=True, slots=True)
class Router:
    """The manifest ``router``: the shard target, the shards, and their centroid total."""

    shard_target_chunks: int
    shards: tuple[ManifestShard, ...]
    total_centroids: int

    def to_json(self) -> dict[str, Any]:
        """The ``router`` object."""
        return {
            "shardTargetChunks": self.shard_target_chunks,
            "shards": [s.to_json() for s in self.shards],
            "totalCentroids": self.total_centroids,
        }


@dataclass(frozen=True, slots=True)
class ManifestCounts:
    """The manifest ``counts``; ``assets`` is ``None`` when absent (none, as in 0.5)."""

    documents: int
    chunks: int
    shards: int
    assets: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``counts`` object."""
        out: dict[str, Any] = {
            "documents": self.documents,
            "chunks": self.chunks,
            "shards": self.shards,
        }
        if self.assets is not None:
            out["assets"] = self.assets
        return out


@dataclass(frozen=True, slots=True)
class DeclaredFile:
    """One ``files`` entry: an archive path with its byte size and SHA-256."""

    path: str
    size_bytes: int
    sha256: str

    def to_json(self) -> dict[str, Any]:
        """The ``files`` entry."""
        return {"path": self.path, "sizeBytes": self.size_bytes, "sha256": self.sha256}


@dataclass(frozen=True, slots=True)
class Requirements:
    """The manifest ``requires``: the reader generation and features (``None`` when absent)."""

    format_version: str
    features: tuple[str, ...] | None = None

    def check(self) -> None:
        """Refuse requirements this implementation cannot meet (spec sections 1 and 4).

        Raises :class:`~gezk.errors.UnsupportedVersion`: ``unsupported-format`` when
        ``format_version`` is not a generation it reads, ``unsupported-feature`` when
        ``features`` names any (0.5-0.7 define none).
        """
        readable = [g.format_version for g in SUPPORTED]
        if self.format_version not in readable:
            raise UnsupportedVersion(
                f"the catalog requires a gezk {self.format_version} reader (this reader reads "
                f"{', '.join(readable)})",
                reason="unsupported-format",
                subject="$.requires.formatVersion",
            )
        if self.features:
            raise UnsupportedVersion(
                f"the catalog requires features this reader lacks: {', '.join(self.features)}",
                reason="unsupported-feature",
                subject="$.requires.features",
            )

    def to_json(self) -> dict[str, Any]:
        """The ``requires`` object."""
        out: dict[str, Any] = {"formatVersion": self.format_version}
        if self.features is not None:
            out["features"] = list(self.features)
        return out


@dataclass(frozen=True, slots=True)
class SmokeQuery:
    """A full-text query the publisher verified at build time, with its expected documents."""

    query: str
    expected_document_ids: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The ``smokeQueries`` entry."""
        return {"query": self.query, "expectedDocumentIds": list(self.expected_document_ids)}


_TOOLCHAIN_EXTRAS: Final = (
    ("node", "node"),
    ("sqlite", "sqlite"),
    ("platform", "platform"),
    ("model_digest", "modelDigest"),
    ("tokenizer_digest", "tokenizerDigest"),
)


@dataclass(frozen=True, slots=True)
class Toolchain:
    """What built the catalog (``toolchain``): provenance, never a compatibility gate."""

    name: str
    version: str
    node: str | None = None
    sqlite: str | None = None
    platform: str | None = None
    model_digest: str | None = None
    tokenizer_digest: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``toolchain`` object."""
        out: dict[str, Any] = {"name": self.name, "version": self.version}
        for attribute, member in _TOOLCHAIN_EXTRAS:
            value = getattr(self, attribute)
            if value is not None:
                out[member] = value
        return out


@dataclass(frozen=True, slots=True)
class Signature:
    """The manifest ``signature`` (section 12); present, not necessarily valid."""

    key_id: str
    value: str
    algorithm: str = "ed25519"
    canonicalization: str = "rfc8785"

    def to_json(self) -> dict[str, Any]:
        """The ``signature`` object."""
        return {
            "algorithm": self.algorithm,
            "keyId": self.key_id,
            "canonicalization": self.canonicalization,
            "value": self.value,
        }


@dataclass(frozen=True, slots=True)
class CatalogManifest:
    """A catalog's ``manifest.json`` (spec section 4) as typed values."""

    generation: Generation
    id: str
    version: str
    name: str
    language: str
    publisher: Publisher
    created_at: str
    license: License
    embedding: EmbeddingProfile
    chunking: ChunkingProfile
    topics: tuple[Topic, ...]
    router: Router
    counts: ManifestCounts
    files: tuple[DeclaredFile, ...]
    requires: Requirements
    description: str | None = None
    source_snapshot: SourceSnapshot | None = None
    spatial: SpatialSummary | None = None
    smoke_queries: tuple[SmokeQuery, ...] | None = None
    toolchain: Toolchain | None = None
    signature: Signature | None = None
    _source: bytes | None = field(default=None, init=False, repr=False, compare=False)

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
        return self.signature is not None

    @property
    def raw(self) -> dict[str, Any]:
        """The JSON object this manifest was parsed from, exactly (a signature covers it).

        Members no spec version declares survive only here. Each access decodes a new copy
        from the manifest's JSON text, so changing it changes nothing the manifest holds, and
        it shares no object with what was parsed. For a manifest built in memory it is
        :meth:`to_json`.
        """
        if self._source is None:
            return self.to_json()
        decoded: dict[str, Any] = _decode(self._source)
        return decoded

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
        """The manifest JSON, members in the spec's order, optional ones only when present."""
        out: dict[str, Any] = {
            "kind": KIND,
            "formatVersion": self.format_version,
            "indexSchemaVersion": self.index_schema_version,
            "id": self.id,
            "version": self.version,
            "name": self.name,
        }
        if self.description is not None:
            out["description"] = self.description
        out["language"] = self.language
        out["publisher"] = self.publisher.to_json()
        out["createdAt"] = self.created_at
        if self.source_snapshot is not None:
            out["sourceSnapshot"] = self.source_snapshot.to_json()
        out["license"] = self.license.to_json()
        out["embedding"] = self.embedding.to_json()
        out["chunking"] = self.chunking.to_json()
        out["topics"] = [t.to_json() for t in self.topics]
        out["router"] = self.router.to_json()
        out["counts"] = self.counts.to_json()
        out["files"] = [f.to_json() for f in self.files]
        if self.spatial is not None:
            out["spatial"] = self.spatial.to_json()
        out["requires"] = self.requires.to_json()
        if self.smoke_queries is not None:
            out["smokeQueries"] = [q.to_json() for q in self.smoke_queries]
        if self.toolchain is not None:
            out["toolchain"] = self.toolchain.to_json()
        if self.signature is not None:
            out["signature"] = self.signature.to_json()
        return out

    @classmethod
    def parse(cls, data: bytes | Mapping[str, Any], *, strict: bool = True) -> CatalogManifest:
        """Parse manifest bytes (UTF-8 JSON) or a JSON object; see the module docstring."""
        if isinstance(data, bytes | bytearray):
            source = bytes(data)
        elif isinstance(data, Mapping):
            # Read from a decoded copy, as from bytes: nothing parsed is the caller's object.
            source = _encode(data)
        else:
            raise _invalid("$", f"must be a JSON object, got {type(data).__name__}")
        obj = _decode(source)
        if not isinstance(obj, dict):
            raise _invalid("$", f"must be a JSON object, got {type(obj).__name__}")
        if obj.get("kind") != KIND:
            raise _invalid("$.kind", f"must be {KIND!r}, got {obj.get('kind')!r}")
        gen = generation(obj.get("formatVersion"), obj.get("indexSchemaVersion"))
        manifest = _read(_Json(obj, "$"), gen)
        # Every parse, strict or lenient: a reader MUST refuse what it does not implement.
        manifest.requires.check()
        if strict:
            _refuse(manifest_errors(obj))
        # The JSON text, not the objects parsed: raw hands out copies nobody else holds.
        object.__setattr__(manifest, "_source", source)
        return manifest


# --- parsing ----------------------------------------------------------------------------------


def _invalid(path: str, message: str) -> InvalidManifest:
    return InvalidManifest(f"manifest {path}: {message}", subject=path)


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


def _decode(data: bytes | bytearray) -> Any:
    try:
        # Bounded nesting: deep JSON is a ValueError here, never a RecursionError later.
        return untrusted_json.loads(
            bytes(data).decode("utf-8"),
            object_pairs_hook=_no_duplicate_keys,
            parse_constant=_no_constant,
        )
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidManifest(f"manifest.json is not UTF-8 JSON: {exc}", subject="$") from exc


def _encode(obj: Mapping[str, Any]) -> bytes:
    """The JSON text of a manifest handed over as an object (refusing what JSON cannot hold)."""
    try:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidManifest(f"manifest is not a JSON value: {exc}", subject="$") from exc


def _refuse(findings: list[SchemaFinding]) -> None:
    if not findings:
        return
    first = findings[0]
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    raise InvalidManifest(
        f"manifest {first.path}: {first.message}{more}",
        subject=first.path,
        findings=tuple(findings),
    )


class _Json:
    """One JSON object of the manifest at its JSON path; reading a member checks its type.

    This is the typing a lenient parse relies on: what the value cannot hold (a wrong JSON type,
    a missing member) and what the archive checks trust (sizes and counts that are not
    negative, SHA-256 digests that are hex). The schema, in a strict parse, checks the rest.
    """

    __slots__ = ("obj", "path")

    def __init__(self, obj: object, path: str) -> None:
        if not isinstance(obj, Mapping):
            raise _invalid(path, "must be an object")
        self.obj: Mapping[str, Any] = obj
        self.path = path

    def at(self, key: str) -> str:
        """The JSON path of a member."""
        return f"{self.path}.{key}"

    def get(self, key: str) -> Any:
        """A member that must be present."""
        if key not in self.obj:
            raise _invalid(self.at(key), "is missing")
        return self.obj[key]

    def text(self, key: str) -> str:
        """A string member."""
        value = self.get(key)
        if not isinstance(value, str):
            raise _invalid(self.at(key), "must be a string")
        return value

    def optional_text(self, key: str) -> str | None:
        """A string member, ``None`` when absent or null."""
        return None if self.obj.get(key) is None else self.text(key)

    def count(self, key: str) -> int:
        """A non-negative integer member (``3.0`` reads as ``3``, ``true`` is refused)."""
        value = self.get(key)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise _invalid(self.at(key), "must be a non-negative integer")
        return value

    def number(self, key: str) -> float:
        """A number member."""
        value = self.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _invalid(self.at(key), "must be a number")
        return float(value)

    def boolean(self, key: str) -> bool:
        """A boolean member."""
        value = self.get(key)
        if not isinstance(value, bool):
            raise _invalid(self.at(key), "must be a boolean")
        return value

    def digest(self, key: str) -> str:
        """A SHA-256 member: 64 lowercase hex digits."""
        value = self.get(key)
        if not is_sha256_hex(value):
            raise _invalid(self.at(key), "must be 64 lowercase hex digits")
        return str(value)

    def member(self, key: str) -> _Json:
        """An object member."""
        return _Json(self.get(key), self.at(key))

    def optional_member(self, key: str) -> _Json | None:
        """An object member, ``None`` when absent or null."""
        return None if self.obj.get(key) is None else self.member(key)

    def array(self, key: str) -> list[Any]:
        """An array member."""
        value = self.get(key)
        if not isinstance(value, list):
            raise _invalid(self.at(key), "must be an array")
        return value

    def members(self, key: str) -> list[_Json]:
        """An array member whose every element is an object."""
        path = self.at(key)
        return [_Json(item, f"{path}[{i}]") for i, item in enumerate(self.array(key))]

    def texts(self, key: str) -> tuple[str, ...]:
        """An array member of strings."""
        values = self.array(key)
        if not all(isinstance(v, str) for v in values):
            raise _invalid(self.at(key), "must be an array of strings")
        return tuple(values)


def _profiles(m: _Json) -> tuple[EmbeddingProfile, ChunkingProfile]:
    path = "$.embedding"
    try:
        embedding = EmbeddingProfile.from_json(m.member("embedding").obj)
        path = "$.chunking"
        chunking = ChunkingProfile.from_json(m.member("chunking").obj)
    except InvalidProfile as exc:
        if exc.reason == "unsupported-encoding":
            raise
        raise _invalid(path, exc.message) from exc
    return embedding, chunking


def _publisher(p: _Json) -> Publisher:
    return Publisher(p.text("id"), p.text("name"), p.optional_text("url"))


def _snapshot(s: _Json | None) -> SourceSnapshot | None:
    if s is None:
        return None
    return SourceSnapshot(s.text("name"), s.text("date"), s.optional_text("taxonomyVersion"))


def _license(lic: _Json) -> License:
    return License(
        name=lic.text("name"),
        attribution_required=lic.boolean("attributionRequired"),
        spdx=lic.optional_text("spdx"),
        notice_path=lic.text("noticePath"),
    )


def _topic(t: _Json) -> Topic:
    return Topic(
        id=t.text("id"),
        name=t.text("name"),
        parent_id=t.optional_text("parentId"),
        sort_key=t.optional_text("sortKey"),
        description=t.optional_text("description"),
    )


def _shard(s: _Json) -> ManifestShard:
    return ManifestShard(
        id=s.count("id"),
        path=s.text("path"),
        chunks=s.count("chunks"),
        documents=s.count("documents"),
        centroids=s.count("centroids"),
        sha256=s.digest("sha256"),
    )


def _router(r: _Json) -> Router:
    return Router(
        shard_target_chunks=r.count("shardTargetChunks"),
        shards=tuple(_shard(s) for s in r.members("shards")),
        total_centroids=r.count("totalCentroids"),
    )


def _counts(c: _Json) -> ManifestCounts:
    return ManifestCounts(
        documents=c.count("documents"),
        chunks=c.count("chunks"),
        shards=c.count("shards"),
        assets=c.count("assets") if "assets" in c.obj else None,
    )


def _file(f: _Json) -> DeclaredFile:
    return DeclaredFile(f.text("path"), f.count("sizeBytes"), f.digest("sha256"))


def _spatial(s: _Json | None) -> SpatialSummary | None:
    if s is None:
        return None
    return SpatialSummary(
        schema=s.text("schema"),
        crs=s.text("crs"),
        distance_model=s.text("distanceModel"),
        location_count=s.count("locationCount"),
        located_documents=s.count("locatedDocuments"),
        coverage=tuple(
            Bounds(b.number("west"), b.number("south"), b.number("east"), b.number("north"))
            for b in s.members("coverage")
        ),
    )


def _requirements(r: _Json) -> Requirements:
    features = r.texts("features") if r.obj.get("features") is not None else None
    return Requirements(r.text("formatVersion"), features)


def _smoke_queries(m: _Json) -> tuple[SmokeQuery, ...] | None:
    if m.obj.get("smokeQueries") is None:
        return None
    out = []
    for q in m.members("smokeQueries"):
        # The expected ids are read first, so a query wrong in both names its ids.
        expected = q.texts("expectedDocumentIds")
        out.append(SmokeQuery(q.text("query"), expected))
    return tuple(out)


def _toolchain(t: _Json | None) -> Toolchain | None:
    if t is None:
        return None
    extras = {attribute: t.optional_text(member) for attribute, member in _TOOLCHAIN_EXTRAS}
    return Toolchain(t.text("name"), t.text("version"), **extras)


def _signature(s: _Json | None) -> Signature | None:
    if s is None:
        return None
    return Signature(
        key_id=s.text("keyId"),
        value=s.text("value"),
        algorithm=s.text("algorithm"),
        canonicalization=s.text("canonicalization"),
    )


def _read(m: _Json, gen: Generation) -> CatalogManifest:
    embedding, chunking = _profiles(m)
    return CatalogManifest(
        generation=gen,
        id=m.text("id"),
        version=m.text("version"),
        name=m.text("name"),
        language=m.text("language"),
        publisher=_publisher(m.member("publisher")),
        created_at=m.text("createdAt"),
        license=_license(m.member("license")),
        embedding=embedding,
        chunking=chunking,
        topics=tuple(_topic(t) for t in m.members("topics")),
        router=_router(m.member("router")),
        counts=_counts(m.member("counts")),
        files=tuple(_file(f) for f in m.members("files")),
        requires=_requirements(m.member("requires")),
        description=m.optional_text("description"),
        source_snapshot=_snapshot(m.optional_member("sourceSnapshot")),
        spatial=_spatial(m.optional_member("spatial")),
        smoke_queries=_smoke_queries(m),
        toolchain=_toolchain(m.optional_member("toolchain")),
        signature=_signature(m.optional_member("signature")),
    )
