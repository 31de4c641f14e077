"""vec0 tables: declared metric detection and similarity from distance."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gezel_knowledge.errors import Unsupported
from gezel_knowledge.indexes._storage import connect
from gezel_knowledge.indexes._vectors import create_vec_table, knn, vec_table


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
