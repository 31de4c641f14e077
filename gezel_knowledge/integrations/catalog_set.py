"""Catalogs named by path, searched and read together (``gezel-knowledge mcp --catalog PATH``).

The installed catalogs are searched by :class:`~gezel_knowledge.search.KnowledgeSearch`, which
fuses their ranked lists. A :class:`CatalogSet` serves catalogs that are not installed: each
searches itself, and their hits are interleaved by :func:`~gezel_knowledge.hits.merge_hits`
(equal source priority, so by each catalog's own rank), then ranked again from zero. With one
catalog the result is exactly that catalog's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.fusion import relevance
from gezel_knowledge.hits import Provenance, merge_hits
from gezel_knowledge.reader import Catalog, Passage
from gezel_knowledge.results import SearchMode, SearchResult
from gezk.spatial import RadiusQuery
from gezk.uri import KnowledgeUri

__all__ = ["CatalogSet"]


class CatalogSet:
    """Open catalogs searched and read as one source; it closes them when closed."""

    def __init__(self, catalogs: Sequence[Catalog]) -> None:
        self._catalogs: dict[str, Catalog] = {}
        for catalog in catalogs:
            key = f"{catalog.publisher_id}/{catalog.id}"
            if key in self._catalogs:
                raise InvalidInput(
                    f"catalog {key} is named twice", reason="duplicate-catalog", subject=key
                )
            self._catalogs[key] = catalog

    @property
    def keys(self) -> tuple[str, ...]:
        """``publisher/catalog`` of each catalog, in the order given."""
        return tuple(self._catalogs)

    def provenance(self, key: str) -> Provenance | None:
        """The exact version and digest of catalog ``key``, if it is in the set."""
        catalog = self._catalogs.get(key)
        return None if catalog is None else catalog.provenance()

    def _chosen(self, only: Sequence[str] | None) -> list[Catalog]:
        if only is None:
            return list(self._catalogs.values())
        chosen: list[Catalog] = []
        for ref in only:
            found = [c for key, c in self._catalogs.items() if ref in (key, c.id)]
            if not found:
                raise NotFound(
                    f"catalog {ref} is not served here (served: {', '.join(self._catalogs)})",
                    reason="not-installed",
                    subject=ref,
                )
            chosen += [c for c in found if c not in chosen]
        return chosen

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        mode: SearchMode = "hybrid",
        catalogs: Sequence[str] | None = None,
        near: RadiusQuery | None = None,
    ) -> SearchResult:
        """Search each chosen catalog and interleave their hits by rank, best first."""
        results = [c.search(query, k=k, mode=mode, near=near) for c in self._chosen(catalogs)]
        if len(results) == 1:
            return results[0]
        merged = merge_hits(*(r.hits for r in results), limit=k)
        hits = tuple(replace(h, rank=i, relevance=relevance(i)) for i, h in enumerate(merged))
        counts: dict[str, int] = {}
        for hit in hits:
            counts[hit.source] = counts.get(hit.source, 0) + 1
        reports = tuple(
            replace(report, hits=counts.get(report.source, 0))
            for result in results
            for report in result.sources
        )
        return SearchResult(query, mode, hits, reports)

    def read(self, reference: str | KnowledgeUri) -> Passage:
        """Resolve a ``knowledge://`` reference in the catalog it names."""
        uri = reference if isinstance(reference, KnowledgeUri) else KnowledgeUri.parse(reference)
        key = f"{uri.publisher_id}/{uri.catalog_id}"
        catalog = self._catalogs.get(key)
        if catalog is None:
            raise NotFound(
                f"catalog {key} is not served here (served: {', '.join(self._catalogs)})",
                reason="not-installed",
                subject=key,
            )
        return catalog.read(uri)

    def close(self) -> None:
        """Close every catalog."""
        for catalog in self._catalogs.values():
            catalog.close()
