"""Weight casts folded in numpy give onnxruntime the graph it would have built itself."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from numpy.typing import NDArray
from onnx import TensorProto, helper, numpy_helper

from gezel_knowledge.embedders import OnnxEmbedder, load_embedder
from gezel_knowledge.embedders.folding import FoldedGraph, fold_weight_casts
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1 as MINILM

RNG = np.random.default_rng(11)
TABLE_Q = RNG.integers(-127, 128, size=(6, 4), dtype=np.int8)
TABLE_SCALE = RNG.random((6, 1), dtype=np.float32) / 50
WEIGHT_Q = RNG.integers(0, 256, size=(4, 3), dtype=np.uint8)
WEIGHT_SCALE = RNG.random((1, 3), dtype=np.float32) / 30


def _model(nodes: list[onnx.NodeProto], outputs: list[str] | None = None) -> bytes:
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])
    names = outputs or ["out"]
    graph = helper.make_graph(
        nodes,
        "dequantised",
        [ids],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, []) for n in names],
        [
            numpy_helper.from_array(TABLE_Q, "table_q"),
            numpy_helper.from_array(TABLE_SCALE, "table_scale"),
            numpy_helper.from_array(WEIGHT_Q, "weight_q"),
            numpy_helper.from_array(WEIGHT_SCALE, "weight_scale"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def _dequantising_nodes() -> list[onnx.NodeProto]:
    """A table and a weight stored as int8/uint8 with a float scale, as int8 exporters write."""
    return [
        helper.make_node("Cast", ["table_q"], ["table_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["table_f", "table_scale"], ["table"]),
        helper.make_node("Cast", ["weight_q"], ["weight_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["weight_scale", "weight_f"], ["weight"]),  # scale first
        helper.make_node("Gather", ["table", "input_ids"], ["rows"], axis=0),
        helper.make_node("MatMul", ["rows", "weight"], ["out"]),
    ]


def _session(model: bytes, folded: FoldedGraph | None = None) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    keep: list[ort.OrtValue] = []
    if folded is not None:
        keep = [ort.OrtValue.ortvalue_from_numpy(w) for w in folded.weights.values()]
        options.add_external_initializers(list(folded.weights), keep)
    session = ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
    session.keep = keep  # type: ignore[attr-defined]  # the weights outlive the session
    return session


def _run(session: ort.InferenceSession) -> NDArray[np.float32]:
    ids = np.array([[0, 5, 2, 2, 3]], dtype=np.int64)
    (out,) = session.run(["out"], {"input_ids": ids})
    return np.asarray(out)


def test_folded_casts_leave_the_graph_and_come_back_as_its_weights() -> None:
    nodes = _dequantising_nodes()
    nodes[4] = helper.make_node("Identity", ["table"], ["rows"])  # the whole table is read
    folded = fold_weight_casts(_model(nodes))
    assert folded is not None
    graph = onnx.load_from_string(folded.model).graph
    assert [n.op_type for n in graph.node] == ["Identity", "MatMul"]
    assert sorted(t.name for t in graph.initializer) == ["table", "weight"]
    assert all(t.data_location == TensorProto.EXTERNAL for t in graph.initializer)
    assert sorted(folded.weights) == ["table", "weight"]
    np.testing.assert_array_equal(folded.weights["table"], TABLE_Q.astype(np.float32) * TABLE_SCALE)
    np.testing.assert_array_equal(
        folded.weights["weight"], WEIGHT_SCALE * WEIGHT_Q.astype(np.float32)
    )
    assert folded.weights["table"].dtype == np.float32


def test_a_gathered_table_is_dequantised_row_by_row_after_the_gather() -> None:
    folded = fold_weight_casts(_model(_dequantising_nodes()))
    assert folded is not None
    graph = onnx.load_from_string(folded.model).graph
    assert [(n.op_type, list(n.input)) for n in graph.node] == [
        ("Gather", ["table_q", "input_ids"]),
        ("Cast", ["rows/gezel-gathered-q"]),
        ("Gather", ["table_scale", "input_ids"]),
        ("Mul", ["rows/gezel-gathered-float", "rows/gezel-gathered-scale"]),
        ("MatMul", ["rows", "weight"]),
    ]
    assert graph.node[3].output == ["rows"]
    # The int8 table stays int8 in the graph; only the weight became a float initializer.
    assert sorted(t.name for t in graph.initializer) == ["table_q", "table_scale", "weight"]
    assert sorted(folded.weights) == ["weight"]


def test_a_folded_graph_computes_bit_identical_outputs() -> None:
    for nodes in (_dequantising_nodes(), _dequantising_nodes()[:4] + _whole_table_nodes()):
        model = _model(nodes)
        folded = fold_weight_casts(model)
        assert folded is not None
        expected = _run(_session(model))
        assert np.array_equal(_run(_session(folded.model, folded)), expected)


def _whole_table_nodes() -> list[onnx.NodeProto]:
    return [
        helper.make_node("MatMul", ["table", "weight"], ["projected"]),
        helper.make_node("Gather", ["projected", "input_ids"], ["out"], axis=0),
    ]


def test_a_cast_used_twice_or_seen_outside_the_graph_is_left_to_onnxruntime() -> None:
    nodes = _dequantising_nodes()
    nodes.append(helper.make_node("Identity", ["table_f"], ["table_copy"]))
    folded = fold_weight_casts(_model(nodes, ["out", "table_copy"]))
    assert folded is not None
    assert sorted(folded.weights) == ["weight"]  # table_f has a second reader
    graph = onnx.load_from_string(folded.model).graph
    assert "table_q" in {t.name for t in graph.initializer}
    nodes = _dequantising_nodes()
    folded = fold_weight_casts(_model(nodes, ["out", "weight_f"]))  # a graph output
    assert folded is not None
    assert folded.weights == {}  # the table is gathered, the weight left alone
    graph = onnx.load_from_string(folded.model).graph
    assert [n.output[0] for n in graph.node][:2] == ["weight_f", "weight"]


def test_graphs_without_the_pattern_or_unreadable_are_not_folded() -> None:
    plain = [
        helper.make_node("Cast", ["table_q"], ["table_f"], to=TensorProto.FLOAT),
        helper.make_node("Gather", ["table_f", "input_ids"], ["out"], axis=0),
    ]
    assert fold_weight_casts(_model(plain)) is None
    to_double = _dequantising_nodes()
    to_double[0] = helper.make_node("Cast", ["table_q"], ["table_f"], to=TensorProto.DOUBLE)
    folded = fold_weight_casts(_model(to_double))
    assert folded is not None
    assert sorted(folded.weights) == ["weight"]
    assert fold_weight_casts(b"") is None
    assert fold_weight_casts(b"\x3a\xff\xff\xff\xff\x0f") is None  # a graph longer than the file
    assert fold_weight_casts(b"\x0b\x0c") is None  # a protobuf group


def test_a_graph_with_subgraphs_is_not_folded() -> None:
    branch = helper.make_graph(
        [helper.make_node("Identity", ["table_f"], ["b"])],
        "branch",
        [],
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, [])],
    )
    nodes = _dequantising_nodes()
    nodes.append(helper.make_node("Constant", [], ["cond"], value_int=1))
    nodes.append(helper.make_node("Cast", ["cond"], ["flag"], to=TensorProto.BOOL))
    nodes.append(
        helper.make_node("If", ["flag"], ["picked"], then_branch=branch, else_branch=branch)
    )
    assert fold_weight_casts(_model(nodes, ["out", "picked"])) is None


@pytest.fixture(scope="module")
def minilm() -> OnnxEmbedder:
    embedder = load_embedder(MINILM)
    assert isinstance(embedder, OnnxEmbedder)
    return embedder


QUERIES = [
    "how do I sign a catalog",
    "what is a shard",
    "install a catalog for one user",
    "cosine similarity floor",
    "Wie signiere ich einen Katalog?",
]


def test_the_default_model_query_session_is_folded_and_bit_identical(
    minilm: OnnxEmbedder,
) -> None:
    # The default profile's query and passage instructions are both empty, so one text embedded
    # as a query (folded session) and as a passage (onnxruntime's own folding) must agree.
    assert MINILM.query_instruction == MINILM.passage_instruction == ""
    for text in QUERIES:
        (query,) = minilm.embed_queries([text])
        (passage,) = minilm.embed_passages([text])
        assert np.array_equal(query, passage), text
    short = (minilm.short_text_threads, True)
    assert short in minilm._sessions
    # Every int8 weight of the graph was folded here but the two embedding tables, which are
    # gathered row by row.
    assert len(minilm._external[short]) == 36


def test_passages_never_run_on_the_query_session(minilm: OnnxEmbedder) -> None:
    # A build sharing an embedder that has answered queries keeps the sessions builds use.
    fresh = load_embedder(MINILM, threads=2)
    assert isinstance(fresh, OnnxEmbedder)
    fresh.load(queries=True)
    fresh.embed_queries(["how do I sign a catalog"])
    assert sorted(fresh._sessions) == [(1, True)]
    fresh.embed_passages(["how do I sign a catalog"])
    fresh.embed_passages(["one passage", "and another"])
    fresh.embed_queries(["two queries", "run as a batch"])
    assert sorted(fresh._sessions) == [(1, False), (1, True), (2, False)]
    assert sorted(k for k, v in fresh._external.items() if v) == [(1, True)]
