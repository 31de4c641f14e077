"""A document's opening passage counts in hybrid search's vector list (hybrid.OPENING_SHARE)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.fusion import SCORE, VECTOR
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import _search
from gezel_knowledge.reader._rows import ChunkRow
from gezel_knowledge.reader.hybrid import RankedPassage, fuse_documents
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic

FLOOR = 0.35


def _passage(document_id: str, ordinal: int, cosine: float) -> RankedPassage:
    row = ChunkRow(0, 100 * ordinal + len(document_id), "", document_id, ordinal, "", (), 1, 1, "")
    return RankedPassage(row, cosine)


def _order(vector: list[RankedPassage], openings: dict[str, float] | None) -> list[str]:
    fused = fuse_documents(
        {VECTOR: sorted(vector, key=lambda p: -p.score)},
        SCORE,
        floor=FLOOR,
        evidence=FLOOR,
        openings=openings,
    )
    return [f.key for f in fused]


def test_a_page_that_opens_near_the_question_goes_before_one_that_touches_it_deep_inside() -> None:
    # "api" answers in its 30th passage and opens on something else (0.30, below the floor);
    # "child-loggers" answers in its 4th passage and opens near the question (0.70).
    vector = [_passage("api", 30, 0.80), _passage("child-loggers", 3, 0.78)]
    openings = {"api": 0.30, "child-loggers": 0.70}
    # Standing: api 0.80 + 0.1 * 0 = 0.80; child-loggers 0.78 + 0.1 * (0.70 - 0.35) = 0.815.
    assert _order(vector, openings) == ["child-loggers", "api"]
    # Without the openings the best passage decides: 0.80 before 0.78.
    assert _order(vector, None) == ["api", "child-loggers"]


def test_an_opening_that_is_the_best_passage_is_not_counted_twice() -> None:
    # "intro" is best at its opening (0.70); "guide" at its 6th passage (0.72) with no opening
    # near the question. Counted twice, intro would stand at 0.70 + 0.1 * 0.35 = 0.735.
    vector = [_passage("guide", 5, 0.72), _passage("intro", 0, 0.70)]
    assert _order(vector, {"intro": 0.70}) == ["guide", "intro"]
    # Nor is an opening nearer than the best listed passage (it is the best passage).
    vector = [_passage("guide", 5, 0.72), _passage("other", 4, 0.70)]
    assert _order(vector, {"other": 0.71}) == ["guide", "other"]


def test_vector_search_keeps_cosine_order() -> None:
    vector = [_passage("api", 30, 0.80), _passage("child-loggers", 3, 0.78)]
    fused = fuse_documents(
        {VECTOR: vector}, SCORE, floor=FLOOR, evidence=None, openings={"child-loggers": 0.9}
    )
    assert [f.key for f in fused] == ["api", "child-loggers"]


INTRO = "Quartz willow falcon marble thistle cobalt sonata garnet anvil tide."
ANSWER = "Lattice ember meridian drift orchard lumen copper beacon vellum saffron."


def _docs() -> list[Doc]:
    def body(opening: str, last: str) -> str:
        return f"{opening}\n\n## Details\n\nJasper russet harbor cinder.\n\n## More\n\n{last}\n"

    return [
        Doc("broad", "Broad", body(INTRO, ANSWER), ("t",), shard=0),
        Doc("focused", "Focused", body(ANSWER, INTRO), ("t",), shard=1),
        Doc("other", "Other", body(INTRO, ANSWER), ("t",), shard=1),
    ]


@pytest.fixture(scope="module")
def two_shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    build = CatalogBuild(_docs(), [Topic("t", "T", None, "1")], external_shards=True)
    return build.write(tmp_path_factory.mktemp("opening") / "catalog")


def _int8_cosines(root: Path, query: np.ndarray[Any, Any]) -> dict[tuple[str, int], float]:
    """Every passage's stage-2 cosine read straight from the shard files: dot(q, int8 / 127)."""
    out: dict[tuple[str, int], float] = {}
    for path in sorted((root / "index").rglob("*.db")):
        conn = sqlite3.connect(path)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            if "chunk_vectors_int8" not in tables:
                continue
            for document, ordinal, blob in conn.execute(
                "SELECT c.document_id, c.ordinal, v.v FROM chunks c"
                " JOIN chunk_vectors_int8 v ON v.chunk_id = c.id"
            ):
                codes = np.frombuffer(blob, dtype=np.int8).astype(np.float64) / 127.0
                out[(document, ordinal)] = float(np.dot(query, codes))
        finally:
            conn.close()
    return out


def test_hybrid_search_reads_the_opening_of_each_document_best_elsewhere(
    two_shards: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []
    real = _search.fuse_documents

    def spy(lists: Any, preset: Any, *rest: Any, **named: Any) -> Any:
        seen.append((lists, named.get("openings")))
        return real(lists, preset, *rest, **named)

    monkeypatch.setattr(_search, "fuse_documents", spy)
    embedder = HashEmbedder()
    with open_catalog(two_shards, embedder=embedder) as catalog:
        catalog.search(ANSWER, mode="hybrid", k=3, min_similarity=-1.0)
        catalog.search(ANSWER, mode="vector", k=3, min_similarity=-1.0)
    (lists, openings), (_, vector_openings) = seen
    assert vector_openings is None
    best: dict[str, int] = {}
    for p in lists[VECTOR]:
        best.setdefault(p.row.document_id, p.row.ordinal)
    assert set(best) == {"broad", "focused", "other"}  # every passage is listed (no floor)
    query = np.asarray(embedder.embed_queries([ANSWER])[0], dtype=np.float64)
    cosines = _int8_cosines(two_shards, query)
    # Openings are read, from both shards, for the documents whose best passage is another.
    expected = {d for d, ordinal in best.items() if ordinal != 0}
    assert expected
    assert set(openings) == expected
    for document in expected:
        assert openings[document] == pytest.approx(cosines[(document, 0)], abs=1e-6)
