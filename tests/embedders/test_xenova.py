"""The published profiles on their real Xenova graphs, when GEZEL_MODELS provides them.

These files are not on any package registry; run with
``GEZEL_MODELS=/path/to/models python -m pytest -m xenova`` where the directory holds
``Xenova/bge-small-en-v1.5/{onnx/model.onnx,tokenizer.json}`` and
``Xenova/multilingual-e5-small/{onnx/model.onnx,tokenizer.json}``.
"""

from __future__ import annotations

import numpy as np
import pytest

from gezel_knowledge.embedders import OnnxEmbedder, load_embedder, resolve_query_embedder
from gezel_knowledge.embedders.locate import find_model_files
from gezk.profiles import (
    BGE_SMALL_EN_V15_1,
    MULTILINGUAL_E5_SMALL_1,
    MULTILINGUAL_E5_SMALL_2,
    EmbeddingProfile,
)

pytestmark = pytest.mark.xenova

QUERY = "How do I keep a catalog private to my user account?"
PARAPHRASE = "Install the catalog per user so that other accounts on the machine cannot read it."
UNRELATED = "The recipe calls for two cups of flour, a pinch of salt and warm water."


def _require(profile: EmbeddingProfile) -> OnnxEmbedder:
    files, _ = find_model_files(profile)
    if files is None:
        pytest.skip(
            f"{profile.id}: set GEZEL_MODELS to a directory holding "
            f"{profile.model.repo}/{profile.model.onnx_path} and "
            f"{profile.model.repo}/{profile.tokenizer.path}"
        )
    embedder = load_embedder(profile)
    assert isinstance(embedder, OnnxEmbedder)
    return embedder


@pytest.mark.parametrize("profile", [BGE_SMALL_EN_V15_1, MULTILINGUAL_E5_SMALL_1])
def test_published_profile_verifies_and_ranks_a_paraphrase_first(
    profile: EmbeddingProfile,
) -> None:
    embedder = _require(profile)
    assert embedder.graph_digest == profile.model.onnx_digest
    assert embedder.tokenizer_digest == profile.tokenizer.digest
    (query,) = embedder.embed_queries([QUERY])
    passages = embedder.embed_passages([UNRELATED, PARAPHRASE])
    assert passages.shape == (2, 384)
    scores = passages @ query
    assert scores[1] > scores[0], scores


@pytest.mark.parametrize("profile", [BGE_SMALL_EN_V15_1, MULTILINGUAL_E5_SMALL_1])
def test_published_query_instruction_changes_the_vector(profile: EmbeddingProfile) -> None:
    embedder = _require(profile)
    query = embedder.embed_queries([QUERY])
    passage = embedder.embed_passages([QUERY])
    assert float(query[0] @ passage[0]) < 0.999
    if not profile.passage_instruction:
        # bge: the query is the passage embedding of the instruction-prefixed text.
        prefixed = embedder.embed_passages([profile.query_instruction + QUERY])
        np.testing.assert_allclose(query, prefixed, atol=1e-5)


def test_e5_revisions_share_one_loaded_embedder() -> None:
    _require(MULTILINGUAL_E5_SMALL_1)
    one = resolve_query_embedder(MULTILINGUAL_E5_SMALL_1)
    centered = MULTILINGUAL_E5_SMALL_2.with_center(np.full(384, 0.01, dtype=np.float32))
    two = resolve_query_embedder(centered)
    assert one.available
    assert two.embedder is one.embedder


def test_e5_matches_across_languages() -> None:
    embedder = _require(MULTILINGUAL_E5_SMALL_1)
    (query,) = embedder.embed_queries(["Wie halte ich einen Katalog privat?"])
    passages = embedder.embed_passages([UNRELATED, PARAPHRASE])
    scores = passages @ query
    assert scores[1] > scores[0], scores
