"""Folding an ONNX graph's weight dequantisation in numpy before onnxruntime sees the graph.

Int8 sentence-embedding graphs such as the default model store each weight as an int8
initializer followed by ``Cast`` to float and ``Mul`` by a float scale initializer.
onnxruntime's constant folding turns every such pair into a float weight when a session is
created, and for the default model that pass is most of the session's creation cost (about
0.2 s of CPU, against about 0.015 s for the same arithmetic in numpy; docs/performance.md).
:func:`fold_weight_casts` does the folding here: it returns the graph without those node pairs
and with each product declared as an external initializer, plus the float weights to hand to
``SessionOptions.add_external_initializers``. A table that a ``Gather`` reads rows of (a
vocabulary of token embeddings, 47 MB of floats for the default model) is not materialised:
the graph gathers its int8 rows and their per-row scales and dequantises only those. The values
are the ones onnxruntime computes (an int8 or uint8 value converts to float32 exactly, and one
float32 multiply rounds the same everywhere), so the session that results computes what
onnxruntime's own would, and its vectors are bit-identical (tested).

Only the protobuf wire format of ``ModelProto`` / ``GraphProto`` / ``NodeProto`` /
``TensorProto`` is read, by field number; every other byte of the graph is copied unchanged. A
graph this does not understand (subgraphs, external or non-raw tensor data, a malformed message)
is left alone: :func:`fold_weight_casts` returns ``None`` and onnxruntime folds as before.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["FoldedGraph", "fold_weight_casts"]

# Field numbers from onnx.proto (the ONNX IR), wire types from the protobuf encoding.
_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5
_MODEL_GRAPH = 7
_GRAPH_NODE, _GRAPH_INITIALIZER, _GRAPH_INPUT, _GRAPH_OUTPUT = 1, 5, 11, 12
_NODE_INPUT, _NODE_OUTPUT, _NODE_OP_TYPE, _NODE_ATTRIBUTE, _NODE_DOMAIN = 1, 2, 4, 5, 7
_ATTR_NAME, _ATTR_I, _ATTR_G, _ATTR_GRAPHS, _ATTR_TYPE = 1, 3, 6, 11, 20
_ATTR_TYPE_INT = 2
_VALUE_INFO_NAME = 1
_TENSOR_DIMS, _TENSOR_DATA_TYPE, _TENSOR_SEGMENT, _TENSOR_NAME, _TENSOR_RAW = 1, 2, 3, 8, 9
_TENSOR_EXTERNAL_DATA, _TENSOR_DATA_LOCATION = 13, 14
_ENTRY_KEY, _ENTRY_VALUE = 1, 2
_FLOAT, _UINT8, _INT8 = 1, 2, 3
_EXTERNAL = 1
_INTEGER_DTYPES: dict[int, str] = {_INT8: "i1", _UINT8: "u1"}
_DEFAULT_DOMAINS = ("", "ai.onnx")
_LOCATION = b"gezel-knowledge:folded"


class _Malformed(Exception):
    """The bytes are not a protobuf message this module can walk."""


@dataclass(frozen=True, slots=True)
class FoldedGraph:
    """A graph with its weight casts folded, and the float weights it now declares external."""

    model: bytes
    weights: dict[str, NDArray[np.float32]]


class _Field(NamedTuple):  # a tuple: a graph has thousands of fields, parsed on every load
    number: int
    wire: int
    start: int  # the field's first byte (its tag)
    end: int  # one past its last byte
    value: int  # a varint's value, or a length-delimited payload's first byte


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    if pos < len(buf) and buf[pos] < 0x80:  # one byte: most tags and lengths
        return buf[pos], pos + 1
    result = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise _Malformed
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def _fields(buf: bytes, start: int, end: int) -> Iterator[_Field]:
    pos = start
    while pos < end:
        tag, at = _varint(buf, pos)
        number, wire = tag >> 3, tag & 7
        if wire == _VARINT:
            value, after = _varint(buf, at)
        elif wire == _BYTES:
            length, value = _varint(buf, at)
            after = value + length
        elif wire in (_FIXED64, _FIXED32):
            value, after = at, at + (8 if wire == _FIXED64 else 4)
        else:  # groups are not used by onnx.proto
            raise _Malformed
        if after > end:
            raise _Malformed
        yield _Field(number, wire, pos, after, value)
        pos = after


def _payload(buf: bytes, f: _Field) -> bytes:
    if f.wire != _BYTES:
        raise _Malformed
    return buf[f.value : f.end]


def _text(buf: bytes, f: _Field) -> str:
    return _payload(buf, f).decode("utf-8", errors="replace")


@dataclass(slots=True)
class _Tensor:
    span: _Field
    name: str = ""
    data_type: int = 0
    dims: list[int] = field(default_factory=list)
    raw: tuple[int, int] | None = None
    plain: bool = True  # raw data in the message itself, in one segment

    def array(self, buf: bytes) -> NDArray[np.generic] | None:
        """The tensor's values (a view of ``buf``), or ``None`` when not a plain raw tensor."""
        dtype = _INTEGER_DTYPES.get(self.data_type, "<f4" if self.data_type == _FLOAT else None)
        if dtype is None or self.raw is None or not self.plain:
            return None
        start, end = self.raw
        if any(d < 0 for d in self.dims) or end - start != np.dtype(dtype).itemsize * math.prod(
            self.dims
        ):
            return None
        values = np.frombuffer(memoryview(buf)[start:end], dtype=dtype)
        return values.reshape(self.dims)


def _tensor(buf: bytes, span: _Field) -> _Tensor:
    tensor = _Tensor(span)
    for f in _fields(buf, span.value, span.end):
        if f.number == _TENSOR_DIMS:
            tensor.dims.extend(_ints(buf, f))
        elif f.number == _TENSOR_DATA_TYPE and f.wire == _VARINT:
            tensor.data_type = f.value
        elif f.number == _TENSOR_NAME:
            tensor.name = _text(buf, f)
        elif f.number == _TENSOR_RAW and f.wire == _BYTES:
            tensor.raw = (f.value, f.end)
        elif f.number in (_TENSOR_SEGMENT, _TENSOR_EXTERNAL_DATA, _TENSOR_DATA_LOCATION):
            tensor.plain = tensor.plain and f.number == _TENSOR_DATA_LOCATION and f.value == 0
    return tensor


def _ints(buf: bytes, f: _Field) -> list[int]:
    if f.wire == _VARINT:
        return [f.value]
    values: list[int] = []
    pos = f.value
    while pos < f.end:  # packed
        value, pos = _varint(buf, pos)
        values.append(value)
    return values


@dataclass(slots=True)
class _Node:
    span: _Field
    op_type: str = ""
    domain: str = ""
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    attributes: dict[str, int | None] = field(default_factory=dict)
    subgraph: bool = False


def _node(buf: bytes, span: _Field) -> _Node:
    node = _Node(span)
    for f in _fields(buf, span.value, span.end):
        if f.number == _NODE_INPUT:
            node.inputs.append(_text(buf, f))
        elif f.number == _NODE_OUTPUT:
            node.outputs.append(_text(buf, f))
        elif f.number == _NODE_OP_TYPE:
            node.op_type = _text(buf, f)
        elif f.number == _NODE_DOMAIN:
            node.domain = _text(buf, f)
        elif f.number == _NODE_ATTRIBUTE:
            name, value, subgraph = _attribute(buf, f)
            node.attributes[name] = value
            node.subgraph = node.subgraph or subgraph
    return node


def _attribute(buf: bytes, span: _Field) -> tuple[str, int | None, bool]:
    name, value, subgraph = "", None, False
    for f in _fields(buf, span.value, span.end):
        if f.number == _ATTR_NAME:
            name = _text(buf, f)
        elif f.number == _ATTR_I and f.wire == _VARINT:
            value = f.value
        elif f.number in (_ATTR_G, _ATTR_GRAPHS):
            subgraph = True
    return name, value, subgraph


@dataclass(slots=True)
class _Graph:
    span: _Field
    nodes: list[_Node] = field(default_factory=list)
    tensors: dict[str, _Tensor] = field(default_factory=dict)
    boundary: set[str] = field(default_factory=set)  # graph inputs and outputs


def _graph(buf: bytes, span: _Field) -> _Graph:
    graph = _Graph(span)
    for f in _fields(buf, span.value, span.end):
        if f.number == _GRAPH_NODE:
            graph.nodes.append(_node(buf, f))
        elif f.number == _GRAPH_INITIALIZER:
            tensor = _tensor(buf, f)
            if tensor.name in graph.tensors:
                raise _Malformed  # which one a name means would be ambiguous
            graph.tensors[tensor.name] = tensor
        elif f.number in (_GRAPH_INPUT, _GRAPH_OUTPUT):
            graph.boundary.update(
                _text(buf, g) for g in _fields(buf, f.value, f.end) if g.number == _VALUE_INFO_NAME
            )
    return graph


@dataclass(frozen=True, slots=True)
class _Fold:
    cast: _Node
    mul: _Node
    weight: NDArray[np.float32] | None  # None: a table dequantised row by row after its Gather
    gather: _Node | None = None
    table: tuple[str, str] = ("", "")  # the table's int8 and scale initializers, when gathered


def _folds(buf: bytes, graph: _Graph) -> list[_Fold]:
    uses = Counter(name for node in graph.nodes for name in node.inputs)
    consumers = {name: node for node in graph.nodes for name in node.inputs}
    names = {*uses, *graph.tensors, *(o for node in graph.nodes for o in node.outputs)}
    folds: list[_Fold] = []
    for cast in graph.nodes:
        mul = consumers.get(cast.outputs[0]) if len(cast.outputs) == 1 else None
        if mul is None or uses[cast.outputs[0]] != 1 or cast.outputs[0] in graph.boundary:
            continue
        operands = _operands(buf, graph, cast, mul)
        if operands is None:
            continue
        q, s = operands
        gather = consumers.get(mul.outputs[0]) if uses[mul.outputs[0]] == 1 else None
        if gather is not None and _row_gather(gather, mul, q, s, names):
            # A Gather reads a few rows of the table (a vocabulary of embeddings): gather the
            # int8 rows and their scales, then dequantise only those, instead of the whole table.
            table = (cast.inputs[0], next(n for n in mul.inputs if n != cast.outputs[0]))
            folds.append(_Fold(cast, mul, None, gather, table))
            continue
        weight = np.empty(np.broadcast_shapes(q.shape, s.shape), dtype=np.float32)
        # int8/uint8 -> float32 is exact, and each product is one correctly rounded float32
        # multiply: the values onnxruntime's own folding computes.
        np.multiply(q, s, out=weight, dtype=np.float32)
        folds.append(_Fold(cast, mul, weight))
    return folds


def _row_gather(
    gather: _Node, mul: _Node, q: NDArray[np.generic], s: NDArray[np.generic], names: set[str]
) -> bool:
    """Whether ``gather`` takes axis-0 rows of a 2-D table whose scale is one per row."""
    return (
        gather.op_type == "Gather"
        and gather.domain in _DEFAULT_DOMAINS
        and len(gather.inputs) == 2  # data and indices
        and gather.inputs[0] == mul.outputs[0]
        and gather.inputs[1] != mul.outputs[0]
        and set(gather.attributes) <= {"axis"}
        and gather.attributes.get("axis", 0) == 0
        and len(gather.outputs) == 1
        and q.ndim == 2
        and s.shape == (q.shape[0], 1)
        and not {_gathered_name(gather, part) for part in _GATHERED_PARTS} & names
    )


_GATHERED_PARTS = ("q", "float", "scale")


def _gathered_name(gather: _Node, part: str) -> str:
    return f"{gather.outputs[0]}/gezel-gathered-{part}"


def _operands(
    buf: bytes, graph: _Graph, cast: _Node, mul: _Node
) -> tuple[NDArray[np.generic], NDArray[np.generic]] | None:
    """The int8 and scale arrays of ``Mul(Cast(q, to=FLOAT), scale)`` of plain initializers."""
    if (
        cast.op_type != "Cast"
        or mul.op_type != "Mul"
        or cast.domain not in _DEFAULT_DOMAINS
        or mul.domain not in _DEFAULT_DOMAINS
        or cast.attributes.get("to") != _FLOAT
        or len(cast.inputs) != 1
        or len(mul.inputs) != 2
        or mul.attributes  # an opset-6 Mul's broadcast attributes are not numpy broadcasting
        or len(mul.outputs) != 1
        or mul.outputs[0] in graph.tensors
        or mul.outputs[0] in graph.boundary
    ):
        return None
    quantised = graph.tensors.get(cast.inputs[0])
    others = [name for name in mul.inputs if name != cast.outputs[0]]
    scale = graph.tensors.get(others[0]) if len(others) == 1 else None
    if quantised is None or scale is None or {quantised.name, scale.name} & graph.boundary:
        return None
    if quantised.data_type not in _INTEGER_DTYPES or scale.data_type != _FLOAT:
        return None
    q, s = quantised.array(buf), scale.array(buf)
    if q is None or s is None:
        return None
    try:
        np.broadcast_shapes(q.shape, s.shape)
    except ValueError:
        return None
    return q, s


def _bytes_field(number: int, payload: bytes) -> bytes:
    return _varint_bytes(number << 3 | _BYTES) + _varint_bytes(len(payload)) + payload


def _varint_field(number: int, value: int) -> bytes:
    return _varint_bytes(number << 3 | _VARINT) + _varint_bytes(value)


def _varint_bytes(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _external_tensor(name: str, shape: tuple[int, ...]) -> bytes:
    location = _bytes_field(_ENTRY_KEY, b"location") + _bytes_field(_ENTRY_VALUE, _LOCATION)
    message = b"".join(
        [
            *(_varint_field(_TENSOR_DIMS, d) for d in shape),
            _varint_field(_TENSOR_DATA_TYPE, _FLOAT),
            _bytes_field(_TENSOR_NAME, name.encode("utf-8")),
            _bytes_field(_TENSOR_EXTERNAL_DATA, location),
            _varint_field(_TENSOR_DATA_LOCATION, _EXTERNAL),
        ]
    )
    return _bytes_field(_GRAPH_INITIALIZER, message)


def _node_field(op_type: str, inputs: list[str], output: str, attribute: tuple[str, int]) -> bytes:
    name, value = attribute
    attr = (
        _bytes_field(_ATTR_NAME, name.encode("utf-8"))
        + _varint_field(_ATTR_I, value)
        + _varint_field(_ATTR_TYPE, _ATTR_TYPE_INT)
    )
    message = b"".join(
        [
            *(_bytes_field(_NODE_INPUT, n.encode("utf-8")) for n in inputs),
            _bytes_field(_NODE_OUTPUT, output.encode("utf-8")),
            _bytes_field(_NODE_OP_TYPE, op_type.encode("utf-8")),
            _bytes_field(_NODE_ATTRIBUTE, attr),
        ]
    )
    return _bytes_field(_GRAPH_NODE, message)


def _gathered_rows(fold: _Fold) -> bytes:
    """``Mul(Cast(Gather(q, ids)), Gather(scale, ids))``: the rows the Gather read, the same
    values element by element."""
    assert fold.gather is not None
    q, scale = fold.table
    ids = fold.gather.inputs[1]
    part = {p: _gathered_name(fold.gather, p) for p in _GATHERED_PARTS}
    return b"".join(
        [
            _node_field("Gather", [q, ids], part["q"], ("axis", 0)),
            _node_field("Cast", [part["q"]], part["float"], ("to", _FLOAT)),
            _node_field("Gather", [scale, ids], part["scale"], ("axis", 0)),
            _mul_field(part["float"], part["scale"], fold.gather.outputs[0]),
        ]
    )


def _mul_field(a: str, b: str, output: str) -> bytes:
    message = b"".join(
        [
            _bytes_field(_NODE_INPUT, a.encode("utf-8")),
            _bytes_field(_NODE_INPUT, b.encode("utf-8")),
            _bytes_field(_NODE_OUTPUT, output.encode("utf-8")),
            _bytes_field(_NODE_OP_TYPE, b"Mul"),
        ]
    )
    return _bytes_field(_GRAPH_NODE, message)


def _rewritten(buf: bytes, graph: _Graph, folds: list[_Fold]) -> list[bytes | memoryview]:
    replaced: dict[int, bytes] = {}  # a field's first byte -> what stands in its place
    for fold in folds:
        replaced[fold.cast.span.start] = replaced[fold.mul.span.start] = b""
        if fold.gather is not None:
            replaced[fold.gather.span.start] = _gathered_rows(fold)
    dropped = {id(node) for node in graph.nodes if node.span.start in replaced}
    remaining = Counter(
        name for node in graph.nodes if id(node) not in dropped for name in node.inputs
    )
    remaining.update(name for fold in folds for name in fold.table)
    operands = {name for fold in folds for name in (*fold.cast.inputs, *fold.mul.inputs)}
    replaced.update(
        (graph.tensors[name].span.start, b"")
        for name in operands
        if name in graph.tensors and not remaining[name]
    )
    view = memoryview(buf)  # slices of a view copy nothing until the one join
    kept: list[bytes | memoryview] = [
        replaced.get(f.start, view[f.start : f.end])
        for f in _fields(buf, graph.span.value, graph.span.end)
    ]
    added = [
        _external_tensor(f.mul.outputs[0], f.weight.shape) for f in folds if f.weight is not None
    ]
    return kept + added


def fold_weight_casts(model: bytes) -> FoldedGraph | None:
    """``model`` with each ``Mul(Cast(int8 initializer), float initializer)`` folded, or ``None``
    when the graph has no such pair or is not one this module reads (then use ``model`` as is)."""
    try:
        graphs = [f for f in _fields(model, 0, len(model)) if f.number == _MODEL_GRAPH]
        if len(graphs) != 1 or graphs[0].wire != _BYTES:
            return None
        graph = _graph(model, graphs[0])
        if any(node.subgraph for node in graph.nodes):
            return None  # names used inside subgraphs are not counted here
        folds = _folds(model, graph)
        if not folds:
            return None
        body = _rewritten(model, graph, folds)
    except _Malformed:
        return None
    start, end = graphs[0].start, graphs[0].end
    view = memoryview(model)
    head = _varint_bytes(_MODEL_GRAPH << 3 | _BYTES) + _varint_bytes(sum(len(b) for b in body))
    rewritten = b"".join([view[:start], head, *body, view[end:]])
    weights = {f.mul.outputs[0]: f.weight for f in folds if f.weight is not None}
    return FoldedGraph(rewritten, weights)
