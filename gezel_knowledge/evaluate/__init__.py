"""Search-quality evaluation: judged questions through every search mode, scored and timed.

:func:`evaluate_beir` builds (and caches) the catalog of a BEIR-layout folder's corpus and
evaluates it; :func:`evaluate_catalog` evaluates any opened catalog against
:class:`Judgements` read with :func:`load_judgements`. Both return an :class:`EvalReport`:
nDCG@10, recall@10, recall@100 and MRR@10 per mode, query latency, routed against
every-shard results, and optionally BM25 and exact float baselines on the same documents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezel_knowledge.evaluate.baselines import DenseCheck as DenseCheck
    from gezel_knowledge.evaluate.beir import Judgements as Judgements
    from gezel_knowledge.evaluate.beir import Query as Query
    from gezel_knowledge.evaluate.beir import load_judgements as load_judgements
    from gezel_knowledge.evaluate.report import EvalReport as EvalReport
    from gezel_knowledge.evaluate.report import Latency as Latency
    from gezel_knowledge.evaluate.report import ModeReport as ModeReport
    from gezel_knowledge.evaluate.report import RoutingReport as RoutingReport
    from gezel_knowledge.evaluate.report import Scores as Scores
    from gezel_knowledge.evaluate.run import DEFAULT_K as DEFAULT_K
    from gezel_knowledge.evaluate.run import evaluate_beir as evaluate_beir
    from gezel_knowledge.evaluate.run import evaluate_catalog as evaluate_catalog
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezel_knowledge.evaluate.baselines": ("DenseCheck",),
            "gezel_knowledge.evaluate.beir": (
                "Judgements",
                "Query",
                "load_judgements",
            ),
            "gezel_knowledge.evaluate.report": (
                "EvalReport",
                "Latency",
                "ModeReport",
                "RoutingReport",
                "Scores",
            ),
            "gezel_knowledge.evaluate.run": (
                "DEFAULT_K",
                "evaluate_beir",
                "evaluate_catalog",
            ),
        },
    )
