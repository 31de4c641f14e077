"""Stage-1 kernels compiled with numba: the shortlists of :mod:`gezk.quantize`, faster.

``gezk.quantize`` defines the hamming and LUT shortlists and computes them with numpy; this
module computes the same shortlists (identical rows and scores, ties by ascending row) in one
compiled pass per 64-bit word column instead of numpy's several, and selects the K cheapest
rows with a histogram and one collecting pass instead of numpy's temporaries:

- hamming: ``popcount(row_word ^ query_word)`` summed over the row's words;
- LUT: a row's integer sum is ``sum_b 2^b popcount(row_word & plane_b)`` over the eight
  two's-complement bit planes of the query's 8-bit weights (the top plane counts ``-2^7``), so
  each row's bits are read once and no table lookup is made. LLVM vectorises the popcounts.

It imports numba at import time; :mod:`gezel_knowledge.reader.vectors` imports it only when a
shard is searched repeatedly and falls back to ``gezk.quantize`` when numba is missing. The
callers pass validated operands (a :class:`PackedBits`, prepared :class:`QueryTables`, a
boolean mask of the right length); the public kernels in ``gezk`` do the checking.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

# Set before numba's first import, which reads it once. With it unset and colorama installed,
# numba formats every typing error it tries and discards while compiling (thousands in a cold
# compile) inside colorama's init/deinit, which rebind sys.stdout and sys.stderr and then put
# back the streams they saw. The kernels compile on a background thread, so whatever another
# thread redirected meanwhile (contextlib.redirect_stdout, pytest's capsys) is silently undone
# and its output lands in the old stream. A value the user set is kept; a numba the application
# imported earlier keeps the setting it was imported with.
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic
from numpy.typing import NDArray

from gezk.quantize import PackedBits, QueryTables, Shortlist

__all__ = ["hamming_topk", "keyword_candidates", "keyword_scores", "lut_topk", "warm_up"]

_F = TypeVar("_F", bound=Callable[..., Any])

# Sub-histograms counted round-robin: consecutive rows often share a cost, and one table would
# make each increment wait for the previous one (measured 2x slower selection at 200,000 rows).
_LANES: Final = 4
# The sampled selection looks at every 16th row (12,500 of a 200,000-row shard) and buffers
# at most 4 k + 4096 rows at or below the threshold the sample picked.
_SAMPLE_STEP: Final = 16
_BUFFER_PER_K: Final = 4
_BUFFER_ROWS: Final = 4096
_NO_MASK: Final = np.ones(1, dtype=np.bool_)


def _compile(fn: _F) -> _F:
    # cache=True keeps the machine code on disk (next to this file or in numba's user cache),
    # so a later process loads it (~0.2 s) instead of compiling again (~3-5 s).
    return cast(_F, numba.njit(cache=True, nogil=True, boundscheck=False)(fn))


def _inline(fn: _F) -> _F:
    return cast(_F, numba.njit(inline="always")(fn))


def _ctpop(typingctx: Any, value: Any) -> Any:
    """LLVM's ``ctpop`` on a uint64 (vectorised to ``vpopcntq`` where the CPU has it)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, args)

    return types.uint64(types.uint64), codegen


# Called from compiled code as _popcount(x); typed here as what it is there.
_popcount = cast(Callable[[Any], Any], intrinsic(_ctpop))


@_compile
def _hamming_costs(
    words: NDArray[np.uint64], query: NDArray[np.uint64], out: NDArray[np.integer[Any]]
) -> None:
    count, n = words.shape
    # Three word columns per pass: a third of the accumulator traffic of one per pass. The
    # first pass assigns, the others add.
    j = 0
    while j < count:
        if j + 2 < count:
            a, b, c = words[j], words[j + 1], words[j + 2]
            qa, qb, qc = query[j], query[j + 1], query[j + 2]
            if j == 0:
                for i in range(n):
                    out[i] = _popcount(a[i] ^ qa) + _popcount(b[i] ^ qb) + _popcount(c[i] ^ qc)
            else:
                for i in range(n):
                    out[i] += _popcount(a[i] ^ qa) + _popcount(b[i] ^ qb) + _popcount(c[i] ^ qc)
            j += 3
        else:
            a, qa = words[j], query[j]
            if j == 0:
                for i in range(n):
                    out[i] = _popcount(a[i] ^ qa)
            else:
                for i in range(n):
                    out[i] += _popcount(a[i] ^ qa)
            j += 1


@_inline
def _planes_of(planes: Any, j: int) -> Any:
    return (
        planes[0, j],
        planes[1, j],
        planes[2, j],
        planes[3, j],
        planes[4, j],
        planes[5, j],
        planes[6, j],
        planes[7, j],
    )


@_inline
def _minus_sum(x: Any, p: Any) -> Any:
    """Minus the weights' sum over the set bits of word ``x``, from its planes ``p``."""
    positive = (
        _popcount(x & p[0])
        + (_popcount(x & p[1]) << np.uint64(1))
        + (_popcount(x & p[2]) << np.uint64(2))
        + (_popcount(x & p[3]) << np.uint64(3))
        + (_popcount(x & p[4]) << np.uint64(4))
        + (_popcount(x & p[5]) << np.uint64(5))
        + (_popcount(x & p[6]) << np.uint64(6))
    )
    # The top plane is the sign bit of the 8-bit two's-complement codes: it weighs -2^7.
    return np.int32(_popcount(x & p[7]) << np.uint64(7)) - np.int32(positive)


@_compile
def _lut_costs(
    words: NDArray[np.uint64],
    planes: NDArray[np.uint64],
    max_sum: int,
    out: NDArray[np.integer[Any]],
) -> None:
    count, n = words.shape
    # As in _hamming_costs: three columns per pass, the first pass assigns.
    j = 0
    while j < count:
        if j + 2 < count:
            a, b, c = words[j], words[j + 1], words[j + 2]
            pa, pb, pc = _planes_of(planes, j), _planes_of(planes, j + 1), _planes_of(planes, j + 2)
            if j == 0:
                for i in range(n):
                    out[i] = max_sum + (
                        _minus_sum(a[i], pa) + _minus_sum(b[i], pb) + _minus_sum(c[i], pc)
                    )
            else:
                for i in range(n):
                    out[i] += _minus_sum(a[i], pa) + _minus_sum(b[i], pb) + _minus_sum(c[i], pc)
            j += 3
        else:
            a, pa = words[j], _planes_of(planes, j)
            if j == 0:
                for i in range(n):
                    out[i] = max_sum + _minus_sum(a[i], pa)
            else:
                for i in range(n):
                    out[i] += _minus_sum(a[i], pa)
            j += 1


@_inline
def _rank_by_cost(
    costs: NDArray[np.integer[Any]], rows: NDArray[np.int64], count: int, threshold: int
) -> NDArray[np.int64]:
    """``rows[:count]`` (ascending, costs at most ``threshold``) ordered by cost, then row.

    A counting sort: stable, so rows of equal cost keep their ascending order.
    """
    start = np.zeros(threshold + 2, dtype=np.int64)
    for j in range(count):
        start[costs[rows[j]] + 1] += 1
    for c in range(1, threshold + 2):
        start[c] += start[c - 1]
    ranked = np.empty(count, dtype=np.int64)
    for j in range(count):
        c = costs[rows[j]]
        ranked[start[c]] = rows[j]
        start[c] += 1
    return ranked


@_compile
def _histogram_select(
    costs: NDArray[np.integer[Any]],
    max_cost: int,
    k: int,
    mask: NDArray[np.bool_],
    masked: bool,
) -> NDArray[np.int64]:
    """The exact selection for any input: a histogram of every cost, then one collecting pass."""
    n = costs.shape[0]
    lanes = np.zeros((_LANES, max_cost + 1), dtype=np.int64)
    for i in range(n):
        if not masked or mask[i]:
            lanes[i % _LANES, costs[i]] += 1
    total = 0
    for lane in range(_LANES):
        for c in range(max_cost + 1):
            total += lanes[lane, c]
    k = min(k, total)
    # threshold: the k-th cost; below: rows strictly cheaper; tied: rows taken at the threshold.
    below, threshold = 0, 0
    while threshold <= max_cost:
        at = 0
        for lane in range(_LANES):
            at += lanes[lane, threshold]
        if below + at >= k:
            break
        below += at
        threshold += 1
    tied = k - below
    rows = np.empty(k, dtype=np.int64)
    taken = 0
    for i in range(n):
        if taken == k:
            break
        c = costs[i]
        if c > threshold or (masked and not mask[i]):
            continue
        if c == threshold:
            if tied == 0:
                continue
            tied -= 1
        rows[taken] = i
        taken += 1
    return _rank_by_cost(costs, rows, k, threshold)


@_compile
def _sampled_select(
    costs: NDArray[np.integer[Any]],
    max_cost: int,
    k: int,
    mask: NDArray[np.bool_],
    masked: bool,
) -> NDArray[np.int64]:
    """The same selection, usually in one pass; empty when it cannot be sure (then fall back).

    A sample of every ``_SAMPLE_STEP``-th row picks a cost threshold that about 1.5 k rows
    should meet; every eligible row at or below it is collected, in row order, and ranked by
    cost. The sample decides only the speed: when fewer than k rows (or more than the buffer
    holds) meet the threshold, the result is empty.
    """
    n = costs.shape[0]
    histogram = np.zeros(max_cost + 1, dtype=np.int64)
    for i in range(0, n, _SAMPLE_STEP):
        if not masked or mask[i]:
            histogram[costs[i]] += 1
    wanted = k // _SAMPLE_STEP
    wanted += wanted // 2 + 16
    seen, threshold = 0, 0
    while threshold < max_cost and seen + histogram[threshold] < wanted:
        seen += histogram[threshold]
        threshold += 1
    capacity = _BUFFER_PER_K * k + _BUFFER_ROWS
    rows = np.empty(capacity, dtype=np.int64)
    found = 0
    for i in range(n):
        if costs[i] <= threshold and (not masked or mask[i]):
            if found < capacity:
                rows[found] = i
            found += 1
    if found < k or found > capacity:
        return np.empty(0, dtype=np.int64)
    return _rank_by_cost(costs, rows, found, threshold)[:k]


def _smallest_sampled_shard(k: int) -> int:
    """The fewest rows for which :func:`_select` tries the sampled selection first."""
    # Sampling pays off only when the shard is much larger than what it collects.
    return _SAMPLE_STEP * (_BUFFER_PER_K * k + _BUFFER_ROWS)


def _select(
    costs: NDArray[np.integer[Any]], max_cost: int, k: int, mask: NDArray[np.bool_] | None
) -> NDArray[np.int64]:
    masked = mask is not None
    flags = mask if mask is not None else _NO_MASK
    if k > 0 and costs.shape[0] >= _smallest_sampled_shard(k):
        rows = _sampled_select(costs, max_cost, k, flags, masked)
        if rows.shape[0]:
            return rows
    return _histogram_select(costs, max_cost, k, flags, masked)


def _costs_buffer(rows: int, max_cost: int) -> NDArray[np.integer[Any]]:
    # uint16 halves the costs' memory traffic (they stay in L2); every partial sum of a row's
    # cost lies in [0, max_cost] too, so it never wraps.
    return np.empty(rows, dtype=np.uint16 if max_cost <= 0xFFFF else np.int32)


def hamming_topk(
    bits: PackedBits, query_bits: NDArray[np.uint8], k: int, mask: NDArray[np.bool_] | None
) -> Shortlist:
    """As :func:`gezk.quantize.hamming_topk`, compiled."""
    words = bits.words64()
    padded = np.zeros(words.shape[0] * 8, dtype=np.uint8)
    padded[: bits.bytes_per_row] = query_bits
    max_cost = bits.bytes_per_row * 8
    costs = _costs_buffer(bits.rows, max_cost)
    _hamming_costs(words, padded.view("<u8"), costs)
    rows = _select(costs, max_cost, k, mask)
    return Shortlist(rows, costs[rows].astype(np.int32))


def lut_topk(
    bits: PackedBits, tables: QueryTables, k: int, mask: NDArray[np.bool_] | None
) -> Shortlist:
    """As :func:`gezk.quantize.lut_topk` with prepared tables, compiled."""
    costs = _costs_buffer(bits.rows, tables.max_cost)
    _lut_costs(bits.words64(), tables.planes, tables.max_sum, costs)
    rows = _select(costs, tables.max_cost, k, mask)
    return Shortlist(rows, tables.scores(tables.max_sum - costs[rows].astype(np.int64)))


@_compile
def _kth_largest(values: NDArray[np.float64], k: int) -> float:
    if values.shape[0] < k:
        return 0.0
    return float(np.partition(values, values.shape[0] - k)[values.shape[0] - k])


@_inline
def _add_term(  # noqa: PLR0917 - one kernel's arrays
    docs: Any,
    freqs: Any,
    lo: int,
    hi: int,
    w: float,
    norms: Any,
    acc: Any,
    touched: Any,
    seen: int,
    allowed: Any,
    masked: bool,
) -> Any:
    """One term's part added for every passage holding it; returns (seen, best so far)."""
    top = 0.0
    for p in range(lo, hi):
        d = docs[p]
        if masked and not allowed[d]:
            continue
        if acc[d] == 0.0:  # every part is positive, so zero means not seen yet
            touched[seen] = d
            seen += 1
        tf = float(freqs[p])
        acc[d] += w * ((tf * 2.2) / (tf + norms[d]))
        top = max(top, acc[d])
    return seen, top


@_inline
def _gallop(docs: Any, lo: int, hi: int, d: int) -> int:
    """The first offset in ``docs[lo:hi]`` (ascending) holding ``d`` or more; ``hi`` if none.

    Candidates ascend, so each search starts where the last one ended and gallops forward: a
    few steps when candidates are dense in the list, a binary search else.
    """
    step = 1
    while lo + step < hi and docs[lo + step] < d:
        step <<= 1
    a, b = lo + (step >> 1), min(lo + step + 1, hi)
    while a < b:
        mid = (a + b) >> 1
        if docs[mid] < d:
            a = mid + 1
        else:
            b = mid
    return a


@_inline
def _add_term_for(  # noqa: PLR0917 - one kernel's arrays
    candidates: Any, docs: Any, freqs: Any, lo: int, hi: int, w: float, norms: Any, acc: Any
) -> None:
    """One term's part added for the candidates (ascending) that hold it."""
    for c in range(candidates.shape[0]):
        d = candidates[c]
        a = _gallop(docs, lo, hi, d)
        lo = a
        if a < hi and docs[a] == d:
            tf = float(freqs[a])
            acc[d] += w * ((tf * 2.2) / (tf + norms[d]))


@_inline
def _at_least(candidates: Any, acc: Any, floor: float) -> Any:
    kept = 0
    for c in range(candidates.shape[0]):
        if acc[candidates[c]] >= floor:
            candidates[kept] = candidates[c]
            kept += 1
    return candidates[:kept]


@_compile
def _keyword_candidates(  # noqa: PLR0917 - one kernel's arrays
    docs: NDArray[np.int32],
    freqs: NDArray[np.uint16],
    starts: NDArray[np.int64],
    ends: NDArray[np.int64],
    weights: NDArray[np.float64],
    bounds: NDArray[np.float64],
    norms: NDArray[np.float64],
    allowed: NDArray[np.bool_],
    masked: bool,
    limit: int,
    margin: float,
) -> NDArray[np.int64]:
    """MaxScore over terms given by descending bound (``_kwindex._candidates``, compiled;
    2.2 is FTS5's k1 + 1)."""
    acc = np.zeros(norms.shape[0], dtype=np.float64)
    touched = np.empty(norms.shape[0], dtype=np.int64)
    seen, terms, done = 0, starts.shape[0], 0
    rest = bounds.sum()
    theta = top = 0.0
    # Essential terms: every passage holding them.
    while done < terms and not rest < theta * (1.0 - margin):
        seen, best = _add_term(
            docs, freqs, starts[done], ends[done], weights[done], norms, acc, touched, seen,
            allowed, masked,
        )  # fmt: skip
        top = max(top, best)
        rest -= bounds[done]
        done += 1
        # The k-th best so far can only beat the rest's bound when the best does.
        if done < terms and rest < top:
            theta = _kth_largest(acc[touched[:seen]], limit)
    # Passages that can still win, in ascending order: a pass over the accumulator is cheaper
    # than sorting what was touched.
    floor = theta * (1.0 - margin) - rest
    candidates = np.empty(seen, dtype=np.int64)
    kept = 0
    for d in range(acc.shape[0]):
        if acc[d] > 0.0 and acc[d] >= floor:
            candidates[kept] = d
            kept += 1
    candidates = candidates[:kept]
    # The others: only for passages already found, dropping those that cannot win.
    for t in range(done, terms):
        candidates = _at_least(candidates, acc, theta * (1.0 - margin) - rest)
        _add_term_for(candidates, docs, freqs, starts[t], ends[t], weights[t], norms, acc)
        rest -= bounds[t]
        theta = max(theta, _kth_largest(acc[candidates], limit))
    found: NDArray[np.int64] = _at_least(candidates, acc, theta * (1.0 - margin)).copy()
    return found


def keyword_candidates(  # noqa: PLR0917 - the kernel's arrays
    docs: NDArray[np.int32],
    freqs: NDArray[np.uint16],
    starts: NDArray[np.int64],
    ends: NDArray[np.int64],
    weights: NDArray[np.float64],
    bounds: NDArray[np.float64],
    norms: NDArray[np.float64],
    allowed: NDArray[np.bool_] | None,
    limit: int,
    margin: float,
) -> NDArray[np.int64]:
    """The passages that may be among the ``limit`` best (a superset of them), compiled."""
    flags = allowed if allowed is not None else _NO_MASK
    return _keyword_candidates(
        docs,
        freqs,
        starts,
        ends,
        weights,
        bounds,
        norms,
        flags,
        allowed is not None,
        limit,
        margin,
    )


@_compile
def _keyword_scores(  # noqa: PLR0917 - one kernel's arrays
    candidates: NDArray[np.int64],
    docs: NDArray[np.int32],
    freqs: NDArray[np.uint16],
    starts: NDArray[np.int64],
    ends: NDArray[np.int64],
    idfs: NDArray[np.float64],
    counts: NDArray[np.int64],
    norms: NDArray[np.float64],
    k1p1: float,
) -> NDArray[np.float64]:
    scores = np.zeros(candidates.shape[0], dtype=np.float64)
    for t in range(starts.shape[0]):
        lo, hi = starts[t], ends[t]
        for c in range(candidates.shape[0]):
            d = candidates[c]
            a = _gallop(docs, lo, hi, d)
            lo = a
            if a < hi and docs[a] == d:
                tf = float(freqs[a])
                part = idfs[t] * ((tf * k1p1) / (tf + norms[d]))
                for _ in range(counts[t]):
                    scores[c] += part
    return scores


def keyword_scores(  # noqa: PLR0917 - the kernel's arrays
    candidates: NDArray[np.int64],
    docs: NDArray[np.int32],
    freqs: NDArray[np.uint16],
    starts: NDArray[np.int64],
    ends: NDArray[np.int64],
    idfs: NDArray[np.float64],
    counts: NDArray[np.int64],
    norms: NDArray[np.float64],
    k1p1: float,
) -> NDArray[np.float64]:
    """BM25 of ascending ``candidates``, term by term in query order, each repeat added on its
    own: FTS5's sums, the same float operations in the same order as the numpy scoring."""
    scores: NDArray[np.float64] = _keyword_scores(
        candidates, docs, freqs, starts, ends, idfs, counts, norms, k1p1
    )
    return scores


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel variant a search can call.

    Costs are uint16 up to 65,535 and int32 beyond (a flat 768-d LUT query reaches 97,536), so
    both are prepared here, masked and not, with both selections: a search never compiles.
    """
    narrow = np.zeros((2, 48), dtype=np.uint8)  # costs of at most 384 (hamming) or 127 (LUT)
    one_hot = np.zeros(384)
    one_hot[0] = 1.0
    cases = (
        (narrow, one_hot),
        (np.zeros((2, 96), dtype=np.uint8), np.ones(768)),  # LUT costs up to 97,536
        (np.zeros((2, 8200), dtype=np.uint8), None),  # hamming costs up to 65,600
    )
    for matrix, weights in cases:
        bits = PackedBits.from_matrix(matrix)
        for mask in (None, np.ones(2, dtype=np.bool_)):
            if weights is not None:
                lut_topk(bits, QueryTables.build(weights), 1, mask)
            hamming_topk(bits, np.zeros(bits.bytes_per_row, dtype=np.uint8), 1, mask)
    for dtype in (np.uint16, np.int32):
        _sampled_select(np.zeros(2, dtype=dtype), 1, 1, _NO_MASK, False)
    one = np.ones(1, dtype=np.int64)
    for mask in (None, np.ones(2, dtype=np.bool_)):
        keyword_candidates(
            np.ones(1, dtype=np.int32),
            np.ones(1, dtype=np.uint16),
            one - 1,
            one,
            np.ones(1),
            np.ones(1),
            np.ones(2),
            mask,
            1,
            1e-9,
        )
    keyword_scores(
        one, np.ones(1, dtype=np.int32), np.ones(1, dtype=np.uint16), one - 1, one,
        np.ones(1), one, np.ones(2), 2.2,
    )  # fmt: skip
