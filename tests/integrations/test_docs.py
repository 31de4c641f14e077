"""The examples in docs/integrations.md (retrievers, MCP, notebooks, async) run as written and
print what the page says; the page's MCP configuration launches a server an MCP client uses
over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from gezel_knowledge.install import install_catalog
from gezel_knowledge.integrations.mcp import TOOL_NAMES
from tests.integrations.conftest import HANDBOOK_KEY

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "integrations.md"


def _section(title: str) -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _blocks(section: str) -> list[tuple[str, str]]:
    """``(language, body)`` of each fenced block, in order."""
    return re.findall(r"^```(\w+)\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)


def _examples(section: str) -> list[tuple[str, str | None]]:
    """Each Python block and the text block printed by it (``None`` when none follows)."""
    blocks = _blocks(section)
    out: list[tuple[str, str | None]] = []
    for i, (language, body) in enumerate(blocks):
        if language != "python":
            continue
        follows = blocks[i + 1] if i + 1 < len(blocks) else None
        out.append((body, follows[1] if follows and follows[0] == "text" else None))
    return out


def _same(printed: str) -> str:
    # A catalog's repr ends with its folder, which differs from machine to machine.
    return re.sub(r" at [^>\n]+>", " at …>", printed)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "examples" / "handbook", tmp_path / "examples" / "handbook")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_examples_print_what_the_page_says(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    namespace: dict[str, Any] = {"__name__": "__doc_example__"}
    checked = 0
    for title in ("Retrievers for LangChain, LlamaIndex and Haystack", "Notebooks", "Async"):
        for code, expected in _examples(_section(title)):
            exec(compile(code, str(PAGE), "exec"), namespace)
            printed = capsys.readouterr().out
            if expected is None:
                assert printed == ""
                continue
            assert _same(printed) == _same(expected), code
            checked += 1
    assert checked == 6
    assert (workdir / "handbook.gezk").is_file()


def test_the_extras_table_links_to_sections_that_exist() -> None:
    text = PAGE.read_text(encoding="utf-8")
    anchors = set(re.findall(r"\]\(#([a-z0-9-]+)\)", text))
    headings = {
        re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
        for h in re.findall(r"^#{2,3} (.+)$", text, flags=re.MULTILINE)
    }
    assert anchors
    assert anchors <= headings


def _server(args: list[str]) -> StdioServerParameters:
    """The page's command, run with this interpreter (the test's environment is the user's)."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "gezel_knowledge", *args],
        env={"GEZEL_HOME": os.environ["GEZEL_HOME"]},
    )


def _matches(documented: str, answered: str) -> None:
    """Each documented line is the answer's line, or its start where it ends with '…'."""
    lines = answered.splitlines()
    shown = documented.rstrip("\n").splitlines()
    if shown[-1] == "…":
        shown = shown[:-1]
    assert len(lines) > len(shown)
    for doc_line, line in zip(shown, lines, strict=False):
        if doc_line.endswith("…"):
            assert line.startswith(doc_line[:-1]), (doc_line, line)
        else:
            assert line == doc_line


def test_the_configuration_snippet_starts_a_server_an_mcp_client_uses(
    handbook_gezk: Path, tmp_path: Path
) -> None:
    install_catalog(handbook_gezk)
    section = _section("An MCP server for agents")
    blocks = _blocks(section)
    config = json.loads(next(body for language, body in blocks if language == "json"))
    server = config["mcpServers"]["gezel-knowledge"]
    assert server["command"] == "gezel-knowledge"
    assert server["args"] == ["mcp"]
    documented = next(body for language, body in blocks if language == "text")
    errlog = (tmp_path / "server.err").open("w")

    async def session() -> None:
        params = _server([*server["args"], "--embedder", "none"])
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            listed = await client.list_tools()
            assert sorted(t.name for t in listed.tools) == sorted(TOOL_NAMES)
            found = await client.call_tool(
                "search", {"query": "how do I sign a catalog", "maxResults": 2}
            )
            assert not found.is_error
            answer = found.content[0].text
            _matches(documented, answer)
            cited = re.findall(r"^cite: (knowledge://\S+)$", answer, flags=re.MULTILINE)
            assert len(cited) == 2
            read_back = await client.call_tool("read_document", {"uri": cited[1]})
            assert not read_back.is_error
            text = read_back.content[0].text
            assert f"\ncite: {cited[1]}\n" in text
            assert f"from: catalog {HANDBOOK_KEY} version 2026.12.1" in text
            document = cited[1].split("#")[0]
            resource = await client.read_resource(document)
            assert resource.contents[0].text.startswith("# ")

    asyncio.run(session())
    errlog.close()
