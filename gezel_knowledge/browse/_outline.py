"""A catalog's outline as the browser walks it: children of a topic, breadcrumbs, and the
previous and next document in outline order.

Outline order is the table-of-contents walk ``list --order toc`` prints (spec 5.2): topics depth
first with siblings by ``sort_key``, each topic's own documents by ordinal before its subtopics.
The topic listing is read once per catalog handle and kept; a document's neighbours cost one
listing of its topic's own documents, plus one of an adjacent topic at a topic's edge, so a page
never walks the whole catalog.
"""

from __future__ import annotations

from dataclasses import dataclass

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
            if step > 0:
                docs, _ = own_documents(catalog, topic.id, limit=1)
                if docs:
                    return docs[0]
            else:
                docs, total = own_documents(catalog, topic.id, limit=1)
                if total:
                    last, _ = own_documents(catalog, topic.id, offset=total - 1, limit=1)
                    return last[0] if last else None
        i += step
    return None


def neighbours(
    catalog: Catalog, outline: Outline, document_id: str, topic_id: str
) -> tuple[DocumentSummary | None, DocumentSummary | None]:
    """The documents before and after ``document_id`` (placed at ``topic_id``) in the outline."""
    siblings = _all_own(catalog, topic_id)
    ids = [d.id for d in siblings]
    at = outline.position.get(topic_id)
    if document_id not in ids or at is None:
        return None, None
    i = ids.index(document_id)
    previous = siblings[i - 1] if i > 0 else _edge(catalog, outline, at - 1, -1)
    following = siblings[i + 1] if i + 1 < len(siblings) else _edge(catalog, outline, at + 1, 1)
    return previous, following
