"""vec0 tables: declared metric detection and similarity from distance; shared query vectors."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import InvalidInput, Unsupported
from gezel_knowledge.indexes._storage import connect
from gezel_knowledge.indexes._vectors import (
    create_vec_table,
    knn,
    store_pending_vectors,
    vec_table,
)
from gezel_knowledge.query import QueryVectors, query_vectors_for


def _unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.parametrize("declaration", ["", " distance_metric=cosine", " distance_metric=L2"])
def test_similarity_is_cosine_whatever_the_declared_metric(
    tmp_path: Path, declaration: str
) -> None:
    conn = connect(tmp_path / "v.db")
    conn.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding float[16]{declaration})")
    rng = np.random.default_rng(7)
    rows = _unit(rng, 50, 16)
    conn.executemany(
        "INSERT INTO v (rowid, embedding) VALUES (?, ?)",
        [(i + 1, rows[i].tobytes()) for i in range(len(rows))],
    )
    table = vec_table(conn, "v")
    assert table is not None
    assert table.metric == ("cosine" if "cosine" in declaration else "l2")
    query = _unit(rng, 1, 16)[0]
    ids, sims = knn(conn, table, query, 10)
    expected = rows @ query
    best = np.argsort(-expected, kind="stable")[:10]
    np.testing.assert_array_equal(ids, best + 1)
    np.testing.assert_allclose(sims, expected[best], atol=1e-5)
    conn.close()


def test_new_tables_declare_cosine(tmp_path: Path) -> None:
    conn = connect(tmp_path / "v.db")
    create_vec_table(conn, "vec_text", 8)
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_text'").fetchone()[0]
    assert "distance_metric=cosine" in sql
    assert vec_table(conn, "vec_text") == vec_table(conn, "vec_text")
    assert vec_table(conn, "missing") is None
    conn.close()


def test_l1_tables_are_refused(tmp_path: Path) -> None:
    conn = connect(tmp_path / "v.db")
    conn.execute("CREATE VIRTUAL TABLE v USING vec0(embedding float[4] distance_metric=l1)")
    with pytest.raises(Unsupported) as info:
        vec_table(conn, "v")
    assert info.value.reason == "vector-metric-unsupported"
    conn.close()


def test_query_vectors_embed_once_per_embedder_and_belong_to_one_query() -> None:
    class Counting(HashEmbedder):
        calls = 0

        def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
            type(self).calls += 1
            return super().embed_queries(texts)

    first, second = Counting(), Counting()
    vectors = QueryVectors("parse config")
    a = vectors.of(first)
    assert vectors.of(first) is a
    assert Counting.calls == 1
    assert np.array_equal(vectors.of(second), a)  # another object embeds for itself
    assert Counting.calls == 2
    assert np.array_equal(a, HashEmbedder().embed_queries(["parse config"])[0])
    assert query_vectors_for("parse config", vectors) is vectors
    assert query_vectors_for("parse config", None).query == "parse config"
    with pytest.raises(InvalidInput) as info:
        query_vectors_for("send email", vectors)
    assert info.value.reason == "query-mismatch"


def test_only_rows_still_pending_with_the_same_text_get_vectors(tmp_path: Path) -> None:
    conn = connect(tmp_path / "v.db")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT, embedded INTEGER)")
    conn.executemany("INSERT INTO t VALUES (?, ?, 0)", [(1, "one"), (2, "two"), (3, "three")])
    create_vec_table(conn, "v", 4)
    rows = conn.execute("SELECT id, text FROM t ORDER BY id").fetchall()
    vectors = np.eye(3, 4, dtype=np.float32)
    # Meanwhile another writer embedded row 2 and a sync gave row 3 other text.
    conn.execute("INSERT INTO v (rowid, embedding) VALUES (2, ?)", (vectors[1].tobytes(),))
    conn.execute("UPDATE t SET embedded = 1 WHERE id = 2")
    conn.execute("UPDATE t SET text = 'third' WHERE id = 3")
    stored = store_pending_vectors(
        conn, vec="v", table="t", columns="text", rows=rows, vectors=vectors
    )
    assert stored == 1
    assert [r[0] for r in conn.execute("SELECT rowid FROM v ORDER BY rowid")] == [1, 2]
    assert conn.execute("SELECT id, embedded FROM t ORDER BY id").fetchall() == [
        (1, 1),
        (2, 1),
        (3, 0),
    ]
    conn.close()
