from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from gezk.errors import InvalidProfile
from gezk.profiles import (
    BGE_SMALL_EN_V15_1,
    EMBEDDING_PROFILES,
    MARKDOWN_CHUNKS_2,
    MULTILINGUAL_E5_SMALL_1,
    MULTILINGUAL_E5_SMALL_2,
    TEST_HASH_EMBED_1,
    ChunkingProfile,
    EmbeddingProfile,
    ModelRef,
    TokenizerRef,
    chunking_profile,
    embedding_profile,
    same_vector_space,
    vector_space_key,
)

# Section 6.1's example profile, verbatim.
E5_SPEC_JSON: dict[str, Any] = {
    "id": "multilingual-e5-small@1",
    "model": {
        "repo": "Xenova/multilingual-e5-small",
        "revision": "761b726dd34fb83930e26aab4e9ac3899aa1fa78",
        "onnxFile": "onnx/model.onnx",
        "onnxDigest": "sha256:4aa845c27760e06e9a686b9d8b5d440eae4b6612cd09e5b522b716d3941f77ff",
    },
    "tokenizer": {
        "kind": "sentencepiece-xlmr",
        "file": "tokenizer.json",
        "digest": "sha256:0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39",
    },
    "pooling": "mean",
    "normalized": True,
    "dimensions": 384,
    "maxTokens": 512,
    "queryInstruction": "query: ",
    "passageInstruction": "passage: ",
    "vectorEncoding": "bit+int8",
    "distance": {"stage1": "hamming", "stage2": "cosine"},
    "quantization": {
        "int8": {"method": "symmetric-linear", "scale": 127},
        "binary": {"method": "sign", "threshold": 0, "packing": "lsb-first"},
    },
}


def test_registered_e5_profile_equals_the_spec_example() -> None:
    assert MULTILINGUAL_E5_SMALL_1.to_json() == E5_SPEC_JSON
    assert EmbeddingProfile.from_json(E5_SPEC_JSON) == MULTILINGUAL_E5_SMALL_1


def test_bge_profile_carries_the_spec_pins() -> None:
    bge = BGE_SMALL_EN_V15_1
    assert bge.model.repo == "Xenova/bge-small-en-v1.5"
    assert bge.model.revision == "ea104dacec62c0de699686887e3f920caeb4f3e3"
    assert bge.model.onnx_digest == (
        "sha256:828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35"
    )
    assert bge.tokenizer.digest == (
        "sha256:d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"
    )
    assert bge.query_instruction == "Represent this sentence for searching relevant passages: "
    assert bge.passage_instruction == ""


@pytest.mark.parametrize("profile", list(EMBEDDING_PROFILES.values()), ids=lambda p: p.id)
def test_every_registered_profile_round_trips(profile: EmbeddingProfile) -> None:
    assert (
        EmbeddingProfile.from_json(profile.to_json()) == profile
        if not profile.is_template
        else True
    )
    assert embedding_profile(profile.id) is profile


def test_e5_revision_2_is_a_centered_template_in_the_float_space_of_revision_1() -> None:
    assert MULTILINGUAL_E5_SMALL_2.is_template
    assert same_vector_space(MULTILINGUAL_E5_SMALL_1, MULTILINGUAL_E5_SMALL_2)
    with pytest.raises(InvalidProfile):
        MULTILINGUAL_E5_SMALL_2.check()
    center = np.linspace(-1, 1, 384)
    filled = MULTILINGUAL_E5_SMALL_2.with_center(center)
    assert not filled.is_template
    np.testing.assert_allclose(filled.center_array(), center.astype(np.float32))
    parsed = EmbeddingProfile.from_json(filled.to_json())
    assert parsed == filled
    assert parsed.to_json()["quantization"]["binary"]["method"] == "centered-sign"


def test_center_rules() -> None:
    with pytest.raises(InvalidProfile):
        MULTILINGUAL_E5_SMALL_2.with_center(np.zeros(10))
    with pytest.raises(InvalidProfile):
        MULTILINGUAL_E5_SMALL_1.with_center(np.zeros(384))
    bad = copy.deepcopy(E5_SPEC_JSON)
    bad["quantization"]["binary"]["center"] = [0.0] * 384
    with pytest.raises(InvalidProfile):
        EmbeddingProfile.from_json(bad)


def test_same_space_ignores_id_max_tokens_and_one_sided_digests() -> None:
    other = replace(BGE_SMALL_EN_V15_1, id="my-bge@7", max_tokens=256)
    assert same_vector_space(BGE_SMALL_EN_V15_1, other)
    undeclared = replace(
        BGE_SMALL_EN_V15_1, model=replace(BGE_SMALL_EN_V15_1.model, onnx_digest=None)
    )
    assert same_vector_space(BGE_SMALL_EN_V15_1, undeclared)
    assert vector_space_key(BGE_SMALL_EN_V15_1) == vector_space_key(undeclared)


@pytest.mark.parametrize(
    "change",
    [
        {"query_instruction": "query: "},
        {"pooling": "cls"},
        {"dimensions": 768},
        {"normalized": False},
        {"model": ModelRef("Xenova/bge-small-en-v1.5", "other-revision")},
        {
            "model": ModelRef(
                "Xenova/bge-small-en-v1.5",
                "ea104dacec62c0de699686887e3f920caeb4f3e3",
                "onnx/model_fp16.onnx",
            )
        },
        {"tokenizer": TokenizerRef("wordpiece-bert", "tokenizer.json", "sha256:" + "0" * 64)},
    ],
)
def test_same_space_detects_each_differing_field(change: dict[str, Any]) -> None:
    assert not same_vector_space(BGE_SMALL_EN_V15_1, replace(BGE_SMALL_EN_V15_1, **change))


def test_different_models_do_not_share_a_space() -> None:
    assert not same_vector_space(BGE_SMALL_EN_V15_1, MULTILINGUAL_E5_SMALL_1)
    assert not same_vector_space(TEST_HASH_EMBED_1, BGE_SMALL_EN_V15_1)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("vectorEncoding",), "float32"),
        (("pooling",), "max"),
        (("dimensions",), 0),
        (("normalized",), "yes"),
        (("model", "onnxDigest"), "sha256:XYZ"),
        (("model", "onnxFile"), "../model.onnx"),
        (("distance", "stage1"), "cosine"),
        (("quantization", "int8", "scale"), 255),
        (("quantization", "binary", "packing"), "msb-first"),
    ],
)
def test_malformed_profiles_are_refused(path: tuple[str, ...], value: Any) -> None:
    obj = copy.deepcopy(E5_SPEC_JSON)
    target = obj
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(InvalidProfile):
        EmbeddingProfile.from_json(obj)


def test_unsupported_encoding_has_its_own_reason() -> None:
    obj = copy.deepcopy(E5_SPEC_JSON)
    obj["vectorEncoding"] = "bit+int4"
    with pytest.raises(InvalidProfile) as info:
        EmbeddingProfile.from_json(obj)
    assert info.value.reason == "unsupported-encoding"


def test_unknown_profile_ids() -> None:
    with pytest.raises(InvalidProfile) as info:
        embedding_profile("nope@1")
    assert info.value.reason == "unknown-profile"
    with pytest.raises(InvalidProfile):
        chunking_profile("markdown-chunks@9")


def test_markdown_chunks_2_matches_the_spec() -> None:
    assert MARKDOWN_CHUNKS_2.to_json() == {
        "id": "markdown-chunks@2",
        "unit": "tokens",
        "tokenizer": "profile",
        "target": 420,
        "overlap": 64,
        "contextHeader": {"max": 64},
    }
    assert ChunkingProfile.from_json(MARKDOWN_CHUNKS_2.to_json()) == MARKDOWN_CHUNKS_2
    assert chunking_profile("markdown-chunks@2") is MARKDOWN_CHUNKS_2


def test_chunking_unit_and_tokenizer_must_pair() -> None:
    obj = MARKDOWN_CHUNKS_2.to_json() | {"unit": "chars"}
    with pytest.raises(InvalidProfile):
        ChunkingProfile.from_json(obj)
