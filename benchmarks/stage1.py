"""Stage-1 scan kernels on one core: hamming top-K and asymmetric LUT top-K vs float32 matmul.

For ``--n`` random unit ``--d``-dimensional vectors this times, per query (median wall time,
minimum wall time, median thread CPU time):

- ``hamming top-K``: pack the query's sign bits, Hamming distance to every row, top-K;
- ``LUT top-K``: build the query's lookup tables, score every row's sign bits, top-K;
- ``LUT scores``: the same without the top-K selection;
- ``float32 matmul top-K``: the exact float32 scan (``vectors @ query``, argpartition, sort)
  that the bit kernels replace, for scale.

The bit kernels run on a :class:`gezk.quantize.PackedBits` prepared once per shard (as a reader
caches it); its one-off cost is reported separately. Before timing, the shortlists are checked
against a plain numpy reference (unpacked bits, float64 dot / popcount).

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


def _unit_rows(rng: np.random.Generator, n: int, d: int) -> Floats:
    x = rng.standard_normal((n, d), dtype=np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x


def _matmul_topk(vectors: Floats, query: Floats, k: int) -> NDArray[np.int64]:
    scores = vectors @ query
    k = min(k, scores.shape[0])
    part = np.argpartition(-scores, k - 1)[:k]
    return part[np.lexsort((part, -scores[part]))].astype(np.int64)


def _median_ms(fn: Callable[[int], object], repeat: int) -> tuple[float, float, float]:
    """Median wall time, min wall time and median thread CPU time, in milliseconds.

    The CPU time excludes intervals when other processes had the core, so on a shared machine
    it is the steadier one-core figure.
    """
    fn(0)  # warm-up: first-touch page faults, lazy layouts
    wall, cpu = [], []
    for i in range(repeat):
        cpu_start = time.thread_time_ns()
        start = time.perf_counter_ns()
        fn(i)
        wall.append((time.perf_counter_ns() - start) / 1e6)
        cpu.append((time.thread_time_ns() - cpu_start) / 1e6)
    return statistics.median(wall), min(wall), statistics.median(cpu)


def _check_against_reference(
    bits: NDArray[np.uint8], packed: PackedBits, query: Floats, d: int, k: int
) -> dict[str, Any]:
    """Shortlists of both kernels vs a plain numpy reference on the same data."""
    signs = unpack_sign_bits(bits, d).astype(np.float32) * 2.0 - 1.0
    ref_scores = signs.astype(np.float64) @ query.astype(np.float64)
    query_bits = pack_sign_bits(query)
    ref_distances = np.count_nonzero(
        unpack_sign_bits(bits, d) != unpack_sign_bits(query_bits, d), axis=1
    )
    del signs
    n = bits.shape[0]
    kk = min(k, n)
    ref_hamming = np.lexsort((np.arange(n), ref_distances))[:kk]
    got_hamming = hamming_topk(packed, query_bits, k).rows
    lut = lut_topk(packed, query, k)
    chosen = np.zeros(n, dtype=bool)
    chosen[lut.rows] = True
    lut_scores_all = lut_scores(packed, query)
    # The LUT accumulates in float32: a swap at the boundary is only allowed within that error.
    boundary_gap = float(ref_scores[~chosen].max() - ref_scores[chosen].min()) if kk < n else 0.0
    return {
        "hamming_rows_equal_reference": bool(np.array_equal(got_hamming, ref_hamming)),
        "lut_max_abs_score_error": float(np.abs(lut_scores_all - ref_scores).max()),
        "lut_boundary_overlap": max(boundary_gap, 0.0),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table (or JSON); "x matmul" compares CPU medians."""
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
    packed = PackedBits.from_matrix(bits)
    packed.words16()
    packed.words64()
    prepare_ms = (time.perf_counter() - start) * 1e3

    check = _check_against_reference(bits, packed, queries[0], args.d, args.k)

    def hamming(i: int) -> object:
        return hamming_topk(packed, pack_sign_bits(queries[i]), args.k)

    def lut(i: int) -> object:
        return lut_topk(packed, queries[i], args.k)

    def lut_only(i: int) -> object:
        return lut_scores(packed, queries[i])

    def tables(i: int) -> object:
        return QueryTables.build(queries[i])

    def matmul(i: int) -> object:
        return _matmul_topk(vectors, queries[i], args.k)

    kernels: dict[str, Callable[[int], object]] = {
        "hamming top-K": hamming,
        "LUT top-K": lut,
        "LUT scores only": lut_only,
        "LUT tables only": tables,
        "float32 matmul top-K": matmul,
    }
    results = {name: _median_ms(fn, args.repeat) for name, fn in kernels.items()}
    matmul_cpu_ms = results["float32 matmul top-K"][2]

    report: dict[str, Any] = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "threads": 1,
        "n": args.n,
        "d": args.d,
        "k": args.k,
        "repeat": args.repeat,
        "prepare_packed_bits_ms": round(prepare_ms, 2),
        "kernels": {
            name: {
                "median_ms": round(median, 3),
                "min_ms": round(best, 3),
                "cpu_median_ms": round(cpu, 3),
                "cpu_vs_matmul": round(cpu / matmul_cpu_ms, 3),
            }
            for name, (median, best, cpu) in results.items()
        },
        "check": check,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"stage 1, n={args.n} d={args.d} k={args.k}, {args.repeat} queries, "
        "single-threaded (OMP/OpenBLAS/MKL threads = 1)"
    )
    print(f"{'kernel':<22} {'median ms':>10} {'min ms':>8} {'cpu ms':>8} {'x matmul':>9}")
    for name, row in report["kernels"].items():
        median, best, ratio = row["median_ms"], row["min_ms"], row["cpu_vs_matmul"]
        print(f"{name:<22} {median:>10.2f} {best:>8.2f} {row['cpu_median_ms']:>8.2f} {ratio:>9.2f}")
    print(f"PackedBits preparation (once per shard): {prepare_ms:.1f} ms")
    print(
        "reference check: hamming rows equal = {hamming_rows_equal_reference}, "
        "LUT max |score error| = {lut_max_abs_score_error:.2e}, "
        "LUT boundary overlap = {lut_boundary_overlap:.2e}".format(**check)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
