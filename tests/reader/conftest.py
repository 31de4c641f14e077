"""Catalogs for the reader tests, built once per session by the independent test writer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.reader.catalog_builder import CatalogBuild, Doc, Topic, pack, sample_docs


def shared_toc_build() -> CatalogBuild:
    """0.7: shared placements, ordinals, locations, a smoke query, an external shard layout."""
    docs, topics = sample_docs(12)
    # doc-0000 is primary at craft, also referenced from nature and from its own child metals.
    docs[0].refs = ((("nature",), -5), (("craft", "metals"), 2))
    docs[5].refs = ((("nature",), None),)
    docs[0].meta = {"tags": ["fixture", "even"], "generatedIndex": 0}
    docs[1].locations = (
        {"id": "seattle", "latitude": 47.6062, "longitude": -122.3321, "role": "subject"},
        {"id": "birthplace", "latitude": 30.1, "longitude": 50.2, "role": "associated"},
    )
    docs[2].locations = (
        {"id": "dateline", "latitude": 0.0, "longitude": 180.0, "role": "subject"},
    )
    docs[3].locations = ({"id": "pole", "latitude": 90.0, "longitude": 0.0, "role": "subject"},)
    docs[4].locations = (
        {"id": "b-far", "latitude": 47.70, "longitude": -122.3321, "role": "subject"},
        {"id": "a-near", "latitude": 47.61, "longitude": -122.3321, "role": "subject"},
        {"id": "assoc", "latitude": 30.1, "longitude": 50.2, "role": "associated"},
    )
    docs[6].aliases = ("Quasar Alias",)
    return CatalogBuild(
        docs,
        topics,
        smoke=[{"query": docs[0].title, "expectedDocumentIds": [docs[0].id]}],
    )


@pytest.fixture(scope="session")
def shared_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An extracted 0.7 catalog with an embedded shard."""
    return shared_toc_build().write(tmp_path_factory.mktemp("shared") / "catalog")


@pytest.fixture(scope="session")
def sharded_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An extracted 0.7 catalog with three external shards."""
    docs, topics = sample_docs(18)
    for i, d in enumerate(docs):
        d.shard = i % 3
    return CatalogBuild(docs, topics, external_shards=True).write(
        tmp_path_factory.mktemp("sharded") / "catalog"
    )


@pytest.fixture(scope="session")
def legacy_catalogs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same corpus as 0.5 and 0.6 catalogs."""
    out = {}
    for version in ("0.5", "0.6"):
        docs, topics = sample_docs(12)
        out[version] = CatalogBuild(docs, topics, format_version=version).write(
            tmp_path_factory.mktemp(f"legacy-{version}") / "catalog"
        )
    return out


@pytest.fixture
def packed(tmp_path: Path) -> Callable[[Path], Path]:
    """Zip an extracted catalog into a .gezk under the test's tmp_path."""

    def _pack(root: Path) -> Path:
        return pack(root, tmp_path / f"{root.parent.name}.gezk")

    return _pack


__all__ = ["Doc", "Topic", "shared_toc_build"]
