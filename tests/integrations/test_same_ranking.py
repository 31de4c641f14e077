"""The same catalogs rank the same however they are named (issue 25 item 8): opened by path,
installed, through KnowledgeSearch, the MCP tools and server, every retriever and the command
line, for one catalog and for two searched together."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import mcp
import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.compiler import BuildOptions, compile_catalog
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.install import install_catalog
from gezel_knowledge.integrations.haystack import GezelRetriever as HaystackRetriever
from gezel_knowledge.integrations.langchain import GezelRetriever as LangChainRetriever
from gezel_knowledge.integrations.llama_index import GezelRetriever as LlamaIndexRetriever
from gezel_knowledge.integrations.mcp import build_server
from gezel_knowledge.integrations.tools import open_tools
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.search import KnowledgeSearch
from tests.integrations.conftest import HANDBOOK_KEY

ROOT = Path(__file__).resolve().parents[2]
KETTLE_KEY = "gezel-examples/kettle"
QUERIES = ("temperature settings and search", "the default settings of a catalog", "water")
K = 8


@pytest.fixture(scope="module")
def kettle_gezk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second catalog in the handbook's vector space (examples/kettle-docs, hash embedder)."""
    out = tmp_path_factory.mktemp("kettle") / "kettle.gezk"
    options = BuildOptions(embedder=HashEmbedder(), created_at="2026-12-01T00:00:00Z")
    compile_catalog(ROOT / "examples" / "kettle-docs", out, options)
    return out


@pytest.fixture
def both(handbook_gezk: Path, kettle_gezk: Path) -> tuple[Path, Path]:
    install_catalog(handbook_gezk)
    install_catalog(kettle_gezk)
    return handbook_gezk, kettle_gezk


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    assert main([*argv, "--json"]) == 0
    return [h["citation"] for h in json.loads(capsys.readouterr().out)["hits"]]


def _mcp_cites(tools: Any, query: str) -> list[str]:
    async def run() -> str:
        async with mcp.Client(build_server(tools)) as client:
            found = await client.call_tool("search", {"query": query, "maxResults": K})
            return str(found.content[0].text)

    return [
        line.removeprefix("cite: ")
        for line in asyncio.run(run()).splitlines()
        if line.startswith("cite: ")
    ]


def _surfaces(
    paths: list[Path], keys: list[str], query: str, capsys: pytest.CaptureFixture[str]
) -> dict[str, list[str]]:
    """The citations, best first, that every surface returns for ``query``."""
    ranked: dict[str, list[str]] = {}
    with KnowledgeSearch() as installed:
        ranked["installed"] = [h.citation for h in installed.search(query, k=K).hits]
        ranked["installed, named"] = [
            h.citation for h in installed.search(query, k=K, catalogs=keys).hits
        ]
    opened = [open_catalog(p) for p in paths]
    with KnowledgeSearch.over(opened) as by_path:
        ranked["by path"] = [h.citation for h in by_path.search(query, k=K).hits]
    for name, tools in (
        ("mcp installed", open_tools(memory=False)),
        ("mcp --catalog", open_tools(paths, memory=False)),
    ):
        ranked[name] = [h.citation for h in tools.search_result(query, max_results=K).hits]
        ranked[f"{name} server"] = _mcp_cites(tools, query)
        tools.close()
    sources: list[Any] = [None] if len(paths) > 1 else [None, paths[0], str(paths[0]), keys[0]]
    for source in sources:
        named = {"catalogs": keys} if source is None else {}
        with LangChainRetriever(source, k=K, **named) as langchain:
            ranked[f"langchain {source}"] = [d.id for d in langchain.invoke(query)]
        with LlamaIndexRetriever(source, similarity_top_k=K, **named) as llama:
            ranked[f"llama-index {source}"] = [n.node.node_id for n in llama.retrieve(query)]
        haystack = HaystackRetriever(source, top_k=K, **named)
        ranked[f"haystack {source}"] = [d.id for d in haystack.run(query)["documents"]]
        haystack.close()
    ranked["cli find"] = _cli(capsys, "find", query, "-k", str(K))
    if len(paths) == 1:
        ranked["cli search path"] = _cli(capsys, "search", str(paths[0]), query, "-k", str(K))
        ranked["cli search installed"] = _cli(capsys, "search", keys[0], query, "-k", str(K))
        with open_catalog(paths[0]) as alone:
            ranked["catalog"] = [h.citation for h in alone.search(query, k=K).hits]
    return ranked


@pytest.mark.parametrize("query", QUERIES)
def test_two_catalogs_rank_the_same_on_every_surface(
    both: tuple[Path, Path], query: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ranked = _surfaces(list(both), [HANDBOOK_KEY, KETTLE_KEY], query, capsys)
    reference = ranked["installed"]
    assert reference
    assert len({c.split("/")[3] for c in ranked["installed"]}) == 2 or query == "water"
    assert {name: r for name, r in ranked.items() if r != reference} == {}


@pytest.mark.parametrize("query", ["how do I sign a catalog", "install", "search near a place"])
def test_one_catalog_ranks_the_same_on_every_surface(
    handbook_gezk: Path, query: str, capsys: pytest.CaptureFixture[str]
) -> None:
    install_catalog(handbook_gezk)
    ranked = _surfaces([handbook_gezk], [HANDBOOK_KEY], query, capsys)
    reference = ranked["installed"]
    assert reference
    assert {name: r for name, r in ranked.items() if r != reference} == {}
