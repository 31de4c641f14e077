"""The table of contents: topics, topic placements and TOC references (spec 4, 5.2, 5.2.1).

A :class:`Topic` is one entry of the shipped table of contents: a manifest ``topics`` entry and
a router ``topics`` row. A document sits under topics by :class:`TopicPlacement` values (the
router's ``topic_documents`` rows in 0.7; one primary placement in 0.5 and 0.6), each with its
own optional ordinal. Compiler input names a document's additional placements as
:class:`TocReference` values: a root-to-leaf topic path and an ordinal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["TocReference", "Topic", "TopicPlacement", "topics_in_tree_order"]


@dataclass(frozen=True, slots=True)
class Topic:
    """One table-of-contents topic; ``sort_key`` orders siblings (absent in 0.5 manifests)."""

    id: str
    name: str
    parent_id: str | None = None
    sort_key: str | None = None
    description: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The manifest ``topics`` entry, optional members only when present."""
        out: dict[str, Any] = {"id": self.id, "name": self.name}
        if self.parent_id is not None:
            out["parentId"] = self.parent_id
        if self.sort_key is not None:
            out["sortKey"] = self.sort_key
        if self.description is not None:
            out["description"] = self.description
        return out


@dataclass(frozen=True, slots=True)
class TopicPlacement:
    """One placement of a document under a topic, with its own optional ordinal."""

    topic_id: str
    ordinal: int | None = None
    primary: bool = False


@dataclass(frozen=True, slots=True)
class TocReference:
    """An additional placement as compiler input gives it: a root-to-leaf path and an ordinal."""

    topic_path: tuple[str, ...]
    ordinal: int | None = None


def topics_in_tree_order(topics: Iterable[Topic]) -> list[Topic]:
    """Topics depth first, siblings by ``(sortKey, id)`` (UTF-8 bytes) as readers order them.

    Topics outside the forest (an undeclared parent, a cycle) are left out.
    """
    children: dict[str | None, list[Topic]] = {}
    for topic in topics:
        children.setdefault(topic.parent_id, []).append(topic)
    for siblings in children.values():
        siblings.sort(key=lambda t: ((t.sort_key or "").encode("utf-8"), t.id))
    out: list[Topic] = []
    # An explicit stack instead of recursion: a hostile forest may be deep.
    stack = list(reversed(children.get(None, [])))
    while stack:
        topic = stack.pop()
        out.append(topic)
        stack.extend(reversed(children.pop(topic.id, [])))
    return out
