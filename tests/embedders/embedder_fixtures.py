"""A tiny ONNX sentence-embedding model built with the onnx and tokenizers APIs, for tests."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from numpy.typing import NDArray
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

from gezk.profiles import EmbeddingProfile, ModelRef, Pooling, TokenizerRef

TINY_VOCAB = {
    "[PAD]": 0,
    "[UNK]": 1,
    "[CLS]": 2,
    "[SEP]": 3,
    "alpha": 4,
    "beta": 5,
    "gamma": 6,
    "delta": 7,
    "query": 8,
    ":": 9,
}
TINY_DIMS = 4


def tiny_tokenizer_json() -> str:
    """A word-level tokenizer.json with BERT-style [CLS]/[SEP] and its own truncation/padding."""
    tok = Tokenizer(models.WordLevel(TINY_VOCAB, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tok.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
    # Settings a real tokenizer.json may carry; the profile, not the file, decides.
    tok.enable_truncation(max_length=3)
    tok.enable_padding(pad_id=0, pad_token="[PAD]", length=16)
    return tok.to_str()


@dataclass(frozen=True)
class TinyModel:
    """A tiny model written to disk: its directory, profile and the tables its graph uses."""

    directory: Path
    profile: EmbeddingProfile
    embeddings: NDArray[np.float32]
    type_row: NDArray[np.float32]

    def expected_states(self, ids: list[int]) -> NDArray[np.float32]:
        """The token states the graph computes for ``ids`` (independent of the embedder)."""
        return self.embeddings[ids] + self.type_row


def _tiny_graph(
    embeddings: NDArray[np.float32],
    type_table: NDArray[np.float32],
    *,
    token_type_ids: bool,
    attention_mask: bool,
    extra_input: str | None,
) -> bytes:
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])
    inputs = [ids]
    initializers = [numpy_helper.from_array(embeddings, "E")]
    nodes = [helper.make_node("Gather", ["E", "input_ids"], ["tok"], axis=0)]
    current = "tok"
    if token_type_ids:
        inputs.append(
            helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "seq"])
        )
        initializers.append(numpy_helper.from_array(type_table, "T"))
        nodes.append(helper.make_node("Gather", ["T", "token_type_ids"], ["typ"], axis=0))
        nodes.append(helper.make_node("Add", [current, "typ"], ["with_type"]))
        current = "with_type"
    if attention_mask:
        inputs.append(
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])
        )
        initializers.append(numpy_helper.from_array(np.array([-1], dtype=np.int64), "axes"))
        nodes.append(helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT))
        nodes.append(helper.make_node("Unsqueeze", ["m", "axes"], ["m3"]))
        nodes.append(helper.make_node("Mul", [current, "m3"], ["masked"]))
        current = "masked"
    if extra_input is not None:
        inputs.append(
            helper.make_tensor_value_info(extra_input, TensorProto.INT64, ["batch", "seq"])
        )
    nodes.append(helper.make_node("Identity", [current], ["last_hidden_state"]))
    output = helper.make_tensor_value_info(
        "last_hidden_state", TensorProto.FLOAT, ["batch", "seq", embeddings.shape[1]]
    )
    graph = helper.make_graph(nodes, "tiny", inputs, [output], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


TinyFactory = Callable[..., TinyModel]


def make_tiny_model(root: Path) -> TinyFactory:
    """A factory writing tiny models under ``root``: ``make(pooling=..., token_type_ids=...)``."""
    counter = iter(range(1000))

    def make(
        *,
        pooling: Pooling = "mean",
        token_type_ids: bool = True,
        attention_mask: bool = True,
        extra_input: str | None = None,
        max_tokens: int = 16,
        normalized: bool = True,
        query_instruction: str = "",
        passage_instruction: str = "",
        table_rows: int = len(TINY_VOCAB),
    ) -> TinyModel:
        rng = np.random.default_rng(7)
        embeddings = rng.standard_normal((table_rows, TINY_DIMS)).astype(np.float32)
        type_table = rng.standard_normal((2, TINY_DIMS)).astype(np.float32)
        graph = _tiny_graph(
            embeddings,
            type_table,
            token_type_ids=token_type_ids,
            attention_mask=attention_mask,
            extra_input=extra_input,
        )
        tokenizer = tiny_tokenizer_json().encode("utf-8")
        directory = root / f"tiny-{next(counter)}"
        (directory / "onnx").mkdir(parents=True)
        (directory / "onnx" / "model.onnx").write_bytes(graph)
        (directory / "tokenizer.json").write_bytes(tokenizer)
        profile = EmbeddingProfile(
            id="tiny@1",
            model=ModelRef("test/tiny", "fixture", "onnx/model.onnx", _sha(graph)),
            tokenizer=TokenizerRef("wordlevel", "tokenizer.json", _sha(tokenizer)),
            pooling=pooling,
            normalized=normalized,
            dimensions=TINY_DIMS,
            max_tokens=max_tokens,
            query_instruction=query_instruction,
            passage_instruction=passage_instruction,
        )
        type_row = type_table[0] if token_type_ids else np.zeros(TINY_DIMS, np.float32)
        return TinyModel(directory, profile, embeddings, type_row)

    return make
