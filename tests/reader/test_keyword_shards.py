"""Keyword scores across shards: each shard's BM25 uses the IDF of all the shards searched."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader._keyword import keyword_passages
from gezel_knowledge.reader._kwcache import KEYWORD_INDEX_ENV
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


def _lucene_idf(rows: int, hits: int) -> float:
    return math.log(1.0 + (rows - hits + 0.5) / (hits + 0.5))


@pytest.mark.parametrize("index", ["derived index", "FTS5 fallback"])
@pytest.mark.parametrize("catalog", ["one", "two"])
def test_scores_are_bm25_with_lucenes_idf_on_either_path(
    one_and_two: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, catalog: str, index: str
) -> None:
    # Every passage is eight tokens long, the average, so a word said tf times in a passage adds
    # idf * tf * (k1 + 1) / (tf + k1), k1 = 1.2; over the twenty passages "zeta" is in seven
    # and "kappa" in two. FTS5's IDF would give "zeta" 0.647 where Lucene's gives 1.030.
    if index == "FTS5 fallback":
        monkeypatch.setenv(KEYWORD_INDEX_ENV, "off")
    one, two = one_and_two
    zeta, kappa = _lucene_idf(20, 7), _lucene_idf(20, 2)

    def part(tf: int) -> float:
        return tf * 2.2 / (tf + 1.2)

    expected = [("s0-00", zeta + kappa), ("s0-01", kappa), ("s1-00", zeta * part(3))]
    expected += [(f"s1-{n:02d}", zeta) for n in range(1, 6)]
    found = _keyword_scores(one if catalog == "one" else two, "zeta kappa")
    assert [d for d, _ in found] == [d for d, _ in expected]
    assert [s for _, s in found] == pytest.approx([s for _, s in expected], rel=1e-12)


def test_eligible_documents_bound_every_shard(one_and_two: tuple[Path, Path]) -> None:
    _, two = one_and_two
    with open_catalog(two) as c:
        store = c._store
        found = keyword_passages(
            store, [("zeta", 1)], store.shards, 10, ["s1-00", "s0-00", "s0-05"]
        )
    assert [p.row.document_id for p in found] == ["s1-00", "s0-00"]


@pytest.mark.parametrize("index", ["derived index", "FTS5 fallback"])
def test_hybrid_search_weighs_its_passage_list_by_fts5s_idf(
    one_and_two: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, index: str
) -> None:
    # Inside hybrid search a term weighs FTS5's IDF log((N - n + 0.5) / (n + 0.5)), which keeps
    # common words to the vector list: "zeta" (7 of 20) weighs 0.588 there, 1.030 in keyword mode.
    if index == "FTS5 fallback":
        monkeypatch.setenv(KEYWORD_INDEX_ENV, "off")
    one, _ = one_and_two
    zeta, kappa = math.log(13.5 / 7.5), math.log(18.5 / 2.5)
    with open_catalog(one) as c:
        hits = c.search("zeta kappa", mode="hybrid", k=20, min_similarity=1.0).hits
    found = {h.document_id: h.signal("keyword") for h in hits}
    expected = {"s0-00": zeta + kappa, "s0-01": kappa, "s1-01": zeta}
    for document_id, score in expected.items():
        signal = found[document_id]
        assert signal is not None
        assert signal.score == pytest.approx(score, rel=1e-12)
