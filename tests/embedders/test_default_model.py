"""The packaged default model (all-MiniLM-L6-v2 int8, a test dependency) on real text."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from gezel_knowledge.embedders import (
    OnnxEmbedder,
    embedder_stamp,
    load_embedder,
    locate_model_files,
)
from gezel_knowledge.errors import ModelUnavailable
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1 as MINILM
from gezk.profiles import (
    BGE_SMALL_EN_V15_1,
    MULTILINGUAL_E5_SMALL_1,
    TEST_HASH_EMBED_1,
    EmbeddingProfile,
    embedding_profile,
    same_vector_space,
)

QUERY = "How do I keep a catalog private to my user account?"
PARAPHRASE = "Install the catalog per user so that other accounts on the machine cannot read it."
UNRELATED = "The recipe calls for two cups of flour, a pinch of salt and warm water."


@pytest.fixture(scope="module")
def minilm() -> OnnxEmbedder:
    """One loaded default embedder for the module (loading costs a few hundred ms)."""
    embedder = load_embedder(MINILM)
    assert isinstance(embedder, OnnxEmbedder)
    embedder.load()
    return embedder


def test_default_model_comes_from_the_installed_packages() -> None:
    files = locate_model_files(MINILM)
    assert files.source == "package"
    assert files.graph.name == "model.onnx"
    assert files.tokenizer.name == "tokenizer.json"


def test_vectors_are_unit_float32_rows_of_the_profile_width(minilm: OnnxEmbedder) -> None:
    vectors = minilm.embed_passages([PARAPHRASE, UNRELATED, ""])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    assert vectors.flags.c_contiguous
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_paraphrase_ranks_above_an_unrelated_passage(minilm: OnnxEmbedder) -> None:
    (query,) = minilm.embed_queries([QUERY])
    passages = minilm.embed_passages([UNRELATED, PARAPHRASE])
    scores = passages @ query
    assert scores[1] > scores[0] + 0.3, scores


def test_query_and_passage_instructions_change_the_vector() -> None:
    # The default profile has no instructions; an E5-style variant of it does.
    variant = replace(
        MINILM, id="minilm-e5-style@test", query_instruction="query: ", passage_instruction=""
    )
    embedder = load_embedder(variant)
    query = embedder.embed_queries([QUERY])
    passage = embedder.embed_passages([QUERY])
    assert float(query[0] @ passage[0]) < 0.999
    np.testing.assert_allclose(query, embedder.embed_passages(["query: " + QUERY]), atol=1e-6)


def test_sub_batching_gives_the_same_vectors_as_one_batch(minilm: OnnxEmbedder) -> None:
    words = PARAPHRASE.split()
    texts = [" ".join(words[: 1 + (i * 7) % len(words)]) * (1 + i % 4) for i in range(20)]
    whole = load_embedder(MINILM, batch_size=64, max_batch_tokens=1 << 20).embed_passages(texts)
    singles = load_embedder(MINILM, batch_size=1).embed_passages(texts)
    small = load_embedder(MINILM, batch_size=3, max_batch_tokens=96).embed_passages(texts)
    np.testing.assert_allclose(singles, whole, atol=1e-5)
    np.testing.assert_allclose(small, whole, atol=1e-5)


def test_passages_are_truncated_to_256_tokens(minilm: OnnxEmbedder) -> None:
    words = [f"w{i}" for i in range(400)]
    long_text = " ".join(words)
    tokenizer = minilm.tokenizer
    # Find the prefix that fills the 254 positions left beside [CLS] and [SEP].
    spans = tokenizer.offsets(long_text)
    assert len(spans) > 256
    prefix = long_text[: spans[253][1]]
    assert tokenizer.count(prefix) == 254
    full, cut = minilm.embed_passages([long_text, prefix])
    np.testing.assert_allclose(full, cut, atol=1e-5)
    shorter = minilm.embed_passages([long_text[: spans[200][1]]])[0]
    assert float(shorter @ full) < 0.9999


def test_tokenizer_counts_wordpieces_without_special_tokens(minilm: OnnxEmbedder) -> None:
    tokenizer = minilm.tokenizer
    text = "Embeddings aren't magic."
    spans = tokenizer.offsets(text)
    assert [text[a:b] for a, b in spans] == [
        "Em",
        "bed",
        "ding",
        "s",
        "aren",
        "'",
        "t",
        "magic",
        ".",
    ]
    assert tokenizer.count(text) == len(spans)
    assert tokenizer.count("") == 0


def _copy_model(tmp_path: Path) -> Path:
    files = locate_model_files(MINILM)
    directory = tmp_path / "minilm"
    (directory / "onnx").mkdir(parents=True)
    shutil.copyfile(files.graph, directory / MINILM.model.onnx_path)
    shutil.copyfile(files.tokenizer, directory / MINILM.tokenizer.path)
    return directory


def _flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def test_a_tampered_graph_is_refused_with_both_digests(tmp_path: Path) -> None:
    directory = _copy_model(tmp_path)
    graph = directory / MINILM.model.onnx_path
    _flip_byte(graph, graph.stat().st_size // 2)
    embedder = load_embedder(MINILM, model_dir=directory)
    with pytest.raises(ModelUnavailable) as info:
        embedder.embed_passages(["anything"])
    assert info.value.reason == "digest-mismatch"
    assert MINILM.model.onnx_digest is not None
    assert MINILM.model.onnx_digest in info.value.message
    assert "got sha256:" in info.value.message
    assert str(graph) in info.value.message


def test_a_tampered_tokenizer_is_refused(tmp_path: Path) -> None:
    directory = _copy_model(tmp_path)
    tokenizer = directory / MINILM.tokenizer.path
    _flip_byte(tokenizer, 100)
    embedder = load_embedder(MINILM, model_dir=directory)
    with pytest.raises(ModelUnavailable) as info:
        _ = embedder.tokenizer
    assert info.value.reason == "digest-mismatch"
    assert MINILM.tokenizer.digest is not None
    assert MINILM.tokenizer.digest in info.value.message


def test_an_intact_copy_in_a_model_directory_is_used(tmp_path: Path) -> None:
    directory = _copy_model(tmp_path)
    embedder = load_embedder(MINILM, model_dir=directory)
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.files.source == "directory"
    assert embedder.graph_digest == MINILM.model.onnx_digest
    assert embedder.tokenizer_digest == MINILM.tokenizer.digest


def test_stamp_of_the_default_model_names_its_graph_digest(minilm: OnnxEmbedder) -> None:
    stamp = embedder_stamp(minilm)
    assert stamp.graph_digest == MINILM.model.onnx_digest
    assert stamp.model_repo == "sentence-transformers/all-MiniLM-L6-v2"
    assert stamp.max_tokens == 256
    assert stamp.pooling == "mean"


def test_default_profile_is_registered_format_data() -> None:
    assert embedding_profile("all-minilm-l6-v2-int8@1") is MINILM
    assert EmbeddingProfile.from_json(MINILM.to_json()) == MINILM
    for other in (BGE_SMALL_EN_V15_1, MULTILINGUAL_E5_SMALL_1, TEST_HASH_EMBED_1):
        assert not same_vector_space(MINILM, other)


def test_token_offsets_are_python_string_indices(minilm: OnnxEmbedder) -> None:
    text = "Ünïcode café 😀 naïve résumé"
    spans = minilm.tokenizer.offsets(text)
    # Characters outside the BMP and combining-free accents count as one index each.
    assert [text[a:b] for a, b in spans][:3] == ["Ünïcode", "café", "😀"]
    assert spans[-1][1] == len(text)
