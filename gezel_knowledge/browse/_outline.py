"""A catalog's outline as the browser walks it: children of a topic, breadcrumbs, and the
previous and next document in outline order.

Outline order is the table-of-contents walk ``list --order toc`` prints (spec 5.2): topics depth
first with siblings by ``sort_key``, each topic's own documents by ordinal before its subtopics.
The topic listing is read once per catalog handle and kept. A topic's own documents come from
:meth:`Catalog.topic_order <gezel_knowledge.reader.Catalog.topic_order>`, which reads them a
page or a neighbour at a time from the catalog's indexes: a page lists what it shows, and a
document's previous and next are two index seeks, however large its topic. A page never walks a
whole topic, nor the whole catalog.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from gezel_knowledge.reader import Catalog, DocumentSummary, TopicOrder, TopicSummary

__all__ = ["PAGE", "Outline", "neighbours"]

PAGE = 200
"""Entries listed per page of a topic (its documents, its subtopics, the outline's top level)."""


@dataclass(frozen=True, slots=True)
class Outline:
    """The topics of one catalog handle, indexed for the browser's questions."""

    topics: tuple[TopicSummary, ...]
    by_id: dict[str, TopicSummary]
    children: dict[str | None, tuple[TopicSummary, ...]]
    position: dict[str, int]
    _orders: dict[str, TopicOrder] = field(default_factory=dict, compare=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    def order(self, catalog: Catalog, topic_id: str) -> TopicOrder:
        """The order of a topic's own documents (opened once: a few index counts)."""
        with self._lock:
            found = self._orders.get(topic_id)
        if found is None:
            found = catalog.topic_order(topic_id)
            with self._lock:
                self._orders[topic_id] = found
        return found

    @classmethod
    def of(cls, catalog: Catalog) -> Outline:
        """Read the catalog's topics once."""
        topics = tuple(catalog.topics())
        children: dict[str | None, list[TopicSummary]] = {}
        for topic in topics:
            children.setdefault(topic.parent_id, []).append(topic)
        return cls(
            topics,
            {t.id: t for t in topics},
            {k: tuple(v) for k, v in children.items()},
            {t.id: i for i, t in enumerate(topics)},
        )

    def roots(self) -> tuple[TopicSummary, ...]:
        """The top-level topics, in order."""
        return self.children.get(None, ())

    def path(self, topic_id: str) -> list[TopicSummary]:
        """The topics from the root down to ``topic_id`` (empty when unknown)."""
        out: list[TopicSummary] = []
        current = self.by_id.get(topic_id)
        while current is not None and len(out) <= len(self.topics):
            out.append(current)
            current = self.by_id.get(current.parent_id) if current.parent_id else None
        return out[::-1]


def _edge(catalog: Catalog, outline: Outline, start: int, step: int) -> DocumentSummary | None:
    """The first (``step`` 1) or last (``step`` -1) document of the nearest topic with any."""
    i = start
    while 0 <= i < len(outline.topics):
        topic = outline.topics[i]
        if topic.direct_count:
            order = outline.order(catalog, topic.id)
            found = order.first() if step > 0 else order.last()
            if found is not None:
                return found
        i += step
    return None


def neighbours(
    catalog: Catalog, outline: Outline, document_id: str, topic_id: str
) -> tuple[DocumentSummary | None, DocumentSummary | None]:
    """The documents before and after ``document_id`` (placed at ``topic_id``) in the outline."""
    at = outline.position.get(topic_id)
    if at is None:
        return None, None
    previous, following = outline.order(catalog, topic_id).neighbours(document_id)
    if previous is None:
        previous = _edge(catalog, outline, at - 1, -1)
    if following is None:
        following = _edge(catalog, outline, at + 1, 1)
    return previous, following
