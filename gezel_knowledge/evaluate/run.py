"""Run judged questions through every search mode of a catalog and score the rankings.

Each question is searched once per mode as a user would search it (the query embedded by the
catalog's embedder, routing within the explicit-search budget), asking for ``k`` documents; the
wall-clock and process-CPU time of each call is kept. When the catalog has more shards than the
budget, semantic modes run a second time scanning every shard, and the report sets routed
against every-shard results. Optional baselines rank the same documents by BM25 and by an exact
float scan.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from gezel_knowledge.compiler import ShardFill
from gezel_knowledge.embedders import default_embedder
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.evaluate.baselines import (
    RRF60_K,
    DenseCheck,
    bm25_rankings,
    catalog_documents,
    exact_dense_rankings,
    require_bm25s,
    rrf_rankings,
)
from gezel_knowledge.evaluate.beir import Judgements, Query, load_judgements, locate_beir
from gezel_knowledge.evaluate.corpus import (
    build_corpus_catalog,
    catalog_document_id,
    eval_cache_folder,
)
from gezel_knowledge.evaluate.metrics import mrr_at_k, ndcg_at_k, percentile, recall_at_k
from gezel_knowledge.evaluate.report import (
    EvalReport,
    Kernels,
    Latency,
    ModeReport,
    RoutingReport,
    Scores,
)
from gezel_knowledge.evaluate.searching import (
    HYBRID,
    MODES,
    ROUTING_BUDGET,
    SEMANTIC_MODES,
    search_documents,
)
from gezel_knowledge.fusion import DEFAULT_FUSION, FusionPreset, fusion_preset
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.progress import ProgressEvent, ProgressSink, emit_safely, metered
from gezel_knowledge.reader import Catalog
from gezel_knowledge.reader.vectors import compiled_kernels_available
from gezel_knowledge.stemming import stemmer_for

__all__ = ["BASELINES", "DEFAULT_K", "evaluate_beir", "evaluate_catalog", "score_rankings"]

DEFAULT_K = 100
"""Documents asked of each search: enough for recall@100."""

BASELINES: tuple[str, ...] = ("bm25", "bm25-stemmed", "exact-dense", "rrf60")
"""The reference rankings ``eval`` can add, by name."""

Rankings = list[tuple[str, ...]]


def score_rankings(
    rankings: Sequence[Sequence[str]],
    queries: Sequence[Query],
    qrels: Mapping[str, Mapping[str, int]],
) -> Scores:
    """Mean nDCG@10, recall@10, recall@100 and MRR@10 of ``rankings`` (one per query)."""
    if len(rankings) != len(queries) or not queries:
        raise InvalidInput(
            "one ranking per query, and at least one query", reason="invalid-argument"
        )
    n = len(queries)
    grades = [qrels.get(q.id, {}) for q in queries]
    pairs = list(zip(rankings, grades, strict=True))
    return Scores(
        ndcg_at_10=sum(ndcg_at_k(r, g, 10) for r, g in pairs) / n,
        recall_at_10=sum(recall_at_k(r, g, 10) for r, g in pairs) / n,
        recall_at_100=sum(recall_at_k(r, g, 100) for r, g in pairs) / n,
        mrr_at_10=sum(mrr_at_k(r, g, 10) for r, g in pairs) / n,
    )


def _overlap(routed: Rankings, every: Rankings, k: int) -> float:
    shares = [
        len(set(r[:k]) & set(e[:k])) / len(e[:k]) if e[:k] else 1.0
        for r, e in zip(routed, every, strict=True)
    ]
    return sum(shares) / len(shares)


def _warm_up(
    catalog: Catalog, query: Query, *, mode: str, k: int, fusion: FusionPreset | None = None
) -> Kernels | None:
    """Search every shard twice, untimed, and wait for the compiled kernels; return the
    kernels the timed searches will run (``None`` when they search no vectors).

    A shard's first search loads its sign bits; its second turns it hot (its int8 rows read
    in, the compiled kernels prepared on another thread). Timing only after both, and after the
    kernels are ready, keeps those one-off costs and a mid-run switch of kernels out of the
    figures.
    """
    found = None
    for _ in range(2):
        found = search_documents(
            catalog, query.text, mode=mode, k=k, every_shard=True, fusion=fusion
        )
    if mode not in SEMANTIC_MODES or found is None or found.semantic_unavailable is not None:
        return None
    return "compiled" if compiled_kernels_available() else "numpy"


def _search_all(
    catalog: Catalog,
    queries: Sequence[Query],
    *,
    mode: str,
    k: int,
    every_shard: bool,
    kernels: Kernels | None,
    progress: ProgressSink | None,
    fusion: FusionPreset | None = None,
    step: str | None = None,
) -> tuple[Rankings, Latency, str | None]:
    """Every query through one mode, each call timed (after :func:`_warm_up`)."""
    name = step or mode
    step = f"{name} (every shard)" if every_shard else name
    rankings: Rankings = []
    wall: list[float] = []
    cpu: list[float] = []
    unavailable: str | None = None
    for i, query in enumerate(queries):
        w, c = time.perf_counter(), time.process_time()
        found = search_documents(
            catalog, query.text, mode=mode, k=k, every_shard=every_shard, fusion=fusion
        )
        wall.append(1000 * (time.perf_counter() - w))
        cpu.append(1000 * (time.process_time() - c))
        rankings.append(found.documents)
        unavailable = unavailable or found.semantic_unavailable
        emit_safely(progress, ProgressEvent("eval", step, i + 1, len(queries), "queries"))
    latency = Latency(
        percentile(wall, 50),
        percentile(wall, 95),
        percentile(cpu, 50),
        percentile(cpu, 95),
        kernels,
    )
    return rankings, latency, unavailable


def _report(
    name: str,
    kind: Literal["mode", "baseline"],
    rankings: Rankings,
    judgements: Judgements,
    wanted: int,
    *,
    latency: Latency | None = None,
    routing: RoutingReport | None = None,
    note: str | None = None,
) -> ModeReport:
    returned = [len(r) for r in rankings]
    per_query = {
        q.id: ndcg_at_k(r, judgements.qrels.get(q.id, {}), 10)
        for q, r in zip(judgements.queries, rankings, strict=True)
    }
    return ModeReport(
        name=name,
        kind=kind,
        scores=score_rankings(rankings, judgements.queries, judgements.qrels),
        mean_documents=sum(returned) / len(returned),
        short_queries=sum(1 for n in returned if n < wanted),
        latency=latency,
        routing=routing,
        note=note,
        per_query=MappingProxyType(per_query),
    )


def _with_catalog_ids(judgements: Judgements) -> Judgements:
    """The judgements with document ids as the catalog spells them."""
    qrels = {
        q: MappingProxyType({catalog_document_id(d): g for d, g in grades.items()})
        for q, grades in judgements.qrels.items()
    }
    return replace(judgements, qrels=MappingProxyType(qrels))


def _check_options(
    modes: Sequence[str] | None,
    k: int,
    *,
    baselines: Sequence[str] = (),
    fusions: Sequence[str] = (),
) -> tuple[tuple[str, ...], tuple[FusionPreset, ...]]:
    """The modes to run and the extra fusion presets; refuses bad options before anything
    slow starts."""
    chosen = tuple(modes) if modes is not None else MODES
    unknown = [m for m in chosen if m not in MODES]
    if unknown:
        raise InvalidInput(
            f"unknown search mode {unknown[0]!r} (modes: {', '.join(MODES)})",
            reason="invalid-mode",
            subject=unknown[0],
        )
    strange = [b for b in baselines if b not in BASELINES]
    if strange:
        raise InvalidInput(
            f"unknown baseline {strange[0]!r} (baselines: {', '.join(BASELINES)})",
            reason="invalid-baseline",
            subject=strange[0],
        )
    presets = tuple(fusion_preset(name) for name in dict.fromkeys(fusions))
    if k < 100:
        raise InvalidInput("k must be at least 100 for recall@100", reason="invalid-limit")
    if {"bm25", "bm25-stemmed", "rrf60"} & set(baselines):
        require_bm25s()
    return chosen, presets


def _baseline_names(baselines: Sequence[str], *, bm25: bool, exact_dense: bool) -> tuple[str, ...]:
    """The baselines asked for, by name or by the two older flags, in :data:`BASELINES` order."""
    wanted = (
        set(baselines) | ({"bm25"} if bm25 else set()) | ({"exact-dense"} if exact_dense else set())
    )
    return tuple(b for b in BASELINES if b in wanted) + tuple(
        b for b in dict.fromkeys(baselines) if b not in BASELINES
    )


def _run_mode(
    catalog: Catalog,
    mapped: Judgements,
    *,
    mode: str,
    k: int,
    wanted: int,
    populated: int,
    sink: ProgressSink | None,
    fusion: FusionPreset | None = None,
    name: str | None = None,
) -> ModeReport:
    """One mode (hybrid with ``fusion`` when given) over every question, routed and, where
    routing matters, over every shard too."""
    kernels = _warm_up(catalog, mapped.queries[0], mode=mode, k=k, fusion=fusion)
    step = name or mode
    rankings, latency, unavailable = _search_all(
        catalog,
        mapped.queries,
        mode=mode,
        k=k,
        every_shard=False,
        kernels=kernels,
        progress=sink,
        fusion=fusion,
        step=step,
    )
    routing = None
    if mode in SEMANTIC_MODES and unavailable is None and populated > ROUTING_BUDGET:
        every, _, _ = _search_all(
            catalog,
            mapped.queries,
            mode=mode,
            k=k,
            every_shard=True,
            kernels=kernels,
            progress=sink,
            fusion=fusion,
            step=step,
        )
        routing = RoutingReport(
            shards=populated,
            budget=ROUTING_BUDGET,
            every_shard=score_rankings(every, mapped.queries, mapped.qrels),
            overlap_at_10=_overlap(rankings, every, 10),
            overlap_at_100=_overlap(rankings, every, 100),
        )
    note = None if unavailable is None else f"semantic search unavailable: {unavailable}"
    if fusion is not None:
        note = f"fusion preset {fusion.name}" + (f"; {note}" if note else "")
    return _report(
        step, "mode", rankings, mapped, wanted, latency=latency, routing=routing, note=note
    )


def evaluate_catalog(
    catalog: Catalog,
    judgements: Judgements,
    *,
    modes: Sequence[str] | None = None,
    k: int = DEFAULT_K,
    bm25: bool = False,
    exact_dense: bool = False,
    baselines: Sequence[str] = (),
    fusions: Sequence[str] = (),
    progress: ProgressSink | None = None,
) -> EvalReport:
    """Score every search mode of ``catalog`` (or ``modes``) and the asked-for baselines.

    The catalog's ``embedder`` embeds queries; without one the semantic modes say why they
    found nothing. Judged document ids that are not valid document ids are mapped as
    :func:`~gezel_knowledge.evaluate.corpus.catalog_document_id` maps them when building.
    ``fusions`` names fusion presets (:data:`~gezel_knowledge.fusion.FUSION_PRESETS`) to run
    hybrid mode with once more each, reported as ``hybrid:<preset>``; ``baselines`` names
    reference rankings of :data:`BASELINES` (``bm25`` and ``exact_dense`` are the older flags
    for two of them).
    """
    names = _baseline_names(baselines, bm25=bm25, exact_dense=exact_dense)
    chosen, presets = _check_options(modes, k, baselines=names, fusions=fusions)
    sink = metered(progress)  # stamps each step's rate and time left on its events
    mapped = _with_catalog_ids(judgements)
    documents = catalog_documents(catalog)
    held = {d for d, _ in documents}
    missing = {d for grades in mapped.qrels.values() for d, g in grades.items() if g > 0} - held
    populated = sum(1 for s in catalog.shards if s.chunk_count > 0)
    wanted = min(k, len(documents))
    results: list[ModeReport] = []
    for mode in chosen:
        results.append(
            _run_mode(
                catalog, mapped, mode=mode, k=k, wanted=wanted, populated=populated, sink=sink
            )
        )
    for preset in presets:
        results.append(
            _run_mode(
                catalog,
                mapped,
                mode=HYBRID,
                k=k,
                wanted=wanted,
                populated=populated,
                sink=sink,
                fusion=preset,
                name=f"{HYBRID}:{preset.name}",
            )
        )
    extra, check = _baselines(catalog, documents, mapped, names, k=k, wanted=wanted, sink=sink)
    results += extra
    return EvalReport(
        catalog=f"{catalog.publisher_id}/{catalog.id}",
        profile=catalog.profile.id,
        documents=len(documents),
        passages=sum(s.chunk_count for s in catalog.shards),
        shards=populated,
        shard_budget=ROUTING_BUDGET,
        queries=len(mapped.queries),
        k=k,
        judged_missing=len(missing),
        results=tuple(results),
        split=judgements.split,
        catalog_path=str(catalog.root),
        dense_check=check,
        default_fusion=DEFAULT_FUSION.name,
    )


def _baselines(
    catalog: Catalog,
    documents: Sequence[tuple[str, str]],
    mapped: Judgements,
    names: Sequence[str],
    *,
    k: int,
    wanted: int,
    sink: ProgressSink | None,
) -> tuple[list[ModeReport], DenseCheck | None]:
    """The named baselines, each ranking computed once even when RRF(60) reuses it."""
    results: list[ModeReport] = []
    stem = stemmer_for(catalog.manifest.language)
    stemmed: Rankings | None = None
    dense: ModeReport | None = None
    dense_rankings: Rankings | None = None
    check: DenseCheck | None = None

    def bm25_stemmed() -> Rankings:
        nonlocal stemmed
        if stemmed is None:
            stemmed = bm25_rankings(catalog, documents, mapped.queries, k, stem=stem)
        return stemmed

    for name in names:
        step = "exact dense" if name == "exact-dense" else name  # the step's name before rrf60
        emit_safely(sink, ProgressEvent("eval", step, 0, 1, "baselines"))
        if name == "bm25":
            ranked = bm25_rankings(catalog, documents, mapped.queries, k)
            results.append(
                _report(name, "baseline", ranked, mapped, wanted, note="bm25s k1=1.2 b=0.75")
            )
        elif name == "bm25-stemmed":
            note = f"bm25s k1=1.2 b=0.75, Snowball {catalog.manifest.language} stems"
            if stem is None:
                note = f"bm25s k1=1.2 b=0.75, no stemmer for {catalog.manifest.language!r}"
            results.append(_report(name, "baseline", bm25_stemmed(), mapped, wanted, note=note))
        elif name in ("exact-dense", "rrf60"):
            if dense is None:
                dense, check, dense_rankings = _exact_dense(catalog, mapped, k, wanted, sink)
            if name == "exact-dense":
                results.append(dense)
            else:
                assert dense_rankings is not None
                fused = rrf_rankings(bm25_stemmed(), dense_rankings, k, constant=RRF60_K)
                note = "RRF k=60 of bm25-stemmed and exact-dense, weights 1"
                results.append(_report(name, "baseline", fused, mapped, wanted, note=note))
        emit_safely(sink, ProgressEvent("eval", step, 1, 1, "baselines"))
    return results, check


def _exact_dense(
    catalog: Catalog, mapped: Judgements, k: int, wanted: int, sink: ProgressSink | None
) -> tuple[ModeReport, DenseCheck | None, Rankings]:
    embedder = catalog.embedder
    if embedder is None:
        empty: Rankings = [() for _ in mapped.queries]
        note = "exact dense needs the catalog's query embedder, and none was available"
        return _report("exact-dense", "baseline", empty, mapped, wanted, note=note), None, empty
    ranked, check = exact_dense_rankings(catalog, embedder, mapped.queries, k, progress=sink)
    note = "float passage vectors, best passage per document"
    if check.int8_mismatches:
        note += (
            f"; {check.int8_mismatches} of {check.passages} passages differ from the catalog's "
            "int8 vectors (the catalog was embedded otherwise)"
        )
    return _report("exact-dense", "baseline", ranked, mapped, wanted, note=note), check, ranked


def evaluate_beir(
    folder: Path | str,
    *,
    split: str | None = None,
    embedder: Embedder | None = None,
    queries: Path | str | None = None,
    qrels: Path | str | None = None,
    cache_dir: Path | str | None = None,
    shard_target: int | None = None,
    shard_fill: ShardFill = "semantic",
    rebuild: bool = False,
    modes: Sequence[str] | None = None,
    k: int = DEFAULT_K,
    bm25: bool = False,
    exact_dense: bool = False,
    baselines: Sequence[str] = (),
    fusions: Sequence[str] = (),
    progress: ProgressSink | None = None,
) -> EvalReport:
    """Build (or reuse) the catalog of a BEIR folder's corpus and evaluate it on ``split``.

    ``embedder`` builds the catalog and embeds queries (the default embedder when ``None``);
    ``queries`` and ``qrels`` replace the folder's files. The catalog is cached in
    ``cache_dir`` (``<GEZEL_HOME>/cache/eval`` by default); ``shard_target`` and
    ``shard_fill`` shape its shards (see :func:`build_corpus_catalog`).
    """
    located = locate_beir(folder, split)
    judgements = load_judgements(
        queries or located.queries, qrels or located.qrels, split=located.split
    )
    _check_options(
        modes,
        k,
        baselines=_baseline_names(baselines, bm25=bm25, exact_dense=exact_dense),
        fusions=fusions,
    )
    eval_cache_folder(cache_dir)  # refused before a model loads or a corpus is read
    if embedder is None:
        embedder = default_embedder()
    built = build_corpus_catalog(
        located.corpus,
        embedder=embedder,
        cache_dir=cache_dir,
        shard_target=shard_target,
        shard_fill=shard_fill,
        rebuild=rebuild,
        progress=progress,  # the build meters its own events
    )
    with open_catalog(built.path, embedder=embedder) as catalog:
        report = evaluate_catalog(
            catalog,
            judgements,
            modes=modes,
            k=k,
            bm25=bm25,
            exact_dense=exact_dense,
            baselines=baselines,
            fusions=fusions,
            progress=progress,
        )
    return replace(report, catalog_path=str(built.path), cached=built.cached)
