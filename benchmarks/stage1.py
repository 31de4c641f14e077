"""Stage-1 scan kernels on one core: compiled and numpy top-K against the memory-read floor.

For ``--n`` random unit ``--d``-dimensional vectors this times, per query and taking turns
query by query (median thread CPU time, the steady figure on a shared machine, with the median
and minimum wall time beside it):

- ``floor``: one streaming read of the shard's sign-bit table (``np.bitwise_or.reduce`` over
  the word-major 64-bit layout the kernels scan): what no scan can beat;
- ``LUT top-K (compiled)`` / ``hamming top-K (compiled)``: the numba kernels the reader runs
  for hot shards (``gezel_knowledge.reader._compiled``), including the query's operands;
- ``LUT top-K (numpy)`` / ``hamming top-K (numpy)``: gezk's numpy kernels, the reference and
  the fallback (first search of a shard, or numba missing);
- ``LUT operands``: building a query's :class:`gezk.quantize.QueryTables` (its bit planes);
- ``float32 matmul top-K``: the exact float32 scan the bit kernels replace, for scale.

The LUT ratio to the floor is printed next to issue 13's goal 2 (at most 4x). Before timing,
the compiled shortlists are checked to equal the numpy ones, Hamming against a popcount of the
unpacked bits, and the LUT scores against the float dot product within their rounding bound.

Everything is single-threaded: the BLAS/OpenMP thread counts are set to 1 below, before numpy
is imported, so the matmul is a one-core figure like the bit kernels.
"""

from __future__ import annotations

import os

for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

from gezk.quantize import (  # noqa: E402
    PackedBits,
    QueryTables,
    hamming_topk,
    lut_scores,
    lut_topk,
    pack_sign_bits,
    unpack_sign_bits,
)

Floats = NDArray[np.float32]

LUT_FLOOR_GOAL = 4.0
"""Issue 13 goal 2: the LUT stage 1 within 4x of the memory-read floor."""


def _compiled() -> Any:
    try:
        from gezel_knowledge.reader import _compiled  # noqa: PLC0415 - optional, numba

        return _compiled
    except ImportError:
        return None


def _unit_rows(rng: np.random.Generator, n: int, d: int) -> Floats:
    x = rng.standard_normal((n, d), dtype=np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x


def _matmul_topk(vectors: Floats, query: Floats, k: int) -> NDArray[np.int64]:
    scores = vectors @ query
    k = min(k, scores.shape[0])
    part = np.argpartition(-scores, k - 1)[:k]
    return part[np.lexsort((part, -scores[part]))].astype(np.int64)


def _timed(
    kernels: dict[str, Callable[[int], object]], repeat: int
) -> dict[str, tuple[float, float, float]]:
    """Per kernel: median thread CPU time, median wall time and min wall time, in milliseconds.

    The kernels take turns query by query, so that a change of machine load touches all alike.
    """
    for fn in kernels.values():
        fn(0)  # warm-up: first-touch page faults, lazy layouts, compilation
    wall: dict[str, list[float]] = {name: [] for name in kernels}
    cpu: dict[str, list[float]] = {name: [] for name in kernels}
    for i in range(repeat):
        for name, fn in kernels.items():
            cpu_start = time.thread_time_ns()
            start = time.perf_counter_ns()
            fn(i)
            wall[name].append((time.perf_counter_ns() - start) / 1e6)
            cpu[name].append((time.thread_time_ns() - cpu_start) / 1e6)
    return {
        name: (statistics.median(cpu[name]), statistics.median(wall[name]), min(wall[name]))
        for name in kernels
    }


def _check(
    bits: NDArray[np.uint8], packed: PackedBits, query: Floats, d: int, k: int
) -> dict[str, Any]:
    """Compiled vs numpy shortlists, and both scans against plain references."""
    compiled = _compiled()
    tables = QueryTables.build(query)
    query_bits = pack_sign_bits(query)
    lut = lut_topk(packed, tables, k)
    hamming = hamming_topk(packed, query_bits, k)
    unpacked = unpack_sign_bits(bits, d)
    distances = np.count_nonzero(unpacked != unpack_sign_bits(query_bits, d), axis=1)
    n = bits.shape[0]
    reference_hamming = np.lexsort((np.arange(n), distances))[: min(k, n)]
    signs = unpacked.astype(np.float64) * 2.0 - 1.0
    error = np.abs(lut_scores(packed, tables) - signs @ query.astype(np.float64))
    report: dict[str, Any] = {
        "hamming_rows_equal_reference": bool(np.array_equal(hamming.rows, reference_hamming)),
        "lut_max_abs_score_error": float(error.max()),
        "lut_score_error_bound": d / (2 * tables.scale),
        "compiled_equal_numpy": None,
    }
    if compiled is not None:
        same_lut = compiled.lut_topk(packed, tables, k, None)
        same_hamming = compiled.hamming_topk(packed, query_bits, k, None)
        report["compiled_equal_numpy"] = bool(
            np.array_equal(same_lut.rows, lut.rows)
            and same_lut.scores.tobytes() == lut.scores.tobytes()
            and np.array_equal(same_hamming.rows, hamming.rows)
        )
    return report


def _kernels(
    packed: PackedBits, vectors: Floats, queries: Floats, k: int
) -> dict[str, Callable[[int], object]]:
    words = packed.words64()
    query_bits = [pack_sign_bits(q) for q in queries]
    tables = [QueryTables.build(q) for q in queries]
    kernels: dict[str, Callable[[int], object]] = {
        "floor": lambda i: np.bitwise_or.reduce(words, axis=None),
    }
    compiled = _compiled()
    if compiled is not None:
        kernels["LUT top-K (compiled)"] = lambda i: compiled.lut_topk(
            packed, QueryTables.build(queries[i]), k, None
        )
        kernels["hamming top-K (compiled)"] = lambda i: compiled.hamming_topk(
            packed, pack_sign_bits(queries[i]), k, None
        )
    kernels["LUT top-K (numpy)"] = lambda i: lut_topk(packed, queries[i], k)
    kernels["hamming top-K (numpy)"] = lambda i: hamming_topk(packed, query_bits[i], k)
    kernels["LUT operands"] = lambda i: QueryTables.build(queries[i])
    kernels["LUT numpy tables"] = lambda i: _fresh_tables(tables[i])
    kernels["float32 matmul top-K"] = lambda i: _matmul_topk(vectors, queries[i], k)
    return kernels


def _fresh_tables(tables: QueryTables) -> object:
    return QueryTables(tables.weights, tables.scale).tables


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, default=200_000, help="rows (default 200000)")
    parser.add_argument("--d", type=int, default=384, help="dimensions (default 384)")
    parser.add_argument("--k", type=int, default=1024, help="shortlist size (default 1024)")
    parser.add_argument("--repeat", type=int, default=21, help="timed queries (default 21)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    vectors = _unit_rows(rng, args.n, args.d)
    queries = _unit_rows(rng, args.repeat + 1, args.d)
    bits = pack_sign_bits(vectors)

    start = time.perf_counter()
    packed = PackedBits.from_matrix(bits.copy())
    packed.words64()
    prepare_ms = (time.perf_counter() - start) * 1e3

    check = _check(bits, packed, queries[0], args.d, args.k)
    load_before = os.getloadavg()
    results = _timed(_kernels(packed, vectors, queries, args.k), args.repeat)
    load_after = os.getloadavg()
    floor_cpu = results["floor"][0]
    lut_name = "LUT top-K (compiled)" if "LUT top-K (compiled)" in results else "LUT top-K (numpy)"
    report: dict[str, Any] = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "compiled": _compiled() is not None,
        "threads": 1,
        "n": args.n,
        "d": args.d,
        "k": args.k,
        "repeat": args.repeat,
        "load_average": [round(x, 2) for x in (*load_before, *load_after)],
        "prepare_packed_bits_ms": round(prepare_ms, 2),
        "kernels": {
            name: {
                "cpu_median_ms": round(cpu, 3),
                "median_ms": round(median, 3),
                "min_ms": round(best, 3),
                "cpu_vs_floor": round(cpu / floor_cpu, 2),
            }
            for name, (cpu, median, best) in results.items()
        },
        "lut_vs_floor": round(results[lut_name][0] / floor_cpu, 2),
        "lut_vs_floor_goal": LUT_FLOOR_GOAL,
        "check": check,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"stage 1, n={args.n} d={args.d} k={args.k}, {args.repeat} queries, one thread; "
        f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after"
    )
    print(f"{'kernel':<26} {'cpu ms':>8} {'wall ms':>8} {'min ms':>8} {'x floor':>8}")
    for name, row in report["kernels"].items():
        print(
            f"{name:<26} {row['cpu_median_ms']:>8.3f} {row['median_ms']:>8.3f} "
            f"{row['min_ms']:>8.3f} {row['cpu_vs_floor']:>8.2f}"
        )
    verdict = "met" if report["lut_vs_floor"] <= LUT_FLOOR_GOAL else "NOT met"
    print(
        f"goal 2: {lut_name} / floor = {report['lut_vs_floor']:.2f}x "
        f"(goal <= {LUT_FLOOR_GOAL:.0f}x): {verdict}"
    )
    if not report["compiled"]:
        print("numba is not installed: the compiled kernels were not measured")
    print(f"PackedBits preparation (once per shard): {prepare_ms:.1f} ms")
    print(
        "check: compiled == numpy {compiled_equal_numpy}, hamming == reference "
        "{hamming_rows_equal_reference}, LUT max |score - float score| "
        "{lut_max_abs_score_error:.2e} (bound {lut_score_error_bound:.2e})".format(**check)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
