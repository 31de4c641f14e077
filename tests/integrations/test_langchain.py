"""LangChain: GezelRetriever is a langchain_core retriever that returns cited documents."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import ConfigurableField, RunnableLambda
from langchain_core.tools import create_retriever_tool
from langchain_tests.integration_tests import RetrieversIntegrationTests

from gezel_knowledge.errors import KnowledgeError
from gezel_knowledge.integrations import sources
from gezel_knowledge.integrations.langchain import GezelRetriever, create_cited_retriever_tool
from gezel_knowledge.reader import Catalog

QUERY = "how do I sign a catalog"


def test_invoke_returns_documents_identified_by_citation(
    handbook_gezk: Path, handbook: Catalog
) -> None:
    expected = handbook.search(QUERY, k=3).hits
    with GezelRetriever(source=str(handbook_gezk), k=3) as retriever:
        assert isinstance(retriever, BaseRetriever)
        documents = retriever.invoke(QUERY)
    assert [d.id for d in documents] == [h.citation for h in expected]
    assert all(isinstance(d, Document) for d in documents)
    for document, hit in zip(documents, expected, strict=True):
        assert document.page_content == hit.text
        assert document.metadata["citation"] == document.id
        assert document.metadata["relevance"] == hit.relevance
        assert document.metadata["untrusted"] is True
        assert document.metadata["catalog_version"] == "2026.12.1"


def test_ainvoke_and_batch_answer_like_invoke(handbook_gezk: Path) -> None:
    with GezelRetriever(source=handbook_gezk, k=2, mode="keyword") as retriever:
        one = [d.id for d in retriever.invoke(QUERY)]
        again = [d.id for d in asyncio.run(retriever.ainvoke(QUERY))]
        batch = retriever.batch([QUERY, "install"])
    assert one
    assert again == one
    assert [d.id for d in batch[0]] == one
    assert batch[1]


def test_it_composes_in_a_chain_and_searches_installed_catalogs(installed_handbook: str) -> None:
    retriever = GezelRetriever(source=installed_handbook, k=2)
    chain = retriever | RunnableLambda(lambda docs: [d.metadata["source"] for d in docs])
    assert chain.invoke("install") == [installed_handbook] * 2
    everything = GezelRetriever(catalogs=[installed_handbook], k=2)
    assert [d.id for d in everything.invoke("install")] == [
        d.id for d in retriever.invoke("install")
    ]
    retriever.close()
    everything.close()


def test_the_whole_result_stays_available(handbook: Catalog) -> None:
    retriever = GezelRetriever(source=handbook, k=2)
    result = retriever.search(QUERY)
    assert result.sources[0].source == "gezel-knowledge/gezel-handbook"
    assert [h.citation for h in result.hits] == [d.id for d in retriever.invoke(QUERY)]


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"k": 0}, "invalid-limit"),
        ({"k": True}, "invalid-limit"),  # not coerced to 1
        ({"k": "3"}, "invalid-limit"),
        ({"k": 10**30}, "invalid-limit"),  # past SQLite's integers: was invalid-value
        ({"mode": "fuzzy"}, "invalid-mode"),  # ours, as for k, not a pydantic error
    ],
)
def test_bad_settings_are_refused_with_our_errors(
    handbook: Catalog, settings: dict[str, object], reason: str
) -> None:
    with pytest.raises(KnowledgeError) as refused:
        GezelRetriever(source=handbook, **settings)
    assert refused.value.reason == reason


def test_k_per_call_is_honoured(handbook: Catalog) -> None:
    retriever = GezelRetriever(handbook, k=10)
    assert len(retriever.invoke(QUERY, k=1)) == 1
    assert len(asyncio.run(retriever.ainvoke(QUERY, k=2))) == 2
    assert len(retriever.invoke(QUERY)) > 2
    with pytest.raises(KnowledgeError) as refused:
        retriever.invoke(QUERY, k=True)
    assert refused.value.reason == "invalid-limit"
    with pytest.raises(KnowledgeError) as unknown:
        retriever.invoke(QUERY, top_k=2)
    assert unknown.value.reason == "invalid-argument"


def test_the_source_may_be_positional_as_in_the_other_retrievers(handbook_gezk: Path) -> None:
    with GezelRetriever(handbook_gezk, k=1) as retriever:
        assert len(retriever.invoke(QUERY)) == 1
    with pytest.raises(KnowledgeError) as twice:
        GezelRetriever(handbook_gezk, source=handbook_gezk)
    assert twice.value.reason == "invalid-source"


def test_a_query_that_is_no_string_is_a_typed_error(handbook: Catalog) -> None:
    retriever = GezelRetriever(handbook, k=1)
    with pytest.raises(KnowledgeError) as refused:
        retriever.search(123)  # type: ignore[arg-type]
    assert refused.value.reason == "invalid-query"


def test_configurable_fields_share_the_opened_source(
    handbook_gezk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[object] = []
    real = sources.open_named

    def counting(*args: Any, **kwargs: Any) -> Any:
        opened.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(sources, "open_named", counting)
    retriever = GezelRetriever(handbook_gezk, k=3)
    configurable = retriever.configurable_fields(k=ConfigurableField(id="hits"))
    for hits in (1, 2, 1):
        found = configurable.invoke(QUERY, config={"configurable": {"hits": hits}})
        assert len(found) == hits
    assert len(opened) == 1  # the catalog was opened once, by the retriever itself
    other = configurable.with_config(configurable={"hits": 2})
    assert len(other.invoke(QUERY)) == 2
    assert len(opened) == 1
    retriever.close()


class TestLangChainStandardRetriever(RetrieversIntegrationTests):
    """LangChain's own retriever suite (langchain-tests), run on the handbook by path."""

    path: Path

    @pytest.fixture(autouse=True)
    def _catalog(self, handbook_gezk: Path) -> None:
        type(self).path = handbook_gezk

    @property
    def retriever_constructor(self) -> type[GezelRetriever]:
        return GezelRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"source": self.path}

    @property
    def retriever_query_example(self) -> str:
        return QUERY


def test_a_retriever_tool_keeps_the_citations(handbook: Catalog) -> None:
    retriever = GezelRetriever(handbook, k=2)
    expected = retriever.invoke(QUERY)
    plain = create_retriever_tool(retriever, "search", "search the handbook")
    # LangChain's own default prompt shows the model only page_content: no citation to cite
    # (a passage may link to another page; the hits' own citations are what must be missing).
    shown = plain.invoke({"query": QUERY})
    assert all(document.id not in shown for document in expected)
    cited = create_cited_retriever_tool(retriever)
    answer = cited.invoke({"query": QUERY})
    for document in expected:
        assert f"[{document.id}] {document.metadata['title']}" in answer
        assert document.page_content in answer
    assert asyncio.run(cited.ainvoke({"query": QUERY})) == answer
