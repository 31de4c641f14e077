"""Tables for docs/quality.md from saved ``eval --output`` reports: nDCG@10 per collection and
the paired tests of the default hybrid against every other result.

Run on demand, never by the test suite::

    python benchmarks/fusion_table.py RUN.json [RUN.json ...]
    python benchmarks/fusion_table.py --against OLD.json NEW.json   # one result, two runs

Each RUN.json is one collection's report, written by (for example)::

    gezel-knowledge eval FOLDER --split test --rrf60 --bm25 --fusion gezel --fusion rrf \\
        --fusion score --fusion rank-score --fusion confidence --output RUN.json

The p-values are those of ``eval --compare`` (paired randomization test on per-question
nDCG@10, 10,000 sign flips, fixed seed).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gezel_knowledge.evaluate.compare import compare_results, load_per_query

ROWS = (
    ("hybrid", "default hybrid (rrf10)"),
    ("hybrid:gezel", "hybrid, gezel preset"),
    ("hybrid:rrf", "hybrid, rrf (k = 60)"),
    ("hybrid:score", "hybrid, score preset"),
    ("hybrid:rank-score", "hybrid, rank-score preset"),
    ("hybrid:confidence", "hybrid, confidence preset"),
    ("rrf60", "RRF(60) of stemmed BM25 and exact cosine"),
    ("bm25-stemmed", "BM25, Snowball stems"),
    ("bm25", "BM25, no stemming"),
    ("keyword", "keyword mode"),
    ("vector", "vector mode"),
    ("exact-dense", "exact cosine (float)"),
)


def _label(path: Path) -> str:
    data = json.loads(path.read_text())
    return f"{path.stem} ({data['queries']} q)"


def table(paths: list[Path]) -> None:
    """nDCG@10 of every result, one column a report, then the paired tests."""
    reports = [load_per_query(p) for p in paths]
    print("| result | " + " | ".join(_label(p) for p in paths) + " |")
    print("| --- |" + " --- |" * len(paths))
    for name, label in ROWS:
        cells = []
        for r in reports:
            scores = r.get(name)
            cells.append(f"{sum(scores.values()) / len(scores):.3f}" if scores else "")
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()
    print("| A against B | " + " | ".join(_label(p) for p in paths) + " |")
    print("| --- |" + " --- |" * len(paths))
    pairs = [("hybrid", n) for n, _ in ROWS[1:]] + [("keyword", "bm25-stemmed")]
    for a, b in pairs:
        cells = []
        for r in reports:
            if a in r and b in r:
                c = compare_results(r[a], r[b])
                cells.append(f"{c.mean_difference:+.3f} (p {c.p_value:.3f}; {c.wins}/{c.losses})")
            else:
                cells.append("")
        print(f"| {a} - {b} | " + " | ".join(cells) + " |")


def against(old: Path, new: Path, names: list[str]) -> None:
    """The same results in two runs (before and after a change), with their paired tests."""
    a, b = load_per_query(new), load_per_query(old)
    for name in names:
        if name in a and name in b:
            c = compare_results(a[name], b[name])
            print(
                f"| {name} | {c.mean_b:.3f} | {c.mean_a:.3f} | {c.mean_difference:+.3f} "
                f"| {c.p_value:.3f} | {c.wins}/{c.losses} |"
            )


def main() -> None:
    """Parse the command line and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", type=Path, nargs="+")
    parser.add_argument("--against", type=Path, help="an older run of the same collection")
    args = parser.parse_args()
    if args.against is not None:
        print("| result | before | after | after - before | p | wins/losses |")
        print("| --- | --- | --- | --- | --- | --- |")
        against(args.against, args.reports[0], [n for n, _ in ROWS])
        return
    table(args.reports)


if __name__ == "__main__":
    main()
