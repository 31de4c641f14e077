"""Keyword, semantic and hybrid search over hand-built catalogs with the hash embedder."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import InvalidInput, ModelUnavailable
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog, _keyword, _search, _semantic
from gezel_knowledge.reader._kwcache import KEYWORD_INDEX_ENV
from gezel_knowledge.reader.vectors import candidate_count, rank_shards
from gezk.hashembed import hash_embed
from gezk.ids import chunk_uid
from gezk.profiles import TEST_HASH_EMBED_1, BinaryQuantization
from tests.reader.catalog_builder import CatalogBuild, chunk_document, sample_docs
from tests.reader.conftest import shared_toc_build


@pytest.fixture
def catalog(shared_catalog: Path) -> Iterator[Catalog]:
    with open_catalog(shared_catalog, embedder=HashEmbedder()) as c:
        yield c


def probe(doc_index: int, chunk_index: int = 0) -> tuple[str, str, str]:
    """(document id, chunk uid, embed input) of a chunk of the shared catalog."""
    doc = shared_toc_build().docs[doc_index]
    chunk = chunk_document(doc)[chunk_index]
    return doc.id, chunk_uid(doc.id, chunk.ordinal, chunk.text), chunk.embed_input


def test_candidate_count_rule() -> None:
    assert candidate_count(24, 10**6) == 1024
    assert candidate_count(100, 10**6) == 3200
    assert candidate_count(500, 10**6) == 4096
    assert candidate_count(24, 300) == 300


def test_keyword_title_query_finds_its_document_first(catalog: Catalog) -> None:
    title = shared_toc_build().docs[5].title
    result = catalog.search(title, mode="keyword")
    assert result.hits[0].document_id == "doc-0005"
    assert result.hits[0].signal("title") is not None
    assert result.semantic_unavailable is None


def test_alias_matches_document_search(catalog: Catalog) -> None:
    result = catalog.search("quasar alias", mode="keyword")
    assert result.hits[0].document_id == "doc-0006"


@pytest.mark.parametrize(
    "text",
    [
        '"',
        '""""',
        "'",
        "a OR b AND NOT c",
        "NEAR(x y, 3)",
        "title:lattice",
        "lattice*",
        "^ember",
        "(((",
        "-meridian +drift",
        "\x00\x1f",
        "🙂🙂",
        "{lattice}",
        "lattice ember " * 40,
    ],
)
def test_hostile_keyword_text_never_crashes(catalog: Catalog, text: str) -> None:
    result = catalog.search(text, mode="keyword")
    assert isinstance(result.hits, tuple)
    hybrid = catalog.search(text)
    assert isinstance(hybrid.hits, tuple)


def test_operators_are_just_words(catalog: Catalog) -> None:
    # "NOT lattice" must not exclude lattice documents: NOT is a (stop)word, lattice a term.
    hits = catalog.search("NOT lattice", mode="keyword").hits
    assert hits
    assert any("lattice" in h.text.lower() or "lattice" in h.title for h in hits)


def test_semantic_probe_returns_the_chunk_first(catalog: Catalog) -> None:
    doc_id, uid, text = probe(3, 1)
    for stage1 in ("lut", "hamming"):
        result = catalog.search(text, mode="vector", stage1=stage1)  # type: ignore[arg-type]
        assert result.hits[0].document_id == doc_id
        assert result.hits[0].chunk_uid == uid
        assert result.hits[0].citation.endswith(f"#chunk={uid}")
        vector = result.hits[0].signal("vector")
        assert vector is not None
        assert vector.score > 0.95


def test_unrelated_query_returns_no_vector_evidence(catalog: Catalog) -> None:
    result = catalog.search("completely unrelated question about tax law", mode="vector")
    assert result.hits == ()
    assert result.semantic_unavailable is None
    unfloored = catalog.search(
        "completely unrelated question about tax law", mode="vector", min_similarity=-1.0
    )
    assert unfloored.hits  # nearest neighbours exist; the floor is what removes them


def test_without_an_embedder_keyword_search_works_and_says_why(shared_catalog: Path) -> None:
    with open_catalog(shared_catalog, embedder=None) as c:
        title = shared_toc_build().docs[2].title
        result = c.search(title)
        assert result.hits[0].document_id == "doc-0002"
        assert result.semantic_unavailable is not None
        assert "test-hash-embed@1" in result.semantic_unavailable
        # Vector mode has nothing else to answer with: it says why instead of returning nothing.
        with pytest.raises(ModelUnavailable) as refused:
            c.search(title, mode="vector")
        assert refused.value.reason == "vector-search-unavailable"
        assert "test-hash-embed@1" in str(refused.value)


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_a_search_with_no_text_and_no_radius_is_refused(catalog: Catalog, text: str) -> None:
    for mode in ("hybrid", "keyword", "vector"):
        with pytest.raises(InvalidInput) as refused:
            catalog.search(text, mode=mode)  # type: ignore[arg-type]
        assert refused.value.reason == "empty-query"


@pytest.mark.parametrize("budget", [0, -1])
def test_a_shard_budget_below_one_is_refused(catalog: Catalog, budget: int) -> None:
    with pytest.raises(InvalidInput) as refused:
        catalog.search("lattice", shard_budget=budget)
    assert refused.value.reason == "invalid-limit"


def test_embedder_of_another_space_is_not_used(shared_catalog: Path) -> None:
    other = replace(TEST_HASH_EMBED_1, id="other-space@1", query_instruction="q: ")
    with open_catalog(shared_catalog, embedder=HashEmbedder(other)) as c:
        result = c.search("lattice", mode="hybrid")
        assert result.semantic_unavailable is not None
        assert "other-space@1" in result.semantic_unavailable


def test_hybrid_fuses_per_document_with_rrf(catalog: Catalog) -> None:
    doc_id, uid, text = probe(4, 1)
    result = catalog.search(text)
    top = result.hits[0]
    assert top.document_id == doc_id
    assert top.chunk_uid == uid  # the vector passage is the representative one
    names = {s.name for s in top.signals}
    assert {"vector", "keyword"} <= names
    assert [h.rank for h in result.hits] == list(range(len(result.hits)))
    assert [h.relevance for h in result.hits] == [11 / (11 + r) for r in range(len(result.hits))]
    assert len({h.document_id for h in result.hits}) == len(result.hits)
    assert top.provenance is not None
    assert (top.provenance.publisher_id, top.provenance.catalog_id) == ("tester", "demo")
    assert top.source_kind == "catalog"
    assert top.line_start is not None
    assert top.title == shared_toc_build().docs[4].title


def test_title_only_match_gets_a_representative_passage(catalog: Catalog) -> None:
    result = catalog.search("quasar alias", mode="keyword")
    hit = result.hits[0]
    assert hit.document_id == "doc-0006"
    assert hit.chunk_uid is not None
    assert hit.text


def test_search_with_vector_matches_search(catalog: Catalog) -> None:
    _, uid, text = probe(7)
    vector = hash_embed([text])[0]
    direct = catalog.search(text, mode="vector")
    given = catalog.search_with_vector(text, vector, mode="vector")
    assert [h.chunk_uid for h in direct.hits] == [h.chunk_uid for h in given.hits]
    assert given.hits[0].chunk_uid == uid
    with pytest.raises(InvalidInput) as info:
        catalog.search_with_vector(text, vector[:10])
    assert info.value.reason == "dimension-mismatch"
    none = catalog.search_with_vector(text, None)
    assert none.semantic_unavailable


def test_invalid_arguments(catalog: Catalog) -> None:
    with pytest.raises(InvalidInput):
        catalog.search("x", mode="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        catalog.search("x", k=0)


@pytest.fixture(scope="module")
def sharded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CatalogBuild]:
    docs, topics = sample_docs(18)
    for i, d in enumerate(docs):
        d.shard = i % 3
    build = CatalogBuild(docs, topics, external_shards=True)
    return build.write(tmp_path_factory.mktemp("sharded") / "c"), build


def test_routing_by_best_centroid_and_budget(sharded: tuple[Path, CatalogBuild]) -> None:
    root, build = sharded
    doc = build.docs[4]  # shard 1
    chunk = chunk_document(doc)[0]
    vector = hash_embed([chunk.embed_input])[0]
    with open_catalog(root, embedder=HashEmbedder()) as c:
        assert [s.id for s in c.shards] == [0, 1, 2]
        ranked = c.score_shards(vector)
        assert sorted(s for s, _ in ranked) == [0, 1, 2]
        assert [score for _, score in ranked] == sorted((s for _, s in ranked), reverse=True)
        assert c.route(vector, 6) == [0, 1, 2]
        assert c.route(vector, 1) == [ranked[0][0]]
        everywhere = c.search(chunk.embed_input, mode="vector", shard_budget=6)
        assert everywhere.hits[0].document_id == doc.id
        assert everywhere.sources[0].shards_searched == (0, 1, 2)
        only_other = c.search_with_vector(chunk.embed_input, vector, mode="vector", shards=[0, 2])
        assert all(h.document_id != doc.id for h in only_other.hits)
        only_one = c.search_with_vector(chunk.embed_input, vector, mode="vector", shards=[1])
        assert only_one.hits[0].document_id == doc.id
        assert only_one.sources[0].shards_searched == (1,)


def test_a_routed_hybrid_search_routes_once_and_reports_the_routed_shard(
    sharded: tuple[Path, CatalogBuild], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, build = sharded
    chunk = chunk_document(build.docs[4])[0]
    calls: list[int] = []

    def counting(*args: Any) -> list[tuple[int, float]]:
        calls.append(1)
        return rank_shards(*args)

    with open_catalog(root, embedder=HashEmbedder()) as c:
        routed = c.route(hash_embed([chunk.embed_input])[0], 1)
        monkeypatch.setattr(_semantic, "rank_shards", counting)
        result = c.search(chunk.embed_input, shard_budget=1)
    assert result.sources[0].shards_searched == tuple(routed)
    assert result.hits[0].document_id == build.docs[4].id
    assert len(calls) == 1


def test_sign_bit_cache_respects_its_budget(sharded: tuple[Path, CatalogBuild]) -> None:
    root, _ = sharded
    with open_catalog(root, embedder=HashEmbedder(), bit_cache_bytes=1) as c:
        vector = hash_embed(["anything"])[0]
        c.search_with_vector("anything", vector, mode="vector", shards=[0])
        first = c.resident_vector_bytes
        assert first > 0
        c.search_with_vector("anything", vector, mode="vector", shards=[1, 2])
        assert c.resident_vector_bytes <= max(first, c.resident_vector_bytes)
        assert len(c._vectors.bits.shard_ids()) == 1  # only the most recent shard stays
    with open_catalog(root, embedder=HashEmbedder()) as c:
        c.search_with_vector("anything", vector, mode="vector", shards=[0, 1, 2])
        assert len(c._vectors.bits.shard_ids()) == 3


def test_centered_sign_profile_uses_its_center_in_stage_one(tmp_path: Path) -> None:
    profile = replace(
        TEST_HASH_EMBED_1, id="test-hash-centered@1", binary=BinaryQuantization("centered-sign")
    )
    docs, topics = sample_docs(12)
    root = CatalogBuild(docs, topics, profile=profile).write(tmp_path / "c")
    with open_catalog(root, embedder=HashEmbedder(profile)) as c:
        assert c.profile.centered
        assert c.profile.center_array() is not None
        chunk = chunk_document(docs[6])[1]
        for stage1 in ("lut", "hamming"):
            hits = c.search(chunk.embed_input, mode="vector", stage1=stage1).hits  # type: ignore[arg-type]
            assert hits[0].chunk_uid == chunk_uid(docs[6].id, 1, chunk.text)


def test_handle_is_safe_to_share_between_threads(catalog: Catalog) -> None:
    texts = [probe(i)[2] for i in range(6)]
    expected = [catalog.search(t).hits[0].chunk_uid for t in texts]
    errors: list[BaseException] = []
    results: dict[int, list[str | None]] = {}

    def worker(n: int) -> None:
        try:
            results[n] = [catalog.search(t).hits[0].chunk_uid for t in texts]
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert all(r == expected for r in results.values())


def test_vector_passages_are_sorted_and_scored_like_an_exact_rerank(catalog: Catalog) -> None:
    _, _, text = probe(2, 1)
    vector = hash_embed([text])[0]
    passages = catalog.vector_passages(vector)
    scores = [p.score for p in passages]
    assert scores == sorted(scores, reverse=True)
    assert np.isclose(scores[0], 1.0, atol=0.02)


def test_common_terms_are_dropped_from_passage_search_in_large_shards(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "paragraph" is in half of the 24 passages; "0003" only in doc-0003's two (8%).
    full = catalog.search("paragraph 0003", mode="keyword", k=12)
    assert len({h.document_id for h in full.hits if h.signal("keyword")}) > 1
    # The rule is the FTS5 path's (the derived keyword index scores every term exactly).
    monkeypatch.setenv(KEYWORD_INDEX_ENV, "off")
    monkeypatch.setattr(_keyword, "COMMON_TERM_MIN_CHUNKS", 0)
    monkeypatch.setattr(_keyword, "COMMON_TERM_FRACTION", 0.1)
    pruned = catalog.search("paragraph 0003", mode="keyword", k=12)
    keyword_docs = {h.document_id for h in pruned.hits if h.signal("keyword")}
    assert keyword_docs == {"doc-0003"}
    # A query of common terms only still searches them.
    assert catalog.search("paragraph", mode="keyword").hits
    # With the index, every term counts again, however common.
    monkeypatch.delenv(KEYWORD_INDEX_ENV)
    indexed = catalog.search("paragraph 0003", mode="keyword", k=12)
    assert [h.document_id for h in indexed.hits] == [h.document_id for h in full.hits]


def test_a_query_without_words_can_still_search_by_vector(catalog: Catalog) -> None:
    assert catalog.search("🙂🙂", mode="keyword").hits == ()
    hits = catalog.search("🙂🙂", mode="vector", min_similarity=-1.0).hits
    assert hits
    assert all(h.signal("vector") is not None for h in hits)


def test_hybrid_search_fuses_a_long_question_with_the_long_question_weights(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[float] = []
    real = _search.fuse_documents

    def spy(lists: Any, preset: Any, *rest: Any, **named: Any) -> Any:
        seen.append(preset.weight("vector"))
        return real(lists, preset, *rest, **named)

    monkeypatch.setattr(_search, "fuse_documents", spy)
    words = [f"lattice{i}" for i in range(31)]
    catalog.search(" ".join(words[:30]), mode="hybrid")
    # Repeated words and stopwords do not make a question long; distinct terms do.
    catalog.search(" ".join(words[:30] * 3) + " the of and", mode="hybrid")
    catalog.search(" ".join(words), mode="hybrid")
    assert seen == [0.7, 0.7, 0.4]
