"""One search across a session's sources: workspace, artifacts, memory, library and catalogs."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import InvalidInput, ModelUnavailable
from gezel_knowledge.hits import SOURCE_PRIORITY
from gezel_knowledge.indexes import ContentIndex, MemoryIndex, index_workspace
from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.reader import Catalog
from gezel_knowledge.results import SearchResult
from gezel_knowledge.search import KnowledgeSearch, search_all_sources
from tests.reader.catalog_builder import CatalogBuild, Doc, pack, sample_docs

QUERY = "pruning roses"


class MissingModelEmbedder(HashEmbedder):
    """The hash embedder's space, but its model files are missing when a query arrives."""

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        raise ModelUnavailable("model files for test-hash-embed@1 are missing")


class CountingEmbedder(HashEmbedder):
    """The hash embedder's space, counting the query texts it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.queries += list(texts)
        return super().embed_queries(texts)


@dataclass
class Session:
    home: Path
    workspace: ContentIndex
    artifacts: ContentIndex
    library: ContentIndex
    memory: MemoryIndex
    catalogs: KnowledgeSearch


def _folder(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    home = tmp_path / "home"
    workspace = _folder(
        tmp_path / "project",
        {
            "plan.md": "# Garden plan\n\nPruning roses happens in March, after the frosts.\n",
            "budget.md": "# Budget\n\nSeeds, compost and a new hose.\n",
        },
    )
    artifacts = _folder(
        tmp_path / "artifacts", {"report.md": "# Report\n\nWe finished pruning roses.\n"}
    )
    library = _folder(
        tmp_path / "library", {"guide.md": "# Rose guide\n\nPruning roses keeps them healthy.\n"}
    )
    embedder = HashEmbedder()
    for folder in (workspace, artifacts, library):
        index_workspace(folder, embedder=embedder, home=home)
    memory = MemoryIndex(home, embedder=HashEmbedder())
    day = date(2026, 12, 1)
    memory.add("The courtyard roses need pruning every winter.", kind="fact", day=day)
    memory.add("Ada prefers pruning roses at dawn.", kind="preference", scope="gezel:ada", day=day)
    memory.add("Bob prunes roses with long shears.", kind="fact", scope="gezel:bob", day=day)

    knowledge = KnowledgeHome(home)
    docs, topics = sample_docs(6)
    docs[0] = Doc(
        "roses",
        "Pruning roses",
        "# Pruning roses\n\nCut pruning roses just above an outward-facing bud.\n",
        ("craft",),
    )
    for cid in ("garden", "botany"):
        root = CatalogBuild(docs, topics, catalog_id=cid).write(tmp_path / cid)
        knowledge.install(pack(root, tmp_path / f"{cid}.gezk"))
    with contextlib.ExitStack() as stack:
        s = Session(
            home,
            stack.enter_context(ContentIndex(workspace, embedder=embedder, home=home)),
            stack.enter_context(ContentIndex(artifacts, embedder=embedder, home=home)),
            stack.enter_context(ContentIndex(library, embedder=embedder, home=home)),
            stack.enter_context(memory),
            stack.enter_context(KnowledgeSearch(knowledge)),
        )
        yield s


def _search(s: Session, **options: Any) -> SearchResult:
    return search_all_sources(
        QUERY,
        workspace=s.workspace,
        artifacts=s.artifacts,
        memory=s.memory,
        library=s.library,
        catalogs=s.catalogs,
        **options,
    )


def test_every_source_is_searched_and_project_content_ranks_first(session: Session) -> None:
    results = _search(session, gezel="ada", k=20)
    assert {o.source: o.status for o in results.sources} == {
        "workspace": "searched",
        "artifacts": "searched",
        "project-memory": "searched",
        "gezel-memory": "searched",
        "library": "searched",
        "catalogs": "searched",
    }
    kinds = [h.source_kind for h in results.hits]
    assert set(kinds) == {"workspace", "memory", "library", "catalog"}
    # Each source's best hit has relevance 11/11; the source-kind priority orders them.
    assert kinds[0] == "workspace"
    assert [h.priority_score for h in results.hits] == sorted(
        (h.priority_score for h in results.hits), reverse=True
    )
    best_catalog = next(h for h in results.hits if h.source_kind == "catalog")
    assert best_catalog.priority_score == pytest.approx(SOURCE_PRIORITY["catalog"])
    assert best_catalog.provenance is not None
    assert best_catalog.citation.startswith("knowledge://tester/")
    scopes = {h.scope for h in results.hits if h.source_kind == "memory"}
    assert scopes == {"project", "gezel:ada"}  # Bob's memory is not this session's
    assert sum(o.hits for o in results.sources) == len(results.hits)
    catalogs = results.source("catalogs")
    assert catalogs is not None
    assert {c.source for c in catalogs.parts} == {"tester/garden", "tester/botany"}
    workspace = results.source("workspace")
    assert workspace is not None
    assert workspace.semantic == "used"
    assert workspace.signals == ("vector", "symbol", "name", "keyword")
    assert [p.source for p in workspace.parts] == [str(session.workspace.workspace)]


def test_sources_and_catalog_ids_restrict_the_search(session: Session) -> None:
    only = _search(session, sources=["catalogs"], catalog_ids=["garden"])
    assert {h.source for h in only.hits} == {"tester/garden"}
    assert [o.source for o in only.sources] == ["catalogs"]
    memory = _search(session, sources=["project-memory", "gezel-memory"])
    assert {h.source_kind for h in memory.hits} == {"memory"}
    gezel = memory.source("gezel-memory")
    assert gezel is not None
    assert (gezel.status, gezel.reason) == ("unavailable", "not-provided")
    with pytest.raises(InvalidInput) as info:
        _search(session, sources=["everything"])
    assert info.value.reason == "invalid-source"


def test_a_failing_source_is_reported_and_the_others_answer(session: Session) -> None:
    session.library.close()  # a closed database: the library search raises
    session.workspace.embedder = MissingModelEmbedder()
    results = search_all_sources(
        QUERY,
        workspace=session.workspace,
        library=session.library,
        catalogs=session.catalogs,
        sources=["workspace", "library", "catalogs"],
    )
    library = results.source("library")
    assert library is not None
    assert library.status == "failed"
    assert library.hits == 0
    workspace = results.source("workspace")
    assert workspace is not None
    assert (workspace.status, workspace.reason) == ("degraded", "model-unavailable")
    assert "keyword search only" in str(workspace.message)
    assert workspace.hits > 0
    assert {h.source_kind for h in results.hits} == {"workspace", "catalog"}
    assert {f.source for f in results.failures} == {"library", "workspace"}


def test_a_catalog_failing_for_one_call_degrades_the_catalogs_summary(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Catalog.search_with_vector

    def interrupted(self: Catalog, *args: Any, **kwargs: Any) -> Any:
        if self.id == "botany":
            raise sqlite3.OperationalError("interrupted")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Catalog, "search_with_vector", interrupted)
    results = search_all_sources(QUERY, catalogs=session.catalogs, sources=["catalogs"])
    catalogs = results.source("catalogs")
    assert catalogs is not None
    assert (catalogs.status, catalogs.reason) == ("degraded", "database-error")
    assert "botany failed" in str(catalogs.message)
    botany = results.source("tester/botany")
    assert botany is not None
    assert botany.status == "failed"
    assert {h.source for h in results.hits} == {"tester/garden"}


def test_a_memory_embedder_that_fails_falls_back_to_keywords(session: Session) -> None:
    original = session.memory.embedder
    session.memory.embedder = MissingModelEmbedder()
    results = search_all_sources(QUERY, memory=session.memory, sources=["project-memory"])
    outcome = results.source("project-memory")
    assert outcome is not None
    assert outcome.status == "degraded"
    assert [h.scope for h in results.hits] == ["project"]
    assert isinstance(session.memory.embedder, MissingModelEmbedder)  # put back
    session.memory.embedder = original


def test_missing_sources_are_unavailable_not_errors() -> None:
    results = search_all_sources(QUERY)
    assert results.hits == ()
    assert {o.status for o in results.sources} == {"unavailable"}
    with pytest.raises(InvalidInput):
        search_all_sources("   ")


def test_the_query_is_embedded_once_per_embedder_across_indexes(session: Session) -> None:
    content, memory = CountingEmbedder(), CountingEmbedder()
    session.memory.embedder = memory
    for index in (session.workspace, session.artifacts, session.library):
        index.embedder = content
    results = search_all_sources(
        QUERY,
        workspace=session.workspace,
        artifacts=session.artifacts,
        memory=session.memory,
        library=session.library,
        gezel="ada",
        sources=["workspace", "artifacts", "library", "project-memory", "gezel-memory"],
    )
    assert {o.status for o in results.sources} == {"searched"}
    # Three content indexes share one query vector; both memory scopes share another.
    assert content.queries == [QUERY]
    assert memory.queries == [QUERY]
    for kind in ("workspace", "library"):
        assert any(h.signal("vector") for h in results.hits if h.source_kind == kind), kind
    # Memory's vector list ran too; its hash neighbours of this query fall below the profile's
    # cosine floor, so they are not evidence (issue 16 item 8).
    for name in ("project-memory", "gezel-memory"):
        report = results.source(name)
        assert report is not None
        assert report.semantic == "used", name
