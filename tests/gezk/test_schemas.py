"""The bundled JSON Schemas and the manifest/document/registry validators (spec sections 4, 12)."""

from __future__ import annotations

import copy
import json
import urllib.request
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import referencing.exceptions
from jsonschema import Draft202012Validator

from gezk import schemas
from gezk.errors import GezkError, SchemaViolation, UnsupportedVersion

MANIFESTS = Path(__file__).parent.parent / "data" / "manifests"


def manifest(version: str) -> dict[str, Any]:
    with (MANIFESTS / f"manifest-{version}.json").open(encoding="utf-8") as fh:
        loaded: dict[str, Any] = json.load(fh)
    return loaded


Mutation = Callable[[dict[str, Any]], None]


def _set(*path: str | int, value: object) -> Mutation:
    def mutate(obj: dict[str, Any]) -> None:
        target: Any = obj
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _delete(*path: str | int) -> Mutation:
    def mutate(obj: dict[str, Any]) -> None:
        target: Any = obj
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return mutate


def _append_topic(topic: dict[str, str]) -> Mutation:
    def mutate(obj: dict[str, Any]) -> None:
        obj["topics"].append(topic)

    return mutate


def _topic_chain(length: int) -> Mutation:
    """Replace the topics with one root-to-leaf chain of ``length`` levels."""

    def mutate(obj: dict[str, Any]) -> None:
        obj["topics"] = [{"id": "t1", "name": "T1"}] + [
            {"id": f"t{i}", "name": f"T{i}", "parentId": f"t{i - 1}"} for i in range(2, length + 1)
        ]

    return mutate


# --- the shipped files -----------------------------------------------------------------------


def test_each_version_ships_its_schemas() -> None:
    six = (
        "catalog-document",
        "catalog-manifest",
        "chunking-profile",
        "embedding-profile",
        "registry-index",
        "source-notices",
    )
    assert schemas.available_schemas("0.5") == six
    assert schemas.available_schemas("0.6") == six
    assert schemas.available_schemas("0.7") == (
        "catalog-document",
        "catalog-manifest",
        "chunking-profile",
        "document-location",
        "embedding-profile",
        "radius-query",
        "registry-index",
        "source-notices",
        "spatial-manifest",
    )


@pytest.mark.parametrize("version", ["0.5", "0.6", "0.7"])
def test_every_bundled_schema_is_valid_and_carries_its_versioned_id(version: str) -> None:
    for name in schemas.available_schemas(version):
        schema = schemas.load_schema(name, version)
        Draft202012Validator.check_schema(schema)
        assert schema["$id"] == (f"https://bendyline.com/gezk/{version}/schemas/{name}.schema.json")


def test_license_notice_ships_beside_the_schemas() -> None:
    notice = resources.files("gezk.schemas").joinpath("LICENSE.md").read_text(encoding="utf-8")
    assert "Creative Commons Attribution 4.0" in notice
    assert "Bendyline" in notice


def test_load_schema_accepts_the_file_name_and_returns_a_copy() -> None:
    first = schemas.load_schema("catalog-manifest.schema.json", "0.7")
    first["properties"].clear()
    again = schemas.load_schema("catalog-manifest", "0.7")
    assert "spatial" in again["properties"]


def test_unknown_schema_names_and_versions_are_refused() -> None:
    with pytest.raises(GezkError) as info:
        schemas.load_schema("spatial-manifest", "0.6")
    assert info.value.reason == "unknown-schema"
    assert info.value.subject == "spatial-manifest"
    with pytest.raises(UnsupportedVersion) as version_info:
        schemas.load_schema("catalog-manifest", "0.8")
    assert version_info.value.reason == "unsupported-format"


def test_references_resolve_locally_and_nothing_is_fetched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("a schema reference tried to reach the network")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    resolver = schemas._registry().resolver()
    bundled = "https://bendyline.com/gezk/0.6/schemas/embedding-profile.schema.json"
    assert resolver.lookup(bundled).contents["$id"] == bundled
    with pytest.raises(referencing.exceptions.Unresolvable):
        resolver.lookup("https://bendyline.com/gezk/0.8/schemas/catalog-manifest.schema.json")


# --- manifests -------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["0.5", "0.6", "0.7"])
def test_hand_written_manifests_validate_against_their_own_schema(version: str) -> None:
    obj = manifest(version)
    schemas.validate_manifest(obj)
    assert schemas.manifest_errors(obj) == []
    assert schemas.schema_errors(obj["embedding"], "embedding-profile", version) == []
    assert schemas.schema_errors(obj["chunking"], "chunking-profile", version) == []


@pytest.mark.parametrize(
    ("mutation", "path", "keyword"),
    [
        (_set("kind", value="gezk-registry"), "$.kind", "const"),
        (_delete("spatial"), "$.spatial", "required"),
        (_delete("embedding", "dimensions"), "$.embedding.dimensions", "required"),
        (
            _set("embedding", "model", "onnxDigest", value="sha256:4AA845"),
            "$.embedding.model.onnxDigest",
            "pattern",
        ),
        (_set("files", 1, "sha256", value="F" * 64), "$.files[1].sha256", "pattern"),
        (
            _set("requires", "features", value=["vectors-v2"]),
            "$.requires.features",
            "gezk:features",
        ),
        (_set("embedding", "dimensions", value="384"), "$.embedding.dimensions", "type"),
        (_set("embedding", "dimensions", value=0), "$.embedding.dimensions", "exclusiveMinimum"),
        (_set("embedding", "dimensions", value=True), "$.embedding.dimensions", "type"),
        (_set("embedding", "normalized", value="yes"), "$.embedding.normalized", "type"),
        (
            _set("embedding", "vectorEncoding", value="float32"),
            "$.embedding.vectorEncoding",
            "enum",
        ),
        (_set("topics", value=[]), "$.topics", "minItems"),
        (_set("topics", value={"id": "physics"}), "$.topics", "type"),
        (_set("counts", "shards", value=0), "$.counts.shards", "exclusiveMinimum"),
        (_set("publisher", "id", value="Bendyline"), "$.publisher.id", "pattern"),
        (_set("spatial", "bbox", value=[]), "$.spatial.bbox", "additionalProperties"),
        (_set("spatial", "schema", value="document-points@2"), "$.spatial.schema", "const"),
        (
            _set("spatial", "coverage", 0, "west", value=181),
            "$.spatial.coverage[0].west",
            "maximum",
        ),
        (
            _set("spatial", "coverage", value=[{"west": 0, "south": 0, "east": 1, "north": 1}] * 3),
            "$.spatial.coverage",
            "maxItems",
        ),
        (_set("indexSchemaVersion", value="4"), "$.indexSchemaVersion", "anyOf"),
        (
            _set("license", "noticePath", value="LICENSES/other.txt"),
            "$.license.noticePath",
            "gezk:notice-listed",
        ),
        (
            _append_topic({"id": "optics", "name": "Optics again"}),
            "$.topics[3].id",
            "gezk:unique-topic-id",
        ),
        (
            _set("topics", 1, "parentId", value="chemistry"),
            "$.topics[1].parentId",
            "gezk:topic-parent",
        ),
        (
            _set("topics", 0, "parentId", value="optics"),
            "$.topics[0].parentId",
            "gezk:topic-forest",
        ),
        (_topic_chain(17), "$.topics[16].parentId", "gezk:topic-depth"),
    ],
)
def test_manifest_mutations_fail_at_the_right_json_path(
    mutation: Mutation, path: str, keyword: str
) -> None:
    obj = manifest("0.7")
    mutation(obj)
    findings = schemas.manifest_errors(obj)
    assert [(f.path, f.keyword) for f in findings] == [(path, keyword)]
    with pytest.raises(SchemaViolation) as info:
        schemas.validate_manifest(obj)
    assert info.value.reason == "schema-violation"
    assert info.value.subject == path
    assert f"at {path}:" in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("mutation", "path", "keyword"),
    [
        (_set("version", value="con"), "$.version", "gezk:version"),
        (_set("version", value="NUL.1"), "$.version", "gezk:version"),
        (
            _set("smokeQueries", 0, "expectedDocumentIds", 0, value="22163 "),
            "$.smokeQueries[0].expectedDocumentIds[0]",
            "gezk:document-id",
        ),
        (
            _set("smokeQueries", 0, "expectedDocumentIds", 0, value="Cafe\u0301"),
            "$.smokeQueries[0].expectedDocumentIds[0]",
            "gezk:document-id",
        ),
    ],
)
def test_identifier_rules_beyond_the_schema_apply_to_manifests(
    mutation: Mutation, path: str, keyword: str
) -> None:
    obj = manifest("0.7")
    mutation(obj)
    assert [(f.path, f.keyword) for f in schemas.manifest_errors(obj)] == [(path, keyword)]


def test_a_topic_chain_of_sixteen_levels_is_allowed() -> None:
    obj = manifest("0.7")
    _topic_chain(16)(obj)
    assert schemas.manifest_errors(obj) == []


def test_a_cycle_is_reported_once_even_with_topics_hanging_below_it() -> None:
    obj = manifest("0.7")
    obj["topics"] = [
        {"id": "a", "name": "A", "parentId": "c"},
        {"id": "b", "name": "B", "parentId": "a"},
        {"id": "c", "name": "C", "parentId": "b"},
        {"id": "leaf", "name": "Leaf", "parentId": "b"},
    ]
    findings = schemas.manifest_errors(obj)
    assert [(f.path, f.keyword) for f in findings] == [
        ("$.topics[0].parentId", "gezk:topic-forest")
    ]
    assert "a, b, c" in findings[0].message


def test_messages_are_short_and_name_expected_and_actual() -> None:
    obj = manifest("0.7")
    obj["embedding"]["dimensions"] = {"nested": ["x" * 500]}
    (finding,) = schemas.manifest_errors(obj)
    assert finding.message == "expected integer, got object"
    obj = manifest("0.7")
    obj["indexSchemaVersion"] = "4"
    (finding,) = schemas.manifest_errors(obj)
    assert finding.message == 'must be one of 2, 3, 4, got "4"'
    assert str(finding) == '$.indexSchemaVersion: must be one of 2, 3, 4, got "4"'


def test_all_findings_are_reported_with_a_deterministic_first() -> None:
    obj = manifest("0.7")
    obj["kind"] = "catalog"
    obj["embedding"]["dimensions"] = -1
    obj["spatial"]["extra"] = 1
    del obj["router"]
    findings = schemas.manifest_errors(obj)
    # The shallowest problem leads; ties go to the path that sorts first.
    assert [f.path for f in findings] == [
        "$.kind",
        "$.embedding.dimensions",
        "$.router",
        "$.spatial.extra",
    ]
    reordered = dict(reversed(list(copy.deepcopy(obj).items())))
    assert schemas.manifest_errors(reordered) == findings
    with pytest.raises(SchemaViolation) as info:
        schemas.validate_manifest(reordered)
    assert info.value.subject == "$.kind"
    assert "(and 3 more)" in str(info.value)


def test_keys_that_are_not_identifiers_are_quoted_in_paths() -> None:
    document = {
        "id": "a",
        "title": "A",
        "slug": "a",
        "language": "en",
        "topicPath": ["physics"],
        "markdown": "# A\n",
        "attribution": {"author.name": 7},
    }
    (finding,) = schemas.document_errors(document)
    assert finding.path == "$.attribution['author.name']"


@pytest.mark.parametrize("version", ["0.8", "1.0", "0.4", 0.7, None, ""])
def test_manifests_of_unsupported_versions_are_refused(version: object) -> None:
    obj = manifest("0.7")
    obj["formatVersion"] = version
    with pytest.raises(UnsupportedVersion) as info:
        schemas.validate_manifest(obj)
    assert info.value.reason == "unsupported-format"


def test_a_0_8_manifest_is_refused_as_unsupported_format() -> None:
    obj = manifest("0.7")
    obj.update(formatVersion="0.8", indexSchemaVersion=5)
    obj["requires"]["formatVersion"] = "0.8"
    with pytest.raises(UnsupportedVersion) as info:
        schemas.validate_manifest(obj)
    assert info.value.reason == "unsupported-format"
    assert info.value.subject == "0.8"
    with pytest.raises(UnsupportedVersion):
        schemas.manifest_errors(obj)


def test_a_manifest_without_format_version_is_refused() -> None:
    obj = manifest("0.7")
    del obj["formatVersion"]
    with pytest.raises(UnsupportedVersion) as info:
        schemas.validate_manifest(obj)
    assert info.value.reason == "unsupported-format"


@pytest.mark.parametrize(("version", "schema"), [("0.7", 3), ("0.6", 2), ("0.6", 4), ("0.7", 2)])
def test_mispaired_index_schema_is_a_version_mismatch(version: str, schema: int) -> None:
    obj = manifest(version)
    obj["indexSchemaVersion"] = schema
    if schema == 4:  # outside the 0.6 schema's own anyOf: a schema violation comes first
        with pytest.raises(SchemaViolation) as violation:
            schemas.validate_manifest(obj)
        assert violation.value.subject == "$.indexSchemaVersion"
        return
    with pytest.raises(UnsupportedVersion) as info:
        schemas.validate_manifest(obj)
    assert info.value.reason == "version-mismatch"
    assert info.value.subject == "$.indexSchemaVersion"


def test_0_6_manifest_needs_no_spatial_but_0_7_does() -> None:
    obj = manifest("0.6")
    assert "spatial" not in obj
    schemas.validate_manifest(obj)
    obj.update(formatVersion="0.7", indexSchemaVersion=4)
    with pytest.raises(SchemaViolation) as info:
        schemas.validate_manifest(obj)
    assert info.value.subject == "$.spatial"


def test_0_5_schema_refuses_the_later_format_versions() -> None:
    obj = manifest("0.5")
    obj["requires"]["formatVersion"] = "0.6"
    assert [f.path for f in schemas.manifest_errors(obj)] == ["$.requires.formatVersion"]


def test_0_5_features_must_be_empty_too() -> None:
    obj = manifest("0.5")
    obj["requires"]["features"] = ["x"]
    with pytest.raises(SchemaViolation) as info:
        schemas.validate_manifest(obj)
    assert info.value.subject == "$.requires.features"


@pytest.mark.parametrize("obj", [[], "manifest", 7, None])
def test_a_manifest_that_is_not_an_object_is_a_violation_at_the_root(obj: object) -> None:
    with pytest.raises(SchemaViolation) as info:
        schemas.validate_manifest(obj)
    assert info.value.subject == "$"


# --- documents, registries, source notices ----------------------------------------------------


def _document() -> dict[str, Any]:
    return {
        "id": "84283796",
        "title": "Hurricane Polo",
        "slug": "hurricane-polo",
        "language": "en",
        "topicPath": ["news", "2026-09-28"],
        "ordinal": 9,
        "tocReferences": [{"topicPath": ["news", "2026-09-22"], "ordinal": 12}],
        "markdown": "# Hurricane Polo\n\nA storm.\n",
        "locations": [
            {
                "id": "qualla-article-seattle-wp",
                "latitude": 47.6062,
                "longitude": -122.3321,
                "role": "subject",
                "provenance": {"source": "qualla-article", "articleId": "seattle-wp"},
            }
        ],
    }


def test_a_0_7_document_with_toc_references_and_locations_validates() -> None:
    schemas.validate_document(_document())
    schemas.validate_document(_document(), format_version="0.7")


@pytest.mark.parametrize(
    ("mutation", "path"),
    [
        (_delete("markdown"), "$.markdown"),
        (_set("locations", 0, "latitude", value=91), "$.locations[0].latitude"),
        (_set("locations", 0, "role", value="primary"), "$.locations[0].role"),
        (_set("tocReferences", 0, "title", value="x"), "$.tocReferences[0].title"),
        (_set("ordinal", value=2**31), "$.ordinal"),
        (_set("topicPath", 1, value="Not A Topic"), "$.topicPath[1]"),
    ],
)
def test_document_violations_name_their_path(mutation: Mutation, path: str) -> None:
    document = _document()
    mutation(document)
    with pytest.raises(SchemaViolation) as info:
        schemas.validate_document(document)
    assert info.value.subject == path


@pytest.mark.parametrize(
    ("mutation", "path", "keyword"),
    [
        (_set("id", value="Cafe\u0301"), "$.id", "gezk:document-id"),
        (_set("id", value=" 84283796"), "$.id", "gezk:document-id"),
        (_set("id", value="a\x85b"), "$.id", "gezk:document-id"),
        (_set("id", value=""), "$.id", "minLength"),  # reported once, by the schema
        (_set("locations", 0, "id", value="seattle\n"), "$.locations[0].id", "gezk:location-id"),
        (
            lambda d: d["locations"].append(dict(d["locations"][0])),
            "$.locations[1].id",
            "gezk:unique-location-id",
        ),
    ],
)
def test_identifier_rules_beyond_the_schema_apply_to_documents(
    mutation: Mutation, path: str, keyword: str
) -> None:
    document = _document()
    mutation(document)
    assert [(f.path, f.keyword) for f in schemas.document_errors(document)] == [(path, keyword)]
    with pytest.raises(SchemaViolation) as info:
        schemas.validate_document(document)
    assert info.value.subject == path


def test_document_versions_are_checked() -> None:
    with pytest.raises(UnsupportedVersion):
        schemas.validate_document(_document(), format_version="0.8")


def _registry() -> dict[str, Any]:
    return {
        "kind": "gezk-registry",
        "formatVersion": "0.7",
        "publisher": {"id": "bendyline", "name": "Bendyline"},
        "generatedAt": "2026-09-01T00:00:00.000Z",
        "catalogs": [
            {
                "catalogId": "wikipedia-physics",
                "version": "2026.9.1",
                "name": "Wikipedia: Physics",
                "language": "en",
                "documents": 57210,
                "archiveBytes": 1234567,
                "contentDigest": "ab" * 32,
                "url": "https://example.org/wikipedia-physics-2026.9.1.gezk",
                "license": {"name": "CC BY-SA 4.0", "attributionRequired": True},
            }
        ],
    }


def test_a_registry_validates_and_its_violations_name_their_path() -> None:
    schemas.validate_registry(_registry())
    broken = _registry()
    broken["catalogs"][0]["contentDigest"] = "sha256:" + "ab" * 32
    with pytest.raises(SchemaViolation) as info:
        schemas.validate_registry(broken)
    assert info.value.subject == "$.catalogs[0].contentDigest"


def test_a_registry_uses_the_schema_of_its_own_format_version() -> None:
    older = _registry()
    older["formatVersion"] = "0.5"
    schemas.validate_registry(older)
    newer = _registry()
    newer["formatVersion"] = "0.8"
    with pytest.raises(UnsupportedVersion) as info:
        schemas.validate_registry(newer)
    assert info.value.reason == "unsupported-format"


def test_source_notices_validate() -> None:
    notices = {"sources": [{"name": "Wikipedia", "license": "CC BY-SA 4.0"}]}
    schemas.validate_source_notices(notices)
    with pytest.raises(SchemaViolation) as info:
        schemas.validate_source_notices({"sources": []})
    assert info.value.subject == "$.sources"
    with pytest.raises(SchemaViolation) as missing:
        schemas.validate_source_notices({"sources": [{"name": "Wikipedia"}]})
    assert missing.value.subject == "$.sources[0].license"


@pytest.mark.parametrize(
    ("check", "what"),
    [(schemas.validate_manifest, "manifest"), (schemas.validate_registry, "registry")],
)
def test_a_versioned_document_must_be_an_object_naming_its_format_version(
    check: Callable[[object], None], what: str
) -> None:
    with pytest.raises(SchemaViolation) as not_object:
        check(["formatVersion", "0.7"])
    assert (not_object.value.reason, not_object.value.subject) == ("schema-violation", "$")
    assert str(not_object.value) == f"a {what} must be a JSON object, got array"
    with pytest.raises(UnsupportedVersion) as unversioned:
        check({"kind": "x"})
    assert (unversioned.value.reason, unversioned.value.subject) == ("unsupported-format", "$")
    assert str(unversioned.value) == f"the {what} has no formatVersion"
