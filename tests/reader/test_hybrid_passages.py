"""The vector list counts a document's second passage above the floor, and a keyword-found
document's cosine below the floor ranks it without being reported as a vector signal."""

from __future__ import annotations

from gezel_knowledge.fusion import KEYWORD, RRF10, SCORE, VECTOR
from gezel_knowledge.reader._rows import ChunkRow
from gezel_knowledge.reader.hybrid import SECOND_PASSAGE_SHARE, RankedPassage, fuse_documents


def _row(document_id: str, chunk_id: int) -> ChunkRow:
    return ChunkRow(0, chunk_id, document_id, document_id, 0, "", (), 1, 1, "")


def _list(*entries: tuple[str, float]) -> list[RankedPassage]:
    return [RankedPassage(_row(d, i), score) for i, (d, score) in enumerate(entries)]


def test_a_second_passage_above_the_floor_lifts_its_document() -> None:
    # "notes" has one passage a little nearer; "guide" has two passages well above the floor.
    vector = _list(("notes", 0.70), ("guide", 0.68), ("guide", 0.66), ("notes", 0.40))
    fused = fuse_documents({VECTOR: vector}, SCORE, floor=0.35, evidence=0.35)
    assert [f.key for f in fused] == ["guide", "notes"]
    # 0.68 + share * (0.66 - 0.35) against 0.70 + share * (0.40 - 0.35).
    assert 0.68 + SECOND_PASSAGE_SHARE * 0.31 > 0.70 + SECOND_PASSAGE_SHARE * 0.05
    # The signal still carries the best passage's cosine, which cutoffs act on.
    assert {f.key: f.signals[0].score for f in fused} == {"guide": 0.68, "notes": 0.70}


def test_without_evidence_documents_keep_cosine_order() -> None:
    # Vector search passes no evidence: a document ranks by its best passage alone.
    vector = _list(("notes", 0.70), ("guide", 0.68), ("guide", 0.66))
    assert [f.key for f in fuse_documents({VECTOR: vector}, SCORE, floor=0.35)] == [
        "notes",
        "guide",
    ]


def test_a_second_passage_at_the_floor_adds_nothing() -> None:
    vector = _list(("notes", 0.70), ("guide", 0.69), ("guide", 0.35))
    for preset in (SCORE, RRF10):
        assert [f.key for f in fuse_documents({VECTOR: vector}, preset, 0.35, 0.35)] == [
            "notes",
            "guide",
        ]


def test_a_cosine_below_the_floor_ranks_but_is_no_vector_signal() -> None:
    lists = {
        # "sql" was found by the keyword list only; its cosine (0.30) is below the floor.
        VECTOR: _list(("config", 0.37), ("sql", 0.30)),
        KEYWORD: _list(("sql", 30.0), ("config", 29.0), ("other", 1.0)),
    }
    fused = fuse_documents(lists, SCORE, floor=0.35)
    assert [f.key for f in fused][:2] == ["config", "sql"]
    by_key = {f.key: f for f in fused}
    assert [s.name for s in by_key["sql"].signals] == [KEYWORD]
    assert [s.name for s in by_key["config"].signals] == [VECTOR, KEYWORD]
    # Its cosine counted: without it "sql" would fall below a document the vector list lacks.
    without = fuse_documents({VECTOR: lists[VECTOR][:1], KEYWORD: lists[KEYWORD]}, SCORE, 0.35)
    assert by_key["sql"].score > next(f.score for f in without if f.key == "sql")
