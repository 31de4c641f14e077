"""The example in docs/embedders.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gezk.profiles import ALL_MINILM_L6_V2_INT8_1, BGE_SMALL_EN_V15_1, MULTILINGUAL_E5_SMALL_1

PAGE = Path(__file__).resolve().parents[2] / "docs" / "embedders.md"


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def test_embedders_page_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    (block,) = _blocks(PAGE.read_text(encoding="utf-8"), "python")
    exec(compile(block, str(PAGE), "exec"), {"__name__": "__doc_example__"})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "8 tokens"
    assert out[1] == "model-missing"
    assert '"graph_digest":"sha256:8199be6f' in out[2]


def test_embedders_page_states_the_pinned_digests() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for profile in (ALL_MINILM_L6_V2_INT8_1, BGE_SMALL_EN_V15_1, MULTILINGUAL_E5_SMALL_1):
        assert profile.model.onnx_digest is not None
        assert profile.tokenizer.digest is not None
        assert profile.model.onnx_digest in text
        assert profile.tokenizer.digest in text
    for profile in (BGE_SMALL_EN_V15_1, MULTILINGUAL_E5_SMALL_1):
        assert f"{profile.model.repo}/{profile.model.onnx_path}" in text
        assert profile.model.revision in text
