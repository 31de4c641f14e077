"""OnnxEmbedder on a tiny graph built here: pooling, input names, batching, truncation."""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np
import pytest
from numpy.typing import NDArray
from tokenizers import Tokenizer, models

from gezel_knowledge.embedders import OnnxEmbedder, cores, load_embedder
from gezel_knowledge.embedders.cores import usable_cores
from gezel_knowledge.embedders.onnx_embedder import SHORT_TEXT_TOKENS, plan_batches
from gezel_knowledge.embedders.tokenizer import HuggingFaceTokenizer
from gezel_knowledge.errors import ModelUnavailable
from tests.embedders.embedder_fixtures import TINY_DIMS, TINY_VOCAB, TinyFactory, TinyModel

CLS, SEP = TINY_VOCAB["[CLS]"], TINY_VOCAB["[SEP]"]


def _ids(text: str) -> list[int]:
    return [CLS, *(TINY_VOCAB.get(w, TINY_VOCAB["[UNK]"]) for w in text.lower().split()), SEP]


def _unit(v: NDArray[np.float32]) -> NDArray[np.float32]:
    return v / np.linalg.norm(v)


def _onnx(model: TinyModel, **options: int) -> OnnxEmbedder:
    embedder = load_embedder(model.profile, model_dir=model.directory, **options)
    assert isinstance(embedder, OnnxEmbedder)
    return embedder


@pytest.mark.parametrize("pooling", ["mean", "cls", "last"])
def test_pooling_matches_the_graph_states(tiny_model: TinyFactory, pooling: str) -> None:
    model = tiny_model(pooling=pooling)
    texts = ["alpha beta gamma", "delta", "beta beta alpha delta gamma"]
    got = _onnx(model).embed_passages(texts)
    for row, text in zip(got, texts, strict=True):
        states = model.expected_states(_ids(text))
        expected = {"mean": states.mean(axis=0), "cls": states[0], "last": states[-1]}[pooling]
        np.testing.assert_allclose(row, _unit(expected), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pooling", ["mean", "cls", "last"])
def test_unnormalized_profile_keeps_the_pooled_length(
    tiny_model: TinyFactory, pooling: str
) -> None:
    model = tiny_model(pooling=pooling, normalized=False)
    texts = ["alpha", "alpha beta gamma delta"]
    got = _onnx(model).embed_passages(texts)
    for row, text in zip(got, texts, strict=True):
        states = model.expected_states(_ids(text))
        expected = {"mean": states.mean(axis=0), "cls": states[0], "last": states[-1]}[pooling]
        np.testing.assert_allclose(row, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("token_type_ids", "attention_mask", "names"),
    [
        (True, True, {"input_ids", "attention_mask", "token_type_ids"}),
        (False, True, {"input_ids", "attention_mask"}),
        (False, False, {"input_ids"}),
    ],
)
def test_feeds_exactly_the_inputs_the_graph_declares(
    tiny_model: TinyFactory, token_type_ids: bool, attention_mask: bool, names: set[str]
) -> None:
    model = tiny_model(token_type_ids=token_type_ids, attention_mask=attention_mask)
    embedder = _onnx(model)
    assert set(embedder.input_names) == names
    # Mixed lengths in one run: padding must not leak into any row's mean.
    texts = ["alpha", "alpha beta gamma delta", "gamma delta"]
    got = embedder.embed_passages(texts)
    for row, text in zip(got, texts, strict=True):
        expected = _unit(model.expected_states(_ids(text)).mean(axis=0))
        np.testing.assert_allclose(row, expected, rtol=1e-5, atol=1e-6)


def test_graph_with_an_input_it_cannot_feed_is_refused(tiny_model: TinyFactory) -> None:
    model = tiny_model(extra_input="position_ids")
    with pytest.raises(ModelUnavailable, match="position_ids") as info:
        _onnx(model).embed_passages(["alpha"])
    assert info.value.reason == "unsupported-graph"


def test_graph_whose_width_differs_from_the_profile_is_refused(tiny_model: TinyFactory) -> None:
    model = tiny_model()
    wrong = replace(model.profile, dimensions=TINY_DIMS + 1)
    with pytest.raises(ModelUnavailable, match="shape") as info:
        load_embedder(wrong, model_dir=model.directory).embed_passages(["alpha"])
    assert info.value.reason == "unsupported-graph"


def test_a_graph_failing_at_run_time_is_a_typed_error(tiny_model: TinyFactory) -> None:
    # An embedding table smaller than the vocabulary: Gather fails on the larger token ids.
    model = tiny_model(table_rows=4)
    with pytest.raises(ModelUnavailable, match="failed to run") as info:
        _onnx(model).embed_passages(["delta gamma"])
    assert info.value.reason == "unsupported-graph"


def test_instructions_are_prefixed_verbatim(tiny_model: TinyFactory) -> None:
    model = tiny_model(query_instruction="query: ", passage_instruction="")
    embedder = _onnx(model)
    query = embedder.embed_queries(["alpha"])
    passage = embedder.embed_passages(["alpha"])
    prefixed = embedder.embed_passages(["query: alpha"])
    np.testing.assert_array_equal(query, prefixed)
    assert not np.allclose(query, passage)


def test_truncates_to_max_tokens_including_special_tokens(tiny_model: TinyFactory) -> None:
    model = tiny_model(max_tokens=4)
    (row,) = _onnx(model).embed_passages(["alpha beta gamma delta alpha"])
    # [CLS] alpha beta [SEP]: the file's own truncation (3) and padding (16) are ignored.
    ids = [CLS, TINY_VOCAB["alpha"], TINY_VOCAB["beta"], SEP]
    expected = _unit(model.expected_states(ids).mean(axis=0))
    np.testing.assert_allclose(row, expected, rtol=1e-5, atol=1e-6)


def test_sub_batches_return_vectors_in_input_order(tiny_model: TinyFactory) -> None:
    model = tiny_model()
    texts = ["alpha beta gamma delta"[: 5 + i % 17] for i in range(23)] + ["", "delta"]
    whole = _onnx(model, batch_size=64).embed_passages(texts)
    tiny_batches = _onnx(model, batch_size=2, max_batch_tokens=8).embed_passages(texts)
    np.testing.assert_allclose(tiny_batches, whole, rtol=1e-6, atol=1e-7)
    for row, text in zip(whole, texts, strict=True):
        expected = _unit(model.expected_states(_ids(text)).mean(axis=0))
        np.testing.assert_allclose(row, expected, rtol=1e-5, atol=1e-6)


def test_empty_input_gives_an_empty_matrix_without_loading(tiny_model: TinyFactory) -> None:
    embedder = _onnx(tiny_model())
    out = embedder.embed_queries([])
    assert out.shape == (0, TINY_DIMS)
    assert out.dtype == np.float32
    assert not embedder.loaded


def test_a_single_string_is_not_taken_for_a_list_of_characters(tiny_model: TinyFactory) -> None:
    with pytest.raises(TypeError):
        _onnx(tiny_model()).embed_passages("alpha")  # type: ignore[arg-type]


def test_loading_is_lazy_and_the_tokenizer_loads_without_the_graph(
    tiny_model: TinyFactory,
) -> None:
    embedder = _onnx(tiny_model())
    assert not embedder.loaded
    assert embedder.tokenizer.count("alpha beta") == 2
    assert not embedder.loaded
    embedder.embed_passages(["alpha"])
    assert embedder.loaded


def test_tokenizer_counts_and_offsets_exclude_special_tokens(tiny_model: TinyFactory) -> None:
    model = tiny_model()
    tokenizer = HuggingFaceTokenizer.from_bytes((model.directory / "tokenizer.json").read_bytes())
    text = "Alpha  beta:gamma"
    assert tokenizer.offsets(text) == [(0, 5), (7, 11), (11, 12), (12, 17)]
    assert tokenizer.count(text) == 4
    assert tokenizer.counts([text, "", "delta"]) == [4, 0, 1]
    # Longer than the file's truncation (3) and the profile's bound: counting never truncates.
    assert tokenizer.count(" ".join(["alpha"] * 40)) == 40


def test_a_broken_tokenizer_definition_is_a_typed_error() -> None:
    with pytest.raises(ModelUnavailable) as info:
        HuggingFaceTokenizer.from_bytes(b'{"not": "a tokenizer"}')
    assert info.value.reason == "invalid-tokenizer"


def _definition(added: list[str], padding: int | None) -> str:
    vocab = {"[UNK]": 0, "alpha": 1, "[PAD]": 2, "<pad>": 3, "beta": 4}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.add_special_tokens(added)
    if padding is not None:
        tok.enable_padding(pad_id=padding, pad_token="alpha")
    return tok.to_str()


@pytest.mark.parametrize(
    ("added", "padding", "pad_id"),
    [
        (["[PAD]"], 4, 4),  # the definition's padding wins over its pad token
        (["[PAD]"], None, 2),
        (["<pad>"], None, 3),  # XLM-R's pad token
        (["[UNK]"], None, 0),  # neither: any id the graph accepts, since padding is masked
    ],
)
def test_pad_id_comes_from_the_definition(
    added: list[str], padding: int | None, pad_id: int
) -> None:
    tokenizer = HuggingFaceTokenizer(_definition(added, padding))
    assert tokenizer.pad_id == pad_id
    # Padding is read, then switched off: counts and model inputs are never padded.
    assert tokenizer.model_inputs(["alpha"]).lengths.tolist() == [1]


def test_plan_batches_bounds_count_and_padded_tokens() -> None:
    lengths = np.array([5, 1, 9, 3, 3, 7, 2, 8, 4, 6], dtype=np.int64)
    batches = plan_batches(lengths, batch_size=3, max_batch_tokens=16)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(len(lengths)))
    assert lengths[flat].tolist() == sorted(lengths.tolist())
    for batch in batches:
        assert len(batch) <= 3
        assert len(batch) == 1 or len(batch) * lengths[batch].max() <= 16
    # A text longer than the token budget still gets a run of its own.
    assert [b.tolist() for b in plan_batches(np.array([40, 2]), 8, 16)] == [[1], [0]]


def test_invalid_batch_options_are_rejected(tiny_model: TinyFactory) -> None:
    model = tiny_model()
    with pytest.raises(ValueError, match="positive"):
        load_embedder(model.profile, model_dir=model.directory, batch_size=0)
    with pytest.raises(ValueError, match="threads"):
        load_embedder(model.profile, model_dir=model.directory, threads=0)


def test_runs_on_every_usable_core_by_default(
    tiny_model: TinyFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tiny_model()
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 3, 5}, raising=False)
    monkeypatch.setattr(os, "process_cpu_count", lambda: 3, raising=False)
    monkeypatch.setattr(cores, "cgroup_cpu_limit", lambda: None)
    monkeypatch.delenv(cores.THREADS_ENV, raising=False)
    assert usable_cores() == 3
    embedder = _onnx(model)
    assert embedder.threads == 3
    assert _onnx(model, threads=1).threads == 1
    # The session really is created with those threads (and still embeds).
    assert embedder.embed_passages(["alpha beta", "gamma"]).shape == (2, TINY_DIMS)
    assert _session_threads(embedder) == [3]


def test_a_container_quota_and_the_thread_cap_lower_the_default(
    tiny_model: TinyFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tiny_model()
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(64)), raising=False)
    monkeypatch.setattr(os, "process_cpu_count", lambda: 64, raising=False)
    monkeypatch.delenv(cores.THREADS_ENV, raising=False)
    monkeypatch.setattr(cores, "cgroup_cpu_limit", lambda: 2.0)  # docker --cpus=2
    assert _onnx(model).threads == 2
    monkeypatch.setenv(cores.THREADS_ENV, "1")
    assert _onnx(model).threads == 1
    assert _onnx(model, threads=4).threads == 4  # an explicit count is the caller's choice


def _session_threads(embedder: OnnxEmbedder) -> list[int]:
    """The intra-op threads of each onnxruntime session the embedder has created."""
    return sorted(s.get_session_options().intra_op_num_threads for s in embedder._sessions.values())


def test_one_short_text_runs_on_one_thread_and_batches_on_all(tiny_model: TinyFactory) -> None:
    # Measured (docs/performance.md): one short query costs 10-25% less CPU on one intra-op
    # thread than on two, in the same wall time; waking more threads costs 2-5x.
    model = tiny_model(max_tokens=SHORT_TEXT_TOKENS + 8)
    embedder = _onnx(model, threads=3)
    assert embedder.short_text_threads == 1
    embedder.load(queries=True)  # what a query embedder is given: the session a query runs on
    assert _session_threads(embedder) == [1]
    query = embedder.embed_queries(["alpha beta"])
    assert _session_threads(embedder) == [1]
    both = embedder.embed_queries(["alpha beta", "gamma"])
    assert _session_threads(embedder) == [1, 3]
    np.testing.assert_allclose(query[0], both[0], atol=1e-6)
    long_text = " ".join(["alpha"] * (SHORT_TEXT_TOKENS + 1))
    fresh = _onnx(model, threads=3)
    fresh.embed_passages([long_text])  # one text, but not a short one
    assert _session_threads(fresh) == [3]
    assert _session_threads(_loaded(_onnx(model, threads=1))) == [1]


def _loaded(embedder: OnnxEmbedder) -> OnnxEmbedder:
    embedder.load()
    embedder.embed_passages(["alpha", "beta"])
    return embedder
