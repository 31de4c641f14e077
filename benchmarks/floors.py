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

``--beir FOLDER`` measures on a real corpus instead (a BEIR folder, built into a cached catalog
as ``gezel-knowledge eval`` builds it): for each floor from 0.25 to 0.55, the share of judged
relevant documents whose best passage (every shard scanned, through the reader's two stages)
clears it, and the share of the everyday off-topic questions in
``benchmarks/data/off_topic_questions.json`` whose best passage does. The explicit floor should
keep nearly every relevant passage; the proactive floor should let no off-topic question through.
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
from gezel_knowledge.evaluate import load_judgements
from gezel_knowledge.evaluate.beir import locate_beir
from gezel_knowledge.evaluate.corpus import build_corpus_catalog, catalog_document_id
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezel_knowledge.reader.floors import COSINE_FLOORS, PROACTIVE_COSINE_FLOORS
from gezk.hashembed import hash_embed
from gezk.profiles import embedding_profile
from gezk.quantize import quantize_int8, rerank_int8

CORPUS = Path(__file__).parent / "data" / "floors_corpus.json"
OFF_TOPIC = Path(__file__).parent / "data" / "off_topic_questions.json"
BEIR_FLOORS = (0.25, 0.30, 0.35, 0.40, 0.45, 0.50, 0.55)


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


def _best_cosines(catalog: Catalog, vector: NDArray[np.float32]) -> dict[str, float]:
    """Each document's best passage cosine among the query's deepest two-stage list."""
    every = max(len(catalog.shards), 1)
    best: dict[str, float] = {}
    for p in catalog.vector_passages(vector, shard_budget=every, final_k=4096):
        best.setdefault(p.row.document_id, p.score)
    return best


def measure_beir(
    embedder: Embedder, folder: Path, split: str | None, *, cache_dir: Path | None = None
) -> dict[str, Any]:
    """Relevant passages kept and off-topic questions let through, per floor, on a corpus."""
    beir = locate_beir(folder, split)
    built = build_corpus_catalog(beir.corpus, embedder=embedder, cache_dir=cache_dir)
    judged = load_judgements(beir.queries, beir.qrels, split=beir.split)
    off_topic = json.loads(OFF_TOPIC.read_text(encoding="utf-8"))["questions"]
    with open_catalog(built.path, embedder=embedder) as catalog:
        relevant: list[float] = []
        vectors = embedder.embed_queries([q.text for q in judged.queries])
        for query, vector in zip(judged.queries, vectors, strict=True):
            best = _best_cosines(catalog, vector)
            wanted = sorted(catalog_document_id(d) for d in judged.relevant(query.id))
            relevant += [best.get(d, -1.0) for d in wanted]
        unrelated = [
            max(_best_cosines(catalog, v).values(), default=-1.0)
            for v in embedder.embed_queries(off_topic)
        ]
    rows = [
        {
            "floor": f,
            "relevant_kept": float(np.mean([v >= f for v in relevant])),
            "off_topic_with_a_hit": float(np.mean([v >= f for v in unrelated])),
        }
        for f in BEIR_FLOORS
    ]
    return {
        "profile": embedder.profile.id,
        "corpus": str(folder),
        "relevant_documents": len(relevant),
        "off_topic_questions": len(unrelated),
        "off_topic_best": _summary(unrelated),
        "floors": rows,
        "current_floor": COSINE_FLOORS.get(embedder.profile.id),
        "current_proactive_floor": PROACTIVE_COSINE_FLOORS.get(embedder.profile.id),
    }


def _print_beir(result: dict[str, Any]) -> None:
    print(
        f"{result['profile']} on {result['corpus']}: {result['relevant_documents']} judged "
        f"relevant documents, {result['off_topic_questions']} off-topic questions (best cosine "
        f"max {result['off_topic_best']['max']:.3f}); floors now {result['current_floor']} "
        f"(explicit), {result['current_proactive_floor']} (proactive)"
    )
    print(f"{'floor':>6}{'relevant kept':>15}{'off-topic with a hit':>22}")
    for row in result["floors"]:
        print(
            f"{row['floor']:>6.2f}{row['relevant_kept']:>15.3f}{row['off_topic_with_a_hit']:>22.3f}"
        )


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
    parser.add_argument("--beir", type=Path, help="measure on this BEIR folder instead")
    parser.add_argument("--split", help="the BEIR folder's qrels split")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if args.beir is not None:
        model = (
            load_embedder(embedding_profile(args.profile)) if args.profile else default_embedder()
        )
        measured = measure_beir(model, args.beir, args.split)
        if args.json:
            print(json.dumps(measured, indent=2))
        else:
            _print_beir(measured)
        return 0
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
