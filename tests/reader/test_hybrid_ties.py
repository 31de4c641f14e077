"""Documents the fused ranks leave tied are ordered by how far ahead their lists put them."""

from __future__ import annotations

from gezel_knowledge.fusion import GEZEL, KEYWORD, RRF10, VECTOR, fuse
from gezel_knowledge.reader._rows import ChunkRow
from gezel_knowledge.reader.hybrid import RankedPassage, _by_document, fuse_documents


def _row(document_id: str, chunk_id: int) -> ChunkRow:
    return ChunkRow(0, chunk_id, document_id, document_id, 0, "", (), 1, 1, "")


def _list(*entries: tuple[str, float]) -> list[RankedPassage]:
    return [RankedPassage(_row(d, i), score) for i, (d, score) in enumerate(entries)]


def test_a_tie_goes_to_the_document_further_ahead_by_score() -> None:
    lists = {
        # The vector list barely prefers "notes"; the keyword list clearly prefers "guide".
        VECTOR: _list(("notes", 0.80), ("guide", 0.78), ("other", 0.5)),
        KEYWORD: _list(("guide", 15.0), ("notes", 9.0), ("other", 1.0)),
    }
    plain = fuse({n: _by_document(v) for n, v in lists.items()}, RRF10)
    assert plain[0].score == plain[1].score
    assert [f.key for f in plain[:2]] == ["notes", "guide"]  # first appearance: vector
    assert [f.key for f in fuse_documents(lists, RRF10)][:2] == ["guide", "notes"]
    # The other way round, the vector list's pick stands further ahead.
    lists = {
        VECTOR: _list(("notes", 0.80), ("guide", 0.50), ("other", 0.4)),
        KEYWORD: _list(("guide", 15.0), ("notes", 14.5), ("other", 1.0)),
    }
    assert [f.key for f in fuse_documents(lists, RRF10)][:2] == ["notes", "guide"]


def test_scores_only_break_ties() -> None:
    lists = {
        VECTOR: _list(("notes", 0.80), ("guide", 0.79), ("other", 0.5)),
        # "other" leads the keyword list by far: summed scores would put it first, ranks do not.
        KEYWORD: _list(("other", 20.0), ("notes", 3.0), ("guide", 2.9)),
    }
    for preset in (RRF10, GEZEL):
        assert [f.key for f in fuse_documents(lists, preset)] == ["notes", "other", "guide"]
