"""LangChain: GezelRetriever is a langchain_core retriever that returns cited documents."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda
from pydantic import ValidationError

from gezel_knowledge.errors import KnowledgeError
from gezel_knowledge.integrations.langchain import GezelRetriever
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


def test_bad_settings_are_refused(handbook: Catalog) -> None:
    with pytest.raises(KnowledgeError) as refused:
        GezelRetriever(source=handbook, k=0)
    assert refused.value.reason == "invalid-limit"
    with pytest.raises(ValidationError, match="mode"):
        GezelRetriever(source=handbook, mode="fuzzy")
