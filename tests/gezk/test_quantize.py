"""The bit+int8 encoding of spec section 6.2: conformance vectors, exact rounding, properties."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gezk.errors import QuantizationError
from gezk.quantize import (
    _round_half_up,
    dequantize_int8,
    pack_sign_bits,
    quantize_int8,
    rerank_int8,
    unpack_sign_bits,
)


def _math_round_int8(x: float) -> int:
    """ECMAScript Math.round of the float64 product x * 127, clamped, computed with fractions."""
    exact = Fraction(x * 127.0)
    return max(-127, min(127, math.floor(exact + Fraction(1, 2))))


def _reference_bits(values: list[float]) -> list[int]:
    """LSB-first packing written out byte by byte."""
    out = [0] * -(-len(values) // 8)
    for i, value in enumerate(values):
        if value > 0:
            out[i // 8] |= 1 << (i % 8)
    return out


# --- conformance kit ---------------------------------------------------------------------------


def _quantization_cases(kit: dict[str, Any]) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = kit["quantization"]
    assert cases, "the kit has quantization vectors"
    return cases


def test_kit_quantization_int8(kit: dict[str, Any]) -> None:
    for case in _quantization_cases(kit):
        assert quantize_int8(case["input"]).tolist() == case["int8"]


def test_kit_quantization_bits(kit: dict[str, Any]) -> None:
    for case in _quantization_cases(kit):
        assert pack_sign_bits(case["input"]).tolist() == case["bits"]


def test_kit_quantization_as_float32_rows(kit: dict[str, Any]) -> None:
    # The same vectors as float32 (what an embedder hands over) quantize identically.
    for case in _quantization_cases(kit):
        row = np.asarray([case["input"]], dtype=np.float32)
        assert quantize_int8(row).tolist() == [case["int8"]]
        assert pack_sign_bits(row).tolist() == [case["bits"]]


# --- int8 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (0.5, 64),  # 63.5 rounds up
        (-0.5, -63),  # -63.5 rounds toward +infinity
        (1.5 / 127, 2),
        (-1.5 / 127, -1),
        (0.5 / 127, 1),
        (-0.5 / 127, 0),
        (1.0, 127),
        (-1.0, -127),
        (-2.0, -127),
        (3.0, 127),
        (0.0, 0),
        (-0.0, 0),
    ],
)
def test_int8_rounds_half_toward_positive_infinity(x: float, expected: int) -> None:
    assert int(quantize_int8([x])[0]) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.5 - 2.0**-54, 0.0),  # floor(v + 0.5) would give 1
        (-0.5 - 2.0**-53, -1.0),
        (0.5, 1.0),
        (-0.5, -0.0),
        (-1e-300, 0.0),
        (126.5, 127.0),
        (-126.5, -126.0),
        (-0.25 - 2.0**-55, 0.0),
    ],
)
def test_round_half_up_is_math_round(value: float, expected: float) -> None:
    assert _round_half_up(np.array([value]))[0] == expected


def test_int8_matches_math_round_on_every_neighbour_of_each_half() -> None:
    xs: list[float] = []
    for k in range(-128, 128):
        centre = (k + 0.5) / 127
        left = right = centre
        for _ in range(4):
            left, right = math.nextafter(left, -math.inf), math.nextafter(right, math.inf)
            xs += [left, right]
        xs.append(centre)
    assert quantize_int8(xs).tolist() == [_math_round_int8(x) for x in xs]


@settings(max_examples=300)
@given(st.lists(st.floats(-4.0, 4.0, allow_nan=False), min_size=1, max_size=40))
def test_int8_matches_exact_reference(values: list[float]) -> None:
    assert quantize_int8(values).tolist() == [_math_round_int8(x) for x in values]


@settings(max_examples=150)
@given(
    hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=20),
        elements=st.floats(-1.0, 1.0, width=32),
    )
)
def test_int8_bounds_and_dequantization_error(x: np.ndarray[Any, np.dtype[np.float32]]) -> None:
    q = quantize_int8(x)
    assert q.dtype == np.int8
    assert q.shape == x.shape
    assert int(q.min()) >= -127  # -128 is never produced
    assert int(q.max()) <= 127
    error = np.abs(dequantize_int8(q).astype(np.float64) - x.astype(np.float64))
    assert float(error.max()) <= 0.5 / 127 + 1e-7


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=20))
def test_int8_never_leaves_the_symmetric_range(values: list[float]) -> None:
    q = quantize_int8(values)
    assert set(q.tolist()) <= set(range(-127, 128))


def test_dequantize_divides_by_127() -> None:
    q = np.array([[127, -127, 0, 64, -63]], dtype=np.int8)
    expected = np.array([[1.0, -1.0, 0.0, 64 / 127, -63 / 127]], dtype=np.float32)
    assert np.array_equal(dequantize_int8(q), expected)
    assert dequantize_int8(q).dtype == np.float32


def test_dequantize_refuses_minus_128() -> None:
    with pytest.raises(QuantizationError) as info:
        dequantize_int8(np.array([0, -128], dtype=np.int8))
    assert info.value.reason == "out-of-range"


# --- sign bits -----------------------------------------------------------------------------------


def test_bits_are_lsb_first_and_zero_is_not_positive() -> None:
    # dims 0, 2 positive; dim 1 exactly zero; dim 8 positive -> second byte bit 0
    values = [0.1, 0.0, 0.3, -0.0, -0.2, -1e-30, 0.0, 0.0, 1e-30]
    assert pack_sign_bits(values).tolist() == [0b00000101, 0b00000001]


@settings(max_examples=200)
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=40),
        elements=st.floats(-1.0, 1.0),
    )
)
def test_bits_match_bytewise_reference_and_round_trip(
    x: np.ndarray[Any, np.dtype[np.float64]],
) -> None:
    bits = pack_sign_bits(x)
    d = x.shape[-1]
    assert bits.shape == (*x.shape[:-1], -(-d // 8))
    rows = x.reshape(-1, d)
    assert bits.reshape(rows.shape[0], -1).tolist() == [_reference_bits(list(r)) for r in rows]
    assert np.array_equal(unpack_sign_bits(bits, d), (x > 0).astype(np.uint8))


@given(st.data())
def test_unpack_then_pack_is_identity(data: st.DataObject) -> None:
    d = data.draw(st.integers(1, 70))
    n = data.draw(st.integers(0, 8))
    flags = data.draw(hnp.arrays(np.uint8, (n, d), elements=st.integers(0, 1)))
    bits = np.packbits(flags, axis=1, bitorder="little")
    assert np.array_equal(pack_sign_bits(unpack_sign_bits(bits, d)), bits)


@settings(max_examples=200)
@given(st.data())
def test_centered_bits_are_the_bits_of_x_minus_center(data: st.DataObject) -> None:
    d = data.draw(st.integers(1, 50))
    n = data.draw(st.integers(1, 6))
    floats = st.floats(-1.0, 1.0, width=32)
    x = data.draw(hnp.arrays(np.float32, (n, d), elements=floats))
    center = data.draw(hnp.arrays(np.float32, (d,), elements=floats))
    # Differences of float32 values are exact in float64, so the sign is unambiguous.
    expected = pack_sign_bits(x.astype(np.float64) - center.astype(np.float64))
    assert np.array_equal(pack_sign_bits(x, center), expected)
    assert np.array_equal(pack_sign_bits(x[0], center), expected[0])


def test_centered_bits_follow_the_float32_difference() -> None:
    # 1e-50 - 0 is positive in float64 but rounds to 0.0 in the float32 the reference uses.
    assert pack_sign_bits([1e-50, 0.5], center=[0.0, 0.25]).tolist() == [0b10]


def test_centering_changes_the_bits() -> None:
    x = [0.2, 0.2, -0.2, -0.2, 0.0, 0.0, 0.5, -0.5]
    center = [0.3, 0.1, -0.3, -0.1, -0.1, 0.1, 0.5, -0.6]
    assert pack_sign_bits(x).tolist() == [0b01000011]
    assert pack_sign_bits(x, center).tolist() == [0b10010110]


def test_unpack_trims_to_the_dimension_count() -> None:
    assert unpack_sign_bits(np.array([0xFF, 0x01], dtype=np.uint8), 9).tolist() == [1] * 9
    assert unpack_sign_bits(np.array([[0x01]], dtype=np.uint8)).tolist() == [[1] + [0] * 7]


# --- rerank --------------------------------------------------------------------------------------


def test_rerank_is_dot_of_float_query_with_dequantized_rows() -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((50, 384))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    query = rng.standard_normal(384).astype(np.float32)
    query /= np.linalg.norm(query)
    q = quantize_int8(x)
    scores = rerank_int8(q, query)
    assert scores.dtype == np.float32
    assert scores.shape == (50,)
    reference = [
        sum(float(a) * (int(b) / 127) for a, b in zip(query, row, strict=True)) for row in q
    ]
    assert np.allclose(scores, reference, atol=1e-5)
    # int8 rows approximate the cosine of the unit vectors
    assert np.allclose(scores, x @ query.astype(np.float64), atol=0.02)


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (lambda: quantize_int8([0.1, float("nan")]), "non-finite"),
        (lambda: quantize_int8([[0.1], [float("inf")]]), "non-finite"),
        (lambda: pack_sign_bits([float("nan")]), "non-finite"),
        (lambda: quantize_int8(np.zeros((2, 2, 2))), "shape-mismatch"),
        (lambda: quantize_int8(np.zeros((3, 0))), "shape-mismatch"),
        (lambda: quantize_int8(0.5), "shape-mismatch"),
        (lambda: quantize_int8(["a"]), "wrong-dtype"),
        (lambda: pack_sign_bits([0.1, 0.2], center=[0.0]), "shape-mismatch"),
        (lambda: pack_sign_bits([0.1], center=[float("nan")]), "non-finite"),
        (lambda: unpack_sign_bits(np.zeros(2, dtype=np.int8)), "wrong-dtype"),
        (lambda: unpack_sign_bits(np.zeros(2, dtype=np.uint8), 17), "shape-mismatch"),
        (lambda: dequantize_int8([0.5]), "wrong-dtype"),
        (lambda: rerank_int8(np.zeros((2, 3), dtype=np.int8), np.zeros(4)), "shape-mismatch"),
        (lambda: rerank_int8(np.zeros((2, 3), dtype=np.int16), np.zeros(3)), "wrong-dtype"),
        (lambda: rerank_int8(np.zeros((2, 1), dtype=np.int8), [float("nan")]), "non-finite"),
    ],
)
def test_bad_input_raises_quantization_error(call: Any, reason: str) -> None:
    with pytest.raises(QuantizationError) as info:
        call()
    assert info.value.reason == reason
    assert "\n" not in str(info.value)
