"""load_embedder takes a registered profile id as well as a profile."""

from __future__ import annotations

import numpy as np
import pytest

from gezel_knowledge.embedders import HashEmbedder, OnnxEmbedder, load_embedder
from gezk.errors import GezkError
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1, TEST_HASH_EMBED_1


def test_a_profile_id_loads_the_same_embedder_as_the_profile() -> None:
    by_id = load_embedder("test-hash-embed@1")
    assert isinstance(by_id, HashEmbedder)
    assert by_id.profile == TEST_HASH_EMBED_1
    texts = ["a question about catalogs"]
    assert np.array_equal(
        by_id.embed_queries(texts), load_embedder(TEST_HASH_EMBED_1).embed_queries(texts)
    )


def test_a_model_profile_id_locates_its_files() -> None:
    embedder = load_embedder("all-minilm-l6-v2-int8@1")  # the test extra installs the model
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.profile == ALL_MINILM_L6_V2_INT8_1


def test_an_unknown_profile_id_is_refused_by_name() -> None:
    with pytest.raises(GezkError) as refused:
        load_embedder("no-such-model@1")
    assert refused.value.reason == "unknown-profile"
    assert "no-such-model@1" in str(refused.value)
