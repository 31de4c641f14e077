"""From an outline (sections and pages) to topics, topic ids and document placements.

Every recogniser in :mod:`gezel_knowledge.compiler.generators.registry` produces the same tree:
sections (which become topics) holding pages (documents) and further sections. This module turns it
into the table of contents:

- A topic id is the section's explicit id when it has one, otherwise derived from its name:
  accents folded, lowercased, every run of other characters turned into ``-``, at most 63
  characters; a name with no Latin letters or digits gets ``topic-`` and eight hex digits of its
  SHA-256. Two sections that end up with one id are refused, naming both.
- A section whose position is known (an ordered outline, a numeric folder prefix, a ``weight``
  or ``order``) gets the zero-padded ``order + 2**31`` sort key of spec section 5.2; one without
  is keyed by its name, so digit-keyed siblings come first.
- The first time a page appears (depth first, in outline order) is its primary placement; every
  later appearance is an additional TOC reference (:class:`gezk.toc.TocReference`). A page
  listed twice under one section is refused.
- Pages at the top level of the outline are placed in a root topic: the ``rootTopic`` of
  catalog.yaml, else one named after the catalog (its id and name). When an ordered outline
  that allows it (``Outline.interleaved_root``) lists a top-level page after a top-level
  section, the top-level sections are subtopics of
  that root topic, so that its pages and sections keep the outline's one order.
"""

from __future__ import annotations

from dataclasses import dataclass

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.names import derive_topic_id
from gezk.errors import InvalidIdentifier
from gezk.ids import sort_key_for_order, validate_topic_id
from gezk.toc import TocReference, Topic

__all__ = [
    "MAX_TOPIC_DEPTH",
    "TableOfContents",
    "outline_pages",
    "table_of_contents",
    "topic_sort_key",
]

MAX_TOPIC_DEPTH = 16


@dataclass(frozen=True, slots=True)
class TableOfContents:
    """Topics in tree order and, per page path, its primary placement and TOC references."""

    topics: tuple[Topic, ...]
    primary: dict[str, TocReference]
    references: dict[str, tuple[TocReference, ...]]
    labels: dict[str, str]


def topic_sort_key(order: int | None, name: str) -> str:
    """``order + 2**31`` zero-padded when the order is known, else the casefolded name."""
    if order is not None:
        try:
            return sort_key_for_order(order)
        except InvalidIdentifier:
            raise SourceError(
                f"topic order {order} of {name!r} is not a signed 32-bit integer",
                reason="invalid-order",
            ) from None
    return name.casefold() or "-"


def table_of_contents(
    outline: Outline,
    *,
    root_id: str,
    root_name: str,
    root_description: str | None = None,
    root_order: int | None = None,
    page_titles: dict[str, str] | None = None,
) -> TableOfContents:
    """Topics, ids, sort keys and placements of an outline (see the module docstring)."""
    toc = _TocBuilder()
    root_pages = [c for c in outline.root.children if isinstance(c, OutlinePage)]
    if root_pages:
        toc.claim(root_id, f"root topic of {outline.file or 'the source tree'}")
    ids = toc.claim_sections(outline.root, page_titles or {})
    roots: list[tuple[str, OutlineSection]] = []
    if root_pages:
        if root_order is None and outline.ordered:
            root_order = outline.root.children.index(root_pages[0])
        root_section = OutlineSection(
            name=root_name,
            key="(root)",
            order=root_order,
            description=root_description,
            children=list(root_pages),
        )
        roots.append((root_id, root_section))
    last_page = outline.root.children.index(root_pages[-1]) if root_pages else 0
    if (
        outline.ordered
        and outline.interleaved_root
        and any(isinstance(c, OutlineSection) for c in outline.root.children[:last_page])
    ):
        # A top-level page after a top-level section (Hugo's home page holds its sections,
        # Docusaurus' sidebar mixes them): the sections go under the root topic, where pages
        # and subtopics share one order.
        roots[0][1].children = list(outline.root.children)
    else:
        roots.extend(
            (ids[id(c)], c) for c in outline.root.children if isinstance(c, OutlineSection)
        )
    for topic_id, section in roots:
        toc.walk(section, (topic_id,), None, ids)
    return TableOfContents(
        topics=tuple(toc.topics),
        primary=toc.primary,
        references={k: tuple(v) for k, v in toc.references.items() if v},
        labels=toc.labels,
    )


class _TocBuilder:
    """The table of contents being built: topics, id owners, and the pages' placements."""

    def __init__(self) -> None:
        self.topics: list[Topic] = []
        self.owners: dict[str, str] = {}
        self.primary: dict[str, TocReference] = {}
        self.references: dict[str, list[TocReference]] = {}
        self.labels: dict[str, str] = {}

    def claim(self, topic_id: str, key: str) -> None:
        """Take ``topic_id`` for the section at ``key``; refuse a bad or taken id."""
        try:
            validate_topic_id(topic_id)
        except InvalidIdentifier as exc:
            raise SourceError(
                f"topic {key!r}: {exc.message}", reason="invalid-topic-id", path=key
            ) from None
        if topic_id in self.owners:
            raise SourceError(
                f"topic id {topic_id!r} of {key!r} collides with {self.owners[topic_id]!r}; "
                "rename one, or give it an explicit id (_topic.yaml `id`)",
                reason="topic-id-collision",
                path=key,
            )
        self.owners[topic_id] = key

    def claim_sections(self, root: OutlineSection, titles: dict[str, str]) -> dict[int, str]:
        """Name and claim the id of every section below ``root``, breadth first.

        Ids are claimed for the whole tree before any topic is made, so a collision is
        reported whichever section comes first.
        """
        ids: dict[int, str] = {}
        stack = [c for c in root.children if isinstance(c, OutlineSection)]
        while stack:
            section = stack.pop(0)
            if not section.name:
                section.name = titles.get(section.title_page or "", "") or section.key
            topic_id = section.explicit_id or derive_topic_id(section.name)
            self.claim(topic_id, section.key)
            ids[id(section)] = topic_id
            stack.extend(c for c in section.children if isinstance(c, OutlineSection))
        return ids

    def place(self, page: OutlinePage, path: tuple[str, ...]) -> None:
        """Place a page under the topic at ``path``: its first place is its primary one."""
        placement = TocReference(path, page.order)
        if page.label and page.path not in self.labels:
            self.labels[page.path] = page.label
        first = self.primary.get(page.path)
        if first is None:
            self.primary[page.path] = placement
            return
        others = self.references[page.path]
        leaves = [first.topic_path[-1]] + [p.topic_path[-1] for p in others]
        if path[-1] in leaves:
            raise SourceError(
                f"{page.path!r} is listed twice under topic {path[-1]!r}",
                reason="repeated-placement",
                path=page.origin,
                line=page.line,
            )
        others.append(placement)

    def walk(
        self,
        section: OutlineSection,
        path: tuple[str, ...],
        parent: str | None,
        ids: dict[int, str],
    ) -> None:
        """Make the topic at ``path``, place its pages, then walk its subsections."""
        if len(path) > MAX_TOPIC_DEPTH:
            raise SourceError(
                f"topic {section.key!r} is nested {len(path)} deep (limit {MAX_TOPIC_DEPTH})",
                reason="topic-too-deep",
                path=section.key,
            )
        topic_id = path[-1]
        self.topics.append(
            Topic(
                id=topic_id,
                name=section.name,
                sort_key=topic_sort_key(section.order, section.name),
                parent_id=parent,
                description=section.description,
            )
        )
        for child in section.children:
            if isinstance(child, OutlinePage):
                self.references.setdefault(child.path, [])
                self.place(child, path)
        for child in section.children:
            if isinstance(child, OutlineSection):
                self.walk(child, (*path, ids[id(child)]), topic_id, ids)


def outline_pages(outline: Outline) -> dict[str, str | None]:
    """Every page of an outline and the first label it is given, in outline order."""
    pages: dict[str, str | None] = {}

    def walk(section: OutlineSection) -> None:
        for child in section.children:
            if isinstance(child, OutlinePage):
                if pages.get(child.path) is None:
                    pages[child.path] = child.label
            else:
                walk(child)

    walk(outline.root)
    return pages
