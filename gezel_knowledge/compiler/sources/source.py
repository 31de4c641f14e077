"""What the compiler consumes: topics, documents with lazily loaded bodies, and assets.

Both adapters (a Markdown tree, a JSON Lines document list) produce a :class:`CatalogSource`.
Topics, TOC references and locations are the format layer's values (:mod:`gezk.toc`,
:mod:`gezk.spatial`), held as the adapter read them;
:mod:`~gezel_knowledge.compiler.sources.validation` checks them before anything is built. Document
bodies are not held: each :class:`SourceDocument` carries a loader that reads and normalises
its body on demand, so a build streams bodies instead of keeping them all in memory."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gezel_knowledge.compiler.errors import BuildWarning
from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogMetadata
from gezk.spatial import Location
from gezk.toc import TocReference, Topic

__all__ = [
    "CatalogSource",
    "LinkBase",
    "SourceAsset",
    "SourceDocument",
]


@dataclass(frozen=True, slots=True)
class LinkBase:
    """The catalog coordinates that ``knowledge://`` references in bodies are written with."""

    publisher_id: str
    catalog_id: str


@dataclass(frozen=True, slots=True)
class SourceDocument:
    """A document as the compiler receives it; the body is read by :attr:`load_body`."""

    id: str
    title: str
    topic_path: tuple[str, ...]
    load_body: Callable[[LinkBase], str] = field(repr=False, compare=False)
    slug: str = ""
    summary: str | None = None
    language: str | None = None
    ordinal: int | None = None
    toc_references: tuple[TocReference, ...] = ()
    aliases: tuple[str, ...] = ()
    source_url: str | None = None
    source_revision: str | None = None
    source_updated_at: str | None = None
    attribution: Mapping[str, str] | None = None
    meta: Mapping[str, Any] | None = None
    locations: tuple[Location, ...] = ()
    """As given: :mod:`~gezel_knowledge.compiler.sources.validation` checks and normalises them."""
    origin: str | None = None
    """Where the document came from (a file, or ``list.jsonl``), for messages."""
    origin_line: int | None = None


@dataclass(frozen=True, slots=True)
class SourceAsset:
    """An image shipped under ``assets/``: its archive path and the file it is copied from."""

    path: str
    file: Path
    size: int


@dataclass(frozen=True, slots=True)
class CatalogSource:
    """Everything a build reads: metadata, table of contents, documents, assets, notices."""

    root: Path
    kind: Literal["markdown-tree", "document-list"]
    outline: str
    metadata: CatalogMetadata
    topics: tuple[Topic, ...]
    documents: Sequence[SourceDocument]
    """A tuple, or for a document list a sequence that parses each document when asked for."""
    assets: tuple[SourceAsset, ...] = ()
    warnings: tuple[BuildWarning, ...] = ()
    notes: tuple[str, ...] = ()
    """What the author may want to know that is no problem (images held as Git LFS
    pointers): said once each, never counted as warnings."""
    readme: Path | None = None
    """The catalog README (``README.md`` in the archive), when the source has one."""
    license_notice: Path | None = None
    """The licence notice (``LICENSES/catalog.txt``), when the source has one."""
    source_notices: Path | None = None
    """Optional per-source attribution (``LICENSES/source-notices.json``)."""
    site: str | None = None
    """The documentation generator the tree was written for (``mkdocs``, ``mdbook``...), when
    one was recognised."""
