"""Catalog.asearch and Catalog.aread: the work runs on a worker thread, never on the caller's
event loop, and many concurrent calls on one handle give what the same calls give one by one."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.opening import open_catalog

QUERIES = [
    "lattice ember",
    "second paragraph",
    "copper beacon vellum",
    "details about the harbor",
    "continues on a second line",
    "falcon marble",
]


class GatedEmbedder(HashEmbedder):
    """The hash embedder, waiting for the event loop to open a gate before it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.threads: set[int] = set()

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.threads.add(threading.get_ident())
        # Were the search running on the loop, the loop could not open the gate: fail, not hang.
        assert self.gate.wait(timeout=30), "the search blocked the event loop"
        return super().embed_queries(texts)


def test_asearch_leaves_the_event_loop_free(sharded_catalog: Path) -> None:
    embedder = GatedEmbedder()

    async def main() -> tuple[int, list[str]]:
        loop_thread = threading.get_ident()
        with open_catalog(sharded_catalog, embedder=embedder) as catalog:
            pending = asyncio.ensure_future(catalog.asearch("lattice ember", k=3))
            await asyncio.sleep(0.05)
            assert not pending.done()
            embedder.gate.set()  # only a free loop gets here while the search waits
            result = await pending
        return loop_thread, [h.citation for h in result.hits]

    loop_thread, citations = asyncio.run(main())
    assert citations
    assert embedder.threads
    assert loop_thread not in embedder.threads


def test_many_concurrent_asearch_calls_match_sequential_search(sharded_catalog: Path) -> None:
    with open_catalog(sharded_catalog, embedder=HashEmbedder()) as catalog:
        expected = {q: catalog.search(q, k=5) for q in QUERIES}

    async def main() -> list[tuple[str, list[str]]]:
        # A fresh handle: its shard connections open on worker threads, used by others.
        with open_catalog(sharded_catalog, embedder=HashEmbedder()) as catalog:
            queries = QUERIES * 6
            results = await asyncio.gather(*(catalog.asearch(q, k=5) for q in queries))
        return [(q, [h.citation for h in r.hits]) for q, r in zip(queries, results, strict=True)]

    answered = asyncio.run(main())
    assert all(r.hits for r in expected.values())
    assert len(answered) == 6 * len(QUERIES)
    for query, citations in answered:
        assert citations == [h.citation for h in expected[query].hits], query


def test_concurrent_aread_calls_resolve_like_read(sharded_catalog: Path) -> None:
    with open_catalog(sharded_catalog, embedder=HashEmbedder()) as catalog:
        citations = [h.citation for q in QUERIES for h in catalog.search(q, k=5).hits]
        expected = [catalog.read(c) for c in citations]

        async def main() -> list[object]:
            return list(await asyncio.gather(*(catalog.aread(c) for c in citations * 3)))

        passages = asyncio.run(main())
    assert citations
    assert passages == expected * 3


def test_asearch_takes_the_search_options(sharded_catalog: Path) -> None:
    with open_catalog(sharded_catalog, embedder=HashEmbedder()) as catalog:
        keyword = asyncio.run(catalog.asearch("second paragraph", k=2, mode="keyword"))
        assert keyword.mode == "keyword"
        assert len(keyword.hits) == 2
        assert keyword.hits == catalog.search("second paragraph", k=2, mode="keyword").hits
