"""Catalogs for the Parquet companion tests: hand-built layouts (the handbook is shared, in
tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezk.profiles import MULTILINGUAL_E5_SMALL_2
from tests.reader.catalog_builder import CatalogBuild, sample_docs


@pytest.fixture(scope="session")
def shared_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """0.7, extracted: shared placements, ordinals, locations, meta and aliases."""
    docs, topics = sample_docs(12)
    # doc-0000 is primary at craft and also listed under nature and craft/metals.
    docs[0].refs = ((("nature",), -5), (("craft", "metals"), 2))
    docs[5].refs = ((("nature",), None),)
    docs[0].meta = {"tags": ["fixture", "even"], "generatedIndex": 0, "b": {"z": 1, "a": 2}}
    docs[1].locations = (
        {"id": "seattle", "latitude": 47.6062, "longitude": -122.3321, "role": "subject"},
        {
            "id": "birthplace",
            "latitude": 30.1,
            "longitude": 50.2,
            "role": "associated",
            "provenance": {"source": "test"},
        },
    )
    docs[6].aliases = ("Quasar Alias", "Another")
    return CatalogBuild(docs, topics).write(tmp_path_factory.mktemp("shared") / "catalog")


@pytest.fixture(scope="session")
def sharded_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """0.7, extracted: three external shards."""
    docs, topics = sample_docs(18)
    for i, doc in enumerate(docs):
        doc.shard = i % 3
    docs[4].aliases = ("Zeta", "alpha", "Émile")
    return CatalogBuild(docs, topics, external_shards=True).write(
        tmp_path_factory.mktemp("sharded") / "catalog"
    )


@pytest.fixture(scope="session")
def centered_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """0.7 with a centered-sign profile (its center computed from the passages)."""
    docs, topics = sample_docs(8)
    return CatalogBuild(docs, topics, profile=MULTILINGUAL_E5_SMALL_2).write(
        tmp_path_factory.mktemp("centered") / "catalog"
    )


@pytest.fixture(scope="session", params=["0.5", "0.6"])
def legacy_catalog(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The sample corpus as a 0.5 or 0.6 catalog (no placement or location tables)."""
    docs, topics = sample_docs(12)
    version = str(request.param)
    return CatalogBuild(docs, topics, format_version=version).write(
        tmp_path_factory.mktemp(f"legacy-{version}") / "catalog"
    )
