"""``gezel-knowledge eval``: the table, the JSON shape and the exit codes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.cli import main


def _eval(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["eval", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_beir_folder_prints_a_table_per_mode(
    beir_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _eval(
        capsys,
        str(beir_folder),
        "--embedder",
        "test-hash-embed@1",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--bm25",
        "--exact-dense",
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("catalog gezel-eval/eval-corpus (built)")
    assert str(tmp_path / "cache") in lines[0]
    assert "8 documents, 8 passages, 1 shard" in lines[1]
    assert "3 queries (split test), k = 100" in lines[1]
    header = next(i for i, line in enumerate(lines) if line.startswith("mode"))
    assert lines[header].split()[:5] == ["mode", "nDCG@10", "R@10", "R@100", "MRR@10"]
    rows = {line.split()[0]: line.split() for line in lines[header + 1 : header + 6]}
    assert list(rows) == ["hybrid", "vector", "keyword", "bm25", "exact-dense"]
    assert rows["keyword"][1:5] == ["1.000", "1.000", "1.000", "1.000"]
    assert rows["vector"][1] == "0.333"
    assert len(rows["hybrid"]) == 9  # scores, documents per query, p50, p95, cpu p50
    assert len(rows["bm25"]) == 6  # a baseline has no per-query latency
    assert "routed search scans every shard" in out
    assert (
        "exact-dense: 8 passages, 8 vectors from the vector cache, 0 embedded now, 0 differ "
        "from the catalog's int8 vectors"
    ) in out
    again = _eval(
        capsys,
        str(beir_folder),
        "--embedder",
        "test-hash-embed@1",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--mode",
        "keyword",
    )
    assert again[0] == 0
    assert "(cached)" in again[1].splitlines()[0]


def _shape(value: Any) -> Any:
    """Keys and value types, recursively (numbers as "number")."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value[:1]]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return type(value).__name__
    return "number"


SCORES = {
    "ndcgAt10": "number",
    "recallAt10": "number",
    "recallAt100": "number",
    "mrrAt10": "number",
}


def test_json_output_has_a_stable_shape(
    beir_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _eval(
        capsys,
        str(beir_folder),
        "--embedder",
        "test-hash-embed@1",
        "--cache-dir",
        str(tmp_path),
        "--mode",
        "hybrid",
        "--exact-dense",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert _shape(data) == {
        "catalog": "str",
        "profile": "str",
        "documents": "number",
        "passages": "number",
        "shards": "number",
        "shardBudget": "number",
        "queries": "number",
        "k": "number",
        "judgedMissing": "number",
        "results": [
            {
                "name": "str",
                "kind": "str",
                "scores": SCORES,
                "meanDocuments": "number",
                "shortQueries": "number",
                "latency": {
                    "p50Ms": "number",
                    "p95Ms": "number",
                    "cpuP50Ms": "number",
                    "cpuP95Ms": "number",
                    "kernels": "str",
                },
                "routing": "NoneType",
                "note": "NoneType",
                "perQuery": {"q-long": "number", "q-roses": "number", "q-tulip": "number"},
            }
        ],
        "split": "str",
        "catalogPath": "str",
        "cached": "bool",
        "denseCheck": {
            "passages": "number",
            "fromCache": "number",
            "embedded": "number",
            "int8Mismatches": "number",
        },
        "defaultFusion": "str",
    }
    assert [r["name"] for r in data["results"]] == ["hybrid", "exact-dense"]
    assert data["results"][0]["scores"]["ndcgAt10"] == 1.0


def test_an_existing_catalog_with_queries_and_qrels(
    beir_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    built = ["--embedder", "test-hash-embed@1", "--cache-dir", str(tmp_path), "--json"]
    code, out, _ = _eval(capsys, str(beir_folder), *built)
    assert code == 0
    first = json.loads(out)
    code, out, _ = _eval(
        capsys,
        first["catalogPath"],
        "--queries",
        str(beir_folder / "queries.jsonl"),
        "--qrels",
        str(beir_folder / "qrels" / "test.tsv"),
        "--json",
    )
    assert code == 0
    second = json.loads(out)
    assert [r["scores"] for r in second["results"]] == [r["scores"] for r in first["results"]]
    assert second["cached"] is None


def test_a_catalog_without_judgements_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["eval", str(tmp_path / "some.gezk")])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "--queries and --qrels" in err
    assert "is not a BEIR folder (no such file or folder)" in err


def test_malformed_judgements_exit_1_with_the_reason(
    beir_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (beir_folder / "qrels" / "test.tsv").write_text("q-tulip\ttulips\tvery\n")
    code, out, err = _eval(
        capsys, str(beir_folder), "--embedder", "test-hash-embed@1", "--cache-dir", str(tmp_path)
    )
    assert code == 1
    assert out == ""
    assert err.startswith("gezel-knowledge: error: ")
    assert "test.tsv:1" in err
    assert err.rstrip().endswith("[eval-invalid-qrels]")
    assert len(err.splitlines()) == 1


def test_a_missing_catalog_exits_1(
    beir_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _eval(
        capsys,
        str(tmp_path / "missing.gezk"),
        "--queries",
        str(beir_folder / "queries.jsonl"),
        "--qrels",
        str(beir_folder / "qrels" / "test.tsv"),
    )
    assert code == 1
    assert "[catalog-not-found]" in err


def test_k_below_100_exits_1(
    beir_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _eval(
        capsys,
        str(beir_folder),
        "--embedder",
        "test-hash-embed@1",
        "--cache-dir",
        str(tmp_path),
        "-k",
        "10",
    )
    assert code == 1
    assert "[invalid-limit]" in err
    assert not list(tmp_path.glob("*.gezk"))  # refused before building anything


def test_bm25_without_bm25s_names_the_extra(
    beir_folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "bm25s", None)  # import bm25s now raises ImportError
    code, out, err = _eval(
        capsys,
        str(beir_folder),
        "--embedder",
        "test-hash-embed@1",
        "--cache-dir",
        str(tmp_path),
        "--bm25",
    )
    assert code == 1
    assert out == ""
    assert "pip install 'gezel-knowledge[eval]'" in err
    assert "[missing-extra]" in err
    assert not list(tmp_path.glob("*.gezk"))  # refused before building anything


def test_a_cache_folder_that_is_a_file_exits_1_before_building(
    beir_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("mine")
    code, out, err = _eval(
        capsys, str(beir_folder), "--embedder", "test-hash-embed@1", "--cache-dir", str(blocker)
    )
    assert (code, out) == (1, "")
    assert err.rstrip().endswith("[output-not-a-folder]")
    assert len(err.splitlines()) == 1
    assert blocker.read_text() == "mine"
