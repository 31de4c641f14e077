"""A known-good catalog per test, copied from one built per session, for breaking on purpose."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.reader.catalog_builder import CatalogBuild, sample_docs


def _good_build(**kw: object) -> CatalogBuild:
    docs, topics = sample_docs(10)
    docs[0].refs = ((("nature",), 3),)
    docs[1].locations = (
        {"id": "a", "latitude": 47.6, "longitude": -122.3, "role": "subject"},
        {"id": "b", "latitude": 10.0, "longitude": 10.0, "role": "associated"},
    )
    return CatalogBuild(
        docs,
        topics,
        smoke=[{"query": docs[2].title, "expectedDocumentIds": [docs[2].id]}],
        **kw,  # type: ignore[arg-type]
    )


@pytest.fixture(scope="session")
def good_catalogs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("good")
    return {
        "embedded": _good_build().write(base / "embedded"),
        "external": _good_build(external_shards=True).write(base / "external"),
        "other": _good_build(external_shards=True, catalog_id="other").write(base / "other"),
    }


@pytest.fixture
def fresh(good_catalogs: dict[str, Path], tmp_path: Path) -> Callable[[str], Path]:
    """A private copy of a good catalog that a test may modify."""

    def _copy(name: str = "embedded") -> Path:
        dest = tmp_path / name
        shutil.copytree(good_catalogs[name], dest)
        return dest

    return _copy
