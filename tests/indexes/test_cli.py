"""The index, index-search and memory commands."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.indexes import IndexOptions
from gezel_knowledge.indexes._convert import MAX_CONVERTED_CHARS, MAX_EXPANDED_BYTES
from tests.indexes.helpers import write_tree


def _json(capsys: pytest.CaptureFixture[str]) -> object:
    return json.loads(capsys.readouterr().out)


def test_index_then_search(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = tmp_path / "ws"
    write_tree(ws, {"a.py": "def frobnicate():\n    pass\n", "b.md": "# B\n\nnothing here\n"})
    home = ["--home", str(tmp_path / "home"), "--embedder", "test-hash-embed@1"]
    assert main(["index", str(ws), *home, "--json"]) == 0
    report = _json(capsys)
    assert isinstance(report, dict)
    assert sorted(report["structure"]["processed"]) == ["a.py", "b.md"]
    assert report["enrichment"]["chunksEmbedded"] == 2

    assert main(["index-search", str(ws), "frobnicate", *home, "--json"]) == 0
    result = _json(capsys)
    assert isinstance(result, dict)
    assert result["sources"][0]["semantic"] == "used"
    hits = result["hits"]
    assert hits[0]["documentId"] == "a.py"
    assert hits[0]["sourceKind"] == "workspace"
    assert {s["name"] for s in hits[0]["signals"]} >= {"symbol", "keyword"}

    assert main(["index", str(ws), *home]) == 0
    assert "0 indexed, 2 unchanged" in capsys.readouterr().out
    assert main(["index-search", str(ws), "frobnicate", *home, "--embedder", "none"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "1. a.py  (a.py, lines 1-2)"
    assert out[1].startswith("   score -; matched: keywords #1")  # keywords only: no cosine


def test_search_without_index_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ws").mkdir()
    code = main(
        ["index-search", str(tmp_path / "ws"), "x", "--home", str(tmp_path), "--embedder", "none"]
    )
    assert code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "[not-found]" in err


def test_memory_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = ["--home", str(tmp_path), "--embedder", "none"]
    assert (
        main(["memory", "add", "Use tabs", "--kind", "preference", "--date", "2026-01-05", *home])
        == 0
    )
    assert "2026-01-05.md#line=3-3" in capsys.readouterr().out
    assert main(["memory", "search", "tabs", *home, "--json"]) == 0
    result = _json(capsys)
    assert isinstance(result, dict)
    hits = result["hits"]
    assert (hits[0]["kind"], hits[0]["date"], hits[0]["scope"]) == (
        "preference",
        "2026-01-05",
        "project",
    )
    assert main(["memory", "rebuild", *home, "--json"]) == 0
    rebuilt = _json(capsys)
    assert isinstance(rebuilt, dict)
    assert rebuilt["entries"] == 1
    assert main(["memory", "add", "x", "--scope", "nobody", *home]) == 1
    assert "[invalid-memory-scope]" in capsys.readouterr().err
    assert main(["memory", "add", "x", "--date", "yesterday", *home]) == 1
    assert "[invalid-date]" in capsys.readouterr().err


def test_index_notes_oversized_and_too_large_skips_with_their_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("OEBPS/ch.xhtml", b"<p>" + b"a b\n" * (MAX_CONVERTED_CHARS // 4 + 1))
    write_tree(ws, {"a.md": "# A\n", "big.txt": "x" * (IndexOptions().max_text_bytes + 1)})
    (ws / "bomb.epub").write_bytes(out.getvalue())
    home = ["--home", str(tmp_path / "home"), "--embedder", "none"]
    assert main(["index", str(ws), *home]) == 0
    notes = capsys.readouterr().err.splitlines()
    assert notes == [
        "gezel-knowledge: note: skipped big.txt: it is over the size for its kind "
        "(2 MiB text or code, 32 MiB other files) [oversized]",
        "gezel-knowledge: note: skipped bomb.epub: it unpacks to over 64 MiB or converts to "
        "over 16 Mi characters of text [too-large]",
    ]
    # The limits the notes name are the ones in force.
    assert IndexOptions().max_text_bytes == 2 << 20
    assert IndexOptions().max_binary_bytes == 32 << 20
    assert (MAX_EXPANDED_BYTES, MAX_CONVERTED_CHARS) == (64 << 20, 16 << 20)
