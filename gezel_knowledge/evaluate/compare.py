"""Two rankings question by question: per-query nDCG@10 differences and a paired test.

Two results (two modes of one report, or one mode of two saved reports) are compared on the
questions both scored. The test is a paired randomization (sign-flip permutation) test on the
per-question nDCG@10 differences: under the null hypothesis that the two systems are
exchangeable, each question's difference is as likely to have either sign, so the mean
difference is compared with the means of ``rounds`` random sign flips of the same differences.
The two-sided p-value is ``(1 + flips at least as extreme) / (1 + rounds)``; the flips come from
a fixed seed, so the same two files always give the same p-value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from gezel_knowledge._files import read_input_bytes
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.evaluate.report import EvalReport

__all__ = [
    "PERMUTATION_ROUNDS",
    "Comparison",
    "QueryDifference",
    "compare_results",
    "load_per_query",
    "paired_permutation_test",
]

PERMUTATION_ROUNDS = 10_000
"""Random sign flips per test: the p-value's resolution is 1 / 10,001."""

_SEED = 23


@dataclass(frozen=True, slots=True)
class QueryDifference:
    """One question's nDCG@10 under each result and their difference (``a - b``)."""

    query: str
    a: float
    b: float
    difference: float


@dataclass(frozen=True, slots=True)
class Comparison:
    """Result ``a`` against result ``b`` over the questions both scored."""

    a: str
    b: str
    queries: int
    mean_a: float
    mean_b: float
    mean_difference: float
    p_value: float
    """Two-sided paired randomization test of the mean difference (:data:`PERMUTATION_ROUNDS`)."""
    wins: int
    """Questions where ``a`` scored higher."""
    losses: int
    ties: int
    differences: tuple[QueryDifference, ...]
    """Every question's difference, the largest in magnitude first."""


def paired_permutation_test(
    differences: Sequence[float], *, rounds: int = PERMUTATION_ROUNDS, seed: int = _SEED
) -> float:
    """Two-sided p-value of a mean paired difference by random sign flips (1.0 when all are 0)."""
    d = np.asarray(differences, dtype=np.float64)
    if d.size == 0 or not np.any(d):
        return 1.0
    observed = abs(float(d.mean()))
    signs = np.random.default_rng(seed).choice(np.array([-1.0, 1.0]), size=(rounds, d.size))
    flipped = np.abs(signs @ d) / d.size
    # A small tolerance so flips equal to the observed mean up to rounding count as extreme.
    extreme = int(np.count_nonzero(flipped >= observed - 1e-12))
    return (1 + extreme) / (1 + rounds)


def compare_results(
    a: Mapping[str, float],
    b: Mapping[str, float],
    *,
    names: tuple[str, str] = ("a", "b"),
    rounds: int = PERMUTATION_ROUNDS,
) -> Comparison:
    """Compare two per-question nDCG@10 maps on their common questions."""
    common = sorted(set(a) & set(b))
    if not common:
        raise InvalidInput(
            f"{names[0]} and {names[1]} share no question to compare",
            reason="eval-report-mismatch",
        )
    rows = [QueryDifference(q, a[q], b[q], a[q] - b[q]) for q in common]
    diffs = [r.difference for r in rows]
    n = len(rows)
    return Comparison(
        a=names[0],
        b=names[1],
        queries=n,
        mean_a=sum(r.a for r in rows) / n,
        mean_b=sum(r.b for r in rows) / n,
        mean_difference=sum(diffs) / n,
        p_value=paired_permutation_test(diffs, rounds=rounds),
        wins=sum(1 for d in diffs if d > 0),
        losses=sum(1 for d in diffs if d < 0),
        ties=sum(1 for d in diffs if d == 0),
        differences=tuple(sorted(rows, key=lambda r: (-abs(r.difference), r.query))),
    )


def _invalid(path: Path, why: str) -> InvalidInput:
    return InvalidInput(
        f"{path} is not an eval report: {why}", reason="eval-invalid-report", subject=str(path)
    )


def _per_query(path: Path, entry: Any) -> tuple[str, dict[str, float]]:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise _invalid(path, "a result without a name")
    name = entry["name"]
    raw = entry.get("perQuery")
    if not isinstance(raw, dict):
        raise _invalid(path, f"result {name!r} has no per-query scores")
    scores: dict[str, float] = {}
    for query, value in raw.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise _invalid(path, f"result {name!r} has a bad score for question {query!r}")
        scores[query] = float(value)
    return name, scores


def load_per_query(path: Path | str) -> Mapping[str, Mapping[str, float]]:
    """Per-query nDCG@10 of every result of a saved report (``eval --json`` or ``--output``).

    Raises :class:`InvalidInput` (``eval-invalid-report``) for a file that is not a report.
    """
    where = Path(path)
    try:
        data = json.loads(read_input_bytes(where, "eval report"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _invalid(where, "not JSON") from exc
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise _invalid(where, "no results")
    found = dict(_per_query(where, entry) for entry in data["results"])
    return MappingProxyType(found)


def report_per_query(report: EvalReport) -> Mapping[str, Mapping[str, float]]:
    """Per-query nDCG@10 of every result of an in-memory report."""
    return MappingProxyType({r.name: r.per_query for r in report.results})


def pick_result(
    per_query: Mapping[str, Mapping[str, float]], name: str, where: str
) -> Mapping[str, float]:
    """One result's per-query scores; :class:`NotFound` (``mode-not-found``) naming the rest."""
    found = per_query.get(name)
    if found is None:
        raise NotFound(
            f"{where} has no result {name!r} (results: {', '.join(per_query)})",
            reason="mode-not-found",
            subject=name,
        )
    return found
