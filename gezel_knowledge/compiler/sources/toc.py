"""From an outline (sections and pages) to topics, topic ids and document placements.

Every recogniser in :mod:`gezel_knowledge.compiler.generators.registry` produces the same tree:
sections (which become topics) holding pages (documents) and further sections. This module turns it
into the table of contents:

- A topic id is the section's explicit id when it has one, otherwise derived from its name:
  accents folded, lowercased, every run of other characters turned into ``-``, at most 63
  characters; a name with no Latin letters or digits gets ``topic-`` and eight hex digits of its
  SHA-256. Two sections given one explicit id are refused, naming both.
- Collisions of derived ids never stop a build. A derived id that more than one section would
  get, or that an explicit id or the root topic already holds, is qualified by its path: the
  parent topic's id, ``-``, the derived id (``guide-configuration`` and
  ``reference-configuration`` for two *Configuration* sections). A qualified id longer than 63
  characters keeps its first 54 and adds ``-`` and eight hex digits of the SHA-256 of the
  section's names from the top. Sections that are still alike (two top-level sections of one
  name) take ``-2``, ``-3``... in outline order. So an id changes only when a section of the
  same name appears or goes, never because of an unrelated edit.
- A section's name is its outline label without its Markdown (``plain_title``). A section the
  outline leaves unnamed is named after the page its outline names for it, else
  its first page's title, else ``Untitled``.
- Pages directly under a section and its subsections are one order, as the generator's
  navigation lists them: a page's ordinal and a subsection's numeric sort key share one space
  of positions. An outline file gives positions; in a folder tree whose generator lists a
  folder's pages and subfolders together (Hugo, Docusaurus), each child's position is its
  rank by its own order (weight, position, number prefix), then its name or title. A plain
  folder tree keeps subfolders apart (sorted by name).
- A section whose position is known (an ordered outline, a numeric folder prefix, a ``weight``
  or ``order``) gets the zero-padded ``order + 2**31`` sort key of spec section 5.2; one without
  is keyed by its name, so digit-keyed siblings come first.
- The first time a page appears (depth first, in outline order) is its primary placement; every
  later appearance is an additional TOC reference (:class:`gezk.toc.TocReference`) (the
  shared placements of spec section 5.2). A page listed twice under one section is placed
  there once, with a ``repeated-placement`` warning.
- Pages at the top level of the outline are placed in a root topic: the ``rootTopic`` of
  catalog.yaml, else one named after the catalog (its id and name). When an ordered outline
  that allows it (``Outline.interleaved_root``) lists a top-level page after a top-level
  section, the top-level sections are subtopics of
  that root topic, so that its pages and sections keep the outline's one order.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from gezel_knowledge.compiler.errors import BuildWarning, SourceError
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.names import derive_topic_id
from gezel_knowledge.compiler.text.titles import plain_title
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
    warnings: tuple[BuildWarning, ...] = field(default=())


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
    if not outline.ordered and outline.merged:
        _rank(outline.root, page_titles or {})
    root_pages = [c for c in outline.root.children if isinstance(c, OutlinePage)]
    if root_pages:
        toc.claim(root_id, f"root topic of {outline.file or 'the source tree'}")
    ids = toc.claim_sections(outline.root, page_titles or {}, root_id if root_pages else None)
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
        warnings=tuple(toc.warnings),
    )


class _TocBuilder:
    """The table of contents being built: topics, id owners, and the pages' placements."""

    def __init__(self) -> None:
        self.topics: list[Topic] = []
        self.owners: dict[str, str] = {}
        self.primary: dict[str, TocReference] = {}
        self.references: dict[str, list[TocReference]] = {}
        self.labels: dict[str, str] = {}
        self.warnings: list[BuildWarning] = []

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

    def claim_sections(
        self, root: OutlineSection, titles: dict[str, str], root_id: str | None
    ) -> dict[int, str]:
        """Name and claim the id of every section below ``root``, breadth first (see the
        module docstring for the rule that keeps ids distinct).

        Ids are claimed for the whole tree before any topic is made, so a clash of explicit
        ids is reported whichever section comes first.
        """
        sections: list[tuple[OutlineSection, OutlineSection | None]] = []
        queue: list[tuple[OutlineSection, OutlineSection | None]] = [
            (c, None) for c in root.children if isinstance(c, OutlineSection)
        ]
        while queue:
            section, parent = queue.pop(0)
            sections.append((section, parent))
            queue.extend((c, section) for c in section.children if isinstance(c, OutlineSection))
        for section, _ in sections:
            section.name = plain_title(section.name) or _unnamed(section, titles)
        explicit = {s.explicit_id for s, _ in sections if s.explicit_id}
        for section, _ in sections:
            if section.explicit_id:
                self.claim(section.explicit_id, section.key)
        derived = {id(s): derive_topic_id(s.name) for s, _ in sections if not s.explicit_id}
        uses: dict[str, int] = {}
        for base in derived.values():
            uses[base] = uses.get(base, 0) + 1
        ids: dict[int, str] = {}
        names: dict[int, tuple[str, ...]] = {}
        for section, parent in sections:
            names[id(section)] = (*(names[id(parent)] if parent else ()), section.name)
            if section.explicit_id:
                ids[id(section)] = section.explicit_id
                continue
            base = derived[id(section)]
            topic_id = base
            if uses[base] > 1 or base in explicit or base == root_id:
                topic_id = _qualified(ids[id(parent)] if parent else None, base, names[id(section)])
            unique, n = topic_id, 1
            while unique in self.owners:
                n += 1
                unique = f"{topic_id[: 63 - len(str(n)) - 1].rstrip('-')}-{n}"
            self.claim(unique, section.key)
            ids[id(section)] = unique
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
            # A topic lists a document once (spec section 5.2): the first place stands.
            self.warnings.append(
                BuildWarning(
                    "repeated-placement",
                    f"{page.path!r} is listed twice under topic {path[-1]!r}; placed once",
                    path=page.origin,
                    line=page.line,
                )
            )
            return
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


_MAX_ID = 63


def _rank(section: OutlineSection, titles: dict[str, str]) -> None:
    """Give the children of a folder tree's sections one order, pages and subsections merged:
    by their own order (weight, position, a number prefix), then by their name or title, as
    the folder generators list them; each child's order becomes its rank."""

    def key(child: OutlineSection | OutlinePage) -> tuple[bool, int, str, str]:
        if isinstance(child, OutlineSection):
            name, path = child.name, child.key
        else:
            name, path = child.label or titles.get(child.path, "") or child.path, child.path
        return (child.order is None, child.order or 0, name.casefold(), path)

    for child in section.children:
        if isinstance(child, OutlineSection):
            topic_sort_key(child.order, child.name)  # an order outside 32 bits is refused
    ranked = sorted(section.children, key=key)
    for rank, child in enumerate(ranked):
        child.order = rank
        if isinstance(child, OutlineSection):
            _rank(child, titles)
    section.children = ranked


_HASHED_PREFIX = 54


def _qualified(parent_id: str | None, base: str, names: tuple[str, ...]) -> str:
    """``base`` qualified by its parent topic's id, within the 63 characters of an id."""
    if parent_id is None:
        return base
    topic_id = f"{parent_id}-{base}"
    if len(topic_id) <= _MAX_ID:
        return topic_id
    digest = hashlib.sha256("\x00".join(names).encode("utf-8")).hexdigest()[:8]
    return f"{topic_id[:_HASHED_PREFIX].rstrip('-')}-{digest}"


def _unnamed(section: OutlineSection, titles: dict[str, str]) -> str:
    """The name of a section its outline leaves unnamed (never a file path of the builder)."""
    if section.title_page and titles.get(section.title_page):
        return titles[section.title_page]
    first = next((c for c in section.children if isinstance(c, OutlinePage)), None)
    if first is not None and (first.label or titles.get(first.path)):
        return plain_title(first.label or "") or titles[first.path]
    return "Untitled"


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
