"""The compiled stage-1 kernels give exactly gezk's numpy shortlists (rows, scores, tie order).

gezk.quantize is the reference; ``gezel_knowledge.reader._compiled`` must agree with it on
every input the reader can hand it: random and duplicated rows (ties), all-zero bits and
queries, fewer rows than candidates, any dimension, masks that keep all, some or none, and
shards large enough for its sampled selection (a spy checks that the sample decided, or that
it gave up and the exact histogram answered), including inputs built to defeat the sample.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gezk.quantize import PackedBits, QueryTables, Shortlist, hamming_topk, lut_topk, pack_sign_bits

compiled = pytest.importorskip(
    "gezel_knowledge.reader._compiled", reason="numba is not installed on this platform"
)

Bits = np.ndarray[Any, np.dtype[np.uint8]]


def _assert_same(got: Shortlist, want: Shortlist) -> None:
    assert got.rows.dtype == want.rows.dtype == np.int64
    assert got.scores.dtype == want.scores.dtype
    assert got.rows.tolist() == want.rows.tolist()
    assert got.scores.tobytes() == want.scores.tobytes()


def _both(
    bits: Bits, query: np.ndarray[Any, Any], k: int, mask: np.ndarray[Any, Any] | None
) -> None:
    """Compare compiled and numpy shortlists for both scans on fresh PackedBits."""
    tables = QueryTables.build(query)
    numpy_lut = lut_topk(PackedBits.from_matrix(bits), tables, k, mask=mask)
    _assert_same(compiled.lut_topk(PackedBits.from_matrix(bits), tables, k, mask), numpy_lut)
    query_bits = pack_sign_bits(query)
    numpy_hamming = hamming_topk(PackedBits.from_matrix(bits), query_bits, k, mask=mask)
    _assert_same(
        compiled.hamming_topk(PackedBits.from_matrix(bits), query_bits, k, mask), numpy_hamming
    )


def _rows(rng: np.random.Generator, n: int, d: int, duplicates: float) -> Bits:
    bits = pack_sign_bits(rng.standard_normal((n, d))) if n else np.zeros((0, -(-d // 8)), np.uint8)
    if n and duplicates:
        src = rng.integers(0, n, size=max(1, int(n * duplicates)))
        dst = rng.integers(0, n, size=src.shape[0])
        bits[dst] = bits[src]
    return bits


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_compiled_shortlists_equal_numpy_shortlists(data: st.DataObject) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    d = data.draw(st.integers(1, 200))
    n = data.draw(st.integers(0, 300))
    k = data.draw(st.integers(0, 400))
    bits = _rows(rng, n, d, data.draw(st.sampled_from([0.0, 0.3, 0.9])))
    query_kind = data.draw(st.sampled_from(["unit", "zero", "integral", "one-hot"]))
    query = {
        "unit": rng.standard_normal(d),
        "zero": np.zeros(d),
        "integral": rng.integers(-3, 4, size=d).astype(np.float64),
        "one-hot": np.eye(d)[rng.integers(0, d)],
    }[query_kind]
    mask = data.draw(st.sampled_from([None, "all", "none", "some"]))
    flags = {
        None: None,
        "all": np.ones(n, dtype=bool),
        "none": np.zeros(n, dtype=bool),
        "some": rng.random(n) < 0.4,
    }[mask]
    _both(bits, query, k, flags)


@pytest.mark.parametrize("d", [1, 7, 63, 64, 65, 191, 192, 193, 384, 385, 1024])
def test_every_dimension_width_agrees(d: int) -> None:
    rng = np.random.default_rng(d)
    bits = _rows(rng, 700, d, 0.2)
    _both(bits, rng.standard_normal(d), 100, None)
    _both(bits, rng.standard_normal(d), 100, rng.random(700) < 0.5)


def test_all_zero_rows_and_query_tie_everywhere_and_keep_row_order() -> None:
    bits = np.zeros((500, 48), dtype=np.uint8)
    _both(bits, np.zeros(384), 64, None)
    shortlist = compiled.lut_topk(
        PackedBits.from_matrix(bits), QueryTables.build(np.zeros(384)), 5, None
    )
    assert shortlist.rows.tolist() == [0, 1, 2, 3, 4]


def test_fewer_rows_than_candidates_returns_every_eligible_row() -> None:
    rng = np.random.default_rng(1)
    bits = _rows(rng, 10, 384, 0.3)
    mask = np.arange(10) % 2 == 0
    _both(bits, rng.standard_normal(384), 1024, mask)
    tables = QueryTables.build(rng.standard_normal(384))
    assert len(compiled.lut_topk(PackedBits.from_matrix(bits), tables, 1024, mask)) == 5


# The largest k below; the shard is sized from the module's own threshold so that the sampled
# selection runs for every k up to it (and the tests follow the threshold if it changes).
_LARGEST_K = 700
_LARGE = compiled._smallest_sampled_shard(_LARGEST_K)
_STEP = compiled._SAMPLE_STEP


class _SampleSpy:
    """What the sampled selection did: decided (returned rows) or fell back to the histogram."""

    def __init__(self) -> None:
        self.decided = 0
        self.fell_back = 0
        self.histograms = 0


@pytest.fixture
def sample_spy(monkeypatch: pytest.MonkeyPatch) -> _SampleSpy:
    spy = _SampleSpy()
    sampled, histogram = compiled._sampled_select, compiled._histogram_select

    def sampled_select(*args: Any) -> np.ndarray[Any, Any]:
        rows: np.ndarray[Any, Any] = sampled(*args)
        if rows.shape[0]:
            spy.decided += 1
        else:
            spy.fell_back += 1
        return rows

    def histogram_select(*args: Any) -> np.ndarray[Any, Any]:
        spy.histograms += 1
        result: np.ndarray[Any, Any] = histogram(*args)
        return result

    monkeypatch.setattr(compiled, "_sampled_select", sampled_select)
    monkeypatch.setattr(compiled, "_histogram_select", histogram_select)
    return spy


@pytest.fixture(scope="module")
def large_bits() -> Bits:
    rng = np.random.default_rng(7)
    return _rows(rng, _LARGE, 384, 0.05)


def test_the_large_shard_is_just_large_enough_for_the_sampled_selection() -> None:
    assert compiled._smallest_sampled_shard(_LARGEST_K) == _LARGE
    assert compiled._smallest_sampled_shard(_LARGEST_K + 1) > _LARGE


@pytest.mark.parametrize("k", [1, 64, _LARGEST_K])
def test_large_shards_agree(large_bits: Bits, k: int, sample_spy: _SampleSpy) -> None:
    rng = np.random.default_rng(k)
    _both(large_bits, rng.standard_normal(384), k, None)
    _both(large_bits, rng.standard_normal(384), k, rng.random(_LARGE) < 0.7)
    # Both scans, masked and not: the sample decided every time, no histogram was needed.
    assert (sample_spy.decided, sample_spy.fell_back, sample_spy.histograms) == (4, 0, 0)


def test_large_shard_with_one_row_repeated_ties_past_the_sample(
    large_bits: Bits, sample_spy: _SampleSpy
) -> None:
    # Every row equal: the sampled threshold admits all rows, more than it buffers.
    bits = np.repeat(large_bits[:1], _LARGE, axis=0)
    _both(bits, np.random.default_rng(2).standard_normal(384), 64, None)
    assert (sample_spy.decided, sample_spy.fell_back, sample_spy.histograms) == (0, 2, 2)


# (mask, whether the sample can still decide): a sample of no eligible row admits every row,
# more than it buffers; one of only eligible rows admits too few; a mask keeping 100 rows
# (about 6 sampled) admits all of them, which is exact.
_MASKS_AGAINST_THE_SAMPLE = [
    ("sample-sees-no-eligible-row", False),
    ("sample-sees-only-eligible-rows", False),
    ("first-rows-only", True),
    ("last-rows-only", True),
]


@pytest.mark.parametrize(("pattern", "sample_decides"), _MASKS_AGAINST_THE_SAMPLE)
def test_large_shard_masks_that_defeat_the_sample_still_agree(
    large_bits: Bits, sample_spy: _SampleSpy, pattern: str, sample_decides: bool
) -> None:
    rng = np.random.default_rng(3)
    rows = np.arange(_LARGE)
    mask = {
        "sample-sees-no-eligible-row": rows % _STEP != 0,
        "sample-sees-only-eligible-rows": rows % _STEP == 0,
        "first-rows-only": rows < 100,
        "last-rows-only": rows >= _LARGE - 100,
    }[pattern]
    _both(large_bits, rng.standard_normal(384), 64, mask)
    # Both scans went the same way: the sample decided, or it gave up and the histogram answered.
    expected = (2, 0, 0) if sample_decides else (0, 2, 2)
    assert (sample_spy.decided, sample_spy.fell_back, sample_spy.histograms) == expected


def test_large_shard_with_a_cluster_of_near_duplicates(large_bits: Bits) -> None:
    # 2,000 rows one bit away from the query: the k best are all among them, many tied.
    rng = np.random.default_rng(4)
    query = rng.standard_normal(384)
    bits = large_bits.copy()
    near = rng.choice(_LARGE, size=2000, replace=False)
    bits[near] = pack_sign_bits(query)
    bits[near, 0] ^= 1 << rng.integers(0, 8, size=2000).astype(np.uint8)
    _both(bits, query, 64, None)
    _both(bits, query, 1500, None)


def test_the_compiled_module_imports_nothing_of_gezel_knowledge() -> None:
    # The reader imports it on demand (for numba's import time); that hides no cycle only while
    # it depends on gezk and third-party modules alone.
    source = Path(compiled.__file__).read_text(encoding="utf-8")
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            imported.add("." if node.level else node.module or "")
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert "gezk.quantize" in imported
    assert not {m for m in imported if m == "." or m.split(".")[0] == "gezel_knowledge"}


# Run in a fresh interpreter: numba compiles a variant on the first call with new operand types,
# so whether a search compiles shows only in a process where nothing else has searched yet.
_SEARCHES_AFTER_WARM_UP = """
import json
import numpy as np
from gezel_knowledge.reader import _compiled as c
from gezk.quantize import PackedBits, QueryTables, pack_sign_bits

kernels = {n: getattr(c, n) for n in ("_hamming_costs", "_lut_costs", "_histogram_select",
                                      "_sampled_select")}
c.warm_up()
warm = {n: {str(s) for s in k.signatures} for n, k in kernels.items()}
rng = np.random.default_rng(0)
n = c._smallest_sampled_shard(1)
bits = PackedBits.from_matrix(pack_sign_bits(rng.standard_normal((n, 768))))
wide = PackedBits.from_matrix(pack_sign_bits(rng.standard_normal((3, 8200 * 8))))
for weights in (rng.standard_normal(768), np.ones(768)):  # a flat query: costs up to 97,536
    tables = QueryTables.build(weights)
    assert (tables.max_cost > 0xFFFF) == (weights[0] == weights[1])
    for mask in (None, rng.random(n) < 0.5):
        c.lut_topk(bits, tables, 1, mask)  # the sampled selection
        c.lut_topk(bits, tables, 4096, mask)  # the exact one
        c.hamming_topk(bits, pack_sign_bits(weights), 1, mask)
for mask in (None, np.ones(3, dtype=bool)):  # hamming costs up to 65,600
    c.hamming_topk(wide, pack_sign_bits(rng.standard_normal(8200 * 8)), 1, mask)
compiled_by_search = {
    n: sorted({str(s) for s in k.signatures} - warm[n]) for n, k in kernels.items()
}
print(json.dumps({"warm": {n: sorted(v) for n, v in warm.items()}, "new": compiled_by_search}))
"""


def test_after_warm_up_no_search_compiles_a_kernel() -> None:
    # A query whose costs exceed 65,535 (a flat 768-d LUT query: 97,536) runs int32 cost
    # variants; compiling them on the search path took ~1.8 s CPU under the handle's lock.
    done = subprocess.run(
        [sys.executable, "-c", _SEARCHES_AFTER_WARM_UP],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["new"] == {
        "_hamming_costs": [],
        "_lut_costs": [],
        "_histogram_select": [],
        "_sampled_select": [],
    }
    for name, signatures in report["warm"].items():
        # The only 1-d array of 16- or 32-bit integers a kernel takes is its costs.
        for costs in ("Array(uint16, 1,", "Array(int32, 1,"):
            assert any(costs in s for s in signatures), (name, costs)


# A fresh interpreter and an empty numba cache, so the kernel really compiles. A profile hook
# looks at sys.stdout and sys.stderr at every call made while it does: the kernels compile on a
# background thread, so a rebinding there, however brief, undoes what another thread redirected.
_COMPILE_WATCHING_THE_STREAMS = """
import io, json, sys
import numpy as np
from gezel_knowledge.reader import _compiled as c

out, err = io.StringIO(), io.StringIO()
sys.stdout, sys.stderr = out, err
rebound = []

def watch(frame, event, arg):
    if sys.stdout is not out or sys.stderr is not err:
        rebound.append(frame.f_code.co_filename)

sys.setprofile(watch)
c._hamming_costs(
    np.zeros((1, 2), dtype=np.uint64), np.zeros(1, dtype=np.uint64), np.zeros(2, dtype=np.uint16)
)
sys.setprofile(None)
sys.__stdout__.write(json.dumps({"calls": len(rebound), "in": sorted(set(rebound))}) + "\\n")
"""


def test_compiling_a_kernel_never_rebinds_the_process_streams(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    env.pop("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", None)  # the module must set it itself
    done = subprocess.run(
        [sys.executable, "-c", _COMPILE_WATCHING_THE_STREAMS],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
        env=env,
    )
    assert json.loads(done.stdout.splitlines()[-1]) == {"calls": 0, "in": []}
