"""What every generator's navigation is read into: sections (topics) holding pages and sections,
in the generator's order."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gezel_knowledge.compiler.metadata.catalog_yaml import TopicDeclaration

__all__ = ["Outline", "OutlinePage", "OutlineSection"]


@dataclass(slots=True)
class OutlinePage:
    """A page of an outline: a source file (relative to the content root) and its label."""

    path: str
    label: str | None = None
    order: int | None = None
    origin: str | None = None
    line: int | None = None


@dataclass(slots=True)
class OutlineSection:
    """A section of an outline; becomes a topic."""

    name: str
    key: str
    """A human-readable location for messages (a folder, or an outline file and line)."""
    order: int | None = None
    description: str | None = None
    explicit_id: str | None = None
    children: list[OutlineSection | OutlinePage] = field(default_factory=list)
    title_page: str | None = None
    """A page whose title names the section when the outline gives no name."""


@dataclass(slots=True)
class Outline:
    """A recognised outline: its kind and the root section (whose pages are top level)."""

    kind: str
    root: OutlineSection
    file: str | None = None
    ordered: bool = True
    """Whether sibling positions are an order (outline files) or not (folder trees)."""
    interleaved_root: bool = False
    """Whether top-level pages and sections share one order (Hugo's home page holds its
    sections; a Docusaurus sidebar mixes them): when a top-level page follows a top-level
    section, the sections become subtopics of the root topic."""
    merged: bool = False
    """For a folder tree: whether the generator lists a folder's pages and subfolders in one
    order (Hugo, Docusaurus: by weight or position, then name), rather than subfolders apart
    (a plain folder)."""
    root_declaration: TopicDeclaration | None = None
    """What the content folder itself declares about the root topic (its ``_topic.yaml``,
    Hugo's root ``_index.md``)."""
    files: dict[str, Path] = field(default_factory=dict)
    """Pages whose file lies elsewhere than their content path says (Hugo mounts a file
    from above the source folder at ``project/README.md``): content path -> file."""
    routes: tuple[str, ...] = ()
    """Pages the generator publishes outside its navigation and the catalog (Hugo's search
    page filled by its theme, a ``list: never`` page), as :attr:`LinkStyle.routes`: a link
    to one is kept as written, with no warning."""
