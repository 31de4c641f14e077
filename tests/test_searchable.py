"""Every knowledge source answers the one Searchable call with the one SearchResult."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator, Sequence
from datetime import date
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from gezel_knowledge.embedders import EmbedderResolution, HashEmbedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.fusion import RRF, relevance
from gezel_knowledge.hits import SearchHit, merge_hits
from gezel_knowledge.indexes import ContentIndex, MemoryIndex
from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.query import QueryVectors
from gezel_knowledge.reader import Catalog
from gezel_knowledge.rerank import RERANK_DEPTH
from gezel_knowledge.results import SEARCH_MODES, SearchMode, SearchResult
from gezel_knowledge.search import KnowledgeSearch
from gezel_knowledge.searchable import Searchable
from gezk.profiles import EmbeddingProfile
from tests.reader.catalog_builder import CatalogBuild, Doc, pack, sample_docs

QUERY = "pruning roses"
SOURCES = ("catalog", "catalogs", "workspace", "memory")


class CountingEmbedder(HashEmbedder):
    """The hash embedder, counting the query texts it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.queries += list(texts)
        return super().embed_queries(texts)


def _catalog(root: Path, catalog_id: str) -> Path:
    docs, topics = sample_docs(6)
    docs[0] = Doc(
        "roses",
        "Pruning roses",
        "# Pruning roses\n\nCut pruning roses just above an outward-facing bud.\n",
        ("craft",),
    )
    return CatalogBuild(docs, topics, catalog_id=catalog_id).write(root / catalog_id)


@pytest.fixture(scope="module")
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture(scope="module")
def sources(
    tmp_path_factory: pytest.TempPathFactory, embedder: CountingEmbedder
) -> Iterator[dict[str, Searchable]]:
    tmp = tmp_path_factory.mktemp("sources")
    workspace = tmp / "project"
    workspace.mkdir()
    (workspace / "plan.md").write_text("# Garden plan\n\nPruning roses happens in March.\n")
    home = KnowledgeHome(tmp / "home")
    home.install(pack(_catalog(tmp, "garden"), tmp / "garden.gezk"))

    def resolve(profile: EmbeddingProfile) -> EmbedderResolution:
        return EmbedderResolution(profile, embedder)

    with contextlib.ExitStack() as stack:
        content = stack.enter_context(ContentIndex(workspace, embedder=embedder, home=tmp / "ix"))
        content.update()
        content.enrich()
        memory = stack.enter_context(MemoryIndex(tmp / "mem", embedder=embedder))
        memory.add("The courtyard roses need pruning every winter.", day=date(2026, 12, 1))
        yield {
            "catalog": stack.enter_context(
                open_catalog(_catalog(tmp, "botany"), embedder=embedder)
            ),
            "catalogs": stack.enter_context(KnowledgeSearch(home, resolve_embedder=resolve)),
            "workspace": content,
            "memory": memory,
        }


def test_every_source_has_the_protocols_search_signature(sources: dict[str, Searchable]) -> None:
    wanted = inspect.signature(Searchable.search).parameters
    for name, source in sources.items():
        assert isinstance(source, Searchable), name
        have = inspect.signature(source.search).parameters
        for param in list(wanted.values())[1:]:  # after self
            assert param.name in have, (name, param.name)
            assert have[param.name].kind == param.kind, (name, param.name)
            assert have[param.name].default == param.default, (name, param.name)


@pytest.mark.parametrize("name", SOURCES)
@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_every_source_returns_one_result_shape(
    sources: dict[str, Searchable], name: str, mode: SearchMode
) -> None:
    result = sources[name].search(QUERY, k=5, mode=mode, fusion=RRF)
    assert isinstance(result, SearchResult)
    assert (result.query, result.mode) == (QUERY, mode)
    assert len(result.hits) <= 5
    assert [h.rank for h in result.hits] == list(range(len(result.hits)))
    assert [h.relevance for h in result.hits] == [relevance(h.rank) for h in result.hits]
    assert result.sources
    for report in result.sources:
        assert report.status == "searched", (report.source, report.message)
        ran = set(report.signals)
        if mode == "keyword":
            assert report.semantic == "off"
            assert "vector" not in ran
        else:
            assert report.semantic == "used"
            assert "vector" in ran
        if mode == "vector":
            assert ran == {"vector"}
    for hit in result.hits:
        lists = {s.name for s in hit.signals if s.name != "keyword-only"}
        assert lists <= set(result.signals)
        # A hit is marked keyword-only exactly when vectors ran and did not find it.
        if hit.signal("keyword-only") is not None:
            assert mode == "hybrid"
            assert "vector" not in lists
        assert hit.citation
        assert hit.untrusted
    if mode != "vector":
        assert result.hits, name


def test_hits_of_every_source_merge_and_the_query_is_embedded_once(
    sources: dict[str, Searchable], embedder: CountingEmbedder
) -> None:
    embedder.queries.clear()
    vectors = QueryVectors(QUERY)
    results = [sources[name].search(QUERY, k=3, query_vectors=vectors) for name in SOURCES]
    assert embedder.queries == [QUERY]
    merged = merge_hits(*(r.hits for r in results))
    assert len(merged) == sum(len(r.hits) for r in results)
    assert [h.priority_score for h in merged] == sorted(
        (h.priority_score for h in merged), reverse=True
    )
    kinds = [h.source_kind for h in merged]
    assert kinds[0] == "workspace"  # each source's best hit has rank 0; project content first
    assert set(kinds) == {"workspace", "memory", "catalog"}
    catalog_hits = [h for h in merged if h.source_kind == "catalog"]
    assert {h.source for h in catalog_hits} == {"tester/botany", "tester/garden"}
    for hit in catalog_hits:
        assert hit.provenance is not None
        assert hit.citation.startswith(f"knowledge://{hit.source}/")
        assert hit.chunk_uid is not None
        assert hit.line_start is not None
    for source in sources.values():
        with pytest.raises(InvalidInput) as info:
            source.search("another question", query_vectors=vectors)
        assert info.value.reason == "query-mismatch"


def test_a_source_without_an_embedder_says_why_semantic_search_was_off(
    sources: dict[str, Searchable],
) -> None:
    catalog = sources["catalog"]
    assert isinstance(catalog, Catalog)
    workspace = sources["workspace"]
    assert isinstance(workspace, ContentIndex)
    memory = sources["memory"]
    assert isinstance(memory, MemoryIndex)
    saved = (catalog.embedder, workspace.embedder, memory.embedder)
    catalog.embedder = workspace.embedder = memory.embedder = None
    try:
        for source in (catalog, workspace, memory):
            result = source.search(QUERY)
            report = result.sources[0]
            assert (report.status, report.semantic, report.reason) == (
                "degraded",
                "unavailable",
                "no-embedder",
            )
            assert result.keyword_only == (report.source,)
            assert result.semantic_unavailable == report.message
            assert result.hits  # the keyword lists still answer
    finally:
        catalog.embedder, workspace.embedder, memory.embedder = saved


class ByCitation:
    """A test reranker: the hit whose citation sorts last comes first."""

    def score(self, query: str, hits: Sequence[SearchHit]) -> list[float]:
        order = sorted(h.citation for h in hits)
        return [float(order.index(h.citation)) for h in hits]


@pytest.mark.parametrize("name", SOURCES)
def test_every_source_applies_a_reranker_to_its_fused_hits(
    sources: dict[str, Searchable], name: str
) -> None:
    # Every vector neighbour counts (hash vectors are unrelated), so each source has a pool.
    pool = sources[name].search(QUERY, k=RERANK_DEPTH, min_similarity=-1.0)
    # The workspace and memory fixtures hold one matching item each; the catalogs several.
    assert len(pool.hits) >= (2 if name.startswith("catalog") else 1), name
    result = sources[name].search(QUERY, k=2, min_similarity=-1.0, reranker=ByCitation())
    expected = sorted((h.citation for h in pool.hits), reverse=True)[:2]
    assert [h.citation for h in result.hits] == expected
    ranks = list(range(len(expected)))
    assert [h.rank for h in result.hits] == ranks
    assert [s.rank - 1 for h in result.hits for s in h.signals if s.name == "rerank"] == ranks
