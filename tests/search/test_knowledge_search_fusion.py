"""How KnowledgeSearch fuses catalogs' hits: one catalog keeps its own order; across catalogs
the named-title list, the dated-page weight and the how-to questions' weight count as they do in
each catalog."""

from __future__ import annotations

from gezel_knowledge.fusion import KEYWORD, SCORE, VECTOR
from gezel_knowledge.hits import SearchHit, Signal
from gezel_knowledge.reader.hybrid import NAMED
from gezel_knowledge.search.knowledge_search import _fuse


def _hit(catalog: str, document_id: str, *signals: Signal) -> SearchHit:
    return SearchHit(
        source_kind="catalog",
        source=catalog,
        document_id=document_id,
        title=document_id,
        text="",
        citation=f"knowledge://acme/{catalog}/{document_id}",
        rank=0,
        relevance=1.0,
        signals=signals,
    )


def test_one_catalog_keeps_its_own_order() -> None:
    # The catalog put "guide" first by what its hits do not show (its second passage):
    # by the hits' best cosines alone a rebuild would put "notes" first.
    guide = _hit("alpha", "guide", Signal(VECTOR, 2, 0.66))
    notes = _hit("alpha", "notes", Signal(VECTOR, 1, 0.70))
    fused = _fuse([(0, "acme/alpha", [guide, notes]), (0, "acme/beta", [])], 5, SCORE)
    assert [h.document_id for h in fused] == ["guide", "notes"]
    assert [(h.rank, h.relevance) for h in fused] == [(0, 1.0), (1, 11 / 12)]
    # The same hits from two catalogs are fused again, by cosine.
    split = [(0, "acme/alpha", [guide]), (0, "acme/beta", [notes])]
    assert [h.document_id for h in _fuse(split, 5, SCORE)] == ["notes", "guide"]


def test_across_catalogs_a_dated_page_weighs_less_in_hybrid_search() -> None:
    post = _hit("alpha", "blog/post", Signal(VECTOR, 1, 0.80), Signal(KEYWORD, 1, 10.0))
    guide = _hit("beta", "guide", Signal(VECTOR, 1, 0.76), Signal(KEYWORD, 1, 9.0))
    results = [(0, "acme/alpha", [post]), (0, "acme/beta", [guide])]
    # score: post 0.7 * 1 + 0.3 * 1 = 1.0 (0.85 weighed as dated); guide 0.7 * 0.76 / 0.8 +
    # 0.3 * 9 / 10 = 0.935.
    assert [h.document_id for h in _fuse(results, 5, SCORE)] == ["blog/post", "guide"]
    fused = _fuse(results, 5, SCORE, dated=True)
    assert [h.document_id for h in fused] == ["guide", "blog/post"]


def test_across_catalogs_a_reference_page_weighs_less_for_a_how_to_question() -> None:
    ref = _hit("alpha", "reference/logger", Signal(VECTOR, 1, 0.80), Signal(KEYWORD, 1, 10.0))
    guide = _hit("beta", "guides/child-loggers", Signal(VECTOR, 1, 0.76), Signal(KEYWORD, 1, 9.0))
    results = [(0, "acme/alpha", [ref]), (0, "acme/beta", [guide])]
    # score: reference 1.0 (0.9 weighed as a reference page); guide 0.935, as above.
    assert [h.document_id for h in _fuse(results, 5, SCORE)] == [
        "reference/logger",
        "guides/child-loggers",
    ]
    fused = _fuse(results, 5, SCORE, howto=True)
    assert [h.document_id for h in fused] == ["guides/child-loggers", "reference/logger"]


def test_across_catalogs_a_named_title_counts_at_a_quarter_of_the_title_weight() -> None:
    templates = _hit("alpha", "templates", Signal(VECTOR, 1, 0.66), Signal(NAMED, 1, 5.0))
    notes = _hit("beta", "notes", Signal(VECTOR, 1, 0.70))
    fused = _fuse([(0, "acme/alpha", [templates]), (0, "acme/beta", [notes])], 5, SCORE)
    # templates: 0.7 * 0.66 / 0.70 + 0.3 * 0.25 * 1 = 0.735 against notes' 0.7.
    assert [h.document_id for h in fused] == ["templates", "notes"]
    assert fused[0].signal(NAMED) == Signal(NAMED, 1, 5.0)
    # Without its named title, "templates" would follow "notes" by cosine.
    bare = _with_signals(templates, Signal(VECTOR, 1, 0.66))
    unnamed = _fuse([(0, "acme/alpha", [bare]), (0, "acme/beta", [notes])], 5, SCORE)
    assert [h.document_id for h in unnamed] == ["notes", "templates"]


def _with_signals(hit: SearchHit, *signals: Signal) -> SearchHit:
    return _hit(hit.source, hit.document_id, *signals)
