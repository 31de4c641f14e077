"""Ranking behaviour on small hand-made catalogs: keyword scoring, the strict title list, k means
k, keyword-only marks, fusion presets and the reranking hook."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.fusion import GEZEL, RRF10
from gezel_knowledge.hits import SearchHit
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezel_knowledge.rerank import RERANK_DEPTH, Reranker
from gezel_knowledge.results import SEARCH_MODES, SearchMode
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic, chunk_document

TOPICS = [Topic("all", "All", None, "1")]

FILLER = "Quiet notes about ordinary things follow here"


def _doc(doc_id: str, title: str, *paragraphs: str, summary: str | None = None) -> Doc:
    body = f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n"
    return Doc(doc_id, title, body, ("all",), summary=summary)


def _ranking_docs() -> list[Doc]:
    docs = [
        _doc("moraine", "Ice ages", "A glacier leaves a moraine where the valley widens."),
        _doc("named", "Glacier moraine", "Notes on landforms."),
    ]
    # Twenty documents share the common word "valley" (with a short text, BM25 would favour
    # them for that one word) and nothing else of the query.
    docs += [_doc(f"valley-{i:02d}", f"Place {i:02d}", f"The valley {i:02d}.") for i in range(20)]
    # Long documents: every paragraph says "river", so each holds eight matching passages.
    for i in range(30):
        paragraphs = [f"The river bend {i:02d} section {j} {FILLER}." for j in range(8)]
        docs.append(_doc(f"river-{i:02d}", f"Stretch {i:02d}", *paragraphs))
    return docs


@pytest.fixture(scope="module")
def ranking_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ranking") / "catalog"
    return CatalogBuild(_ranking_docs(), TOPICS).write(root)


@pytest.fixture
def catalog(ranking_catalog: Path) -> Iterator[Catalog]:
    with open_catalog(ranking_catalog, embedder=HashEmbedder()) as c:
        yield c


def test_a_document_holding_every_term_outranks_ones_sharing_a_common_term(
    catalog: Catalog,
) -> None:
    hits = catalog.search("glacier moraine valley", mode="keyword", k=5).hits
    # "moraine" holds every term; "named" two of them in its title, which the query names
    # (so it gains the named-title list); the valley documents share one common word only.
    assert {h.document_id for h in hits[:2]} == {"moraine", "named"}
    assert {h.document_id for h in hits[2:]} <= {f"valley-{i:02d}" for i in range(20)}
    unnamed = catalog.search("moraine valley", mode="keyword", k=5).hits
    assert unnamed[0].document_id == "moraine"


def test_the_title_list_admits_only_documents_holding_every_term(catalog: Catalog) -> None:
    both = catalog.search("glacier moraine", mode="keyword", k=5)
    titled = [h.document_id for h in both.hits if h.signal("title") is not None]
    assert titled == ["named"]
    # One word of the title is not enough: "valley" is in no title, "glacier" in one.
    partial = catalog.search("glacier valley", mode="keyword", k=30)
    assert all(h.signal("title") is None for h in partial.hits)
    assert "named" in {h.document_id for h in partial.hits}


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_k_means_k_in_every_mode(catalog: Catalog, mode: SearchMode) -> None:
    # Each river document has eight passages matching "river": 25 documents need 200 of them.
    result = catalog.search("river", mode=mode, k=25, min_similarity=-1.0)
    documents = [h.document_id for h in result.hits]
    assert len(documents) == 25
    assert len(set(documents)) == 25
    if mode == "keyword":
        assert all(d.startswith("river-") for d in documents)


def test_fewer_than_k_only_when_fewer_qualify(catalog: Catalog) -> None:
    assert len(catalog.search("river", mode="keyword", k=100).hits) == 30
    # Hash vectors of unrelated texts fall under the cosine floor: nothing qualifies.
    assert catalog.search("river", mode="vector", k=10).hits == ()


def test_keyword_only_hits_are_marked_with_their_passage_cosine(catalog: Catalog) -> None:
    result = catalog.search("glacier moraine", k=5)
    assert result.sources[0].semantic == "used"
    best = result.hits[0]
    mark = best.signal("keyword-only")
    assert mark is not None
    assert best.signal("vector") is None
    assert mark.rank == 0
    # The cosine of the hit's passage, under the floor (else the vector list had it).
    assert -1.0 <= mark.score < 0.35
    # Keyword mode asked for no vectors: nothing to mark.
    keyword = catalog.search("glacier moraine", mode="keyword", k=5)
    assert all(h.signal("keyword-only") is None for h in keyword.hits)


def test_a_hit_found_by_vectors_is_not_marked(ranking_catalog: Path, catalog: Catalog) -> None:
    doc = next(d for d in _ranking_docs() if d.id == "moraine")
    text = chunk_document(doc)[0].embed_input
    hit = catalog.search(text, k=3).hits[0]
    assert hit.document_id == "moraine"
    assert hit.signal("vector") is not None
    assert hit.signal("keyword-only") is None


def test_the_gezel_preset_is_still_available(catalog: Catalog) -> None:
    # No title is named by this query: the presets weigh the same three lists.
    default = catalog.search("moraine valley", k=10)
    seed = catalog.search("moraine valley", k=10, fusion=GEZEL)
    assert default.hits[0].document_id == seed.hits[0].document_id == "moraine"
    assert RRF10.k == 10
    assert GEZEL.k == 60
    assert GEZEL.weight("keyword") == 0.5


class ReverseById:
    """A test double: scores hits by document id, so the last id comes first."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def score(self, query: str, hits: Sequence[SearchHit]) -> list[float]:
        self.seen.append(len(hits))
        order = sorted(h.document_id for h in hits)
        return [float(order.index(h.document_id)) for h in hits]


def test_a_reranker_reorders_the_best_fused_hits(catalog: Catalog) -> None:
    reranker = ReverseById()
    assert isinstance(reranker, Reranker)
    fused = catalog.search("river", mode="keyword", k=RERANK_DEPTH)
    result = catalog.search("river", mode="keyword", k=3, reranker=reranker)
    # The reranker saw the whole pool, not just the three asked for.
    assert reranker.seen == [min(RERANK_DEPTH, len(fused.hits))]
    expected = sorted((h.document_id for h in fused.hits), reverse=True)[:3]
    assert [h.document_id for h in result.hits] == expected
    assert [h.rank for h in result.hits] == [0, 1, 2]
    for new_rank, hit in enumerate(result.hits, start=1):
        mark = hit.signal("rerank")
        assert mark is not None
        assert mark.rank == new_rank
        assert hit.signal("keyword") is not None


def test_a_reranker_that_returns_the_wrong_scores_is_refused(catalog: Catalog) -> None:
    class Short:
        def score(self, query: str, hits: Sequence[SearchHit]) -> list[float]:
            return [1.0]

    with pytest.raises(InvalidInput) as caught:
        catalog.search("river", mode="keyword", k=3, reranker=Short())
    assert caught.value.reason == "invalid-rerank-scores"


def test_asearch_passes_the_reranker_on(catalog: Catalog) -> None:
    result = asyncio.run(catalog.asearch("river", mode="keyword", k=2, reranker=ReverseById()))
    assert [h.signal("rerank") is not None for h in result.hits] == [True, True]
    assert result.hits[0].document_id > result.hits[1].document_id


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_k_means_k_across_shards(sharded_catalog: Path, mode: SearchMode) -> None:
    # 18 documents in three shards; "paragraph" is in every document's second passage.
    with open_catalog(sharded_catalog, embedder=HashEmbedder()) as c:
        hits = c.search("paragraph", mode=mode, k=18, min_similarity=-1.0).hits
    assert len({h.document_id for h in hits}) == 18


def test_a_document_keywords_find_gets_its_cosine_though_the_vector_shortlist_missed_it(
    catalog: Catalog,
) -> None:
    # 240 passages say "river bend": they fill the vector shortlist. The keyword list puts
    # first the one title saying "glacier"; that document is scored by its passage's cosine
    # too (no floor here) instead of counting as a document without meaning, and the two
    # lists together bring it into the first eight.
    hits = {
        h.document_id: h
        for h in catalog.search("river bend glacier", k=8, min_similarity=-1.0).hits
    }
    assert "named" in hits, sorted(hits)
    keyword, vector = hits["named"].signal("keyword"), hits["named"].signal("vector")
    assert keyword is not None
    assert keyword.rank == 1
    assert vector is not None
    assert hits["named"].signal("keyword-only") is None
    # Its cosine is below every document the shortlist held: it joined the list's tail.
    others = [h.signal("vector") for d, h in hits.items() if d != "named"]
    assert all(o is not None and o.score > vector.score for o in others)
    # With the profile's floor, a document under it stays keyword-only, marked.
    floored = catalog.search("glacier moraine", k=5)
    assert floored.hits[0].signal("vector") is None
    assert floored.hits[0].signal("keyword-only") is not None
