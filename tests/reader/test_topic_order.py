"""TopicOrder: a topic's own documents a page or a neighbour at a time, from the indexes, in
exactly the order ``list_documents(topic, descendants=False, order="toc")`` lists them."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gezel_knowledge.errors import NotFound
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import TopicOrder, browse
from gezk.ddl import create_schema

ORDINALS = st.one_of(st.none(), st.integers(-2, 3))
SLUGS = st.sampled_from(["a", "b", "c", "d"])
# (primary topic is the one listed, ordinal, slug, a reference to it: None or (ordinal,))
DOCS = st.lists(
    st.tuples(st.booleans(), ORDINALS, SLUGS, st.one_of(st.none(), st.tuples(ORDINALS))),
    max_size=24,
)


def _router(schema: int, docs: list[tuple[bool, int | None, str, tuple[int | None] | None]]) -> Any:
    conn = sqlite3.connect(":memory:")
    create_schema(conn, "router", schema)
    conn.executemany(
        "INSERT INTO topics(id, parent_id, name, sort_key, document_count)"
        " VALUES (?, NULL, ?, ?, 0)",
        [("t", "T", "1"), ("u", "U", "2")],
    )
    ordinal = ", ordinal" if schema >= 3 else ""
    for i, (here, number, slug, reference) in enumerate(docs):
        topic = "t" if here else "u"
        values: tuple[Any, ...] = (
            f"doc-{i:02d}",
            f"Title {i}",
            slug,
            "en",
            topic,
            0,
            1,
            "none",
            b"x",
        )
        if schema >= 3:
            values = (*values, number)
        conn.execute(
            "INSERT INTO documents(id, title, slug, language, topic_id, shard_id, chunk_count,"
            f" body_codec, body_blob{ordinal}) VALUES ({', '.join('?' * len(values))})",
            values,
        )
        if schema >= 4:
            conn.execute(
                "INSERT INTO topic_documents VALUES (?, ?, ?)", (topic, f"doc-{i:02d}", number)
            )
            if reference is not None and not here:
                conn.execute(
                    "INSERT INTO topic_documents VALUES ('t', ?, ?)", (f"doc-{i:02d}", reference[0])
                )
    return conn


def _runner(conn: sqlite3.Connection) -> Callable[[Callable[[sqlite3.Connection], Any]], Any]:
    return lambda work: work(conn)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=DOCS, schema=st.sampled_from([2, 3, 4]), limit=st.integers(1, 7))
def test_pages_neighbours_and_ends_follow_the_listing(
    docs: list[tuple[bool, int | None, str, tuple[int | None] | None]], schema: int, limit: int
) -> None:
    conn = _router(schema, docs)
    expected = browse.list_documents(
        conn, schema, "t", descendants=False, limit=10_000, offset=0, order="toc"
    ).documents
    order = TopicOrder(_runner(conn), schema, "t")
    assert order.total == len(expected)
    assert order.page(0, 10_000).documents == expected
    for offset in range(0, len(expected) + 2, limit):
        page = order.page(offset, limit)
        assert page.documents == expected[offset : offset + limit], (offset, limit)
        assert page.total == len(expected)
    for i, document in enumerate(expected):
        previous, following = order.neighbours(document.id)
        assert previous == (expected[i - 1] if i > 0 else None)
        assert following == (expected[i + 1] if i + 1 < len(expected) else None)
    assert order.first() == (expected[0] if expected else None)
    assert order.last() == (expected[-1] if expected else None)
    assert order.references == {
        f"doc-{i:02d}"
        for i, (here, _, _, ref) in enumerate(docs)
        if not here and ref and schema >= 4
    }
    placed = {d.id for d in expected}
    for i in range(len(docs)):
        if f"doc-{i:02d}" not in placed:
            assert order.neighbours(f"doc-{i:02d}") == (None, None)


def test_an_unknown_topic_is_not_found() -> None:
    conn = _router(4, [])
    with pytest.raises(NotFound) as missing:
        TopicOrder(_runner(conn), 4, "nope")
    assert missing.value.reason == "topic-not-found"


def test_a_catalog_gives_the_order_of_each_topic(shared_catalog: Path) -> None:
    with open_catalog(shared_catalog) as catalog:
        for topic in catalog.topics():
            listed = catalog.list_documents(
                topic.id, descendants=False, limit=100, order="toc"
            ).documents
            order = catalog.topic_order(topic.id)
            assert order.page(0, 100).documents == listed
            assert order.total == topic.direct_count
            if listed:
                assert order.neighbours(listed[0].id) == (
                    None,
                    listed[1] if len(listed) > 1 else None,
                )
