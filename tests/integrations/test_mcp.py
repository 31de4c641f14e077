"""The MCP server: Gezel's tool names and wire arguments, typed errors as tool errors, the
document resource template, memory round trips, --catalog over stdio and HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from gezel_knowledge.cli import build_parser
from gezel_knowledge.integrations.mcp import RESOURCE_TEMPLATE, TOOL_NAMES, build_server
from gezel_knowledge.integrations.tools import KnowledgeTools, open_tools
from tests.integrations.conftest import HANDBOOK_KEY

QUERY = "how do I sign a catalog"
SIGNING = "knowledge://gezel-knowledge/gezel-handbook/building/signing"


@pytest.fixture
def tools(installed_handbook: str) -> Iterator[KnowledgeTools]:
    opened = open_tools()
    yield opened
    opened.close()


def _with_client(tools: KnowledgeTools, body: Any) -> Any:
    async def run() -> Any:
        async with mcp.Client(build_server(tools)) as client:
            return await body(client)

    return asyncio.run(run())


def test_the_tools_have_gezel_names_and_wire_arguments(tools: KnowledgeTools) -> None:
    async def body(client: Any) -> Any:
        return (await client.list_tools()).tools

    listed = {t.name: t for t in _with_client(tools, body)}
    assert set(listed) == set(TOOL_NAMES)
    arguments = {name: list(t.input_schema["properties"]) for name, t in listed.items()}
    assert arguments == {
        "search": ["query", "sources", "catalogs", "maxResults", "radius"],
        "list_catalogs": [],
        "read_document": ["uri", "maxTokens"],
        "knowledge_nearby": ["latitude", "longitude", "radiusMeters", "catalogs", "maxResults"],
        "search_memory": ["query", "maxResults", "scopes", "kinds"],
        "save_memory": ["text", "kind", "scope"],
        "list_memories": ["days", "scope", "kind", "maxResults"],
    }
    assert listed["search"].input_schema["required"] == ["query"]
    radius = listed["search"].input_schema["$defs"]["Radius"]
    assert radius["required"] == ["latitude", "longitude", "meters"]
    read_only = {n for n, t in listed.items() if t.annotations and t.annotations.read_only_hint}
    assert read_only == set(TOOL_NAMES) - {"save_memory"}


def test_calls_answer_with_what_the_tools_answer(tools: KnowledgeTools) -> None:
    async def body(client: Any) -> tuple[Any, ...]:
        found = await client.call_tool("search", {"query": QUERY, "maxResults": 3})
        read = await client.call_tool("read_document", {"uri": SIGNING, "maxTokens": 300})
        templates = await client.list_resource_templates()
        document = await client.read_resource(SIGNING)
        return found, read, templates, document

    found, read, templates, document = _with_client(tools, body)
    assert not found.is_error
    assert found.content[0].text == tools.search(QUERY, max_results=3)
    assert read.content[0].text == tools.read_document(SIGNING, max_tokens=300)
    assert [t.uri_template for t in templates.resource_templates] == [RESOURCE_TEMPLATE]
    assert document.contents[0].mime_type == "text/markdown"
    assert document.contents[0].text == tools.read_passage(SIGNING).text


def test_a_typed_error_reaches_the_model_as_one_line(tools: KnowledgeTools) -> None:
    async def body(client: Any) -> tuple[Any, Any]:
        missing = await client.call_tool("read_document", {"uri": f"{SIGNING}-nope"})
        empty = await client.call_tool("search", {"query": "  "})
        return missing, empty

    missing, empty = _with_client(tools, body)
    assert missing.is_error
    assert missing.content[0].text.endswith("[document-not-found]")
    assert "building/signing-nope" in missing.content[0].text
    assert empty.is_error
    assert empty.content[0].text.endswith("the search query is empty [empty-query]")


def test_memory_round_trips_through_the_server(tools: KnowledgeTools) -> None:
    async def body(client: Any) -> tuple[str, str, str, str]:
        saved = await client.call_tool(
            "save_memory", {"text": "Releases are signed with the vault key.", "kind": "decision"}
        )
        recalled = await client.call_tool("search_memory", {"query": "vault key"})
        listed = await client.call_tool("list_memories", {"kind": "decision"})
        merged = await client.call_tool("search", {"query": "signed vault key", "maxResults": 5})
        return tuple(r.content[0].text for r in (saved, recalled, listed, merged))

    saved, recalled, listed, merged = _with_client(tools, body)
    assert saved.startswith("Remembered (decision, scope project) at memory/")
    for answer in (recalled, listed, merged):
        assert "> Releases are signed with the vault key." in answer
    assert f"from: catalog {HANDBOOK_KEY}" in merged  # memory and catalogs in one answer


def test_the_command_serves_named_catalogs_over_stdio(handbook_gezk: Path, tmp_path: Path) -> None:
    args = build_parser("mcp").parse_args(["mcp", "--catalog", str(handbook_gezk), "--no-memory"])
    assert args.catalog == [str(handbook_gezk)]
    assert args.transport == "stdio"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gezel_knowledge", "mcp", "--catalog", str(handbook_gezk), "--no-memory"],
        env={"GEZEL_HOME": os.environ["GEZEL_HOME"]},
    )

    async def run() -> tuple[str, Any]:
        with (tmp_path / "server.err").open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                found = await client.call_tool("search", {"query": QUERY, "maxResults": 1})
                memory = await client.call_tool("search_memory", {"query": "anything"})
                return found.content[0].text, memory

    answer, memory = asyncio.run(run())
    assert f"from: catalog {HANDBOOK_KEY} version 2026.12.1, archive sha256 " in answer
    assert memory.is_error
    assert "[memory-unavailable]" in memory.content[0].text
