"""Pseudo-relevance feedback in hybrid search (reader.feedback, FusionPreset.feedback_*)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import IntegrityFailure
from gezel_knowledge.fusion import SCORE, VECTOR, Fused
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import _search
from gezel_knowledge.reader._rows import ChunkRow
from gezel_knowledge.reader.feedback import feedback_query, rescored
from gezel_knowledge.reader.hybrid import RankedPassage
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic


def _row(document_id: str, chunk_id: int) -> ChunkRow:
    return ChunkRow(0, chunk_id, "", document_id, 0, "", (), 1, 1, "")


def _fused(row: ChunkRow) -> Fused[str, ChunkRow]:
    return Fused(row.document_id, 1.0, row, ())


def test_the_query_moves_towards_the_mean_of_the_first_documents_kept_passages() -> None:
    a, b, c = _row("a", 1), _row("b", 2), _row("c", 3)
    vectors = {
        (0, 1): np.array([1.0, 0.0, 0.0]),
        (0, 2): np.array([0.0, 1.0, 0.0]),
        (0, 3): np.array([0.0, 0.0, 1.0]),
    }
    query = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    # Two feedback documents, a and b: mean (0.5, 0.5, 0); share 0.4:
    # 0.6 * (1, 0, 0) + 0.4 * (0.5, 0.5, 0) = (0.8, 0.2, 0).
    moved = feedback_query(query, [_fused(a), _fused(b), _fused(c)], vectors, 2, 0.4)
    assert moved is not None
    assert moved.tolist() == pytest.approx([0.8, 0.2, 0.0])
    # A fused document without a kept passage, or one without a vector, is not counted.
    lone: Fused[str, ChunkRow] = Fused("x", 1.0, None, ())
    moved = feedback_query(query, [lone, _fused(_row("y", 9)), _fused(c)], vectors, 3, 0.5)
    assert moved is not None
    assert moved.tolist() == pytest.approx([0.5, 0.0, 0.5])
    assert feedback_query(query, [lone], vectors, 3, 0.5) is None


def test_passages_are_scored_again_and_reordered() -> None:
    a, b, c = _row("a", 1), _row("b", 2), _row("c", 3)
    vectors = {(0, 1): np.array([1.0, 0.0]), (0, 2): np.array([0.6, 0.8])}
    passages = [RankedPassage(a, 0.9), RankedPassage(b, 0.5), RankedPassage(c, 0.4)]
    out = rescored(passages, vectors, np.array([0.2, 0.9]))
    # a: 0.2; b: 0.12 + 0.72 = 0.84; c has no vector and keeps 0.4.
    assert [(p.row.document_id, round(p.score, 6)) for p in out] == [
        ("b", 0.84),
        ("c", 0.4),
        ("a", 0.2),
    ]


WORDS = (
    "Quartz willow falcon marble thistle cobalt sonata garnet anvil tide.",
    "Lattice ember meridian drift orchard lumen copper beacon vellum saffron.",
    "Jasper russet harbor cinder plume basalt fennel quill ochre loom.",
)


def _docs() -> list[Doc]:
    return [
        Doc("one", "One", f"{WORDS[0]} {WORDS[1]}\n", ("t",)),
        Doc("two", "Two", f"{WORDS[1]}\n", ("t",)),
        Doc("three", "Three", f"{WORDS[2]} {WORDS[0]}\n", ("t",)),
        Doc("four", "Four", f"{WORDS[2]}\n", ("t",)),
    ]


@pytest.fixture(scope="module")
def catalog_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    build = CatalogBuild(_docs(), [Topic("t", "T", None, "1")])
    return build.write(tmp_path_factory.mktemp("feedback") / "catalog")


def _int8_vectors(root: Path) -> dict[str, np.ndarray[Any, Any]]:
    """Each document's (one) passage vector read straight from the shard files: int8 / 127."""
    out: dict[str, np.ndarray[Any, Any]] = {}
    for path in sorted((root / "index").rglob("*.db")):
        conn = sqlite3.connect(path)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            if "chunk_vectors_int8" not in tables:
                continue
            for document, blob in conn.execute(
                "SELECT c.document_id, v.v FROM chunks c"
                " JOIN chunk_vectors_int8 v ON v.chunk_id = c.id"
            ):
                out[document] = np.frombuffer(blob, dtype=np.int8).astype(np.float64) / 127.0
        finally:
            conn.close()
    return out


def test_hybrid_search_fuses_again_with_the_vector_list_scored_by_the_moved_query(
    catalog_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []
    real = _search.fuse_documents

    def spy(lists: Any, preset: Any, *rest: Any, **named: Any) -> Any:
        seen.append(lists)
        return real(lists, preset, *rest, **named)

    monkeypatch.setattr(_search, "fuse_documents", spy)
    embedder = HashEmbedder()
    question = WORDS[0]
    feedback = replace(SCORE, feedback_documents=1, feedback_share=0.5)
    with open_catalog(catalog_root, embedder=embedder) as catalog:
        plain = catalog.search(question, mode="hybrid", k=4, min_similarity=-1.0, fusion=SCORE)
        assert len(seen) == 1
        seen.clear()
        found = catalog.search(question, mode="hybrid", k=4, min_similarity=-1.0, fusion=feedback)
        assert len(seen) == 2
        first, second = seen
        seen.clear()
        catalog.search(question, mode="keyword", k=4, fusion=feedback)
        assert len(seen) == 1  # keyword mode has no vector list to move
    vectors = _int8_vectors(catalog_root)
    query = np.asarray(embedder.embed_queries([question])[0], dtype=np.float64)
    top = plain.hits[0].document_id
    moved = 0.5 * query + 0.5 * vectors[top]
    cosines = {p.row.document_id: p.score for p in first[VECTOR]}
    assert {d: pytest.approx(float(query @ v), abs=1e-6) for d, v in vectors.items()} == cosines
    again = {p.row.document_id: p.score for p in second[VECTOR]}
    assert again == {d: pytest.approx(float(moved @ v), abs=1e-6) for d, v in vectors.items()}
    assert [p.row.document_id for p in second[VECTOR]] == sorted(again, key=lambda d: -again[d])
    # The hits report each document's cosine with the question, not the moved query's score.
    for hit in found.hits:
        signal = next(s for s in hit.signals if s.name == VECTOR)
        assert signal.score == pytest.approx(cosines[hit.document_id], abs=1e-6)


def test_reading_the_vector_of_a_passage_the_shard_lacks_fails_as_a_misaligned_catalog(
    catalog_root: Path,
) -> None:
    with open_catalog(catalog_root, embedder=HashEmbedder()) as catalog:
        vectors = catalog._vectors  # the reader's vector side, read directly
        store = vectors._store
        rows = list(store.chunk_rows(store.shard(0), [1]).values())
        assert len(rows) == 1
        assert len(vectors.passage_vectors(rows)) == 1
        with pytest.raises(IntegrityFailure) as caught:
            vectors.passage_vectors([*rows, replace(rows[0], chunk_id=987654)])
    assert caught.value.reason == "vectors-misaligned"
