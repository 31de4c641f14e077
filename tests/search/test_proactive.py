"""Proactive retrieval budgets: ceilings, not quotas; text marked untrusted."""

from __future__ import annotations

import pytest

from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.hits import Provenance, SearchHit
from gezel_knowledge.search.proactive import PROACTIVE_BUDGETS, select_proactive


def _hit(doc: str, tokens: int, *, kind: str = "catalog", source: str = "acme/alpha") -> SearchHit:
    return SearchHit(
        source_kind=kind,  # type: ignore[arg-type]
        source=source,
        document_id=doc,
        title=doc.title(),
        text="abcd" * tokens,  # estimate_tokens: four characters per token
        citation=f"knowledge://acme/alpha/{doc}",
        rank=0,
        relevance=1.0,
        provenance=Provenance("acme", "alpha", "1.0", "ab" * 32),
    )


HITS = [_hit(f"doc{i}", 100) for i in range(6)]


def test_lean_admits_citations_without_text() -> None:
    sel = select_proactive(HITS, depth="lean", token_budget=1000)
    assert sel.citations == ("knowledge://acme/alpha/doc0", "knowledge://acme/alpha/doc1")
    assert all(e.text is None for e in sel.evidence)
    assert sel.tokens_used == 0
    assert "abcd" not in sel.render()


def test_balanced_admits_two_within_a_quarter_of_the_budget() -> None:
    sel = select_proactive(HITS, depth="balanced", token_budget=1000)
    assert len(sel.evidence) == 2
    assert sel.tokens_used == 200
    assert sel.token_ceiling == 250
    tight = select_proactive(HITS, depth="balanced", token_budget=600)
    # 25% of 600 is 150 tokens: only one 100-token passage fits.
    assert [e.hit.document_id for e in tight.evidence] == ["doc0"]


def test_deep_admits_four_within_35_percent() -> None:
    sel = select_proactive(HITS, depth="deep", token_budget=2000)
    assert len(sel.evidence) == 4
    assert sel.tokens_used == 400
    capped = select_proactive(HITS, depth="deep", token_budget=1000)
    assert len(capped.evidence) == 3  # 350 tokens of ceiling
    assert capped.tokens_used <= capped.token_ceiling == 350


def test_an_oversized_passage_is_skipped_and_a_smaller_one_may_follow() -> None:
    hits = [_hit("big", 500), _hit("small", 50)]
    sel = select_proactive(hits, depth="balanced", token_budget=1000)
    assert [e.hit.document_id for e in sel.evidence] == ["small"]


def test_ceilings_are_not_quotas_nothing_qualifying_means_nothing() -> None:
    sel = select_proactive(HITS, depth="deep", token_budget=10_000, qualifies=lambda h: False)
    assert sel.evidence == ()
    assert sel.render() == ""


def test_one_item_per_document_and_only_catalog_hits() -> None:
    hits = [_hit("doc0", 10), _hit("doc0", 10), _hit("w", 10, kind="workspace"), _hit("d1", 10)]
    sel = select_proactive(hits, depth="deep", token_budget=10_000)
    assert [e.hit.document_id for e in sel.evidence] == ["doc0", "d1"]


def test_rendered_evidence_is_marked_untrusted_with_provenance() -> None:
    sel = select_proactive(HITS, depth="balanced", token_budget=1000)
    text = sel.render()
    assert text.splitlines()[0].startswith("Reference excerpts")
    assert "untrusted" in text.splitlines()[0]
    assert "(acme/alpha@1.0)" in text
    assert all(e.untrusted and e.hit.untrusted for e in sel.evidence)


def test_budget_table_matches_the_product_description() -> None:
    table = {d: (b.max_items, b.token_share, b.include_text) for d, b in PROACTIVE_BUDGETS.items()}
    assert table == {
        "lean": (2, 0.0, False),
        "balanced": (2, 0.25, True),
        "deep": (4, 0.35, True),
    }


def test_unknown_depth_is_refused() -> None:
    with pytest.raises(InvalidInput) as info:
        select_proactive(HITS, depth="huge", token_budget=10)  # type: ignore[arg-type]
    assert info.value.reason == "invalid-depth"
