"""Catalogs packed as archives for the extraction-cache tests."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.reader.catalog_builder import CatalogBuild, mutate_db, pack, reseal, sample_docs


@pytest.fixture(scope="session")
def good_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs, topics = sample_docs(8)
    return CatalogBuild(docs, topics, external_shards=True).write(
        tmp_path_factory.mktemp("good") / "catalog"
    )


@pytest.fixture
def make_archive(good_root: Path, tmp_path: Path) -> Callable[..., Path]:
    """``make_archive(name, *sql_on_router, shard_sql=(...), catalog_id=None)`` -> a .gezk."""

    def make(name: str, *router_sql: str, shard_sql: tuple[str, ...] = ()) -> Path:
        root = tmp_path / "src" / name
        shutil.copytree(good_root, root)
        if router_sql:
            mutate_db(root / "index" / "router.db", *router_sql)
        if shard_sql:
            mutate_db(root / "index" / "shards" / "000.db", *shard_sql)
        # A distinct README per name gives every archive its own digest.
        (root / "README.md").write_text(f"# {name}\n", encoding="utf-8")
        reseal(root)
        return pack(root, tmp_path / f"{name}.gezk")

    return make
