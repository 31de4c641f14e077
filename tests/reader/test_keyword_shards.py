"""Keyword scores across shards: each shard's BM25 uses the IDF of all the shards searched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader._keyword import keyword_passages
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic

# Every passage is its document's one paragraph of six words under a two-word title, so every
# passage is eight tokens long: the average length is the same in each shard and overall, and a
# split catalog can score exactly as the same passages in one shard do.
_FILLER = ["plain", "words", "fill", "this", "passage", "out"]


def _doc(shard: int, n: int, words: list[str]) -> Doc:
    body = " ".join([*words, *_FILLER][:6])
    return Doc(f"s{shard}-{n:02d}", f"Note {shard}{n:02d}", body, ("all",), shard=shard)


def _docs(shards: int) -> list[Doc]:
    """Twenty passages; with two shards, "zeta" is rare in the first and common in the second.

    ``s0-00`` holds "zeta" once; ``s1-00`` holds it three times, so over all twenty passages
    (the same IDF for both) it is the better match. Shard 0's own IDF for "zeta" (1 passage of
    10) is high and shard 1's (6 of 10) is below zero, which FTS5 clamps to a millionth: ranked
    by each shard's raw BM25, ``s0-00`` came first.
    """
    docs = [_doc(0, 0, ["zeta", "kappa"]), _doc(1, 0, ["zeta", "zeta", "zeta"])]
    docs += [_doc(0, n, ["kappa"] if n == 1 else []) for n in range(1, 10)]
    docs += [_doc(1, n, ["zeta"] if n < 6 else []) for n in range(1, 10)]
    for d in docs:
        d.shard = d.shard if shards > 1 else 0
    return docs


def _write(root: Path, shards: int) -> Path:
    return CatalogBuild(_docs(shards), [Topic("all", "All")], external_shards=True).write(root)


@pytest.fixture(scope="module")
def one_and_two(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("keyword-shards")
    return _write(base / "one", 1), _write(base / "two", 2)


def _keyword_scores(root: Path, query: str) -> list[tuple[str, float]]:
    with open_catalog(root) as c:
        assert len(c.shards) == (2 if root.name == "two" else 1)
        hits = c.search(query, mode="keyword", k=20).hits
    scores = []
    for h in hits:
        signal = h.signal("keyword")
        assert signal is not None
        scores.append((h.document_id, signal.score))
    return scores


@pytest.mark.parametrize("query", ["zeta", "zeta kappa", "kappa"])
def test_two_shards_rank_and_score_as_one(one_and_two: tuple[Path, Path], query: str) -> None:
    one, two = one_and_two
    single = _keyword_scores(one, query)
    split = _keyword_scores(two, query)
    assert [d for d, _ in split] == [d for d, _ in single]
    assert [s for _, s in split] == pytest.approx([s for _, s in single], rel=1e-9)


def test_the_stronger_match_in_the_common_shard_comes_first(
    one_and_two: tuple[Path, Path],
) -> None:
    _, two = one_and_two
    ranked = [d for d, _ in _keyword_scores(two, "zeta")]
    assert ranked[:2] == ["s1-00", "s0-00"]
    assert len(ranked) == 7


def test_one_shard_scores_are_fts5_bm25_itself(one_and_two: tuple[Path, Path]) -> None:
    one, _ = one_and_two
    [shard] = (one / "index" / "shards").glob("*.db")
    with sqlite3.connect(f"file:{shard}?mode=ro", uri=True) as conn:
        expected = conn.execute(
            "SELECT c.document_id, -bm25(fts_chunks, 1.0, 1.0, 1.0) AS s"
            " FROM fts_chunks JOIN chunks c ON c.id = fts_chunks.rowid"
            ' WHERE fts_chunks MATCH \'"zeta" OR "kappa"\' ORDER BY s DESC, c.id'
        ).fetchall()
    assert _keyword_scores(one, "zeta kappa") == [(d, s) for d, s in expected]


def test_eligible_documents_bound_every_shard(one_and_two: tuple[Path, Path]) -> None:
    _, two = one_and_two
    with open_catalog(two) as c:
        store = c._store
        found = keyword_passages(
            store, [("zeta", 1)], store.shards, 10, ["s1-00", "s0-00", "s0-05"]
        )
    assert [p.row.document_id for p in found] == ["s1-00", "s0-00"]
