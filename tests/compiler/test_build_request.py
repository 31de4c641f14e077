"""``build_catalog``: a build as the ``build`` command asks for it (catalog.yaml beside the
source, fields given beside it, the embedder and key by name, createdAt's fallbacks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gezel_knowledge.compiler import CatalogMetadata, MetadataOverrides, build_catalog
from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.errors import InvalidInput
from gezk.manifest import License, Publisher
from tests.compiler.trees import entries, write_tree


def _tree(tmp_path: Path, catalog_yaml: str | None = None) -> Path:
    files = {"a.md": "# Alpha\n\nText about alpha.\n"}
    root = write_tree(tmp_path / "src", files)
    if catalog_yaml is not None:
        (root / "catalog.yaml").write_text(catalog_yaml, encoding="utf-8")
    return root


def _manifest(path: Path) -> dict[str, object]:
    manifest: dict[str, object] = json.loads(entries(path)["manifest.json"])
    return manifest


BASE = CatalogMetadata(
    publisher=Publisher(id="tester", name="Test Publisher", url="https://example.test"),
    license=License(name="CC BY 4.0", attribution_required=True, spdx="CC-BY-4.0"),
)


def test_overrides_merge_publisher_and_licence_fields_one_by_one() -> None:
    merged = MetadataOverrides(
        name="Other", publisher_url="https://other.test", attribution_required=False
    ).apply(BASE)
    assert merged.name == "Other"
    assert merged.publisher == Publisher("tester", "Test Publisher", "https://other.test")
    assert merged.license == License(name="CC BY 4.0", attribution_required=False, spdx="CC-BY-4.0")
    assert MetadataOverrides().apply(BASE) == BASE


@pytest.mark.parametrize(
    "overrides",
    [MetadataOverrides(publisher_url="https://x.test"), MetadataOverrides(license_spdx="MIT")],
)
def test_a_partial_publisher_or_licence_without_a_base_is_refused(
    overrides: MetadataOverrides,
) -> None:
    with pytest.raises(InvalidInput) as refused:
        overrides.apply(CatalogMetadata())
    assert refused.value.reason == "missing-metadata"


def test_the_sources_own_catalog_yaml_is_found_and_merged(tmp_path: Path) -> None:
    source = _tree(tmp_path)  # write_tree writes the default catalog.yaml
    out = tmp_path / "out.gezk"
    build_catalog(
        source,
        out,
        overrides=MetadataOverrides(version="9.9", publisher_url="https://other.test"),
        embedder="test-hash-embed@1",
        created_at="2026-12-01",
    )
    manifest = _manifest(out)
    assert (manifest["id"], manifest["version"]) == ("demo", "9.9")
    assert manifest["publisher"] == {
        "id": "tester",
        "name": "Test Publisher",
        "url": "https://other.test",
    }


def test_created_at_comes_from_the_caller_then_catalog_yaml_then_the_clock(
    tmp_path: Path,
) -> None:
    source = _tree(tmp_path)
    yaml = (source / "catalog.yaml").read_text(encoding="utf-8")
    out = tmp_path / "out.gezk"

    def clock() -> str:
        return "2030-01-01T00:00:00.000Z"

    build_catalog(source, out, embedder="test-hash-embed@1", clock=clock)
    assert _manifest(out)["createdAt"] == "2030-01-01T00:00:00.000Z"
    build_catalog(source, out, embedder="test-hash-embed@1", clock=clock, created_at="2026-12-01")
    assert str(_manifest(out)["createdAt"]).startswith("2026-12-01")
    (source / "catalog.yaml").write_text(yaml + 'createdAt: "2020-05-05T00:00:00Z"\n')
    build_catalog(source, out, embedder="test-hash-embed@1", clock=clock)
    assert str(_manifest(out)["createdAt"]).startswith("2020-05-05")
    # Without a clock the build stays deterministic: no createdAt anywhere is an error.
    (source / "catalog.yaml").write_text(yaml)
    with pytest.raises((InvalidInput, SourceError)):
        build_catalog(source, tmp_path / "again.gezk", embedder="test-hash-embed@1")
