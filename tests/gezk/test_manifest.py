"""The typed catalog manifest: parse, to_json, and typed refusals (spec sections 1, 4, 12)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gezk.errors import InvalidManifest, InvalidProfile, UnsupportedVersion
from gezk.manifest import (
    CatalogManifest,
    DeclaredFile,
    License,
    ManifestCounts,
    ManifestShard,
    Publisher,
    Requirements,
    Router,
    Signature,
    SmokeQuery,
    SourceSnapshot,
    Toolchain,
)
from gezk.profiles import (
    ALL_MINILM_L6_V2_INT8_1,
    MARKDOWN_CHUNKS_2,
    MARKDOWN_CHUNKS_256_2,
    TEST_HASH_EMBED_1,
)
from gezk.signing import generate_private_key, sign_manifest, verify_manifest
from gezk.spatial import Bounds, SpatialSummary
from gezk.toc import Topic
from gezk.versions import SUPPORTED

MANIFESTS = Path(__file__).parent.parent / "data" / "manifests"
VERSIONS = ("0.5", "0.6", "0.7")


def fixture_bytes(version: str) -> bytes:
    return (MANIFESTS / f"manifest-{version}.json").read_bytes()


def fixture(version: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(fixture_bytes(version))
    return loaded


# --- the conformance manifests ----------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_each_conformance_manifest_parses_strictly_and_gives_its_json_back(version: str) -> None:
    original = fixture(version)
    manifest = CatalogManifest.parse(fixture_bytes(version))
    assert manifest.format_version == version
    assert manifest.generation in SUPPORTED
    # Exactly the same JSON, members in the same order at every level.
    assert json.dumps(manifest.to_json()) == json.dumps(original)
    assert manifest.raw == original
    assert CatalogManifest.parse(original) == manifest


def test_the_0_7_manifest_reads_into_typed_parts() -> None:
    m = CatalogManifest.parse(fixture_bytes("0.7"))
    assert m.publisher == Publisher("bendyline", "Bendyline", "https://bendyline.com")
    assert m.license == License("CC BY-SA 4.0", True, spdx="CC-BY-SA-4.0")
    assert m.source_snapshot == SourceSnapshot("enwiki", "2026-09-01", "2026.9.1+physics")
    assert m.topics[1] == Topic("mechanics", "Mechanics", "physics", "2147483649")
    assert m.topics[2] == Topic("optics", "Optics", "physics", description="Light.")
    assert m.spatial == SpatialSummary(3, 2, (Bounds(-122.3321, 47.6062, 2.3522, 48.8566),))
    assert m.requires == Requirements("0.7", ())
    assert m.smoke_queries == (SmokeQuery("Newton's laws of motion", ("22163",)),)
    assert m.toolchain == Toolchain("gezel-knowledge", "0.1.0")
    assert m.signature is not None
    assert m.signature.key_id == "5f0c3a7e9b1d2c4f"
    assert m.signed
    assert m.file("index/router.db") is not None
    assert m.file("nowhere") is None
    assert m.meta_echoes()["catalog_id"] == m.id


def test_members_a_generation_lacks_read_as_absent() -> None:
    m = CatalogManifest.parse(fixture_bytes("0.5"))
    assert (m.spatial, m.source_snapshot, m.toolchain, m.signature) == (None, None, None, None)
    assert m.counts.assets is None
    assert m.requires.features is None
    assert m.topics == (Topic("physics", "Physics"),)
    assert not m.signed


# --- round trips ------------------------------------------------------------------------------

_ID = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)
_VERSION = st.from_regex(r"[1-9][0-9]{0,3}\.[0-9]{1,2}\.[0-9]{1,2}", fullmatch=True)
_TEXT = st.text(min_size=1, max_size=12)
_OPTIONAL_TEXT = st.none() | st.text(max_size=12)
_COUNT = st.integers(min_value=0, max_value=2**40)
_DIGEST = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
_LATITUDE = st.floats(min_value=-90, max_value=90, allow_nan=False)
_LONGITUDE = st.floats(min_value=-180, max_value=180, allow_nan=False)


@st.composite
def _topics(draw: st.DrawFn) -> tuple[Topic, ...]:
    """A forest: unique ids, each parent an earlier topic (so no cycle, depth below 16)."""
    ids = draw(st.lists(_ID, min_size=1, max_size=6, unique=True))
    topics = []
    for i, topic_id in enumerate(ids):
        parent = draw(st.none() | st.sampled_from(ids[:i])) if i else None
        topics.append(
            Topic(
                id=topic_id,
                name=draw(_TEXT),
                parent_id=parent,
                sort_key=draw(st.none() | _TEXT),
                description=draw(_OPTIONAL_TEXT),
            )
        )
    return tuple(topics)


@st.composite
def manifests(draw: st.DrawFn) -> CatalogManifest:
    """Manifests that satisfy their generation's schema and the section 4 rules."""
    generation = draw(st.sampled_from(SUPPORTED))
    shards = tuple(
        ManifestShard(i, f"index/shards/{i:03d}.db", *draw(st.tuples(_COUNT, _COUNT, _COUNT)), d)
        for i, d in enumerate(draw(st.lists(_DIGEST, min_size=1, max_size=3)))
    )
    license_ = License(draw(_TEXT), draw(st.booleans()), draw(st.none() | st.text(max_size=8)))
    files = (
        DeclaredFile(license_.notice_path, draw(_COUNT), draw(_DIGEST)),
        *(DeclaredFile(s.path, draw(_COUNT), s.sha256) for s in shards),
    )
    spatial = None
    if generation.format_version == "0.7" or draw(st.booleans()):
        coverage = draw(
            st.lists(st.builds(Bounds, _LONGITUDE, _LATITUDE, _LONGITUDE, _LATITUDE), max_size=2)
        )
        spatial = SpatialSummary(draw(_COUNT), draw(_COUNT), tuple(coverage))
    return CatalogManifest(
        generation=generation,
        id=draw(_ID),
        version=draw(_VERSION),
        name=draw(_TEXT),
        language=draw(st.sampled_from(["en", "fj", "de-CH"])),
        publisher=Publisher(draw(_ID), draw(_TEXT), draw(st.none() | _TEXT)),
        created_at=draw(st.text(max_size=24)),
        license=license_,
        embedding=draw(st.sampled_from([TEST_HASH_EMBED_1, ALL_MINILM_L6_V2_INT8_1])),
        chunking=draw(st.sampled_from([MARKDOWN_CHUNKS_2, MARKDOWN_CHUNKS_256_2])),
        topics=draw(_topics()),
        router=Router(draw(_COUNT.filter(bool)), shards, sum(s.centroids for s in shards)),
        counts=ManifestCounts(draw(_COUNT), draw(_COUNT), len(shards), draw(st.none() | _COUNT)),
        files=files,
        requires=Requirements(generation.format_version, draw(st.none() | st.just(()))),
        description=draw(_OPTIONAL_TEXT),
        source_snapshot=draw(st.none() | st.builds(SourceSnapshot, _TEXT, _TEXT, _OPTIONAL_TEXT)),
        spatial=spatial,
        smoke_queries=draw(
            st.none()
            | st.lists(
                st.builds(SmokeQuery, _TEXT, st.lists(_ID, min_size=1, max_size=3).map(tuple)),
                max_size=3,
            ).map(tuple)
        ),
        toolchain=draw(st.none() | st.builds(Toolchain, _TEXT, _TEXT, node=_OPTIONAL_TEXT)),
        signature=draw(st.none() | st.builds(Signature, _TEXT, _TEXT)),
    )


@settings(max_examples=150, deadline=None)
@given(manifests())
def test_parse_of_to_json_is_the_same_manifest(manifest: CatalogManifest) -> None:
    text = json.dumps(manifest.to_json(), ensure_ascii=False).encode("utf-8")
    parsed = CatalogManifest.parse(text)
    assert parsed == manifest
    assert parsed.to_json() == manifest.to_json()


_ANY_TEXT = st.text(max_size=12)


@settings(max_examples=100, deadline=None)
@given(manifests(), _ANY_TEXT, _ANY_TEXT, _ANY_TEXT)
def test_a_lenient_parse_round_trips_values_the_schema_refuses(
    manifest: CatalogManifest, catalog_id: str, name: str, language: str
) -> None:
    odd = replace(manifest, id=catalog_id, name=name, language=language)
    assert CatalogManifest.parse(odd.to_json(), strict=False) == odd


def test_raw_keeps_what_the_model_does_not_type_so_signatures_verify() -> None:
    obj = fixture("0.6")
    obj["x-publisher-note"] = {"kept": True}
    obj["publisher"]["x-desk"] = "physics"
    key = generate_private_key()
    signed = sign_manifest(obj, key)
    manifest = CatalogManifest.parse(json.dumps(signed).encode())
    assert "x-publisher-note" not in manifest.to_json()
    assert manifest.raw == signed
    assert manifest.signature is not None
    anchors = {manifest.signature.key_id: key.public_key()}
    assert verify_manifest(manifest.raw, anchors) == manifest.signature.key_id
    # A changed value is a new manifest: its raw JSON is its own.
    renamed = replace(manifest, name="Renamed")
    assert renamed.raw == renamed.to_json()
    assert renamed == CatalogManifest.parse(renamed.to_json())


@pytest.mark.parametrize("source", ["object", "bytes"])
def test_raw_shares_nothing_with_the_caller_and_cannot_be_changed_through(source: str) -> None:
    obj = fixture("0.7")
    manifest = CatalogManifest.parse(obj if source == "object" else json.dumps(obj).encode())
    # Changing what was parsed, or what raw handed out, changes nothing the manifest holds.
    obj["publisher"]["id"] = "someone-else"
    obj["files"].clear()
    handed_out = manifest.raw
    handed_out["embedding"]["dimensions"] = 7
    handed_out["topics"].append({"id": "extra", "name": "Extra"})
    del handed_out["router"]
    assert manifest.raw == fixture("0.7")
    assert manifest.to_json() == manifest.raw
    assert manifest.publisher.id == "bendyline"


@pytest.mark.parametrize("value", [{1, 2}, float("nan"), b"bytes", object()])
def test_an_object_holding_a_value_json_cannot_is_refused(value: object) -> None:
    obj = fixture("0.7")
    obj["x-extension"] = {"value": value}
    with pytest.raises(InvalidManifest) as info:
        CatalogManifest.parse(obj, strict=False)
    assert (info.value.reason, info.value.subject) == ("invalid-manifest", "$")


# --- refusals ---------------------------------------------------------------------------------

Edit = Callable[[dict[str, Any]], None]


def _set(*path: str | int, value: object) -> Edit:
    def edit(obj: dict[str, Any]) -> None:
        target: Any = obj
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _delete(*path: str | int) -> Edit:
    def edit(obj: dict[str, Any]) -> None:
        target: Any = obj
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return edit


def _edited(version: str, edit: Edit) -> dict[str, Any]:
    obj = copy.deepcopy(fixture(version))
    edit(obj)
    return obj


# (edit, JSON path named): refused by every parse, strict or lenient, in every generation.
_UNREADABLE = [
    (_set("kind", value="gezk-registry"), "$.kind"),
    (_delete("createdAt"), "$.createdAt"),
    (_set("name", value=7), "$.name"),
    (_set("publisher", value="bendyline"), "$.publisher"),
    (_set("license", "attributionRequired", value="yes"), "$.license.attributionRequired"),
    (_set("counts", "documents", value="7"), "$.counts.documents"),
    (_set("counts", "chunks", value=True), "$.counts.chunks"),
    (_set("files", 0, "sizeBytes", value=-1), "$.files[0].sizeBytes"),
    (_set("files", 0, "sha256", value="ABC"), "$.files[0].sha256"),
    (_set("files", 1, value="README.md"), "$.files[1]"),
    (_set("router", "shards", 0, "chunks", value=1.5), "$.router.shards[0].chunks"),
    (_set("topics", 0, "name", value=None), "$.topics[0].name"),
    (_set("requires", "features", value=[1]), "$.requires.features"),
    (_set("embedding", "pooling", value="max"), "$.embedding"),
    (_delete("chunking", "contextHeader"), "$.chunking"),
]


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("edit", "path"), _UNREADABLE)
def test_what_cannot_be_typed_is_refused_naming_its_json_path(
    version: str, strict: bool, edit: Edit, path: str
) -> None:
    with pytest.raises(InvalidManifest) as info:
        CatalogManifest.parse(_edited(version, edit), strict=strict)
    assert info.value.reason == "invalid-manifest"
    assert info.value.subject == path
    assert path in info.value.message


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"\xff{}", "UTF-8"),
        (b'{"kind": "gezk-catalog", "kind": "gezk-catalog"}', "duplicate key"),
        (b'{"kind": NaN}', "NaN"),
        (b"[]", "JSON object"),
    ],
)
def test_bytes_that_are_not_one_json_object_are_refused(data: bytes, fragment: str) -> None:
    with pytest.raises(InvalidManifest) as info:
        CatalogManifest.parse(data)
    assert (info.value.reason, info.value.subject) == ("invalid-manifest", "$")
    assert fragment in info.value.message


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (_set("formatVersion", value="0.8"), "unsupported-format"),
        (_delete("formatVersion"), "unsupported-format"),
        (_set("indexSchemaVersion", value=1), "version-mismatch"),
    ],
)
def test_an_unsupported_generation_is_refused_with_its_reason(
    version: str, edit: Edit, reason: str
) -> None:
    with pytest.raises(UnsupportedVersion) as info:
        CatalogManifest.parse(_edited(version, edit), strict=False)
    assert info.value.reason == reason


@pytest.mark.parametrize("version", VERSIONS)
def test_an_unknown_vector_encoding_is_unsupported_not_malformed(version: str) -> None:
    obj = _edited(version, _set("embedding", "vectorEncoding", value="float32"))
    for strict in (True, False):
        with pytest.raises(InvalidProfile) as info:
            CatalogManifest.parse(obj, strict=strict)
        assert info.value.reason == "unsupported-encoding"


# (edit, reason, JSON path): a catalog whose ``requires`` this reader cannot meet (spec sections
# 1 and 4: a reader MUST refuse any other version; features MUST be empty in 0.5-0.7).
_UNMET_REQUIREMENTS = [
    (_set("requires", "features", value=["sparse"]), "unsupported-feature", "$.requires.features"),
    (
        _set("requires", "formatVersion", value="0.9"),
        "unsupported-format",
        "$.requires.formatVersion",
    ),
    (
        _set("requires", "formatVersion", value="0.4"),
        "unsupported-format",
        "$.requires.formatVersion",
    ),
]


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("edit", "reason", "path"), _UNMET_REQUIREMENTS)
def test_requirements_this_reader_cannot_meet_are_refused_by_every_parse(
    version: str, edit: Edit, reason: str, path: str, strict: bool
) -> None:
    obj = _edited(version, edit)
    for data in (obj, json.dumps(obj).encode()):
        with pytest.raises(UnsupportedVersion) as info:
            CatalogManifest.parse(data, strict=strict)
        assert (info.value.reason, info.value.subject) == (reason, path)


def test_met_requirements_are_read() -> None:
    # An empty or absent features list, and any supported formatVersion the schema allows.
    assert CatalogManifest.parse(fixture("0.7")).requires == Requirements("0.7", ())
    absent = _edited("0.7", _delete("requires", "features"))
    assert CatalogManifest.parse(absent).requires == Requirements("0.7", None)
    obj = _edited("0.7", _set("requires", "formatVersion", value="0.6"))
    assert CatalogManifest.parse(obj).requires == Requirements("0.6", ())


# (version, edit, JSON path): the schema or a section 4 rule refuses it; a lenient parse reads it.
_STRICT_ONLY = [
    *((v, _set("language", value="x"), "$.language") for v in VERSIONS),
    *((v, _set("id", value="Physics Notes"), "$.id") for v in VERSIONS),
    *((v, _set("topics", value=[]), "$.topics") for v in VERSIONS),
    *(
        (v, _set("license", "noticePath", value="LICENSES/other.txt"), "$.license.noticePath")
        for v in VERSIONS
    ),
    ("0.7", _delete("spatial"), "$.spatial"),
    ("0.7", _set("spatial", "crs", value="EPSG:3857"), "$.spatial.crs"),
    ("0.6", _set("topics", 1, "id", value="physics"), "$.topics[1].id"),
    ("0.7", _set("topics", 1, "parentId", value="nowhere"), "$.topics[1].parentId"),
]


@pytest.mark.parametrize(("version", "edit", "path"), _STRICT_ONLY)
def test_schema_and_rule_problems_are_refused_by_a_strict_parse_only(
    version: str, edit: Edit, path: str
) -> None:
    obj = _edited(version, edit)
    with pytest.raises(InvalidManifest) as info:
        CatalogManifest.parse(obj)
    assert (info.value.reason, info.value.subject) == ("invalid-manifest", path)
    assert path in {f.path for f in info.value.findings}
    lenient = CatalogManifest.parse(obj, strict=False)
    assert lenient.raw == obj


def test_the_topic_rules_are_version_aware() -> None:
    # 0.5 predates the topic forest rules: a repeated id breaks no rule of its generation.
    obj = fixture("0.5")
    obj["topics"].append({"id": "physics", "name": "Physics again"})
    assert len(CatalogManifest.parse(obj).topics) == 2
    with pytest.raises(InvalidManifest) as info:
        CatalogManifest.parse(_edited("0.6", _set("topics", 1, "id", value="physics")))
    assert info.value.subject == "$.topics[1].id"


def test_a_strict_refusal_lists_every_finding_the_most_relevant_first() -> None:
    obj = _edited("0.7", _set("language", value="x"))
    obj["name"] = ""
    with pytest.raises(InvalidManifest) as info:
        CatalogManifest.parse(obj)
    assert [f.path for f in info.value.findings] == ["$.language", "$.name"]
    assert "(and 1 more)" in info.value.message
