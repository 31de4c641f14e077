"""LlamaIndex: GezelRetriever is a llama_index.core retriever whose node ids are citations, so
the framework's own RetrieverEvaluator scores it against expected citations."""

from __future__ import annotations

import asyncio
from pathlib import Path

from llama_index.core.evaluation import RetrieverEvaluator
from llama_index.core.postprocessor import SimilarityPostprocessor
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import MetadataMode

from gezel_knowledge.integrations.llama_index import GezelRetriever
from gezel_knowledge.reader import Catalog

QUERY = "how do I sign a catalog"


def test_retrieve_returns_nodes_identified_by_citation(
    handbook_gezk: Path, handbook: Catalog
) -> None:
    expected = handbook.search(QUERY, k=3).hits
    with GezelRetriever(handbook_gezk, similarity_top_k=3) as retriever:
        assert isinstance(retriever, BaseRetriever)
        nodes = retriever.retrieve(QUERY)
        again = asyncio.run(retriever.aretrieve(QUERY))
    assert [n.node.node_id for n in nodes] == [h.citation for h in expected]
    assert [n.node.node_id for n in again] == [h.citation for h in expected]
    assert [n.score for n in nodes] == [h.score for h in expected]
    assert [n.node.metadata["relevance"] for n in nodes] == [h.relevance for h in expected]
    assert [n.node.get_content() for n in nodes] == [h.text for h in expected]
    assert nodes[0].node.metadata["untrusted"] is True


def test_a_model_sees_the_title_and_citation_but_not_the_signals(handbook: Catalog) -> None:
    node = GezelRetriever(handbook, similarity_top_k=1).retrieve(QUERY)[0].node
    shown = node.get_content(metadata_mode=MetadataMode.LLM)
    assert f"citation: {node.node_id}" in shown
    assert f"title: {node.metadata['title']}" in shown
    assert "signals" not in shown
    assert "archive_sha256" not in shown
    assert "signals" not in node.get_content(metadata_mode=MetadataMode.EMBED)


def test_the_retriever_evaluator_scores_citations(handbook: Catalog) -> None:
    retriever = GezelRetriever(handbook, similarity_top_k=3)
    found = [n.node.node_id for n in retriever.retrieve(QUERY)]
    evaluator = RetrieverEvaluator.from_metric_names(["hit_rate", "mrr"], retriever=retriever)
    first = evaluator.evaluate(query=QUERY, expected_ids=[found[0]])
    second = asyncio.run(evaluator.aevaluate(query=QUERY, expected_ids=[found[1]]))
    elsewhere = handbook.search("radius search near a place", k=10, mode="keyword").hits
    missing = next(h.citation for h in elsewhere if h.citation not in found)
    miss = evaluator.evaluate(query=QUERY, expected_ids=[missing])
    assert first.retrieved_ids == found
    assert first.metric_vals_dict == {"hit_rate": 1.0, "mrr": 1.0}
    assert second.metric_vals_dict == {"hit_rate": 1.0, "mrr": 0.5}
    assert miss.metric_vals_dict == {"hit_rate": 0.0, "mrr": 0.0}


def test_it_searches_installed_catalogs(installed_handbook: str, handbook: Catalog) -> None:
    with GezelRetriever(installed_handbook, similarity_top_k=2, mode="keyword") as retriever:
        nodes = retriever.retrieve("install")
    assert [n.node.node_id for n in nodes] == [
        h.citation for h in handbook.search("install", k=2, mode="keyword").hits
    ]


def test_a_similarity_cutoff_acts_on_the_cosine_not_the_rank(handbook_minilm_gezk: Path) -> None:
    # Issue 25 item 7: the score was 11/(11+rank), so a gibberish query scored 1.0 and
    # SimilarityPostprocessor(0.9) always kept the top two.
    cutoff = SimilarityPostprocessor(similarity_cutoff=0.4)
    # No floor, as when nearest neighbours always pass it: something answers for gibberish.
    with GezelRetriever(handbook_minilm_gezk, similarity_top_k=5, min_similarity=-1.0) as found:
        gibberish = found.retrieve("qzxv blorptang vrumm")
        on_topic = found.retrieve("how do I sign a catalog with my private key?")
    assert gibberish
    assert gibberish[0].node.metadata["relevance"] == 1.0  # first place, whatever it is
    assert all(n.score is not None and n.score < 0.4 for n in gibberish)
    assert cutoff.postprocess_nodes(gibberish) == []
    kept = cutoff.postprocess_nodes(on_topic)
    assert kept
    assert kept[0].node.metadata["title"] == "Signing catalogs"
    assert all(n.score is not None and n.score >= 0.4 for n in kept)


def test_keyword_mode_measures_no_cosine_and_a_cutoff_drops_it(handbook: Catalog) -> None:
    with GezelRetriever(handbook, similarity_top_k=3, mode="keyword") as retriever:
        nodes = retriever.retrieve("install")
    assert nodes
    assert all(n.score is None for n in nodes)  # the defined value: no cosine was measured
    assert SimilarityPostprocessor(similarity_cutoff=0.0).postprocess_nodes(nodes) == []
