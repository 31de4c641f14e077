"""The mutable-index embedder stamp."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gezel_knowledge.embedders import EmbedderStamp, HashEmbedder, embedder_stamp, load_embedder
from gezel_knowledge.errors import InvalidInput
from gezk.profiles import (
    ALL_MINILM_L6_V2_INT8_1,
    MULTILINGUAL_E5_SMALL_1,
    MULTILINGUAL_E5_SMALL_2,
    TEST_HASH_EMBED_1,
)
from tests.embedders.embedder_fixtures import TinyFactory


def test_stamp_has_a_stable_string_form_that_round_trips() -> None:
    stamp = embedder_stamp(HashEmbedder())
    text = str(stamp)
    assert text == str(embedder_stamp(HashEmbedder()))
    assert json.loads(text) == stamp.to_json()
    assert list(json.loads(text)) == sorted(json.loads(text))
    assert EmbedderStamp.parse(text) == stamp
    assert stamp.model_repo == "test/hash-embed"
    assert stamp.graph_digest is None


def test_stamp_follows_what_changes_vectors_and_ignores_labels() -> None:
    base = embedder_stamp(HashEmbedder(ALL_MINILM_L6_V2_INT8_1))
    relabelled = replace(ALL_MINILM_L6_V2_INT8_1, id="another-label@9")
    assert embedder_stamp(HashEmbedder(relabelled)) == base
    for changed in (
        replace(ALL_MINILM_L6_V2_INT8_1, query_instruction="query: "),
        replace(ALL_MINILM_L6_V2_INT8_1, pooling="cls"),
        replace(ALL_MINILM_L6_V2_INT8_1, max_tokens=128),
        replace(ALL_MINILM_L6_V2_INT8_1, dimensions=256),
    ):
        assert embedder_stamp(HashEmbedder(changed)) != base


def test_e5_revisions_share_a_stamp() -> None:
    one = embedder_stamp(HashEmbedder(MULTILINGUAL_E5_SMALL_1))
    two = embedder_stamp(HashEmbedder(MULTILINGUAL_E5_SMALL_2))
    assert one == two
    assert one.graph_digest == MULTILINGUAL_E5_SMALL_1.model.onnx_digest


def test_unpinned_onnx_profile_is_stamped_with_the_loaded_digests(
    tiny_model: TinyFactory,
) -> None:
    model = tiny_model()
    unpinned = replace(
        model.profile,
        model=replace(model.profile.model, onnx_digest=None),
        tokenizer=replace(model.profile.tokenizer, digest=None),
    )
    stamp = embedder_stamp(load_embedder(unpinned, model_dir=model.directory))
    assert stamp.graph_digest == model.profile.model.onnx_digest
    assert stamp.tokenizer_digest == model.profile.tokenizer.digest


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        json.dumps({"model_repo": "x"}),
        str(embedder_stamp(HashEmbedder(TEST_HASH_EMBED_1))).replace(
            '"dimensions":384', '"dimensions":"384"'
        ),
        str(embedder_stamp(HashEmbedder(TEST_HASH_EMBED_1))).replace(
            '"normalized":true', '"normalized":1'
        ),
        str(embedder_stamp(HashEmbedder(TEST_HASH_EMBED_1))).replace(
            '"dimensions":384', '"dimensions":true'
        ),
    ],
)
def test_malformed_stamps_are_refused(text: str) -> None:
    with pytest.raises(InvalidInput) as info:
        EmbedderStamp.parse(text)
    assert info.value.reason == "invalid-stamp"
