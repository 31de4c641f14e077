"""The reader turns what a crafted database makes SQLite or a row conversion raise into a typed
error naming the catalog, never a traceback (issue 17, items 2 and 3).

An extracted directory is opened as it is (it was validated when it was extracted), so these
catalogs reach the reader unvalidated on purpose.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import IntegrityFailure, KnowledgeError
from gezel_knowledge.reader import Catalog, open_extracted
from gezk.errors import GezkError
from tests.reader.catalog_builder import CatalogBuild, mutate_db, reseal, sample_docs

ROUTER = "index/router.db"
SHARD = "index/shards/000.db"
_DEEP = "[" * 3000 + "]" * 3000

Call = Callable[[Catalog], object]


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs, topics = sample_docs(10)
    docs[1].locations = ({"id": "a", "latitude": 47.6, "longitude": -122.3, "role": "subject"},)
    return CatalogBuild(docs, topics, external_shards=True).write(
        tmp_path_factory.mktemp("good") / "catalog"
    )


def _broken(good: Path, tmp_path: Path, database: str, sql: str) -> Path:
    root = tmp_path / "catalog"
    shutil.copytree(good, root)
    mutate_db(root / database, sql)
    reseal(root)
    return root


_CALLS: dict[str, Call] = {
    "list": lambda c: c.list_documents(limit=100),
    "topics": lambda c: c.topics(),
    "documents": lambda c: [c.document(f"doc-{i:04d}") for i in range(10)],
    "keyword": lambda c: c.search("lattice ember", mode="keyword"),
    "vector": lambda c: c.search("lattice ember", mode="vector"),
    "hybrid": lambda c: c.search("lattice ember"),
    "read": lambda c: [c.read(f"doc-{i:04d}") for i in range(10)],
}


@pytest.mark.parametrize(
    ("database", "sql", "call"),
    [
        pytest.param(
            ROUTER,
            "UPDATE documents SET title = CAST(X'c328' AS TEXT) WHERE id = 'doc-0001'",
            "list",
            id="title-not-utf8",
        ),
        pytest.param(
            ROUTER, "UPDATE topics SET name = CAST(X'ff' AS TEXT)", "topics", id="topic-not-utf8"
        ),
        pytest.param(
            ROUTER, "UPDATE topics SET document_count = 'x'", "topics", id="topic-count-text"
        ),
        pytest.param(
            ROUTER,
            "UPDATE documents SET chunk_count = 'x' WHERE id = 'doc-0001'",
            "documents",
            id="chunk-count-text",
        ),
        pytest.param(
            ROUTER,
            "UPDATE document_locations SET latitude = 'x'",
            "documents",
            id="latitude-text",
        ),
        pytest.param(
            SHARD,
            "UPDATE chunks SET text = CAST(X'c328' AS TEXT)",
            "keyword",
            id="chunk-text-not-utf8",
        ),
        pytest.param(
            SHARD,
            "UPDATE chunks SET line_start = 'x'",
            "hybrid",
            id="line-start-text",
        ),
        pytest.param(
            SHARD,
            "UPDATE chunk_vectors_int8 SET v = CAST(substr(hex(v), 1, length(v)) AS TEXT)",
            "vector",
            id="int8-vectors-as-text",
        ),
        pytest.param(
            SHARD,
            "UPDATE chunk_vectors_int8 SET v = CAST(v AS TEXT) WHERE chunk_id = 1",
            "vector",
            id="int8-vector-not-utf8",
        ),
    ],
)
def test_crafted_values_are_typed_errors(
    good: Path, tmp_path: Path, database: str, sql: str, call: str
) -> None:
    # Before: OperationalError, ValueError, TypeError or RecursionError escaped the reader.
    root = _broken(good, tmp_path, database, sql)
    catalog = open_extracted(root, embedder=HashEmbedder())
    with catalog, pytest.raises(IntegrityFailure) as err:
        _CALLS[call](catalog)
    assert err.value.reason in {"corrupt-database", "invalid-value", "vectors-misaligned"}
    assert "\n" not in str(err.value)


def test_deeply_nested_meta_json_is_opaque_data_not_a_recursion_error(
    good: Path, tmp_path: Path
) -> None:
    # Before: RecursionError from json.loads while building the document.
    sql = f"UPDATE documents SET meta_json = '{_DEEP}' WHERE id = 'doc-0001'"
    root = _broken(good, tmp_path, ROUTER, sql)
    with open_extracted(root) as catalog:
        assert catalog.document("doc-0001").meta is None


def test_an_open_that_meets_a_crafted_value_is_a_typed_error(good: Path, tmp_path: Path) -> None:
    root = _broken(good, tmp_path, ROUTER, "UPDATE shards SET chunk_count = 'many'")
    with pytest.raises(IntegrityFailure) as err:
        open_extracted(root)
    assert err.value.reason == "invalid-value"


@pytest.mark.parametrize("call", sorted(_CALLS))
def test_every_call_on_a_good_catalog_still_answers(good: Path, call: str) -> None:
    with open_extracted(good, embedder=HashEmbedder()) as catalog:
        _CALLS[call](catalog)


def test_typed_errors_pass_through_unchanged(good: Path) -> None:
    with open_extracted(good) as catalog, pytest.raises((KnowledgeError, GezkError)) as err:
        catalog.document("no-such-document")
    assert err.value.reason == "document-not-found"
