"""Measure cosine floors per embedding profile: where vector neighbours stop being evidence.

Nearest-neighbour search always returns something, so the reader drops vector passages whose
stage-2 score falls below a per-profile floor (``gezel_knowledge.reader.floors``). This script
measures, with the scores the reader actually computes (the float query against int8 passage
vectors, spec section 6.2):

- **unrelated**: the best score any passage reaches for a query the corpus does not answer;
- **related**: the score of the passage a query paraphrases (and whether it ranks first).

A floor must sit above the unrelated scores and below the related ones. The corpus is
``benchmarks/data/floors_corpus.json`` (30 passages on unrelated subjects, 30 paraphrased
questions, 30 questions the corpus cannot answer). For ``test-hash-embed@1``, whose vectors are
random unless two texts are identical, the unrelated side is measured against ``--hash-rows``
random passages (a full 200,000-chunk shard by default) and the related side is the passage's
own text.

The default profile measured is whatever ``default_embedder()`` provides (the packaged
``all-minilm-l6-v2-int8@1`` unless bge-small files are installed); ``--profile ID`` picks a
registered profile whose files are available.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.embedders import HashEmbedder, default_embedder, load_embedder
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import KnowledgeError
from gezel_knowledge.reader.floors import COSINE_FLOORS
from gezk.hashembed import hash_embed
from gezk.profiles import embedding_profile
from gezk.quantize import quantize_int8, rerank_int8

CORPUS = Path(__file__).parent / "data" / "floors_corpus.json"


def _scores(queries: NDArray[np.float32], passages: NDArray[np.float32]) -> NDArray[np.float32]:
    """Reader scores: each float query against every int8-quantized passage."""
    q8 = quantize_int8(passages)
    return np.stack([rerank_int8(q8, q) for q in queries])


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]  # noqa: E731
    return {
        "min": ordered[0],
        "p05": pick(0.05),
        "p50": statistics.median(ordered),
        "p95": pick(0.95),
        "max": ordered[-1],
    }


def measure_model(embedder: Embedder, corpus: dict[str, Any]) -> dict[str, Any]:
    """Scores of related and unrelated queries against the corpus passages."""
    ids = [p["id"] for p in corpus["passages"]]
    passages = embedder.embed_passages([p["text"] for p in corpus["passages"]])
    related_q = embedder.embed_queries([r["query"] for r in corpus["related"]])
    unrelated_q = embedder.embed_queries(corpus["unrelated"])
    related_scores = _scores(related_q, passages)
    target = [ids.index(r["passage"]) for r in corpus["related"]]
    related = [float(related_scores[i, t]) for i, t in enumerate(target)]
    first = sum(int(np.argmax(related_scores[i]) == t) for i, t in enumerate(target))
    unrelated = [float(s.max()) for s in _scores(unrelated_q, passages)]
    return {
        "profile": embedder.profile.id,
        "corpus_passages": len(ids),
        "related": _summary(related),
        "related_ranked_first": first / len(target),
        "unrelated_top1": _summary(unrelated),
        "related_values": related,
        "unrelated_values": unrelated,
    }


def measure_hash(rows: int, queries: int) -> dict[str, Any]:
    """Hash vectors: the best unrelated score over ``rows`` passages; identical text scores ~1."""
    passages = hash_embed([f"passage {i}" for i in range(rows)])
    unrelated_q = hash_embed([f"unrelated question {i}" for i in range(queries)])
    unrelated = [float(s.max()) for s in _scores(unrelated_q, passages)]
    sample = passages[:queries]
    related = [float(x) for x in np.diag(_scores(sample, sample))]
    return {
        "profile": "test-hash-embed@1",
        "corpus_passages": rows,
        "related": _summary(related),
        "related_ranked_first": 1.0,
        "unrelated_top1": _summary(unrelated),
        "related_values": related,
        "unrelated_values": unrelated,
    }


def suggest(result: dict[str, Any]) -> dict[str, float]:
    """The floor at the worst unrelated score, rounded up to 0.05, and what it keeps."""
    floor = float(np.ceil(result["unrelated_top1"]["max"] / 0.05) * 0.05)
    kept = float(np.mean([v >= floor for v in result["related_values"]]))
    rejected = float(np.mean([v < floor for v in result["unrelated_values"]]))
    return {
        "suggested_floor": round(floor, 2),
        "related_kept": kept,
        "unrelated_rejected": rejected,
    }


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--profile", help="a registered embedding profile id (default model)")
    parser.add_argument(
        "--hash-rows",
        type=int,
        default=200_000,
        help="random passages for the hash profile (a full shard)",
    )
    parser.add_argument("--hash-queries", type=int, default=200)
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    results = []
    try:
        embedder = (
            load_embedder(embedding_profile(args.profile)) if args.profile else default_embedder()
        )
    except KnowledgeError as exc:  # no model files: measure the hash profile alone
        print(f"no model embedder: {exc}", file=sys.stderr)
    else:
        if not isinstance(embedder, HashEmbedder):
            results.append(measure_model(embedder, corpus))
    results.append(measure_hash(args.hash_rows, args.hash_queries))
    for r in results:
        r.update(suggest(r))
        r["current_floor"] = COSINE_FLOORS.get(r["profile"])
    if args.json:
        slim = [{k: v for k, v in r.items() if not k.endswith("_values")} for r in results]
        print(json.dumps(slim, indent=2))
        return 0
    print(
        f"{'profile':<26}{'unrelated top-1 p50/p95/max':>30}{'related min/p05/p50':>24}"
        f"{'1st':>6}{'floor':>7}{'kept':>6}{'now':>6}"
    )
    for r in results:
        u, rel = r["unrelated_top1"], r["related"]
        print(
            f"{r['profile']:<26}{u['p50']:>10.3f}{u['p95']:>10.3f}{u['max']:>10.3f}"
            f"{rel['min']:>8.3f}{rel['p05']:>8.3f}{rel['p50']:>8.3f}"
            f"{r['related_ranked_first']:>6.2f}{r['suggested_floor']:>7.2f}"
            f"{r['related_kept']:>6.2f}{r['current_floor'] or float('nan'):>6.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
