"""Stage-1 kernels (spec section 9; seed "Two-stage catalog vector search").

Every kernel is checked against a plain reference: Hamming distances by popcounting Python
ints, LUT scores by rounding the weights to 8-bit integers in Python and summing them with the
row's signs as Python ints, selection by sorting (key, row) pairs in Python.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gezk.errors import QuantizationError
from gezk.quantize import (
    PackedBits,
    QueryTables,
    Shortlist,
    hamming_distances,
    hamming_topk,
    lut_scores,
    lut_topk,
    pack_sign_bits,
    unpack_sign_bits,
)

Bits = np.ndarray[Any, np.dtype[np.uint8]]


def _reference_hamming(bits: Bits, query_bits: Bits) -> list[int]:
    q = int.from_bytes(query_bits.tobytes(), "little")
    return [(int.from_bytes(row.tobytes(), "little") ^ q).bit_count() for row in bits]


def _reference_weights(weights: np.ndarray[Any, Any]) -> tuple[list[int], float]:
    """The LUT's integer weights: round(w * 127 / max|w|), halves up, and that scale."""
    values = [float(w) for w in weights]
    largest = max(abs(w) for w in values)
    scale = 127 / largest if largest > 0 else 1.0
    out = []
    for w in values:
        v = w * scale
        below = math.floor(v)
        out.append(max(-127, min(127, below + (1 if v - below >= 0.5 else 0))))
    return out, scale


def _reference_lut_totals(bits: Bits, weights: np.ndarray[Any, Any]) -> list[int]:
    """Each row's exact integer score: sum of u[i] * (+1 if bit i is set else -1)."""
    u, _ = _reference_weights(weights)
    totals = []
    for row in bits:
        value = int.from_bytes(row.tobytes(), "little")
        totals.append(sum(w if (value >> i) & 1 else -w for i, w in enumerate(u)))
    return totals


def _reference_lut(bits: Bits, weights: np.ndarray[Any, Any]) -> list[float]:
    """Each row's LUT score: its integer score over the scale, as float32."""
    _, scale = _reference_weights(weights)
    return [float(np.float32(t / scale)) for t in _reference_lut_totals(bits, weights)]


def _float_scores(bits: Bits, weights: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The unquantised score the LUT approximates: the float64 dot with the row's +-1 signs."""
    signs = unpack_sign_bits(bits, weights.shape[0]).astype(np.float64) * 2.0 - 1.0
    return signs @ weights.astype(np.float64)


def _reference_select(
    keys: list[float], k: int, mask: np.ndarray[Any, Any] | None, *, lower_is_better: bool
) -> list[int]:
    rows = [r for r in range(len(keys)) if mask is None or mask[r]]
    sign = 1 if lower_is_better else -1
    return sorted(rows, key=lambda r: (sign * keys[r], r))[:k]


def _random_bits(rng: np.random.Generator, n: int, d: int) -> Bits:
    return pack_sign_bits(rng.standard_normal((n, d)))


def _with_duplicates(rng: np.random.Generator, bits: Bits) -> Bits:
    """Copy some rows over others so equal scores (ties) are certain."""
    out = bits.copy()
    n = out.shape[0]
    src = rng.integers(0, n, size=max(1, n // 4))
    dst = rng.integers(0, n, size=src.shape[0])
    out[dst] = out[src]
    return out


def _integral_query(rng: np.random.Generator, d: int) -> np.ndarray[Any, Any]:
    """Weights that are already 8-bit integers over 64: the LUT scores them exactly."""
    ints = rng.integers(-127, 128, size=d)
    ints[rng.integers(0, d)] = rng.choice([-127, 127])
    return ints.astype(np.float64) / 64.0


def _both_forms(bits: Bits) -> list[Bits | PackedBits]:
    return [bits, PackedBits.from_matrix(bits)]


# --- conformance kit ---------------------------------------------------------------------------


def test_kit_hamming_selection_order(kit: dict[str, Any]) -> None:
    case = kit["hamming"]
    bits = np.asarray(case["rows"], dtype=np.uint8).reshape(-1, case["bytesPerRow"])
    query = np.asarray(case["query"], dtype=np.uint8)
    for form in _both_forms(bits):
        shortlist = hamming_topk(form, query, case["k"])
        got = [
            {"chunkId": int(c), "distance": int(s)}
            for c, s in zip(shortlist.chunk_ids, shortlist.scores, strict=True)
        ]
        assert got == case["expected"]


# --- hamming -------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 7, 8, 9, 63, 64, 100, 384, 385])
def test_hamming_distances_match_popcount_reference(d: int) -> None:
    rng = np.random.default_rng(d)
    bits = _random_bits(rng, 300, d)
    query = pack_sign_bits(rng.standard_normal(d))
    expected = _reference_hamming(bits, query)
    for form in _both_forms(bits):
        distances = hamming_distances(form, query)
        assert distances.dtype == np.int32
        assert distances.tolist() == expected


@pytest.mark.parametrize(("d", "k"), [(8, 5), (9, 40), (64, 17), (384, 128), (100, 1)])
def test_hamming_topk_matches_reference_with_ties(d: int, k: int) -> None:
    rng = np.random.default_rng(1000 + d)
    bits = _with_duplicates(rng, _random_bits(rng, 500, d))
    query = pack_sign_bits(rng.standard_normal(d))
    distances = _reference_hamming(bits, query)
    expected_rows = _reference_select([float(x) for x in distances], k, None, lower_is_better=True)
    for form in _both_forms(bits):
        shortlist = hamming_topk(form, query, k)
        assert shortlist.rows.dtype == np.int64
        assert shortlist.rows.tolist() == expected_rows
        assert shortlist.scores.tolist() == [distances[r] for r in expected_rows]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_hamming_topk_property(data: st.DataObject) -> None:
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    d = data.draw(st.integers(1, 130))
    n = data.draw(st.integers(0, 120))
    k = data.draw(st.integers(0, 140))
    bits = _with_duplicates(rng, _random_bits(rng, n, d)) if n else _random_bits(rng, 0, d)
    query = pack_sign_bits(rng.standard_normal(d))
    mask = rng.random(n) < data.draw(st.sampled_from([0.0, 0.3, 1.0])) if n else None
    use_mask = data.draw(st.booleans())
    distances = [float(x) for x in _reference_hamming(bits, query)]
    expected = _reference_select(distances, k, mask if use_mask else None, lower_is_better=True)
    shortlist = hamming_topk(bits, query, k, mask=mask if use_mask else None)
    assert shortlist.rows.tolist() == expected


def test_hamming_topk_never_returns_masked_rows() -> None:
    rng = np.random.default_rng(3)
    bits = _random_bits(rng, 400, 384)
    query = bits[10].copy()  # row 10 is the exact match ...
    mask = np.ones(400, dtype=bool)
    mask[10] = False  # ... but not eligible
    mask[200:] = False
    shortlist = hamming_topk(bits, query, 50, mask=mask)
    assert 10 not in shortlist.rows.tolist()
    assert bool(mask[shortlist.rows].all())
    distances = [float(x) for x in _reference_hamming(bits, query)]
    assert shortlist.rows.tolist() == _reference_select(distances, 50, mask, lower_is_better=True)


def test_hamming_topk_with_k_at_least_n_returns_every_eligible_row_in_order() -> None:
    rng = np.random.default_rng(4)
    bits = _with_duplicates(rng, _random_bits(rng, 30, 16))
    query = pack_sign_bits(rng.standard_normal(16))
    distances = [float(x) for x in _reference_hamming(bits, query)]
    everything = _reference_select(distances, 30, None, lower_is_better=True)
    assert hamming_topk(bits, query, 30).rows.tolist() == everything
    assert hamming_topk(bits, query, 10_000).rows.tolist() == everything
    mask = np.arange(30) % 3 == 0
    masked = hamming_topk(bits, query, 10_000, mask=mask)
    assert masked.rows.tolist() == _reference_select(distances, 30, mask, lower_is_better=True)
    assert len(masked) == 10


def test_empty_shortlists() -> None:
    bits = np.zeros((5, 2), dtype=np.uint8)
    query = np.zeros(2, dtype=np.uint8)
    assert len(hamming_topk(bits, query, 0)) == 0
    assert len(hamming_topk(bits, query, 3, mask=np.zeros(5, dtype=bool))) == 0
    assert len(hamming_topk(np.zeros((0, 2), dtype=np.uint8), query, 3)) == 0
    assert len(lut_topk(np.zeros((0, 2), dtype=np.uint8), np.ones(16), 3)) == 0
    assert lut_scores(np.zeros((0, 2), dtype=np.uint8), np.ones(16)).shape == (0,)
    empty = lut_topk(bits, np.ones(16), 0)
    assert empty.rows.dtype == np.int64
    assert empty.scores.dtype == np.float32


# --- asymmetric LUT ------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 8, 9, 15, 16, 17, 100, 383, 384])
def test_lut_scores_are_exact_for_integral_weights(d: int) -> None:
    rng = np.random.default_rng(2000 + d)
    bits = _random_bits(rng, 400, d)
    query = _integral_query(rng, d)
    expected = _reference_lut(bits, query)
    # The weights need no rounding, so the LUT score is the float score itself.
    assert expected == _float_scores(bits, query).tolist()
    for form in _both_forms(bits):
        scores = lut_scores(form, query)
        assert scores.dtype == np.float32
        assert scores.tolist() == expected


@pytest.mark.parametrize("d", [9, 100, 384])
def test_lut_scores_match_the_reference_for_unit_queries(d: int) -> None:
    rng = np.random.default_rng(3000 + d)
    bits = _random_bits(rng, 300, d)
    query = rng.standard_normal(d).astype(np.float32)
    query /= np.linalg.norm(query)
    assert lut_scores(bits, query).tolist() == _reference_lut(bits, query)


@pytest.mark.parametrize("d", [9, 384, 1024])
def test_lut_scores_stay_within_the_rounding_bound_of_the_float_score(d: int) -> None:
    rng = np.random.default_rng(3100 + d)
    bits = _random_bits(rng, 2000, d)
    query = rng.standard_normal(d)
    query /= np.linalg.norm(query)
    scale = QueryTables.build(query).scale
    error = np.abs(lut_scores(bits, query) - _float_scores(bits, query))
    # Each weight moves by at most 1 / (2 scale); float32 adds at most a few ulps.
    assert error.max() <= d / (2 * scale) + 1e-5
    # Rounding errors mostly cancel: typically far inside the bound.
    assert error.mean() <= math.sqrt(d) / scale


def test_lut_score_definition_on_a_hand_worked_row() -> None:
    query = np.array([0.5, -0.25, 0.125, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0])
    bits = np.array([[0b00001001, 0b1], [0, 0]], dtype=np.uint8)
    # scale 127 / 2 = 63.5; weights round(31.75, -15.875, 7.9375, 63.5, 0 x4, 127)
    assert QueryTables.build(query).weights.tolist() == [32, -16, 8, 64, 0, 0, 0, 0, 127]
    # row 0: +32 +16 -8 +64 -0 -0 -0 -0 +127 = 231 ; row 1: every sign negative = -215
    expected = [float(np.float32(231 / 63.5)), float(np.float32(-215 / 63.5))]
    assert lut_scores(bits, query).tolist() == expected


def test_a_zero_query_scores_every_row_zero_and_keeps_row_order() -> None:
    rng = np.random.default_rng(21)
    bits = _random_bits(rng, 40, 20)
    assert lut_scores(bits, np.zeros(20)).tolist() == [0.0] * 40
    assert lut_topk(bits, np.zeros(20), 5).rows.tolist() == [0, 1, 2, 3, 4]
    center = rng.standard_normal(20)
    assert lut_topk(bits, center, 3, center=center).rows.tolist() == [0, 1, 2]


def test_lut_centered_scan_uses_query_minus_center() -> None:
    rng = np.random.default_rng(5)
    d = 40
    center = _integral_query(rng, d) / 4
    x = rng.standard_normal((300, d))
    bits = pack_sign_bits(x, center)
    query = _integral_query(rng, d)
    expected = _reference_lut(bits, query - center)
    assert lut_scores(bits, query, center=center).tolist() == expected
    tables = QueryTables.build(query, center=center)
    assert lut_scores(PackedBits.from_matrix(bits), tables).tolist() == expected
    rows = lut_topk(bits, query, 25, center=center).rows.tolist()
    totals = [float(t) for t in _reference_lut_totals(bits, query - center)]
    assert rows == _reference_select(totals, 25, None, lower_is_better=False)


@pytest.mark.parametrize(("d", "k"), [(8, 30), (16, 12), (33, 50), (384, 64), (384, 1)])
def test_lut_topk_matches_reference_with_ties(d: int, k: int) -> None:
    rng = np.random.default_rng(4000 + d + k)
    bits = _with_duplicates(rng, _random_bits(rng, 600, d))
    query = rng.standard_normal(d)
    totals = [float(t) for t in _reference_lut_totals(bits, query)]
    scores = _reference_lut(bits, query)
    expected_rows = _reference_select(totals, k, None, lower_is_better=False)
    for form in _both_forms(bits):
        shortlist = lut_topk(form, query, k)
        assert shortlist.rows.tolist() == expected_rows
        assert shortlist.scores.tolist() == [scores[r] for r in expected_rows]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_lut_topk_property(data: st.DataObject) -> None:
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    d = data.draw(st.integers(1, 130))
    n = data.draw(st.integers(1, 120))
    k = data.draw(st.integers(0, 140))
    bits = _with_duplicates(rng, _random_bits(rng, n, d))
    query = data.draw(st.sampled_from([_integral_query, _unit_query]))(rng, d)
    mask = rng.random(n) < data.draw(st.sampled_from([0.0, 0.3, 1.0]))
    use_mask = data.draw(st.booleans())
    totals = [float(t) for t in _reference_lut_totals(bits, query)]
    expected = _reference_select(totals, k, mask if use_mask else None, lower_is_better=False)
    shortlist = lut_topk(bits, query, k, mask=mask if use_mask else None)
    assert shortlist.rows.tolist() == expected


def _unit_query(rng: np.random.Generator, d: int) -> np.ndarray[Any, Any]:
    query = rng.standard_normal(d)
    return query / np.linalg.norm(query)


def test_lut_topk_is_the_top_k_of_the_float_score_up_to_rounding() -> None:
    rng = np.random.default_rng(6)
    bits = _random_bits(rng, 5000, 384)
    query = _unit_query(rng, 384).astype(np.float32)
    reference = _float_scores(bits, query)
    shortlist = lut_topk(bits, query, 100)
    chosen = set(shortlist.rows.tolist())
    rest = np.array([r not in chosen for r in range(5000)])
    # Rounding the weights may only swap rows whose float scores are within twice its bound.
    bound = 384 / (2 * QueryTables.build(query).scale)
    assert reference[shortlist.rows].min() >= reference[rest].max() - 2 * bound
    assert np.all(np.diff(shortlist.scores) <= 0)


def test_lut_topk_masks_and_k_beyond_n() -> None:
    rng = np.random.default_rng(8)
    bits = _with_duplicates(rng, _random_bits(rng, 50, 24))
    query = _integral_query(rng, 24)
    totals = [float(t) for t in _reference_lut_totals(bits, query)]
    mask = np.arange(50) >= 25
    shortlist = lut_topk(bits, query, 1000, mask=mask)
    assert shortlist.rows.tolist() == _reference_select(totals, 50, mask, lower_is_better=False)
    assert len(shortlist) == 25
    assert lut_topk(bits, query, 50).rows.tolist() == _reference_select(
        totals, 50, None, lower_is_better=False
    )


def test_lut_prefers_rows_whose_signs_agree_with_the_query() -> None:
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2000, 384))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    target = 1234
    query = x[target] + 0.05 * rng.standard_normal(384)
    query /= np.linalg.norm(query)
    bits = pack_sign_bits(x)
    assert lut_topk(bits, query, 1).rows.tolist() == [target]
    assert hamming_topk(bits, pack_sign_bits(query), 1).rows.tolist() == [target]


# --- prepared operands -------------------------------------------------------------------------


def test_prepared_and_plain_forms_give_identical_results() -> None:
    rng = np.random.default_rng(10)
    bits = _random_bits(rng, 1000, 384)
    packed = PackedBits.from_matrix(bits)
    assert (packed.rows, packed.bytes_per_row) == (1000, 48)
    assert PackedBits.from_matrix(packed) is packed
    query = rng.standard_normal(384)
    tables = QueryTables.build(query)
    assert tables.tables.shape == (24, 65536)
    assert tables.planes.shape == (8, 6)
    plain = lut_topk(bits, query, 64)
    prepared = lut_topk(packed, tables, 64)
    assert plain.rows.tolist() == prepared.rows.tolist()
    assert plain.scores.tobytes() == prepared.scores.tobytes()
    qb = pack_sign_bits(query)
    assert hamming_topk(bits, qb, 64).rows.tolist() == hamming_topk(packed, qb, 64).rows.tolist()


def test_query_tables_planes_and_tables_encode_the_same_weights() -> None:
    rng = np.random.default_rng(13)
    tables = QueryTables.build(rng.standard_normal(100))
    u = tables.weights.tolist()
    assert max(abs(w) for w in u) == 127
    # Plane b holds bit b of each weight's 8-bit two's-complement code.
    planes = np.unpackbits(tables.planes.view(np.uint8), axis=1, bitorder="little")[:, :100]
    assert [sum(int(planes[b, i]) << b for b in range(8)) for i in range(100)] == [
        w & 0xFF for w in u
    ]
    # Table m at word value v: the weights of v's set bits among dimensions 16m..16m+15.
    for m, v in [(0, 0), (0, 1), (3, 0xFFFF), (6, 0b1010_0000_0000_0101)]:
        dims = [16 * m + b for b in range(16) if (v >> b) & 1 and 16 * m + b < 100]
        assert int(tables.tables[m, v]) == sum(u[i] for i in dims)
    assert tables.total == sum(u)
    assert tables.max_sum == sum(w for w in u if w > 0)
    assert tables.max_cost == sum(abs(w) for w in u)


@pytest.mark.parametrize("d", [9, 24, 100, 384, 385])
@pytest.mark.parametrize("lut_first", [True, False])
def test_packed_bits_serves_both_kernels_from_one_layout(d: int, lut_first: bool) -> None:
    rng = np.random.default_rng(12 + d)
    bits = _random_bits(rng, 150, d)
    packed = PackedBits.from_matrix(bits)
    assert packed.nbytes == bits.nbytes
    query = _integral_query(rng, d)
    qb = pack_sign_bits(query)
    expected_scores = _reference_lut(bits, query)
    expected_distances = _reference_hamming(bits, qb)
    if lut_first:
        assert lut_scores(packed, query).tolist() == expected_scores
        assert hamming_distances(packed, qb).tolist() == expected_distances
    else:
        assert hamming_distances(packed, qb).tolist() == expected_distances
        assert lut_scores(packed, query).tolist() == expected_scores
    # One word-major layout is held, the original matrix is not; it can be rebuilt.
    assert packed.nbytes == 150 * -(-d // 64) * 8
    assert packed.matrix().tolist() == bits.tolist()


def test_non_contiguous_bit_matrices_are_accepted() -> None:
    rng = np.random.default_rng(11)
    wide = _random_bits(rng, 200, 128)
    bits = wide[::2, :8]  # 64-bit rows, strided
    query = _integral_query(rng, 64)
    assert lut_scores(bits, query).tolist() == _reference_lut(np.ascontiguousarray(bits), query)
    qb = pack_sign_bits(query)
    assert hamming_distances(bits, qb).tolist() == _reference_hamming(
        np.ascontiguousarray(bits), qb
    )


def test_shortlist_chunk_ids_are_rows_plus_one() -> None:
    shortlist = Shortlist(np.array([0, 4], dtype=np.int64), np.array([1, 2], dtype=np.int32))
    assert shortlist.chunk_ids.tolist() == [1, 5]
    assert len(shortlist) == 2


# --- bad input -----------------------------------------------------------------------------------

_BITS = np.zeros((4, 2), dtype=np.uint8)
_QB = np.zeros(2, dtype=np.uint8)
_Q16 = np.zeros(16)


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (lambda: hamming_topk(_BITS, np.zeros(3, dtype=np.uint8), 1), "shape-mismatch"),
        (lambda: hamming_topk(_BITS, _QB.astype(np.int8), 1), "wrong-dtype"),
        (lambda: hamming_topk(_BITS.astype(np.int16), _QB, 1), "wrong-dtype"),
        (lambda: hamming_topk(_BITS[0], _QB, 1), "shape-mismatch"),
        (lambda: hamming_topk(_BITS, _QB, -1), "invalid-k"),
        (lambda: hamming_topk(_BITS, _QB, 1.5), "invalid-k"),
        (lambda: hamming_topk(_BITS, _QB, True), "invalid-k"),
        (lambda: hamming_topk(_BITS, _QB, 1, mask=np.ones(3, dtype=bool)), "shape-mismatch"),
        (lambda: hamming_topk(_BITS, _QB, 1, mask=np.ones(4)), "wrong-dtype"),
        (lambda: lut_scores(_BITS, np.zeros(17)), "shape-mismatch"),
        (lambda: lut_scores(_BITS, np.zeros(8)), "shape-mismatch"),
        (lambda: lut_scores(_BITS, np.zeros((1, 16))), "shape-mismatch"),
        (lambda: lut_scores(_BITS, np.full(16, np.nan)), "non-finite"),
        (lambda: lut_scores(_BITS, _Q16, center=np.zeros(15)), "shape-mismatch"),
        (lambda: lut_scores(_BITS, QueryTables.build(_Q16), center=_Q16), "center-mismatch"),
        (lambda: lut_topk(_BITS, _Q16, -3), "invalid-k"),
        (lambda: lut_topk(_BITS, _Q16, 1, mask=np.ones(5, dtype=bool)), "shape-mismatch"),
    ],
)
def test_bad_kernel_input_raises_quantization_error(call: Any, reason: str) -> None:
    with pytest.raises(QuantizationError) as info:
        call()
    assert info.value.reason == reason
    assert "\n" not in str(info.value)
