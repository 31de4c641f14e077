"""KnowledgeSearch.asearch and aread: concurrent calls from one event loop give what the same
calls give one by one, and the catalogs' work runs on worker threads."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.search import KnowledgeSearch

QUERIES = ["lattice ember orchard", "second paragraph", "copper beacon", "harbor", "falcon"]


def _home(archive_factory: Any, tmp_path: Path) -> KnowledgeHome:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory("alpha"))
    home.install(archive_factory("beta", n_docs=10, shard_every=4))
    return home


def test_concurrent_asearch_calls_match_sequential_search(
    archive_factory: Any, tmp_path: Path
) -> None:
    home = _home(archive_factory, tmp_path)
    with KnowledgeSearch(home) as search:
        expected = {q: [h.citation for h in search.search(q, k=6).hits] for q in QUERIES}

    async def main() -> list[tuple[str, list[str]]]:
        # A fresh search: catalogs are mounted by whichever worker thread gets there first.
        with KnowledgeSearch(home) as search:
            queries = QUERIES * 5
            results = await asyncio.gather(*(search.asearch(q, k=6) for q in queries))
        return [(q, [h.citation for h in r.hits]) for q, r in zip(queries, results, strict=True)]

    answered = asyncio.run(main())
    assert all(expected.values())
    for query, citations in answered:
        assert citations == expected[query], query


def test_asearch_passes_the_catalog_filter(archive_factory: Any, tmp_path: Path) -> None:
    home = _home(archive_factory, tmp_path)
    with KnowledgeSearch(home) as search:
        result = asyncio.run(search.asearch("second paragraph", k=10, catalogs=["beta"]))
    assert result.hits
    assert {h.source for h in result.hits} == {"tester/beta"}
    assert [r.source for r in result.sources] == ["tester/beta"]


def test_concurrent_aread_calls_resolve_like_read(archive_factory: Any, tmp_path: Path) -> None:
    home = _home(archive_factory, tmp_path)
    with KnowledgeSearch(home) as search:
        citations = [h.citation for q in QUERIES for h in search.search(q, k=4).hits]
        expected = [search.read(c) for c in citations]

    async def main() -> list[object]:
        # Reads through a search that mounted nothing yet resolve through the registry.
        with KnowledgeSearch(home) as search:
            return list(await asyncio.gather(*(search.aread(c) for c in citations * 3)))

    passages = asyncio.run(main())
    assert citations
    assert passages == expected * 3
