"""Keyword-mode ranking quality, one change at a time (issues 22 and 23): stems, query-term
counts, and the common-term rule against exact BM25 over every query term.

Builds (once, cached) the catalog of a BEIR folder with ``test-hash-embed@1`` (keyword mode
reads no vector) and scores ``mode="keyword"`` with nDCG@10 under each variant:

- ``default``: the derived keyword index, stems grouped, repeated words counted;
- ``no-stems``: the same without stemming (the manifest language's stemmer switched off);
- ``no-counts``: every query word counted once (what ``query_terms`` gave before);
- ``neither``: no stems, no counts (exact BM25 as before, over every term);
- ``common-rule``: the default with the common-term rule (a term in more than 5% of the
  passages is dropped while rarer ones remain), as the FTS5 path applies it in large shards;
- ``fts5-common-rule``: FTS5 itself, unstemmed, every word once, with that rule in every shard
  (the passage list as it was for large shards before the index).

``python benchmarks/keyword_quality.py /work/shared/eval/scifact`` (``--json`` for JSON).
Variants patch module attributes for the run, so the figures come from the shipped code paths.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.evaluate.run import evaluate_beir
from gezel_knowledge.reader import _keyword, _kwcache, _search


@contextmanager
def _patched(obj: Any, name: str, value: Any) -> Iterator[None]:
    saved = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, saved)


@contextmanager
def _no_stems() -> Iterator[None]:
    with (
        _patched(_kwcache, "stemmer_for", lambda _language: None),
        _patched(_kwcache, "snowball_algorithm", lambda _language: None),
    ):
        yield


@contextmanager
def _once_each() -> Iterator[None]:
    original = _search.query_term_counts

    def counted(text: str, limit: int | None = None) -> list[tuple[str, int]]:
        return [(t, 1) for t, _ in original(text, limit)]

    with _patched(_search, "query_term_counts", counted):
        yield


@contextmanager
def _common_rule() -> Iterator[None]:
    """The index keeps only terms in at most 5% of the passages while any such term remains."""
    original_indexed, original_informative = _keyword._indexed_passages, _keyword._informative
    rows = [0]

    def indexed(store: Any, indexes: Any, *rest: Any) -> Any:
        rows[0] = sum(ix.rows for ix in indexes)
        return original_indexed(store, indexes, *rest)

    def informative(keys: Any, counts: Any, df: Any) -> list[tuple[str, int]]:
        chosen = original_informative(keys, counts, df)
        rare = [(k, c) for k, c in chosen if df[k] <= _keyword.COMMON_TERM_FRACTION * rows[0]]
        return rare or chosen

    with (
        _patched(_keyword, "_indexed_passages", indexed),
        _patched(_keyword, "_informative", informative),
    ):
        yield


@contextmanager
def _fts5_common_rule() -> Iterator[None]:
    os.environ[_kwcache.KEYWORD_INDEX_ENV] = "off"
    try:
        with _no_stems(), _once_each(), _patched(_keyword, "COMMON_TERM_MIN_CHUNKS", 0):
            yield
    finally:
        os.environ.pop(_kwcache.KEYWORD_INDEX_ENV, None)


@contextmanager
def _nothing() -> Iterator[None]:
    yield


@contextmanager
def _both(*parts: Callable[[], Any]) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        for part in parts:
            stack.enter_context(part())
        yield


VARIANTS: dict[str, Callable[[], Any]] = {
    "default": _nothing,
    "no-stems": _no_stems,
    "no-counts": _once_each,
    "neither": lambda: _both(_no_stems, _once_each),
    "common-rule": _common_rule,
    "fts5-common-rule": _fts5_common_rule,
}


def main(argv: list[str] | None = None) -> int:
    """Evaluate each variant; print a table or JSON."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--split", default="train")
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--only", action="append", choices=sorted(VARIANTS))
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--default-model",
        action="store_true",
        help="build with the default model (as the quality tables do) instead of the hash embedder",
    )
    args = parser.parse_args(argv)
    folder: Path = args.folder
    queries = next(iter(sorted(folder.glob(f"queries*{args.split}*.jsonl"))), None)
    qrels = next(iter(sorted(folder.glob(f"qrels*{args.split}*.tsv"))), None)
    out: dict[str, Any] = {"load_before": [round(x, 2) for x in os.getloadavg()], "runs": {}}
    for name, variant in VARIANTS.items():
        if args.only and name not in args.only:
            continue
        started = time.process_time()
        with variant():
            report = evaluate_beir(
                folder,
                split=args.split,
                embedder=None if args.default_model else HashEmbedder(),
                queries=queries,
                qrels=qrels,
                cache_dir=args.cache_dir,
                modes=["keyword"],
            )
        scores = report.result("keyword").scores
        out["runs"][name] = {
            "ndcg_at_10": scores.ndcg_at_10,
            "recall_at_10": scores.recall_at_10,
            "recall_at_100": scores.recall_at_100,
            "mrr_at_10": scores.mrr_at_10,
            "cpu_s": time.process_time() - started,
            "passages": report.passages,
            "shards": report.shards,
            "queries": report.queries,
        }
    out["load_after"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"load average before {out['load_before']}, after {out['load_after']}")
    print(f"{'variant':18} {'nDCG@10':>8} {'R@10':>7} {'R@100':>7} {'MRR@10':>7}")
    for name, run in out["runs"].items():
        print(
            f"{name:18} {run['ndcg_at_10']:8.4f} {run['recall_at_10']:7.4f}"
            f" {run['recall_at_100']:7.4f} {run['mrr_at_10']:7.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
