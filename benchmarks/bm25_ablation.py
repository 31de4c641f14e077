"""BM25 over a BEIR folder's documents with stemming and query-term counts switched one at a
time: what each is worth on its own (docs/quality.md, issue 23).

Run on demand, never by the test suite (needs the ``[eval]`` extra)::

    python benchmarks/bm25_ablation.py FOLDER --split test

The four rankings are bm25s's Lucene BM25 (``k1 = 1.2``, ``b = 0.75``, English stopwords) over
each document's title and text, as ``eval --baseline bm25`` ranks them: with and without the
Snowball stems of :mod:`gezel_knowledge.stemming`, and with each question's words counted as
often as it says them (BM25's query side) or once each.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gezel_knowledge.evaluate.baselines import BM25_B, BM25_K1, require_bm25s
from gezel_knowledge.evaluate.beir import load_judgements, locate_beir, read_corpus
from gezel_knowledge.evaluate.metrics import ndcg_at_k
from gezel_knowledge.stemming import stemmer_for


def ablation(folder: Path, split: str | None, language: str) -> dict[str, float]:
    """Mean nDCG@10 of BM25 stemmed or not, with query-term counts or without."""
    bm25s = require_bm25s()
    located = locate_beir(folder, split)
    judgements = load_judgements(located.queries, located.qrels, split=located.split)
    documents = list(read_corpus(located.corpus))
    ids = [d.id for d in documents]
    texts = [f"{d.title or d.id}\n{d.text}" for d in documents]
    out: dict[str, float] = {}
    for stemmed in (False, True):
        stem = stemmer_for(language) if stemmed else None
        tokenizer = bm25s.tokenization.Tokenizer(stopwords="en", stemmer=stem)
        retriever = bm25s.BM25(k1=BM25_K1, b=BM25_B)
        retriever.index(
            tokenizer.tokenize(texts, return_as="ids", show_progress=False), show_progress=False
        )
        asked = tokenizer.tokenize(
            [q.text for q in judgements.queries],
            update_vocab=False,
            return_as="ids",
            show_progress=False,
        )
        for counted in (True, False):
            total = 0.0
            for query, tokens in zip(judgements.queries, asked, strict=True):
                terms = list(tokens) if counted else list(dict.fromkeys(tokens))
                if not terms:
                    continue
                rows, scores = retriever.retrieve(
                    [terms], k=min(100, len(ids)), show_progress=False
                )
                ranking = [ids[int(i)] for i, s in zip(rows[0], scores[0], strict=True) if s > 0]
                total += ndcg_at_k(ranking, judgements.qrels[query.id], 10)
            name = f"{'stemmed' if stemmed else 'unstemmed'}, {'counts' if counted else 'once'}"
            out[name] = total / len(judgements.queries)
    return out


def main() -> None:
    """Parse the command line and print the four figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--split")
    parser.add_argument("--language", default="en")
    args = parser.parse_args()
    result = ablation(args.folder, args.split, args.language)
    print(json.dumps({k: round(v, 3) for k, v in result.items()}, indent=2))


if __name__ == "__main__":
    main()
