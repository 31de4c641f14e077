"""The MCP server as an agent meets it (issue 25 items 3-6, issue 26 items 8 and 19): driven by
the official ``mcp`` client over stdio and over streamable HTTP, every tool called with valid
and invalid arguments; schemas that describe and bound every parameter; answers sent once and
within the budget, the echoed query included; HTTP behind a bearer token, this server's Host
and its own Origin; a lone surrogate answered over stdio; a busy or impossible port one line."""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from gezel_knowledge.indexes import MEMORY_KINDS
from gezel_knowledge.integrations.mcp import HOST, TOOL_NAMES
from tests.integrations.conftest import HANDBOOK_KEY

QUERY = "how do I sign a catalog"
SIGNING = "knowledge://gezel-knowledge/gezel-handbook/building/signing"
TOKEN = "conformance-token-0123456789abcdef"


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "gezel_knowledge", "mcp", "--embedder", "none", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "GEZEL_HOME": os.environ["GEZEL_HOME"]}


async def _stdio_session(stack: AsyncExitStack, tmp_path: Path, *args: str) -> ClientSession:
    command = _command(*args)
    params = StdioServerParameters(command=command[0], args=command[1:], env=_env())
    errlog = stack.enter_context((tmp_path / "stdio.err").open("w"))
    read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


def _text(result: Any) -> str:
    """The one text answer of a call: a second content item or a structured copy would be the
    same answer sent twice."""
    assert len(result.content) == 1, result.content
    assert result.content[0].type == "text"
    assert getattr(result, "structured_content", None) is None
    return str(result.content[0].text)


# -- stdio, the official client ----------------------------------------------------------------

VALID: dict[str, dict[str, Any]] = {
    "search": {"query": QUERY, "maxResults": 2},
    "list_catalogs": {},
    "read_document": {"uri": f"{SIGNING}#line=1-3", "maxTokens": 200},
    "knowledge_nearby": {"latitude": 52.37, "longitude": 4.89, "radiusMeters": 1000},
    "search_memory": {"query": "vault key", "kinds": ["decision"]},
    "save_memory": {"text": "Releases are signed with the vault key.", "kind": "decision"},
    "list_memories": {"days": 3, "kind": "decision"},
}

INVALID: list[tuple[str, dict[str, Any], str]] = [
    ("search", {}, "query"),
    ("search", {"query": QUERY, "maxResults": 0}, "maxResults"),
    ("search", {"query": QUERY, "maxResults": 101}, "maxResults"),
    ("search", {"query": QUERY, "maxResults": True}, "maxResults"),
    ("search", {"query": QUERY, "sources": ["workspace"]}, "sources"),
    ("search", {"query": QUERY, "catalogs": ["nobody/nothing"]}, "[not-installed]"),
    ("search", {"query": QUERY, "radius": {"latitude": 91, "longitude": 0, "meters": 5}}, "lat"),
    ("search", {"query": "   "}, "[empty-query]"),
    ("read_document", {"uri": "https://example.org/x"}, "uri"),
    ("read_document", {"uri": f"{SIGNING}-nope"}, "[document-not-found]"),
    ("read_document", {"uri": SIGNING, "maxTokens": 199}, "maxTokens"),
    ("knowledge_nearby", {"latitude": 0, "longitude": 181, "radiusMeters": 5}, "longitude"),
    ("knowledge_nearby", {"latitude": 0, "longitude": 0, "radiusMeters": 0}, "radiusMeters"),
    ("search_memory", {"query": "x", "kinds": ["rumour"]}, "kinds"),
    ("save_memory", {"text": "x", "kind": "rumour"}, "kind"),
    ("save_memory", {"text": "x", "scope": "the whole world"}, "scope"),
    ("save_memory", {"text": "  "}, "[empty-memory]"),
    ("list_memories", {"days": 0}, "days"),
    ("list_memories", {"days": 7, "maxResults": 1000}, "maxResults"),
]


def test_every_tool_over_stdio_with_valid_and_invalid_arguments(
    installed_handbook: str, tmp_path: Path
) -> None:
    async def run() -> None:
        async with AsyncExitStack() as stack:
            client = await _stdio_session(stack, tmp_path)
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert sorted(listed) == sorted(TOOL_NAMES)
            assert sorted(VALID) == sorted(TOOL_NAMES)
            answers = {}
            for name, arguments in VALID.items():
                result = await client.call_tool(name, arguments)
                assert not result.is_error, (name, result.content)
                answers[name] = _text(result)
            for name, arguments, says in INVALID:
                result = await client.call_tool(name, arguments)
                assert result.is_error, (name, arguments)
                assert says in _text(result), (name, arguments, _text(result))
            document = await client.read_resource(SIGNING)
            assert document.contents[0].text.startswith("# Signing catalogs")
            assert f"{HANDBOOK_KEY} version 2026.12.1" in answers["list_catalogs"]
            assert answers["search"].count("\ncite: ") == 2
            assert (
                "\ncite: memory/" in answers["save_memory"] or "memory/" in (answers["save_memory"])
            )
            assert "> Releases are signed with the vault key." in answers["list_memories"]

    asyncio.run(run())


def test_schemas_describe_and_bound_every_parameter(
    installed_handbook: str, tmp_path: Path
) -> None:
    async def run() -> dict[str, dict[str, Any]]:
        async with AsyncExitStack() as stack:
            client = await _stdio_session(stack, tmp_path)
            return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    schemas = asyncio.run(run())

    def prop(tool: str, name: str) -> dict[str, Any]:
        found: dict[str, Any] = schemas[tool]["properties"][name]
        return found

    def members(schema: dict[str, Any]) -> list[Any]:
        options = schema.get("anyOf", [schema])
        found = next(o for o in options if o.get("type") != "null")
        return list((found.get("items") or found)["enum"])

    for tool, schema in schemas.items():
        for name, spec in schema["properties"].items():
            assert spec.get("description"), f"{tool}.{name} has no description"
    for tool in ("search", "knowledge_nearby", "search_memory", "list_memories"):
        assert (prop(tool, "maxResults")["minimum"], prop(tool, "maxResults")["maximum"]) == (
            1,
            100,
        )
    assert prop("read_document", "maxTokens")["anyOf"][0]["minimum"] == 200
    assert members(prop("save_memory", "kind")) == list(MEMORY_KINDS)
    assert members(prop("list_memories", "kind")) == list(MEMORY_KINDS)
    assert members(prop("search_memory", "kinds")) == list(MEMORY_KINDS)
    assert members(prop("search", "sources")) == ["project-memory", "catalogs"]
    assert prop("read_document", "uri")["pattern"] == "^knowledge://"
    assert "pattern" in prop("save_memory", "scope")


def test_sources_are_only_what_the_server_has(installed_handbook: str, tmp_path: Path) -> None:
    async def run() -> tuple[list[Any], str]:
        async with AsyncExitStack() as stack:
            client = await _stdio_session(stack, tmp_path, "--no-memory")
            tools = {t.name: t for t in (await client.list_tools()).tools}
            refused = await client.call_tool("search", {"query": QUERY, "sources": ["library"]})
            assert refused.is_error
            sources = tools["search"].input_schema["properties"]["sources"]
            return sources["anyOf"][0]["items"], _text(refused)

    items, refused = asyncio.run(run())
    assert items.get("enum", [items.get("const")]) == ["catalogs"]
    assert "sources" in refused


def test_an_empty_home_says_nothing_is_installed(tmp_path: Path) -> None:
    async def run() -> tuple[str, str]:
        async with AsyncExitStack() as stack:
            client = await _stdio_session(stack, tmp_path)
            found = await client.call_tool("search", {"query": QUERY})
            listed = await client.call_tool("list_catalogs", {})
            return _text(found), _text(listed)

    found, listed = asyncio.run(run())
    assert "No catalogs are installed" in found
    assert "gezel-knowledge install" in found
    assert listed.startswith("No catalogs are installed.")


def test_answers_stay_within_the_budget_the_echoed_query_included(
    installed_handbook: str, tmp_path: Path
) -> None:
    # Issue 25 item 4: a 200,000-character query came back as a 200,259-character answer.
    long_query = ("sign " * 40_000)[:200_000]

    async def run() -> list[str]:
        async with AsyncExitStack() as stack:
            client = await _stdio_session(stack, tmp_path, "--max-tokens", "300")
            answers = [
                await client.call_tool("search", {"query": long_query, "maxResults": 100}),
                await client.call_tool("search_memory", {"query": long_query}),
                await client.call_tool("read_document", {"uri": SIGNING}),
                await client.call_tool("read_document", {"uri": SIGNING, "maxTokens": 200}),
            ]
            return [_text(a) for a in answers]

    search, memory, document, smaller = asyncio.run(run())
    for answer in (search, memory, document):
        assert len(answer) <= 4 * 300, len(answer)
    assert len(smaller) <= 4 * 200
    assert "cite: knowledge://" in search
    assert "…" in search.splitlines()[0]  # the query is echoed as an excerpt


def test_a_lone_surrogate_over_stdio_gets_a_typed_error_and_the_server_goes_on(
    installed_handbook: str, tmp_path: Path
) -> None:
    # Issue 26 item 8: valid JSON, no valid Unicode; the server never answered. The official
    # client refuses to send such a string, so the lines are written by hand.
    with (tmp_path / "raw.err").open("w") as errlog:
        server = subprocess.Popen(
            _command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
            text=True,
            env=_env(),
        )
        try:
            _check_surrogates(server)
        finally:
            server.kill()
            server.wait(timeout=30)


def _send(server: subprocess.Popen[str], message: dict[str, Any] | str) -> None:
    assert server.stdin is not None
    line = message if isinstance(message, str) else json.dumps(message)
    server.stdin.write(line + "\n")
    server.stdin.flush()


def _answer(server: subprocess.Popen[str], timeout: float = 60) -> dict[str, Any]:
    assert server.stdout is not None
    # A server that never answers fails the test instead of hanging it (the defect).
    ready, _, _ = select.select([server.stdout], [], [], timeout)
    assert ready, f"no answer within {timeout} s"
    line = server.stdout.readline()
    assert line, "the server closed without answering"
    found: dict[str, Any] = json.loads(line)
    return found


def _initialize(server: subprocess.Popen[str]) -> None:
    _send(
        server,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        },
    )
    assert _answer(server)["id"] == 1
    _send(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})


def _check_surrogates(server: subprocess.Popen[str]) -> None:
    _initialize(server)
    bad = [
        ("tools/call", '{"name": "search", "arguments": {"query": "a \\ud800 b"}}'),
        ("tools/call", '{"name": "read_document", "arguments": {"uri": "knowledge://\\ud800"}}'),
        ("tools/call", '{"name": "save_memory", "arguments": {"text": "note \\udfff"}}'),
        ("resources/read", '{"uri": "knowledge://a/b/\\ud800"}'),
    ]
    for number, (method, params) in enumerate(bad, start=10):
        _send(
            server,
            f'{{"jsonrpc": "2.0", "id": {number}, "method": "{method}", "params": {params}}}',
        )
        answer = _answer(server)
        assert answer["id"] == number
        assert answer["error"]["code"] == -32602
        assert answer["error"]["data"]["reason"] == "invalid-unicode"
        assert "[invalid-unicode]" in answer["error"]["message"]
    _send(
        server,
        '{"jsonrpc": "2.0", "method": "notifications/cancelled", '
        '"params": {"requestId": 5, "reason": "\\ud800"}}',
    )  # dropped, no answer
    _send(
        server,
        {
            "jsonrpc": "2.0",
            "id": 20,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": QUERY, "maxResults": 1}},
        },
    )
    answer = _answer(server)
    assert answer["id"] == 20
    assert "cite: knowledge://" in answer["result"]["content"][0]["text"]


def test_long_numbers_deep_nesting_and_non_json_get_an_answer_and_the_server_goes_on(
    installed_handbook: str, tmp_path: Path
) -> None:
    # A 5,000-digit number was never answered (as a lone surrogate was, issue 26 items 8 and
    # 14), a request nested 3,000 deep ended the server with a RecursionError traceback, and a
    # line that is not JSON was never answered either.
    with (tmp_path / "raw.err").open("w") as errlog:
        server = subprocess.Popen(
            _command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog, text=True,
            env=_env(),
        )  # fmt: skip
        try:
            _initialize(server)
            call = '{{"jsonrpc": "2.0", "id": {}, "method": "tools/call", "params": {}}}'
            big = "1" + "0" * 5000
            deep = "[" * 3000 + "]" * 3000
            for number, params, reason, answered_id in [
                (10, f'{{"name": "search", "arguments": {{"query": "x", "maxResults": {big}}}}}',
                 "number-too-long", 10),
                (11, f'{{"name": "search", "arguments": {{"query": "x", "at": {big}.5}}}}',
                 "number-too-long", 11),
                (12, '{"name": "search", "arguments": {"query": "x", "x": ' + "[" * 65
                 + "]" * 65 + "}}", "too-deep", 12),
                (13, f'{{"name": "search", "arguments": {{"query": "x", "x": {deep}}}}}',
                 "too-deep", None),  # too deep to read its id: JSON-RPC's null
            ]:  # fmt: skip
                _send(server, call.format(number, params))
                answer = _answer(server)
                assert answer["id"] == answered_id
                assert answer["error"]["code"] == -32602
                assert answer["error"]["data"]["reason"] == reason
                assert answer["error"]["message"].endswith(f"[{reason}]")
            _send(server, "this is not JSON")
            assert _answer(server) == {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32700, "message": "the line is not JSON [invalid-json]"},
            }
            _send(server, call.format(20, '{"name": "list_catalogs", "arguments": {}}'))
            answer = _answer(server)
            assert answer["id"] == 20
            assert HANDBOOK_KEY in answer["result"]["content"][0]["text"]
        finally:
            server.kill()
            server.wait(timeout=30)
    assert "Traceback" not in (tmp_path / "raw.err").read_text()


# -- HTTP --------------------------------------------------------------------------------------


class _HttpServer:
    def __init__(self, process: subprocess.Popen[str], url: str, token: str) -> None:
        self.process, self.url, self.token = process, url, token

    def post(self, headers: dict[str, str]) -> int:
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "probe", "version": "1"},
                },
            }
        ).encode()
        request = urllib.request.Request(
            self.url,
            data=body,
            method="POST",
            headers={
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                **headers,
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return int(response.status)
        except urllib.error.HTTPError as refused:
            return int(refused.code)


def _start(tmp_path: Path, *args: str) -> Iterator[_HttpServer]:
    errors = tmp_path / f"http-{len(list(tmp_path.glob('http-*')))}.err"
    with errors.open("w") as errlog:
        process = subprocess.Popen(
            _command("--transport", "http", "--port", "0", *args),
            stderr=errlog,
            text=True,
            env=_env(),
        )
        try:
            deadline = time.monotonic() + 120
            while True:
                found = re.search(
                    r"serving MCP at (\S+); every request needs (.+)$",
                    errors.read_text(),
                    flags=re.MULTILINE,
                )
                if found:
                    break
                assert process.poll() is None, errors.read_text()
                assert time.monotonic() < deadline, "the HTTP server did not start"
                time.sleep(0.1)
            told = found.group(2)
            token = told.removeprefix("bearer token ") if told.startswith("bearer") else TOKEN
            yield _HttpServer(process, found.group(1), token)
        finally:
            process.terminate()
            process.wait(timeout=30)


@pytest.fixture
def http_server(installed_handbook: str, tmp_path: Path) -> Iterator[_HttpServer]:
    yield from _start(tmp_path)


def test_http_needs_the_bearer_token_it_printed(http_server: _HttpServer) -> None:
    assert len(http_server.token) >= 32
    assert http_server.url.startswith(f"http://{HOST}:")
    assert http_server.post({}) == 401
    assert http_server.post({"authorization": "Bearer wrong-token"}) == 401
    assert http_server.post({"authorization": f"Bearer {http_server.token}"}) == 200

    async def call(token: str | None) -> str:
        headers = {} if token is None else {"authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            streamable_http_client(http_server.url, http_client=http) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            listed = await client.list_tools()
            assert sorted(t.name for t in listed.tools) == sorted(TOOL_NAMES)
            for name, arguments in VALID.items():
                answered = await client.call_tool(name, arguments)
                assert not answered.is_error, (name, answered.content)
                _text(answered)
            for name, arguments, says in INVALID:
                refused = await client.call_tool(name, arguments)
                assert refused.is_error, (name, arguments)
                assert says in _text(refused)
            found = await client.call_tool("search", {"query": QUERY, "maxResults": 1})
            assert not found.is_error
            return _text(found)

    assert "cite: knowledge://" in asyncio.run(call(http_server.token))
    with pytest.raises(BaseException):  # noqa: B017, PT011 - the client's own failure
        asyncio.run(asyncio.wait_for(call(None), timeout=60))


def test_http_refuses_a_foreign_host_and_origin(http_server: _HttpServer) -> None:
    port = http_server.url.split(":")[2].split("/")[0]
    auth = {"authorization": f"Bearer {http_server.token}"}
    assert http_server.post({**auth, "host": f"evil.example:{port}"}) == 421
    assert http_server.post({**auth, "origin": "http://evil.example"}) == 403
    # A page on another localhost port is another origin.
    assert http_server.post({**auth, "origin": "http://localhost:3000"}) == 403
    assert http_server.post({**auth, "origin": f"http://127.0.0.1:{port}"}) == 200
    assert http_server.post({**auth, "host": f"localhost:{port}"}) == 200


def test_http_allows_an_origin_named_and_takes_a_given_token(
    installed_handbook: str, tmp_path: Path
) -> None:
    for server in _start(tmp_path, "--allow-origin", "http://localhost:3000", "--token", TOKEN):
        auth = {"authorization": f"Bearer {TOKEN}"}
        assert server.post({**auth, "origin": "http://localhost:3000"}) == 200
        assert server.post({**auth, "origin": "http://localhost:3001"}) == 403
        assert TOKEN not in (tmp_path / "http-0.err").read_text()  # a given token is not echoed


def test_a_busy_port_is_one_error_line(installed_handbook: str) -> None:
    with socket.socket() as busy:
        busy.bind((HOST, 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        done = subprocess.run(
            _command("--transport", "http", "--port", str(port)),
            capture_output=True,
            text=True,
            env=_env(),
            timeout=120,
            check=False,
        )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"gezel-knowledge: error: port {port} on {HOST} is in use: stop what listens there or "
        "give --port [port-in-use]"
    ]


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_an_impossible_port_is_one_error_line(port: str) -> None:
    done = subprocess.run(
        _command("--transport", "http", "--port", port),
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"gezel-knowledge: error: the port must be 0 to 65535, got {port} [invalid-port]"
    ]
