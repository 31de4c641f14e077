"""Search-quality evaluation: judged questions through every search mode, scored and timed.

:func:`evaluate_beir` builds (and caches) the catalog of a BEIR-layout folder's corpus and
evaluates it; :func:`evaluate_catalog` evaluates any opened catalog against
:class:`Judgements` read with :func:`load_judgements`. Both return an :class:`EvalReport`:
nDCG@10, recall@10, recall@100 and MRR@10 per mode, query latency, routed against
every-shard results, and optionally BM25 and exact float baselines on the same documents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_exports

if TYPE_CHECKING:
    from gezel_knowledge.evaluate.baselines import DenseCheck
    from gezel_knowledge.evaluate.beir import (
        BeirFolder,
        CorpusDocument,
        Judgements,
        Query,
        load_judgements,
        locate_beir,
        read_corpus,
        read_qrels,
        read_queries,
    )
    from gezel_knowledge.evaluate.corpus import (
        CorpusCatalog,
        build_corpus_catalog,
        catalog_document_id,
        default_eval_cache_dir,
    )
    from gezel_knowledge.evaluate.metrics import mrr_at_k, ndcg_at_k, percentile, recall_at_k
    from gezel_knowledge.evaluate.report import (
        EvalReport,
        Latency,
        ModeReport,
        RoutingReport,
        Scores,
    )
    from gezel_knowledge.evaluate.run import (
        DEFAULT_K,
        evaluate_beir,
        evaluate_catalog,
        score_rankings,
    )

_LAZY: dict[str, str] = {
    "DEFAULT_K": "gezel_knowledge.evaluate.run",
    "BeirFolder": "gezel_knowledge.evaluate.beir",
    "CorpusCatalog": "gezel_knowledge.evaluate.corpus",
    "CorpusDocument": "gezel_knowledge.evaluate.beir",
    "DenseCheck": "gezel_knowledge.evaluate.baselines",
    "EvalReport": "gezel_knowledge.evaluate.report",
    "Judgements": "gezel_knowledge.evaluate.beir",
    "Latency": "gezel_knowledge.evaluate.report",
    "ModeReport": "gezel_knowledge.evaluate.report",
    "Query": "gezel_knowledge.evaluate.beir",
    "RoutingReport": "gezel_knowledge.evaluate.report",
    "Scores": "gezel_knowledge.evaluate.report",
    "build_corpus_catalog": "gezel_knowledge.evaluate.corpus",
    "catalog_document_id": "gezel_knowledge.evaluate.corpus",
    "default_eval_cache_dir": "gezel_knowledge.evaluate.corpus",
    "evaluate_beir": "gezel_knowledge.evaluate.run",
    "evaluate_catalog": "gezel_knowledge.evaluate.run",
    "load_judgements": "gezel_knowledge.evaluate.beir",
    "locate_beir": "gezel_knowledge.evaluate.beir",
    "mrr_at_k": "gezel_knowledge.evaluate.metrics",
    "ndcg_at_k": "gezel_knowledge.evaluate.metrics",
    "percentile": "gezel_knowledge.evaluate.metrics",
    "read_corpus": "gezel_knowledge.evaluate.beir",
    "read_qrels": "gezel_knowledge.evaluate.beir",
    "read_queries": "gezel_knowledge.evaluate.beir",
    "recall_at_k": "gezel_knowledge.evaluate.metrics",
    "score_rankings": "gezel_knowledge.evaluate.run",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())

__all__ = [
    "DEFAULT_K",
    "BeirFolder",
    "CorpusCatalog",
    "CorpusDocument",
    "DenseCheck",
    "EvalReport",
    "Judgements",
    "Latency",
    "ModeReport",
    "Query",
    "RoutingReport",
    "Scores",
    "build_corpus_catalog",
    "catalog_document_id",
    "default_eval_cache_dir",
    "evaluate_beir",
    "evaluate_catalog",
    "load_judgements",
    "locate_beir",
    "mrr_at_k",
    "ndcg_at_k",
    "percentile",
    "read_corpus",
    "read_qrels",
    "read_queries",
    "recall_at_k",
    "score_rankings",
]
