"""``BuildOptions``: a build as the ``build`` command and Python callers ask for it (catalog.yaml
beside the source, fields given beside it, the embedder and key by name, createdAt's fallbacks,
values checked when the options are made)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.cli import cmd_build
from gezel_knowledge.compiler import (
    BuildOptions,
    CatalogMetadata,
    MetadataOverrides,
    compile_catalog,
)
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
    compile_catalog(
        source,
        out,
        BuildOptions(
            metadata=MetadataOverrides(version="9.9", publisher_url="https://other.test"),
            embedder="test-hash-embed@1",
            created_at="2026-12-01",
        ),
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

    compile_catalog(source, out, BuildOptions(embedder="test-hash-embed@1", clock=clock))
    assert _manifest(out)["createdAt"] == "2030-01-01T00:00:00.000Z"
    compile_catalog(
        source,
        out,
        BuildOptions(embedder="test-hash-embed@1", clock=clock, created_at="2026-12-01"),
    )
    assert str(_manifest(out)["createdAt"]).startswith("2026-12-01")
    (source / "catalog.yaml").write_text(yaml + 'createdAt: "2020-05-05T00:00:00Z"\n')
    compile_catalog(source, out, BuildOptions(embedder="test-hash-embed@1", clock=clock))
    assert str(_manifest(out)["createdAt"]).startswith("2020-05-05")
    # Without a clock the build stays deterministic: no createdAt anywhere is an error.
    (source / "catalog.yaml").write_text(yaml)
    with pytest.raises((InvalidInput, SourceError)):
        compile_catalog(source, tmp_path / "again.gezk", BuildOptions(embedder="test-hash-embed@1"))


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"jobs": 0}, "invalid-jobs"),
        ({"shard_target": 0}, "invalid-shard-size"),
        ({"shard_target": 10, "shard_max": 5}, "invalid-shard-size"),
        ({"shard_fill": "random"}, "invalid-shard-fill"),
    ],
)
def test_options_are_checked_when_they_are_made(fields: dict[str, Any], reason: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        BuildOptions(**fields)
    assert refused.value.reason == reason


def test_the_command_line_and_the_api_build_the_same_options(tmp_path: Path) -> None:
    source = _tree(tmp_path)
    parser = argparse.ArgumentParser()
    cmd_build.register(parser.add_subparsers())
    flags = ["--jobs", "2", "--no-cache", "--embedder", "test-hash-embed@1"]
    flags += ["--name", "Other", "--strict"]
    args = parser.parse_args(["build", str(source), "-o", str(tmp_path / "x.gezk"), *flags])
    options = cmd_build.options(args)
    assert (options.jobs, options.cache_dir, options.strict) == (2, None, True)
    assert options.embedder == "test-hash-embed@1"
    assert isinstance(options.metadata, MetadataOverrides)
    assert options.metadata.name == "Other"
    assert options.clock is not None
    assert dataclasses.fields(BuildOptions)  # one value, a frozen dataclass
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.jobs = 3  # type: ignore[misc]
