"""Publisher registry documents: schema, signatures and coordinate resolution (spec 12)."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.archive import verify
from gezel_knowledge.cli import main
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.install import registry_document
from gezel_knowledge.install.registry_document import (
    CatalogCoordinate,
    RegistryDocument,
    build_registry,
    load_registry_document,
    resolve_release,
    version_sort_key,
)
from gezk.errors import InvalidIdentifier, SchemaViolation, SignatureError
from gezk.signing import TrustAnchors, generate_private_key, private_key_to_pem, sign_manifest


def _row(catalog: str, version: str, digest: str = "ab" * 32) -> dict[str, Any]:
    return {
        "catalogId": catalog,
        "version": version,
        "name": f"{catalog} {version}",
        "language": "en",
        "documents": 3,
        "archiveBytes": 1234,
        "contentDigest": digest,
        "url": f"https://example.org/{catalog}-{version}.gezk",
        "license": {"name": "CC BY 4.0", "attributionRequired": True},
    }


def _doc(rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "kind": "gezk-registry",
        "formatVersion": "0.7",
        "publisher": {"id": "acme", "name": "Acme"},
        "generatedAt": "2026-10-01T00:00:00Z",
        "catalogs": rows
        if rows is not None
        else [
            _row("physics", "2026.9.1", "11" * 32),
            _row("physics", "2026.10.0", "22" * 32),
            _row("physics", "2026.10.0-rc1", "33" * 32),
            _row("music", "1.0", "44" * 32),
        ],
    }


def test_newest_release_is_resolved_when_no_version_is_given() -> None:
    doc = RegistryDocument.parse(_doc())
    release = doc.resolve("acme/physics")
    assert (release.version, release.content_digest) == ("2026.10.0", "22" * 32)
    assert release.url == "https://example.org/physics-2026.10.0.gezk"
    assert release.archive_bytes == 1234


def test_pinned_version_is_resolved_exactly() -> None:
    doc = RegistryDocument.parse(json.dumps(_doc()))
    assert doc.resolve("acme/physics@2026.9.1").content_digest == "11" * 32


def test_unknown_release_or_publisher_is_not_found() -> None:
    doc = RegistryDocument.parse(_doc())
    for coordinate in ("acme/physics@9.9", "acme/chemistry", "other/physics"):
        with pytest.raises(NotFound) as info:
            doc.resolve(coordinate)
        assert info.value.reason == "not-in-registry"


def test_schema_violation_is_reported() -> None:
    bad = _doc()
    del bad["catalogs"][0]["contentDigest"]
    with pytest.raises(SchemaViolation):
        RegistryDocument.parse(bad)


def test_non_http_url_is_refused() -> None:
    row = _row("physics", "1.0")
    row["url"] = "file:///etc/passwd"
    with pytest.raises(InvalidInput) as info:
        RegistryDocument.parse(_doc([row]))
    assert info.value.reason == "invalid-registry"


def test_signed_registry_verifies_against_its_anchor_and_fails_otherwise() -> None:
    key = generate_private_key()
    signed = sign_manifest(_doc(), key)
    anchors = TrustAnchors()
    key_id = anchors.add(key.public_key())
    doc = RegistryDocument.parse(signed)
    assert doc.signed
    assert doc.verify(anchors) == key_id

    with pytest.raises(SignatureError) as unknown:
        doc.verify(TrustAnchors([generate_private_key().public_key()]))
    assert unknown.value.reason == "unknown-key"

    tampered = copy.deepcopy(signed)
    tampered["catalogs"][1]["url"] = "https://evil.example/physics.gezk"
    with pytest.raises(SignatureError) as invalid:
        RegistryDocument.parse(tampered).verify(anchors)
    assert invalid.value.reason == "signature-invalid"

    with pytest.raises(SignatureError) as unsigned:
        RegistryDocument.parse(_doc()).verify(anchors)
    assert unsigned.value.reason == "unsigned"


def test_resolution_with_trust_requires_a_verified_registry() -> None:
    key = generate_private_key()
    anchors = TrustAnchors([key.public_key()])
    unsigned = RegistryDocument.parse(_doc())
    with pytest.raises(SignatureError):
        resolve_release("acme/music", [unsigned], trust=anchors)
    signed = RegistryDocument.parse(sign_manifest(_doc(), key))
    assert resolve_release("acme/music", [signed], trust=anchors).version == "1.0"
    assert resolve_release("acme/music", [unsigned]).version == "1.0"
    with pytest.raises(NotFound):
        resolve_release("bendyline/music", [signed])


def test_registry_is_loaded_from_a_file_and_over_http(tmp_path: Path, http_file: Any) -> None:
    body = json.dumps(_doc()).encode()
    path = tmp_path / "registry.json"
    path.write_bytes(body)
    assert load_registry_document(path).resolve("acme/music").version == "1.0"
    server = http_file(body)
    assert load_registry_document(server.url).publisher_id == "acme"
    with pytest.raises(NotFound):
        load_registry_document(tmp_path / "missing.json")


def test_coordinates_parse_and_validate() -> None:
    assert CatalogCoordinate.parse("acme/physics@2026.9.1") == CatalogCoordinate(
        "acme", "physics", "2026.9.1"
    )
    assert str(CatalogCoordinate.parse("acme/physics")) == "acme/physics"
    with pytest.raises(InvalidInput) as info:
        CatalogCoordinate.parse("just-a-name")
    assert info.value.reason == "invalid-coordinate"
    with pytest.raises(InvalidIdentifier):
        CatalogCoordinate.parse("Acme/physics")
    assert CatalogCoordinate.looks_like("acme/physics@1")
    assert not CatalogCoordinate.looks_like("https://x/y")
    assert not CatalogCoordinate.looks_like("./a/b.gezk")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("2026.9.1", "2026.10.0"),
        ("1.0.0-rc1", "1.0.0"),
        ("1.0.0-alpha", "1.0.0-beta"),
        ("1.0.0", "1.0.1"),
        ("1.2", "1.10"),
        ("1.0.0", "1.0.0+build5"),
        ("1.x", "1.0-rc"),
    ],
)
def test_versions_order_naturally(older: str, newer: str) -> None:
    assert version_sort_key(older) < version_sort_key(newer)


def test_a_registry_built_from_archives_lists_their_digests_and_verifies(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = archive_factory("alpha"), archive_factory("alpha", version="2.0.0", n_docs=9)
    key = generate_private_key()
    doc = build_registry(
        [b, a], "https://example.org/dl/", generated_at="2026-01-01T00:00:00Z", sign_with=key
    )
    anchors = TrustAnchors([key.public_key()])
    assert doc.verify(anchors)
    rows = {r.version: r for r in doc.releases}
    assert rows["1.0.0"].content_digest == hashlib.sha256(a.read_bytes()).hexdigest()
    assert rows["2.0.0"].archive_bytes == b.stat().st_size
    assert rows["2.0.0"].url == f"https://example.org/dl/{b.name}"
    assert rows["1.0.0"].documents == 8
    assert doc.resolve("tester/alpha").version == "2.0.0"
    # The published bytes parse back to the same document.
    assert RegistryDocument.parse(doc.to_bytes()).releases == doc.releases

    pem = tmp_path / "k.pem"
    pem.write_bytes(private_key_to_pem(key))
    out = tmp_path / "registry.json"
    code = main(
        ["registry", str(out), str(a), "--base-url", "https://example.org", "--key", str(pem)]
    )
    assert code == 0
    assert "(signed): 1 release\n" in capsys.readouterr().out
    written = load_registry_document(out)
    assert written.verify(anchors)
    assert written.releases[0].url == f"https://example.org/{a.name}"


def test_building_a_registry_validates_each_archive_once(
    archive_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = archive_factory("alpha"), archive_factory("alpha", version="2.0.0", n_docs=9)
    expected_name = verify.inspect_archive(a).manifest.publisher.name
    real = registry_document.validate_archive
    seen: list[Path] = []

    def counting(path: Path | str, *args: Any, **kwargs: Any) -> Any:
        seen.append(Path(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(registry_document, "validate_archive", counting)
    doc = build_registry([a, b], "https://example.org/dl", generated_at="2026-01-01T00:00:00Z")
    # Each validation reads the whole archive: the publisher name comes from the first one.
    assert sorted(seen) == sorted([a, b])
    assert doc.publisher_name == expected_name


@pytest.mark.parametrize("depth", [100_000, 500])
def test_deeply_nested_registry_document_is_invalid_not_a_recursion_error(
    tmp_path: Path, depth: int
) -> None:
    # Before: RecursionError from json.loads (or from the schema check of a parsed document).
    doc = _doc()
    text = json.dumps(doc)[:-1] + ', "x": ' + "[" * depth + "]" * depth + "}"
    with pytest.raises(InvalidInput) as err:
        RegistryDocument.parse(text, source="deep.json")
    assert err.value.reason == "invalid-registry"
    path = tmp_path / "registry.json"
    path.write_text(text)
    with pytest.raises(InvalidInput) as loaded:
        load_registry_document(path)
    assert loaded.value.reason == "invalid-registry"


def test_a_damaged_archive_is_never_listed(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: `registry` only inspected the archive's structure, so a byte flipped inside an
    # entry was listed (with the damaged bytes' digest) and the command exited 0.
    damaged = tmp_path / "alpha.gezk"
    data = bytearray(archive_factory("alpha").read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    out = tmp_path / "registry.json"
    code = main(["registry", str(out), str(damaged), "--base-url", "https://example.org"])
    err = capsys.readouterr().err
    assert code == 1
    assert not out.exists()
    assert "cannot be listed" in err
    assert err.count("\n") == 1
