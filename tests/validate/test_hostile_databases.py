"""Crafted catalog databases: validation reports each as findings, never a traceback, and deep
validation refuses every value the reader would fail to serve (issue 17, items 2 and 3).

SQLite stores whatever a writer gives it: text that is not UTF-8, a BLOB in a TEXT column, text
where a number belongs, JSON nested thousands deep, FTS5 index pages overwritten.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gezel_knowledge.validate import validate_catalog
from tests.reader.catalog_builder import mutate_db, reseal

Fresh = Callable[[str], Path]

ROUTER = "index/router.db"
SHARD = "index/shards/000.db"
_DEEP = "[" * 3000 + "]" * 3000


@pytest.mark.parametrize(
    ("database", "sql", "reason"),
    [
        # Values the reader could not return: text that does not decode, wrong storage classes.
        pytest.param(
            ROUTER,
            "UPDATE documents SET title = CAST(X'c328' AS TEXT) WHERE id = 'doc-0001'",
            "invalid-text",
            id="title-not-utf8",
        ),
        pytest.param(
            ROUTER, "UPDATE topics SET name = CAST(X'ff' AS TEXT)", "invalid-text", id="topic-name"
        ),
        pytest.param(
            SHARD,
            "UPDATE chunks SET text = CAST(X'c328' AS TEXT) WHERE id = 2",
            "invalid-text",
            id="chunk-text-not-utf8",
        ),
        pytest.param(
            ROUTER,
            "UPDATE documents SET title = X'00ff' WHERE id = 'doc-0001'",
            "invalid-value",
            id="title-blob",
        ),
        pytest.param(
            ROUTER,
            "UPDATE documents SET chunk_count = 'x' WHERE id = 'doc-0001'",
            "invalid-value",
            id="chunk-count-text",
        ),
        pytest.param(
            SHARD, "UPDATE chunks SET ordinal = 'x' WHERE id = 2", "invalid-value", id="ordinal"
        ),
        pytest.param(
            SHARD, "UPDATE chunks SET text = X'6869' WHERE id = 2", "invalid-value", id="chunk-blob"
        ),
        pytest.param(
            SHARD,
            "UPDATE chunk_vectors_int8 SET v = CAST(substr(hex(v), 1, length(v)) AS TEXT)"
            " WHERE chunk_id = 1",
            "invalid-value",
            id="int8-vector-as-text",
        ),
        # Values that crashed structural checks with ValueError, TypeError or RecursionError.
        pytest.param(
            ROUTER, "UPDATE shards SET chunk_count = 'many'", "invalid-value", id="shard-count-text"
        ),
        pytest.param(
            ROUTER,
            "UPDATE route_centroids SET shard_id = 'x'",
            "invalid-value",
            id="centroid-shard-text",
        ),
        pytest.param(
            ROUTER,
            f"UPDATE documents SET meta_json = '{_DEEP}' WHERE id = 'doc-0001'",
            "invalid-meta-json",
            id="meta-json-deep",
        ),
        pytest.param(
            ROUTER,
            f"UPDATE documents SET attribution_json = '{_DEEP}' WHERE id = 'doc-0001'",
            "invalid-attribution",
            id="attribution-deep",
        ),
        pytest.param(
            ROUTER,
            f"UPDATE document_locations SET provenance_json = '{_DEEP}'",
            "invalid-location",
            id="location-provenance-deep",
        ),
        pytest.param(
            ROUTER,
            f"UPDATE meta SET value = '{_DEEP}' WHERE key = 'embedding_profile_json'",
            "meta-mismatch",
            id="profile-echo-deep",
        ),
        # Index pages overwritten: FTS5's own integrity-check sees it, PRAGMA integrity_check
        # does not.
        pytest.param(
            SHARD,
            "UPDATE fts_chunks_data SET block = zeroblob(length(block)) WHERE id > 10",
            "integrity-check",
            id="fts-chunks-zeroed",
        ),
        pytest.param(
            ROUTER,
            "UPDATE fts_documents_data SET block = zeroblob(length(block)) WHERE id > 10",
            "integrity-check",
            id="fts-documents-zeroed",
        ),
    ],
)
def test_crafted_values_are_findings_of_deep_validation(
    fresh: Fresh, database: str, sql: str, reason: str
) -> None:
    root = fresh("external")
    mutate_db(root / database, sql)
    reseal(root)
    structural = validate_catalog(root)  # must not raise either
    assert all(f.reason for f in structural.findings)
    report = validate_catalog(root, deep=True)
    found = {f.reason for f in report.findings}
    assert reason in found, report.findings
    assert not report.ok


def test_the_good_catalogs_have_no_value_findings(good_catalogs: dict[str, Path]) -> None:
    for root in good_catalogs.values():
        assert validate_catalog(root, deep=True).findings == ()
