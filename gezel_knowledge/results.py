"""The one result type of every search, and how each source took part in it.

A catalog, the installed catalogs together, the workspace content index, the memory index and
the search across all of a session's sources each return a :class:`SearchResult`: the hits, best
first, and one :class:`SourceReport` per source searched, saying which ranked lists ran, whether
semantic search took part (and why not), whether the source fell back to keywords only, failed
or was quarantined. A source made of others (the catalogs in a session's search) reports its
parts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from gezel_knowledge import display
from gezel_knowledge.hits import Provenance, SearchHit, SourceKind

if TYPE_CHECKING:
    import pandas
    import pyarrow

__all__ = [
    "SEARCH_MODES",
    "SearchMode",
    "SearchResult",
    "Semantic",
    "SemanticState",
    "SourceReport",
    "SourceStatus",
]

SearchMode = Literal["hybrid", "vector", "keyword"]
"""Which ranked lists a search fuses: all of them, the vector lists only, or the keyword lists."""

SEARCH_MODES: tuple[SearchMode, ...] = get_args(SearchMode)

SemanticState = Literal["used", "off", "unavailable", "not-routed"]
"""How vector search took part in a source: ``used``; ``off``: not asked for (keyword mode, or
no text to embed); ``unavailable``: asked for but impossible (no query embedder for the source's
vector space, the embedder failed, no vectors stored), so keywords answered alone;
``not-routed``: a multi-catalog search spent its shard budget on other catalogs."""

SourceStatus = Literal["searched", "degraded", "failed", "quarantined", "unavailable"]
"""``searched``: answered as asked; ``degraded``: answered by keywords only because semantic
search was unavailable; ``failed``: raised, nothing from it; ``quarantined``: an installed catalog
found damaged and set aside; ``unavailable``: not provided for this search."""


@dataclass(frozen=True, slots=True)
class Semantic:
    """Whether vector search took part in a source, and why not when it did not."""

    state: SemanticState
    reason: str | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class SourceReport:
    """How one source took part in a search."""

    source: str
    """The source's name: a catalog ``publisher/catalog``, a workspace path, the memory folder,
    or a session source name (``workspace``, ``catalogs``...)."""
    kind: SourceKind
    status: SourceStatus = "searched"
    semantic: SemanticState = "off"
    signals: tuple[str, ...] = ()
    """The ranked lists that ran, in fusion order."""
    hits: int = 0
    """Hits this source contributed to the result."""
    reason: str | None = None
    """Machine-readable reason when the status or the semantic state is not the normal one."""
    message: str | None = None
    """One human line saying the same."""
    provenance: Provenance | None = None
    """A catalog's exact version and archive digest."""
    profile: str | None = None
    """The embedding profile of the source's vectors (catalogs)."""
    shards_searched: tuple[int, ...] = ()
    """The catalog shards whose passages were searched."""
    eligible_documents: int | None = None
    """Documents inside the radius of a ``near`` search (catalogs)."""
    parts: tuple[SourceReport, ...] = ()
    """The reports of the sources this one is made of."""

    @classmethod
    def from_semantic(
        cls,
        source: str,
        kind: SourceKind,
        semantic: Semantic,
        *,
        signals: Sequence[str] = (),
        hits: int = 0,
        provenance: Provenance | None = None,
        profile: str | None = None,
        shards_searched: Sequence[int] = (),
        eligible_documents: int | None = None,
    ) -> SourceReport:
        """A source that answered: ``searched``, or ``degraded`` (keywords alone) when semantic
        search was asked for and unavailable, with the reason and message saying why."""
        return cls(
            source=source,
            kind=kind,
            status="degraded" if semantic.state == "unavailable" else "searched",
            semantic=semantic.state,
            signals=tuple(signals),
            hits=hits,
            reason=semantic.reason,
            message=semantic.message,
            provenance=provenance,
            profile=profile,
            shards_searched=tuple(shards_searched),
            eligible_documents=eligible_documents,
        )

    def walk(self) -> Iterator[SourceReport]:
        """This report, then its parts', depth first."""
        yield self
        for part in self.parts:
            yield from part.walk()


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Ranked hits, best first, and how each source took part."""

    query: str
    mode: SearchMode
    hits: tuple[SearchHit, ...]
    sources: tuple[SourceReport, ...] = ()

    def source(self, name: str) -> SourceReport | None:
        """The report of the source called ``name`` (parts included), if it took part."""
        return next((r for r in self._reports() if r.source == name), None)

    @property
    def signals(self) -> tuple[str, ...]:
        """Every ranked list that ran in any source, in first-seen order."""
        return tuple(dict.fromkeys(s for r in self._reports() for s in r.signals))

    @property
    def semantic_unavailable(self) -> str | None:
        """Why semantic search did not contribute where it was asked for, if it did not."""
        for report in self._reports():
            if report.semantic == "unavailable":
                return report.message or report.reason or "semantic search was unavailable"
        return None

    @property
    def keyword_only(self) -> tuple[str, ...]:
        """Sources answered by keywords only because semantic search was unavailable."""
        return tuple(r.source for r in self._leaves() if r.semantic == "unavailable")

    @property
    def quarantined(self) -> tuple[tuple[str, str], ...]:
        """``(catalog, reason)`` of each catalog quarantined while answering."""
        return tuple(
            (r.source, r.reason or "") for r in self._leaves() if r.status == "quarantined"
        )

    @property
    def failures(self) -> tuple[SourceReport, ...]:
        """Sources that failed, were quarantined, or answered by keywords only."""
        return tuple(r for r in self.sources if r.status in ("failed", "quarantined", "degraded"))

    def __repr__(self) -> str:
        return display.result_repr(self)

    def _repr_html_(self) -> str:
        return display.result_html(self)

    def to_arrow(self) -> pyarrow.Table:
        """The hits as a ``pyarrow.Table``, one row each, best first (the ``notebook`` extra)."""
        return display.hits_frame(self.hits).to_arrow()

    def to_pandas(self) -> pandas.DataFrame:
        """The hits as a ``pandas.DataFrame``, one row each, best first (the ``notebook``
        extra)."""
        return display.hits_frame(self.hits).to_pandas()

    def _reports(self) -> Iterator[SourceReport]:
        for report in self.sources:
            yield from report.walk()

    def _leaves(self) -> Iterator[SourceReport]:
        return (r for r in self._reports() if not r.parts)
