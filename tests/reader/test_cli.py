"""The catalog commands: inspect, validate, topics, list, read, search."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezk.profiles import BGE_SMALL_EN_V15_1
from gezk.signing import generate_private_key, public_key_to_pem
from tests.reader.catalog_builder import CatalogBuild, mutate_db, reseal, sample_docs


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_inspect_archive_and_directory(
    capsys: pytest.CaptureFixture[str], shared_catalog: Path, packed: Callable[[Path], Path]
) -> None:
    archive = packed(shared_catalog)
    code, out, _ = run(capsys, "inspect", str(archive), "--json")
    assert code == 0
    view = json.loads(out)
    assert view["ok"] is True
    assert view["findings"] == []
    # The manifest as the spec defines it, verbatim.
    manifest = json.loads((shared_catalog / "manifest.json").read_text(encoding="utf-8"))
    assert view["manifest"] == manifest
    assert len(view["archiveSha256"]) == 64
    assert view["provenance"]["status"] == "unsigned"
    code, out, _ = run(capsys, "inspect", str(shared_catalog))
    assert code == 0
    assert "tester/demo@1.0.0" in out
    assert "test-hash-embed@1" in out
    assert "12 documents" in out
    assert out.splitlines()[-1] == "  checks        valid (structural checks)"


def test_inspect_of_a_damaged_archive_says_so_and_exits_1(
    capsys: pytest.CaptureFixture[str], shared_catalog: Path, packed: Callable[[Path], Path]
) -> None:
    # Issue 16 item 2: two flipped bytes inside an entry; inspect used to print a normal
    # summary and exit 0.
    archive = packed(shared_catalog)
    data = bytearray(archive.read_bytes())
    middle = len(data) // 2
    data[middle] ^= 0xFF
    data[middle + 1] ^= 0xFF
    archive.write_bytes(bytes(data))
    code, out, _ = run(capsys, "inspect", str(archive))
    assert code == 1
    assert "INVALID (1 error)" in out
    assert any(line.startswith("error: ") for line in out.splitlines())
    code, out, _ = run(capsys, "inspect", str(archive), "--json")
    assert code == 1
    assert json.loads(out)["ok"] is False


def test_validate_exit_status_and_provenance(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    key = generate_private_key()
    docs, topics = sample_docs(5)
    root = CatalogBuild(docs, topics).write(tmp_path / "c", sign_with=key)
    pem = tmp_path / "trusted.pem"
    pem.write_bytes(public_key_to_pem(key.public_key()))
    other = tmp_path / "other.pem"
    other.write_bytes(public_key_to_pem(generate_private_key().public_key()))

    code, out, _ = run(capsys, "validate", str(root), "--deep")
    assert code == 0
    assert "valid (deep checks)" in out
    assert "provenance: no-trust-anchors" in out

    code, out, _ = run(capsys, "validate", str(root), "--trust", str(pem), "--json")
    assert code == 0
    assert json.loads(out)["provenance"]["status"] == "verified"

    code, out, _ = run(capsys, "validate", str(root), "--trust", str(other))
    assert code == 3
    assert "provenance: unknown-key" in out

    broken = tmp_path / "broken"
    shutil.copytree(root, broken)
    mutate_db(
        broken / "index" / "router.db", "UPDATE topics SET parent_id = 'wood' WHERE id = 'craft'"
    )
    reseal(broken)
    code, out, _ = run(capsys, "validate", str(broken), "--json")
    assert code == 1
    report = json.loads(out)
    assert report["ok"] is False
    assert "topic-cycle" in {f["reason"] for f in report["findings"]}


def test_validate_missing_key_file(
    capsys: pytest.CaptureFixture[str], shared_catalog: Path
) -> None:
    code, _, err = run(capsys, "validate", str(shared_catalog), "--trust", "/nonexistent.pem")
    assert code == 1
    assert "cannot read trust key /nonexistent.pem" in err
    assert "[unreadable]" in err


def test_topics_tree(capsys: pytest.CaptureFixture[str], shared_catalog: Path) -> None:
    code, out, _ = run(capsys, "topics", str(shared_catalog))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("Craft  [craft]  9 documents (3 here)")
    assert lines[1].startswith("  Metals  [metals]")
    code, out, _ = run(capsys, "topics", str(shared_catalog), "--json")
    assert [t["id"] for t in json.loads(out)] == ["craft", "metals", "wood", "nature"]


def test_list_pages_and_lists_installed_catalogs_without_one(
    capsys: pytest.CaptureFixture[str],
    shared_catalog: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    code, out, _ = run(capsys, "list", str(shared_catalog), "--topic", "nature", "--json")
    assert code == 0
    view = json.loads(out)
    assert view["total"] == 5
    assert view["documents"][0]["id"] == "doc-0000"
    assert view["documents"][0]["citation"] == "knowledge://tester/demo/doc-0000"
    code, out, _ = run(capsys, "list", str(shared_catalog), "--limit", "2")
    assert out.strip().endswith("(1-2 of 12 documents)")
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path))
    code, out, _ = run(capsys, "list")
    assert code == 0
    assert out.strip() == "no catalogs installed"


def test_read_reference_forms(
    capsys: pytest.CaptureFixture[str],
    shared_catalog: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    code, out, _ = run(
        capsys, "read", str(shared_catalog), "knowledge://tester/demo/doc-0003#line=1"
    )
    assert code == 0
    assert out == (
        "drift vellum 0003  (line 1 of doc-0003)\nknowledge://tester/demo/doc-0003#line=1\n\n"
        "# drift vellum 0003\n"
    )
    code, out, _ = run(capsys, "read", str(shared_catalog), "doc-0003", "--json")
    assert json.loads(out)["kind"] == "document"
    code, _, err = run(capsys, "read", str(shared_catalog), "knowledge://x/y/z")
    assert code == 1
    assert "[other-catalog]" in err
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path))
    code, _, err = run(capsys, "read", "knowledge://tester/demo/doc-0003")
    assert code == 1
    assert "[not-installed]" in err
    code, _, err = run(capsys, "read", "doc-0003")
    assert code == 1
    assert "[catalog-required]" in err


def test_search_hybrid_keyword_and_near(
    capsys: pytest.CaptureFixture[str], shared_catalog: Path, packed: Callable[[Path], Path]
) -> None:
    archive = packed(shared_catalog)
    code, out, err = run(capsys, "search", str(archive), "lattice", "lumen", "0000", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["hits"][0]["documentId"] == "doc-0000"
    assert result["hits"][0]["citation"].startswith("knowledge://tester/demo/doc-0000#chunk=")
    assert err == ""  # the hash profile's embedder is always available
    code, out, _ = run(
        capsys,
        "search",
        str(shared_catalog),
        "paragraph",
        "--mode",
        "keyword",
        "--near",
        "47.6062,-122.3321,50000",
    )
    assert code == 0
    assert "0 m from seattle" in out
    assert "doc-0001" in out
    code, out, _ = run(capsys, "search", str(shared_catalog), "--near", "0,-180,1000")
    assert "(doc-0002, " in out
    code, _, err = run(capsys, "search", str(shared_catalog), "--near", "north,1,2")
    assert code == 1
    assert "[invalid-near]" in err


def test_search_without_a_model_says_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEZEL_MODELS", str(tmp_path / "no-models"))
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    docs, topics = sample_docs(5)
    # Vectors from the hash function, labelled with a real model's profile: only the label
    # matters here, since no bge files are installed the query cannot be embedded.
    root = CatalogBuild(docs, topics, profile=BGE_SMALL_EN_V15_1).write(tmp_path / "c")
    code, out, err = run(capsys, "search", str(root), docs[1].title)
    assert code == 0
    assert docs[1].id in out
    assert "keyword search only" in err
    # Vector mode has nothing else to answer with: an error that says why, not "no results".
    code, out, err = run(capsys, "search", str(root), docs[1].title, "--mode", "vector")
    assert code == 1
    assert out == ""
    assert "[vector-search-unavailable]" in err
    assert "bge-small-en-v1.5@1" in err


def test_silent_empties_are_errors_on_the_command_line(
    capsys: pytest.CaptureFixture[str], shared_catalog: Path
) -> None:
    # Issue 16 item 7: `--shards 0` printed "no results" and exited 0.
    code, out, err = run(capsys, "search", str(shared_catalog), "lattice", "--shards", "0")
    assert (code, out) == (1, "")
    assert "[invalid-limit]" in err


def test_search_limit_and_the_output_block(
    capsys: pytest.CaptureFixture[str], shared_catalog: Path
) -> None:
    code, out, _ = run(capsys, "search", str(shared_catalog), "lattice", "--limit", "2")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"Results for 'lattice' in {shared_catalog}, best first:"
    assert [line[:3] for line in lines if line[:1].isdigit() and ". " in line[:4]] == ["1. ", "2. "]
    assert "matched: " in out
    assert "(doc-0000, line 3)" in lines[2]  # where the passage is
