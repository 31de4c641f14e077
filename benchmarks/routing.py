"""Routing budgets against recall: routed search vs a scan of every shard on a clustered corpus.

A catalog of many shards answers a vector query from the few shards whose routing centroids
are nearest (six for an explicit search, three proactively); a relevant passage in a shard it
does not visit is missed. This benchmark measures how much, on a corpus whose passages form
clusters, as real references do (topics with their own vocabulary):

- ``--clusters`` groups of documents, each written mostly in its own made-up vocabulary (a
  quarter of the words from a vocabulary all clusters share); the documents' topics cut across
  the clusters, as a catalog's table of contents often cuts across what its pages are about;
- embedded by a bag-of-words embedder (each word a fixed ``test-hash-embed@1`` direction, a text
  the normalised sum of its words), so texts that share words are near, deterministically and
  without a model;
- built twice with a small ``--shard-target``: shards filled in table-of-contents order
  (``topic``), and by k-means over document vectors (``semantic``);
- questions: a few words drawn from one passage of a document, which is the one relevant
  document.

The catalog is a scale model: shards of a few hundred passages instead of 200,000, with as many
routing centroids as a full shard gets (the spec's one per 12,500 chunks would give these shards
one each; ``--centroid-chunks`` sets it, ``--centroid-chunks 12500`` keeps the spec's rate).

For each fill it runs the evaluation harness (``gezel_knowledge.evaluate.evaluate_catalog``,
vector mode) for the explicit budget's routed-against-every-shard report, then sweeps the shard
budget and prints recall@10 and recall@100 per budget with the share of the every-shard top 10
each budget returns.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.compiler import BuildOptions, compile_catalog
from gezel_knowledge.compiler.passes import kmeans
from gezel_knowledge.embedders import Tokenizer
from gezel_knowledge.embedders.base import WhitespaceTokenizer
from gezel_knowledge.evaluate import Judgements, Query, evaluate_catalog
from gezel_knowledge.evaluate.run import score_rankings
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezk.hashembed import hash_embed
from gezk.profiles import TEST_HASH_EMBED_1, EmbeddingProfile, ModelRef

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synthetic import vocabulary  # the benchmarks' shared word maker

CATALOG_YAML = """\
id: clustered
version: "1.0.0"
name: Clustered corpus
language: en
publisher: {id: bench, name: Benchmark}
license: {name: CC0 1.0, spdx: CC0-1.0, attributionRequired: false}
"""

BOW_PROFILE = dataclasses.replace(
    TEST_HASH_EMBED_1,
    id="bench-bag-of-words@1",
    model=ModelRef(repo="bench/bag-of-words", revision="benchmark"),
)
_WORD = re.compile(r"\w+")


class BagOfWordsEmbedder:
    """A text's vector is the normalised sum of its words' ``test-hash-embed@1`` vectors."""

    def __init__(self) -> None:
        self._tokenizer = WhitespaceTokenizer()
        self._words: dict[str, NDArray[np.float32]] = {}

    @property
    def profile(self) -> EmbeddingProfile:
        return BOW_PROFILE

    @property
    def tokenizer(self) -> Tokenizer:
        return self._tokenizer

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self._embed(texts)

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        out = np.zeros((len(texts), BOW_PROFILE.dimensions), dtype=np.float32)
        for i, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            new = sorted({w for w in words if w not in self._words})
            if new:
                self._words.update(zip(new, hash_embed(new), strict=True))
            total = np.sum([self._words[w] for w in words], axis=0) if words else out[i] + 1.0
            out[i] = total / np.linalg.norm(total)
        return out


@dataclasses.dataclass(frozen=True)
class Corpus:
    """The generated document list and the questions about it."""

    source: Path
    judgements: Judgements
    chunks_hint: int


def write_corpus(folder: Path, args: argparse.Namespace) -> Corpus:
    """The clustered document list, catalog.yaml, README and licence, and the questions."""
    rng = random.Random(args.seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "catalog.yaml").write_text(CATALOG_YAML, encoding="utf-8")
    (folder / "README.md").write_text("# Clustered\n\nA benchmark corpus.\n", encoding="utf-8")
    (folder / "LICENSE").write_text("CC0 1.0 Universal\n", encoding="utf-8")
    words = vocabulary(rng, args.clusters * args.cluster_words + args.shared_words)
    rng.shuffle(words)
    shared = words[: args.shared_words]
    own = [
        words[args.shared_words + c * args.cluster_words :][: args.cluster_words]
        for c in range(args.clusters)
    ]
    queries: list[Query] = []
    qrels: dict[str, dict[str, int]] = {}
    lines = []
    for c in range(args.clusters):
        for d in range(args.documents):
            doc_id = f"c{c:02d}-d{d:03d}"
            sections = []
            for s in range(args.sections):
                picks = [
                    rng.choice(shared) if rng.random() < 0.25 else rng.choice(own[c])
                    for _ in range(args.words)
                ]
                sections.append(f"## Part {s + 1}\n\n" + " ".join(picks) + ".\n")
            topic = f"topic-{(c * args.documents + d) % args.topics:02d}"
            lines.append(
                {
                    "id": doc_id,
                    "title": f"Document {c}-{d}",
                    "topicPath": [topic],
                    "markdown": "\n".join(sections),
                }
            )
            if d < args.queries:
                section = rng.choice(sections).split("\n\n", 1)[1]
                text = " ".join(rng.sample(section.rstrip(".\n").split(), args.query_words))
                queries.append(Query(f"q-{doc_id}", text))
                qrels[f"q-{doc_id}"] = {doc_id: 1}
    source = folder / "docs.jsonl"
    with source.open("w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line) + "\n")
    return Corpus(source, Judgements(tuple(queries), qrels), len(lines) * args.sections)


def _rankings(catalog: Catalog, queries: Sequence[Query], budget: int) -> list[tuple[str, ...]]:
    return [
        tuple(
            hit.document_id
            for hit in catalog.search(q.text, mode="vector", k=100, shard_budget=budget).hits
        )
        for q in queries
    ]


def _overlap(routed: list[tuple[str, ...]], every: list[tuple[str, ...]]) -> float:
    pairs = zip(routed, every, strict=True)
    shares = [len(set(r[:10]) & set(e[:10])) / max(1, len(e[:10])) for r, e in pairs]
    return sum(shares) / len(shares)


def measure(corpus: Corpus, fill: str, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Build the corpus with ``fill`` and score every budget."""
    embedder = BagOfWordsEmbedder()
    out = work / f"{fill}.gezk"
    kmeans.CENTROID_CHUNKS_PER = args.centroid_chunks
    started = time.perf_counter()
    result = compile_catalog(
        corpus.source,
        out,
        BuildOptions(
            embedder=embedder,
            created_at="2026-12-01T00:00:00Z",
            shard_fill=fill,  # type: ignore[arg-type]
            shard_target=args.shard_target,
            shard_max=args.shard_target * 2,
            jobs=1,
        ),
    )
    build_seconds = time.perf_counter() - started
    catalog = open_catalog(out, embedder=embedder)
    try:
        report = evaluate_catalog(catalog, corpus.judgements, modes=("vector",))
        shards = len(catalog.shards)
        every = _rankings(catalog, corpus.judgements.queries, shards)
        budgets = sorted({b for b in args.budgets if b < shards} | {shards})
        sweep = []
        for budget in budgets:
            routed = _rankings(catalog, corpus.judgements.queries, budget)
            scores = score_rankings(routed, corpus.judgements.queries, corpus.judgements.qrels)
            sweep.append(
                {
                    "budget": budget,
                    "recall_at_10": scores.recall_at_10,
                    "recall_at_100": scores.recall_at_100,
                    "overlap_at_10": _overlap(routed, every),
                }
            )
    finally:
        catalog.close()
    (vector,) = report.results
    routing = vector.routing
    return {
        "fill": fill,
        "documents": result.documents,
        "chunks": result.chunks,
        "shards": result.shards,
        "centroids": result.manifest.router.total_centroids,
        "build_seconds": build_seconds,
        "explicit_budget": report.shard_budget,
        "routed_recall_at_10": vector.scores.recall_at_10,
        "every_shard_recall_at_10": None if routing is None else routing.every_shard.recall_at_10,
        "routed_overlap_at_10": None if routing is None else routing.overlap_at_10,
        "budgets": sweep,
    }


def main(argv: list[str] | None = None) -> int:
    """Generate, build with both fills, sweep the budgets, print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clusters", type=int, default=32, help="clusters of documents")
    parser.add_argument("--documents", type=int, default=40, help="documents per cluster")
    parser.add_argument("--sections", type=int, default=3, help="passages per document")
    parser.add_argument("--words", type=int, default=60, help="words per passage")
    parser.add_argument("--cluster-words", type=int, default=150, help="vocabulary per cluster")
    parser.add_argument("--shared-words", type=int, default=400, help="vocabulary all share")
    parser.add_argument("--topics", type=int, default=10, help="table-of-contents topics")
    parser.add_argument("--queries", type=int, default=4, help="questions per cluster")
    parser.add_argument("--query-words", type=int, default=6, help="words per question")
    parser.add_argument("--shard-target", type=int, default=320, help="chunks per shard")
    parser.add_argument(
        "--centroid-chunks",
        type=int,
        help="chunks per routing centroid (default: a full shard gets the 16 centroids a "
        "200,000-chunk shard gets)",
    )
    parser.add_argument(
        "--budgets",
        default="1,2,3,6",
        help="comma-separated shard budgets (every shard is always added)",
    )
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    args.budgets = [int(b) for b in args.budgets.split(",")]
    if args.centroid_chunks is None:
        args.centroid_chunks = max(1, args.shard_target * 12_500 // 200_000)
    with tempfile.TemporaryDirectory(prefix="gezk-routing-bench-") as tmp:
        corpus = write_corpus(Path(tmp) / "src", args)
        runs = [measure(corpus, fill, args, Path(tmp)) for fill in ("topic", "semantic")]
    report = {
        "queries": len(corpus.judgements.queries),
        "centroid_chunks": args.centroid_chunks,
        "runs": runs,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"routed vs every-shard vector search, {report['queries']} questions, "
        f"{runs[0]['documents']:,} documents, {runs[0]['chunks']:,} passages in "
        f"{runs[0]['shards']} shards ({args.clusters} clusters), a centroid per "
        f"{args.centroid_chunks} chunks"
    )
    print(f"{'fill':>9} {'budget':>7} {'recall@10':>10} {'recall@100':>11} {'top-10 kept':>12}")
    for run in runs:
        for row in run["budgets"]:
            label = "all" if row["budget"] == run["shards"] else str(row["budget"])
            print(
                f"{run['fill']:>9} {label:>7} {row['recall_at_10']:>10.3f} "
                f"{row['recall_at_100']:>11.3f} {row['overlap_at_10']:>12.3f}"
            )
        if run["every_shard_recall_at_10"] is not None:
            print(
                f"{'':>9} evaluate_catalog, budget {run['explicit_budget']}: routed recall@10 "
                f"{run['routed_recall_at_10']:.3f}, every shard "
                f"{run['every_shard_recall_at_10']:.3f}, top-10 kept "
                f"{run['routed_overlap_at_10']:.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
