"""Topics, topic placements and TOC references (spec sections 4, 5.2, 5.2.1)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gezk.toc import TocReference, Topic, TopicPlacement, topics_in_tree_order


def test_a_topic_gives_its_manifest_entry_optional_members_only_when_present() -> None:
    assert Topic("physics", "Physics").to_json() == {"id": "physics", "name": "Physics"}
    full = Topic("optics", "Optics", "physics", "2147483649", "")
    assert full.to_json() == {
        "id": "optics",
        "name": "Optics",
        "parentId": "physics",
        "sortKey": "2147483649",
        "description": "",
    }


def test_tree_order_is_depth_first_with_siblings_by_sort_key_bytes_then_id() -> None:
    topics = [
        Topic("b", "B", sort_key="2"),
        Topic("a", "A", sort_key="2"),
        Topic("a2", "A2", "a", "Z"),
        Topic("a1", "A1", "a", "a"),
        Topic("c", "C", sort_key="10"),
        Topic("é", "E", sort_key="é"),
        Topic("z", "Z", sort_key="z"),
    ]
    # "10" < "2" as bytes; "z" (0x7a) sorts before "é" (0xc3 0xa9) in UTF-8.
    assert [t.id for t in topics_in_tree_order(topics)] == ["c", "a", "a2", "a1", "b", "z", "é"]


def test_topics_outside_the_forest_are_left_out() -> None:
    topics = [Topic("root", "Root"), Topic("x", "X", "y"), Topic("y", "Y", "x")]
    assert [t.id for t in topics_in_tree_order(topics)] == ["root"]


@given(st.integers(min_value=1, max_value=3000))
def test_a_deep_chain_is_ordered_without_recursion(depth: int) -> None:
    chain = [Topic("t0", "T0")] + [Topic(f"t{i}", f"T{i}", f"t{i - 1}") for i in range(1, depth)]
    assert topics_in_tree_order(reversed(chain)) == chain


def test_placements_and_references_default_to_no_ordinal() -> None:
    assert TopicPlacement("news") == TopicPlacement("news", None, primary=False)
    assert TocReference(("places", "cities")).ordinal is None
