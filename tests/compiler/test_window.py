"""Chunking profiles are chosen so that every embed input fits the model's window."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import jsonschema
import pytest
from tokenizers import Tokenizer as RawTokenizer

from gezel_knowledge.cli import main
from gezel_knowledge.compiler import ChunkingDoesNotFit
from gezel_knowledge.compiler.passes.window import choose_chunking, window_budget
from gezel_knowledge.embedders import HashEmbedder, OnnxEmbedder, locate_model_files
from gezk.errors import InvalidProfile
from gezk.profiles import (
    ALL_MINILM_L6_V2_INT8_1,
    MARKDOWN_CHUNKS_2,
    MARKDOWN_CHUNKS_256_2,
    TEST_HASH_EMBED_1,
    ChunkingProfile,
    chunking_profile,
)
from gezk.schemas import load_schema
from tests.compiler.conftest import ModelBuild
from tests.compiler.trees import CATALOG_YAML, build, extract, write_tree

# The kit's whitespace stand-in, with a 256-token window: no model, no special tokens.
HASH_256 = dataclasses.replace(TEST_HASH_EMBED_1, id="test-hash-embed-256@1", max_tokens=256)


def _long_doc() -> str:
    sentences = [f"Sentence {i} talks about topic {i % 7} at some length here." for i in range(120)]
    return "# Long\n\n" + " ".join(sentences) + "\n"


def test_the_compact_profile_is_registered_and_schema_valid() -> None:
    assert chunking_profile("markdown-chunks-256@2") is MARKDOWN_CHUNKS_256_2
    obj = MARKDOWN_CHUNKS_256_2.to_json()
    jsonschema.validate(obj, load_schema("chunking-profile", "0.7"))
    assert ChunkingProfile.from_json(obj) == MARKDOWN_CHUNKS_256_2
    assert (obj["unit"], obj["tokenizer"]) == ("tokens", "profile")


def test_budgets_add_target_header_instruction_and_special_tokens(minilm: OnnxEmbedder) -> None:
    big = window_budget(MARKDOWN_CHUNKS_2, ALL_MINILM_L6_V2_INT8_1, minilm.tokenizer)
    # all-MiniLM's tokenizer wraps every input in [CLS] ... [SEP]; its instruction is empty.
    assert (big.special_tokens, big.instruction_tokens) == (2, 0)
    assert big.needed == 420 + 64 + 2
    assert not big.fits
    small = window_budget(MARKDOWN_CHUNKS_256_2, ALL_MINILM_L6_V2_INT8_1, minilm.tokenizer)
    assert small.needed == 192 + 32 + 2
    assert small.fits
    hashed = window_budget(MARKDOWN_CHUNKS_2, TEST_HASH_EMBED_1, HashEmbedder().tokenizer)
    assert (hashed.needed, hashed.fits) == (420 + 64, True)


def test_choice_is_the_largest_profile_that_fits(minilm: OnnxEmbedder) -> None:
    ws = HashEmbedder().tokenizer
    assert choose_chunking(TEST_HASH_EMBED_1, ws) is MARKDOWN_CHUNKS_2
    assert choose_chunking(HASH_256, ws) is MARKDOWN_CHUNKS_256_2
    assert choose_chunking(ALL_MINILM_L6_V2_INT8_1, minilm.tokenizer) is MARKDOWN_CHUNKS_256_2
    # A 512-token model whose 30-word passage instruction leaves no room for 420 + 64.
    wordy = dataclasses.replace(TEST_HASH_EMBED_1, passage_instruction="word " * 30)
    assert window_budget(MARKDOWN_CHUNKS_2, wordy, ws).needed == 514
    assert choose_chunking(wordy, ws) is MARKDOWN_CHUNKS_256_2


def test_a_window_too_small_for_every_profile_is_refused() -> None:
    tiny = dataclasses.replace(TEST_HASH_EMBED_1, max_tokens=128)
    with pytest.raises(ChunkingDoesNotFit) as err:
        choose_chunking(tiny, HashEmbedder().tokenizer)
    assert err.value.reason == "chunking-exceeds-window"
    assert err.value.chunking_id == "markdown-chunks-256@2"
    assert "224 tokens > maxTokens 128" in str(err.value)


def test_a_requested_profile_that_does_not_fit_is_refused_naming_both(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "s", {"a.md": _long_doc()})
    out = tmp_path / "s.gezk"
    with pytest.raises(ChunkingDoesNotFit) as err:
        build(root, out, embedder=HashEmbedder(HASH_256), chunking="markdown-chunks@2")
    assert err.value.reason == "chunking-exceeds-window"
    assert (err.value.chunking_id, err.value.embedding_id) == (
        "markdown-chunks@2",
        "test-hash-embed-256@1",
    )
    message = str(err.value)
    assert "'markdown-chunks@2'" in message
    assert "'test-hash-embed-256@1'" in message
    assert "484 tokens > maxTokens 256" in message
    assert "use markdown-chunks-256@2" in message
    assert not out.exists()
    # catalog.yaml's `chunking` is a request like any other.
    (root / "catalog.yaml").write_text(CATALOG_YAML + "chunking: markdown-chunks@2\n")
    with pytest.raises(ChunkingDoesNotFit):
        build(root, out, embedder=HashEmbedder(HASH_256))
    assert not out.exists()


def test_catalog_yaml_and_the_api_choose_a_fitting_profile(tmp_path: Path) -> None:
    catalog = CATALOG_YAML + "chunking: markdown-chunks-256@2\n"
    root = write_tree(tmp_path / "s", {"a.md": _long_doc()}, catalog=catalog)
    chosen = build(root, tmp_path / "yaml.gezk")
    assert chosen.manifest.to_json()["chunking"] == MARKDOWN_CHUNKS_256_2.to_json()
    # An explicit argument wins over catalog.yaml.
    explicit = build(root, tmp_path / "api.gezk", chunking=MARKDOWN_CHUNKS_2)
    assert explicit.manifest.to_json()["chunking"] == MARKDOWN_CHUNKS_2.to_json()
    assert explicit.chunks < chosen.chunks


def test_the_hash_embedder_keeps_markdown_chunks_2(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "s", {"a.md": _long_doc()})
    result = build(root, tmp_path / "s.gezk")
    assert result.manifest.to_json()["chunking"] == MARKDOWN_CHUNKS_2.to_json()
    router = sqlite3.connect(extract(result.path, tmp_path / "x") / "index/router.db")
    meta = dict(router.execute("SELECT key, value FROM meta"))
    assert meta["chunking_profile_id"] == "markdown-chunks@2"
    assert json.loads(meta["chunking_profile_json"])["target"] == 420


def test_the_default_model_builds_compact_chunks_whose_inputs_fit_256_tokens(
    handbook_minilm: ModelBuild, minilm: OnnxEmbedder, tmp_path: Path
) -> None:
    result = handbook_minilm.result
    assert result.manifest.to_json()["embedding"]["id"] == "all-minilm-l6-v2-int8@1"
    assert result.manifest.to_json()["chunking"] == MARKDOWN_CHUNKS_256_2.to_json()
    assert len(handbook_minilm.passages) == result.chunks > 20
    # Count with the tokenizer file itself, special tokens in, nothing cut and nothing padded.
    raw = RawTokenizer.from_file(str(locate_model_files(ALL_MINILM_L6_V2_INT8_1).tokenizer))
    raw.no_truncation()
    raw.no_padding()
    lengths = [len(e.ids) for e in raw.encode_batch(list(handbook_minilm.passages))]
    assert max(lengths) <= 256
    assert max(lengths) > 128  # the handbook's long passages do use the window
    out = extract(result.path, tmp_path / "x")
    router = sqlite3.connect(out / "index/router.db")
    assert router.execute("SELECT MAX(token_count) FROM chunks").fetchone()[0] <= 192
    meta = dict(router.execute("SELECT key, value FROM meta"))
    assert meta["chunking_profile_id"] == "markdown-chunks-256@2"


def test_cli_chunking_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_tree(tmp_path / "s", {"a.md": _long_doc()})
    args = ["build", str(root), "--embedder", "test-hash-embed@1", "--no-cache", "--json"]
    args += ["--created-at", "2026-12-01"]
    assert main([*args, "-o", str(tmp_path / "a.gezk"), "--chunking", "markdown-chunks-256@2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["manifest"]["chunking"]["id"] == "markdown-chunks-256@2"
    assert main([*args, "-o", str(tmp_path / "b.gezk"), "--chunking", "no-such@1"]) == 1
    err = capsys.readouterr().err
    assert "unknown chunking profile 'no-such@1'" in err
    assert not (tmp_path / "b.gezk").exists()
    with pytest.raises(InvalidProfile):
        chunking_profile("no-such@1")
