"""``find``, ``status``, ``list`` and ``read`` over installed catalogs."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.install import KnowledgeHome
from gezk.profiles import TEST_HASH_EMBED_1, ModelRef

UNKNOWN = replace(TEST_HASH_EMBED_1, id="acme-embed@1", model=ModelRef("acme/embed", "r1"))


@pytest.fixture
def three(archive_factory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KnowledgeHome:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path))
    home = KnowledgeHome()
    home.install(archive_factory("alpha"))
    home.install(archive_factory("beta", n_docs=10))
    home.install(archive_factory("gamma", profile=UNKNOWN))
    return home


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_find_over_three_installed_catalogs(
    three: KnowledgeHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "find", "lattice ember", "-k", "30", "--json")
    assert code == 0
    view = json.loads(out)
    assert {h["source"] for h in view["hits"]} == {"tester/alpha", "tester/beta", "tester/gamma"}
    keyword_only = [s["source"] for s in view["sources"] if s["semantic"] == "unavailable"]
    assert keyword_only == ["tester/gamma"]
    assert all(h["provenance"]["archiveSha256"] for h in view["hits"])
    assert "tester/gamma: keyword search only" in err
    code, out, _ = _run(capsys, "find", "lattice ember", "-k", "3")
    lines = out.splitlines()
    assert lines[0] == "Results for 'lattice ember' in the installed catalogs, best first:"
    assert lines[2].startswith("1. ")
    # The score, which lists found the hit and at what rank, a preview, then the citation.
    assert re.match(r"   score (-|-?\d\.\d{3}); matched: ", lines[3])
    assert lines[5].strip().startswith("knowledge://tester/")
    # The count, what "matched" means, and the command that opens the first result.
    assert lines[-2].startswith("3 results. 'score' is the cosine similarity of the passage")
    assert "'matched' says how each result was found" in lines[-2]
    first = lines[5].strip()
    assert lines[-1] == f"Read the first in full: gezel-knowledge read '{first}'"


def test_find_respects_disable_and_catalog_filter(
    three: KnowledgeHome, capsys: pytest.CaptureFixture[str]
) -> None:
    three.disable("alpha")
    _, out, _ = _run(capsys, "find", "lattice", "-k", "50", "--json")
    assert "tester/alpha" not in {h["source"] for h in json.loads(out)["hits"]}
    _, out, _ = _run(capsys, "find", "lattice", "--catalog", "beta", "--json")
    assert {h["source"] for h in json.loads(out)["hits"]} == {"tester/beta"}


def test_list_without_a_catalog_lists_installed_ones(
    three: KnowledgeHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "list")
    assert code == 0
    assert [line.split("@")[0] for line in out.splitlines()] == [
        "tester/alpha",
        "tester/beta",
        "tester/gamma",
    ]
    _, out, _ = _run(capsys, "list", "--json")
    assert [r["catalog"] for r in json.loads(out)] == [
        "tester/alpha",
        "tester/beta",
        "tester/gamma",
    ]
    # An installed catalog can be named where a catalog path is expected.
    code, out, _ = _run(capsys, "list", "beta", "--limit", "2")
    assert code == 0
    assert out.strip().endswith("(1-2 of 10 documents)")


def test_read_resolves_a_citation_through_the_installed_catalogs(
    three: KnowledgeHome, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _run(capsys, "find", "lattice", "--catalog", "alpha", "--json")
    hit = json.loads(out)["hits"][0]
    code, out, _ = _run(capsys, "read", hit["citation"])
    assert code == 0
    head, citation, blank, *text = out.splitlines()
    assert head.startswith(f"{hit['title']}  (line")  # what the passage is, then its citation
    assert (citation, blank) == (hit["citation"], "")
    assert "\n".join(text).strip() == hit["text"].strip()


def test_status_reports_readiness_and_quarantine(
    three: KnowledgeHome, capsys: pytest.CaptureFixture[str]
) -> None:
    gamma = three.catalog("gamma").active
    assert gamma is not None
    router = three.path_of(gamma) / "index" / "router.db"
    os.chmod(router.parent, 0o755)
    router.unlink()
    code, out, _ = _run(capsys, "status", "--check")
    assert code == 0
    assert "3 installed, 1 quarantined" in out
    assert "quarantined (missing-file)" in out
    assert "test-hash-embed@1: ready" in out
    _, out, _ = _run(capsys, "status", "--json")
    view = json.loads(out)
    quarantined = [c for c in view["catalogs"] if c["quarantine"]]
    assert [c["catalog"] for c in quarantined] == ["tester/gamma"]
    assert quarantined[0]["quarantine"]["reason"] == "missing-file"


def test_status_says_why_a_profile_has_no_embedder(
    three: KnowledgeHome, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _run(capsys, "status", "--json")
    readiness = {r["profile"]: r for r in json.loads(out)["embedding"]}
    assert readiness["acme-embed@1"]["ready"] is False
    assert readiness["acme-embed@1"]["reason"] == "unknown-profile"
    assert readiness["test-hash-embed@1"]["catalogs"] == ["tester/alpha", "tester/beta"]


@pytest.mark.parametrize("ref", ["tester/alpha@1.0.0", "alpha@1.0.0", "tester/alpha", "alpha"])
@pytest.mark.parametrize(
    "command",
    [
        ["search", "{ref}", "lattice"],
        ["list", "{ref}"],
        ["topics", "{ref}"],
        ["inspect", "{ref}"],
        ["validate", "{ref}"],
        ["export-parquet", "{ref}", "--out", "{out}"],
        ["find", "lattice", "--catalog", "{ref}"],
        ["disable", "{ref}"],
        ["enable", "{ref}"],
    ],
)
def test_every_command_naming_an_installed_catalog_takes_the_coordinate_list_prints(
    three: KnowledgeHome,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    command: list[str],
    ref: str,
) -> None:
    # Issue 16 item 4: `list` prints tester/alpha@1.0.0; every command accepts it.
    code, out, _ = _run(capsys, "list")
    assert "tester/alpha@1.0.0" in out
    argv = [a.format(ref=ref, out=tmp_path / "parquet") for a in command]
    code, _, err = _run(capsys, *argv)
    assert (code, err) == (0, "")


@pytest.mark.parametrize("command", [["search", "{ref}", "lattice"], ["enable", "{ref}"]])
def test_a_version_that_is_not_installed_is_named_in_the_error(
    three: KnowledgeHome, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    code, _, err = _run(capsys, *[a.format(ref="tester/alpha@9.9") for a in command])
    assert code == 1
    assert "tester/alpha@9.9 is not installed (version 1.0.0 is active)" in err
    assert "[version-not-installed]" in err


def test_an_ambiguous_bare_id_lists_the_candidates(
    archive_factory: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path))
    home = KnowledgeHome()
    home.install(archive_factory("demo", publisher_id="one"))
    home.install(archive_factory("demo", publisher_id="two"))
    code, _, err = _run(capsys, "search", "demo", "lattice")
    assert code == 1
    assert "catalog id demo is ambiguous; name one of: one/demo, two/demo" in err
    assert "[ambiguous-catalog]" in err


def test_find_takes_limit(three: KnowledgeHome, capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 16 item 8: find had -k but no --limit, and no line ranges.
    code, out, _ = _run(capsys, "find", "lattice ember", "--limit", "2", "--json")
    assert code == 0
    hits = json.loads(out)["hits"]
    assert len(hits) == 2
    assert all(h["lineStart"] is not None and h["relevance"] > 0 for h in hits)
