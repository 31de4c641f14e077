"""Browsing: topic rollups, Appendix A listings with shared placements, metadata, bodies."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from tests.reader.conftest import shared_toc_build


@pytest.fixture
def catalog(shared_catalog: Path) -> Iterator[Catalog]:
    with open_catalog(shared_catalog) as c:
        yield c


def test_topics_in_tree_order_with_direct_and_distinct_subtree_counts(catalog: Catalog) -> None:
    topics = {t.id: t for t in catalog.topics()}
    assert [t.id for t in catalog.topics()] == ["craft", "metals", "wood", "nature"]
    assert [t.depth for t in catalog.topics()] == [0, 1, 1, 0]
    # Direct counts count placements: doc-0000 is also placed at metals and nature.
    assert topics["craft"].direct_count == 3
    assert topics["metals"].direct_count == 4
    assert topics["nature"].direct_count == 5
    # Subtree counts deduplicate: doc-0000 sits at craft and its child metals, counted once.
    assert topics["craft"].subtree_count == 9
    assert topics["metals"].subtree_count == 4
    assert topics["nature"].subtree_count == 5


def test_scoped_listing_deduplicates_before_pagination(catalog: Catalog) -> None:
    seen: list[str] = []
    for offset in range(0, 12, 2):
        page = catalog.list_documents("craft", limit=2, offset=offset)
        assert page.total == 9
        seen += [d.id for d in page.documents]
    assert len(seen) == 9
    assert len(set(seen)) == 9


def test_scoped_listing_orders_by_the_chosen_placement(catalog: Catalog) -> None:
    page = catalog.list_documents("craft", limit=20)
    rows = {d.id: d for d in page.documents}
    # doc-0000: primary craft ordinal 12, reference metals ordinal 2 -> metals (2) chosen.
    assert (rows["doc-0000"].topic_id, rows["doc-0000"].ordinal) == ("metals", 2)
    ordered = [d.id for d in page.documents]
    with_ordinal = [d for d in page.documents if d.ordinal is not None]
    assert [d.ordinal for d in with_ordinal] == sorted(d.ordinal for d in with_ordinal)
    assert ordered[: len(with_ordinal)] == [d.id for d in with_ordinal]
    unordered = [d for d in page.documents if d.ordinal is None]
    assert [d.slug for d in unordered] == sorted(d.slug for d in unordered)


def test_shared_placement_under_another_root(catalog: Catalog) -> None:
    page = catalog.list_documents("nature", limit=20)
    ids = [d.id for d in page.documents]
    assert ids[0] == "doc-0000"  # its reference ordinal -5 sorts first
    assert page.documents[0].topic_id == "nature"
    assert page.documents[0].ordinal == -5
    assert "doc-0005" in ids


def test_direct_listing_without_descendants(catalog: Catalog) -> None:
    page = catalog.list_documents("craft", descendants=False)
    assert page.total == 3
    assert {d.topic_id for d in page.documents} == {"craft"}


def test_unscoped_listing_reports_primary_metadata(catalog: Catalog) -> None:
    page = catalog.list_documents(limit=100)
    assert page.total == 12
    doc0 = next(d for d in page.documents if d.id == "doc-0000")
    assert (doc0.topic_id, doc0.ordinal) == ("craft", 12)


def test_unknown_topic_and_bad_pages(catalog: Catalog) -> None:
    with pytest.raises(NotFound) as info:
        catalog.list_documents("no-such-topic")
    assert info.value.reason == "topic-not-found"
    with pytest.raises(InvalidInput):
        catalog.list_documents(limit=0)


def test_document_metadata_placements_and_locations(catalog: Catalog) -> None:
    doc = catalog.document("doc-0000")
    assert doc.topic_path == ("craft",)
    assert doc.meta == {"tags": ["fixture", "even"], "generatedIndex": 0}
    assert [(p.topic_id, p.ordinal, p.primary) for p in doc.placements] == [
        ("craft", 12, True),
        ("nature", -5, False),
        ("metals", 2, False),
    ]
    assert doc.citation == "knowledge://tester/demo/doc-0000"
    located = catalog.document("doc-0001")
    assert [(loc.id, loc.role) for loc in located.locations] == [
        ("birthplace", "associated"),
        ("seattle", "subject"),
    ]
    with pytest.raises(NotFound) as info:
        catalog.document("missing")
    assert info.value.reason == "document-not-found"


def test_body_round_trip(catalog: Catalog) -> None:
    build = shared_toc_build()
    for doc in build.docs:
        body = catalog.body(doc.id)
        assert (
            hashlib.sha256(body.encode()).hexdigest()
            == hashlib.sha256(doc.body.encode()).hexdigest()
        )


@pytest.mark.parametrize("version", ["0.5", "0.6"])
def test_legacy_rollups(legacy_catalogs: dict[str, Path], version: str) -> None:
    with open_catalog(legacy_catalogs[version]) as c:
        topics = {t.id: t for t in c.topics()}
        # Same corpus: 9 documents under craft, 3 under nature, whichever generation.
        assert topics["craft"].subtree_count == 9
        assert topics["nature"].subtree_count == 3
        page = c.list_documents("craft", limit=50)
        assert page.total == 9
        if version == "0.5":
            # 0.5 filed everything at the root: nested topics are empty.
            assert topics["metals"].direct_count == 0
            assert topics["craft"].direct_count == 9
            assert all(d.ordinal is None for d in page.documents)
        else:
            assert topics["metals"].direct_count == 3
            assert topics["metals"].subtree_count == 3
            ordered = [d.ordinal for d in page.documents if d.ordinal is not None]
            assert ordered == sorted(ordered)
            assert ordered


def _toc_properties(catalog: Catalog, page_ids: list[tuple[str, str, int | None]]) -> None:
    position = {t.id: i for i, t in enumerate(catalog.topics())}
    keys = [(position[topic], ordinal is None, ordinal or 0) for _, topic, ordinal in page_ids]
    assert keys == sorted(keys)
    assert len({doc for doc, _, _ in page_ids}) == len(page_ids)


@pytest.mark.parametrize("scope", [None, "craft", "nature"])
def test_toc_order_walks_topics_depth_first_then_ordinals(
    catalog: Catalog, scope: str | None
) -> None:
    # Issue 16 item 3: a topic's documents by ordinal, then its subtopics, depth first; not
    # every topic's #0 first.
    page = catalog.list_documents(scope, limit=100, order="toc")
    rows = [(d.id, d.topic_id, d.ordinal) for d in page.documents]
    _toc_properties(catalog, rows)
    assert page.total == len(rows) == catalog.list_documents(scope, limit=100).total
    spec = [d.id for d in catalog.list_documents(scope, limit=100).documents]
    assert sorted(spec) == sorted(r[0] for r in rows)


def test_toc_order_lists_a_shared_document_at_its_first_place_in_the_walk(
    catalog: Catalog,
) -> None:
    # doc-0000 is placed at craft (12), metals (2) and nature (-5): the walk meets craft first.
    rows = {d.id: d for d in catalog.list_documents(limit=100, order="toc").documents}
    assert (rows["doc-0000"].topic_id, rows["doc-0000"].ordinal) == ("craft", 12)
    topics_seen = [d.topic_id for d in catalog.list_documents(limit=100, order="toc").documents]
    assert topics_seen.index("nature") > max(
        i for i, t in enumerate(topics_seen) if t in ("craft", "metals", "wood")
    )


def test_toc_order_pages_without_repeats(catalog: Catalog) -> None:
    whole = [d.id for d in catalog.list_documents(limit=100, order="toc").documents]
    paged = [
        d.id
        for offset in range(0, 12, 5)
        for d in catalog.list_documents(limit=5, offset=offset, order="toc").documents
    ]
    assert paged == whole


def test_an_unknown_listing_order_is_refused(catalog: Catalog) -> None:
    with pytest.raises(InvalidInput) as refused:
        catalog.list_documents(order="alphabetical")  # type: ignore[arg-type]
    assert refused.value.reason == "invalid-order"
