"""A catalog's outline as the browser walks it: children of a topic, breadcrumbs, and the
previous and next document in outline order.

Outline order is the table-of-contents walk ``list --order toc`` prints (spec 5.2): topics depth
first with siblings by ``sort_key``, each topic's own documents by ordinal before its subtopics.
The topic listing is read once per catalog handle and kept, and so is the order of each topic's
own documents once a document of that topic is shown: the first page of a topic of 50,000
documents lists them (one query), every later page finds its neighbours by a dictionary lookup.
A page never walks the whole catalog.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from gezel_knowledge.reader import Catalog, DocumentSummary, TopicSummary

__all__ = ["PAGE", "Outline"]

PAGE = 200
"""Documents listed per topic request (the outline pages through larger topics)."""


@dataclass(frozen=True, slots=True)
class Outline:
    """The topics of one catalog handle, indexed for the browser's questions."""

    topics: tuple[TopicSummary, ...]
    by_id: dict[str, TopicSummary]
    children: dict[str | None, tuple[TopicSummary, ...]]
    position: dict[str, int]
    _orders: dict[str, tuple[list[DocumentSummary], dict[str, int]]] = field(
        default_factory=dict, compare=False, repr=False
    )
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    def own_order(
        self, catalog: Catalog, topic_id: str
    ) -> tuple[list[DocumentSummary], dict[str, int]]:
        """A topic's own documents in outline order and each one's position (kept)."""
        with self._lock:
            found = self._orders.get(topic_id)
        if found is None:
            documents = _all_own(catalog, topic_id)
            found = (documents, {d.id: i for i, d in enumerate(documents)})
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


def own_documents(
    catalog: Catalog, topic_id: str, *, offset: int = 0, limit: int = PAGE
) -> tuple[tuple[DocumentSummary, ...], int]:
    """One page of the documents placed at the topic itself, in outline order, and their total."""
    page = catalog.list_documents(
        topic_id, descendants=False, limit=limit, offset=offset, order="toc"
    )
    return page.documents, page.total


def _all_own(catalog: Catalog, topic_id: str) -> list[DocumentSummary]:
    found: list[DocumentSummary] = []
    offset = 0
    while True:
        page, total = own_documents(catalog, topic_id, offset=offset, limit=10_000)
        found.extend(page)
        offset += len(page)
        if not page or offset >= total:
            return found


def _edge(catalog: Catalog, outline: Outline, start: int, step: int) -> DocumentSummary | None:
    """The first (``step`` 1) or last (``step`` -1) document of the nearest topic with any."""
    i = start
    while 0 <= i < len(outline.topics):
        topic = outline.topics[i]
        if topic.direct_count:
            documents, _ = outline.own_order(catalog, topic.id)
            if documents:
                return documents[0] if step > 0 else documents[-1]
        i += step
    return None


def neighbours(
    catalog: Catalog, outline: Outline, document_id: str, topic_id: str
) -> tuple[DocumentSummary | None, DocumentSummary | None]:
    """The documents before and after ``document_id`` (placed at ``topic_id``) in the outline."""
    siblings, where = outline.own_order(catalog, topic_id)
    at = outline.position.get(topic_id)
    i = where.get(document_id)
    if i is None or at is None:
        return None, None
    previous = siblings[i - 1] if i > 0 else _edge(catalog, outline, at - 1, -1)
    following = siblings[i + 1] if i + 1 < len(siblings) else _edge(catalog, outline, at + 1, 1)
    return previous, following
