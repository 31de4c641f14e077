"""Reference rankings over the same documents as the catalog: BM25 and an exact float scan.

* **BM25** (``bm25s``, the optional ``[eval]`` extra): Lucene BM25 with ``k1 = 1.2``,
  ``b = 0.75`` and English stopwords over each document's title and body, as plain BM25
  baselines are usually run; unstemmed (``bm25``) or with the Snowball stemmer of the catalog's
  language from :mod:`gezel_knowledge.stemming` (``bm25-stemmed``), the map keyword search uses.
* **RRF(60)** (``rrf60``): the stemmed BM25 ranking and the exact dense ranking fused by
  reciprocal rank with ``k = 60``, both lists weighing 1: what a vector database's default
  hybrid search (LanceDB's, for one) computes over the same documents and vectors.
* **Exact dense**: the float vector of every catalog passage, scored against the float query
  vector by brute force, each document ranked by its best passage. It is what two-stage
  retrieval (sign-bit shortlist, int8 rerank, routing, per-shard cut) approximates. The passage
  vectors come from the compiler's vector cache when the catalog was built here; missing ones
  are embedded again with the same embedder. The float vectors are checked against the
  catalog's stored int8 vectors, so a mismatch (another model, other embed inputs) is reported
  rather than measured.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from types import ModuleType

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge._rows import fetch_all
from gezel_knowledge.compiler.passes.chunking import embed_inputs, unit_counter
from gezel_knowledge.compiler.passes.vector_cache import (
    VectorCache,
    default_cache_dir,
    embed_input_key,
)
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import IntegrityFailure
from gezel_knowledge.evaluate.beir import Query
from gezel_knowledge.extras import require_extra
from gezel_knowledge.fusion import reciprocal_rank_fusion
from gezel_knowledge.progress import ProgressEvent, ProgressSink, emit_safely
from gezel_knowledge.reader import Catalog, ShardInfo
from gezel_knowledge.reader._sqlite import open_catalog_database
from gezk.profiles import same_vector_space
from gezk.quantize import quantize_int8

__all__ = [
    "BM25_B",
    "BM25_K1",
    "RRF60_K",
    "DenseCheck",
    "bm25_rankings",
    "catalog_documents",
    "exact_dense_rankings",
    "require_bm25s",
    "rrf_rankings",
]

BM25_K1 = 1.2
BM25_B = 0.75
RRF60_K = 60
"""The RRF constant of the ``rrf60`` baseline (the customary 60 of vector databases)."""
_EMBED_BATCH = 64


def require_bm25s() -> ModuleType:
    """``bm25s``, or :class:`~gezel_knowledge.extras.MissingExtra` naming the ``eval`` extra."""
    return require_extra("bm25s", "eval", "the BM25 baseline")


def catalog_documents(catalog: Catalog) -> list[tuple[str, str]]:
    """Every ``(document id, title)`` of the catalog, in listing order."""
    found: list[tuple[str, str]] = []
    offset = 0
    while True:
        page = catalog.list_documents(limit=10_000, offset=offset)
        found += [(d.id, d.title) for d in page.documents]
        offset += len(page.documents)
        if not page.documents or offset >= page.total:
            return found


def bm25_rankings(
    catalog: Catalog,
    documents: Sequence[tuple[str, str]],
    queries: Sequence[Query],
    k: int,
    *,
    stem: Callable[[str], str] | None = None,
) -> list[tuple[str, ...]]:
    """Each query's best ``k`` documents by BM25 over title and body (zero scores dropped),
    every word (of documents and queries alike) passed through ``stem`` when one is given."""
    bm25s = require_bm25s()
    texts = [f"{title}\n{catalog.body(doc_id)}" for doc_id, title in documents]
    tokenizer = bm25s.tokenization.Tokenizer(stopwords="en", stemmer=stem)
    corpus = tokenizer.tokenize(texts, return_as="ids", show_progress=False)
    retriever = bm25s.BM25(k1=BM25_K1, b=BM25_B)
    retriever.index(corpus, show_progress=False)
    asked = tokenizer.tokenize(
        [q.text for q in queries], update_vocab=False, return_as="ids", show_progress=False
    )
    indexes, scores = retriever.retrieve(asked, k=min(k, len(texts)), show_progress=False)
    return [
        tuple(documents[int(i)][0] for i, s in zip(row, row_scores, strict=True) if s > 0)
        for row, row_scores in zip(indexes, scores, strict=True)
    ]


def rrf_rankings(
    first: Sequence[Sequence[str]], second: Sequence[Sequence[str]], k: int, *, constant: int
) -> list[tuple[str, ...]]:
    """Two rankings per query fused by reciprocal rank (weights 1), best ``k`` kept."""
    return [
        tuple(key for key, _ in reciprocal_rank_fusion([a, b], k=constant)[:k])
        for a, b in zip(first, second, strict=True)
    ]


@dataclass(frozen=True, slots=True)
class DenseCheck:
    """How the exact scan's float vectors relate to the catalog's own int8 vectors."""

    passages: int
    from_cache: int
    embedded: int
    int8_mismatches: int
    """Passages whose quantized float vector differs from the stored one by more than 1."""


@dataclass(frozen=True, slots=True)
class _PassageRow:
    shard_path: str
    chunk_id: int
    document_id: str
    title: str
    heading_path: tuple[str, ...]
    text: str


def _heading_path(raw: str) -> tuple[str, ...]:
    value = json.loads(raw)
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _shard_database(catalog: Catalog, shard: ShardInfo) -> sqlite3.Connection:
    """A shard's database, opened and checked as the reader opens it."""
    path = catalog.root.joinpath(*shard.path.split("/"))
    return open_catalog_database(path, catalog.manifest.index_schema_version)


def _passages(catalog: Catalog) -> Iterator[_PassageRow]:
    """Every passage of every shard (spec section 5.3 ``chunks``), in chunk id order."""
    for shard in catalog.shards:
        conn = _shard_database(catalog, shard)
        try:
            for row in fetch_all(
                conn, "SELECT id, document_id, title, heading_path, text FROM chunks ORDER BY id"
            ):
                yield _PassageRow(
                    shard.path,
                    int(row["id"]),
                    str(row["document_id"]),
                    str(row["title"]),
                    _heading_path(row["heading_path"]),
                    str(row["text"]),
                )
        finally:
            conn.close()


def _stored_int8(catalog: Catalog, rows: Sequence[_PassageRow]) -> NDArray[np.int8]:
    dims = catalog.profile.dimensions
    out = np.zeros((len(rows), dims), dtype=np.int8)
    position = {(r.shard_path, r.chunk_id): i for i, r in enumerate(rows)}
    for shard in catalog.shards:
        conn = _shard_database(catalog, shard)
        try:
            for row in fetch_all(conn, "SELECT chunk_id, v FROM chunk_vectors_int8"):
                i = position.get((shard.path, int(row["chunk_id"])))
                if i is not None:
                    out[i] = np.frombuffer(row["v"], dtype=np.int8)
        finally:
            conn.close()
    return out


def _embed_inputs(catalog: Catalog, embedder: Embedder, rows: Sequence[_PassageRow]) -> list[str]:
    """Each passage's embed input as the compiler formed it; ``rows`` grouped by document."""
    chunking = catalog.manifest.chunking
    counter = unit_counter(chunking, embedder.tokenizer)
    inputs: list[str] = []
    for _, passages in groupby(rows, key=lambda r: r.document_id):
        group = list(passages)
        inputs += embed_inputs(group[0].title, group, counter, chunking)
    return inputs


def _passage_vectors(
    catalog: Catalog,
    embedder: Embedder,
    inputs: Sequence[str],
    progress: ProgressSink | None,
) -> tuple[NDArray[np.float32], int]:
    """Float unit vectors of ``inputs``: from the vector cache, else embedded (and cached)."""
    prefix = embedder.profile.passage_instruction
    keys = [embed_input_key(prefix + text) for text in inputs]
    cache = VectorCache(default_cache_dir(), embedder.profile)
    try:
        found = cache.get_many(keys)
        missing = [i for i, key in enumerate(keys) if key not in found]
        for start in range(0, len(missing), _EMBED_BATCH):
            batch = missing[start : start + _EMBED_BATCH]
            vectors = np.asarray(embedder.embed_passages([inputs[i] for i in batch]), np.float32)
            fresh = {keys[i]: v for i, v in zip(batch, vectors, strict=True)}
            cache.put_many(fresh.items())
            found.update(fresh)
            emit_safely(
                progress,
                ProgressEvent(
                    "eval", "exact dense: embed", start + len(batch), len(missing), "passages"
                ),
            )
    finally:
        cache.close()
    matrix = np.stack([np.asarray(found[key], dtype=np.float32) for key in keys])
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: NDArray[np.float32] = (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)
    return unit, len(missing)


def exact_dense_rankings(
    catalog: Catalog,
    embedder: Embedder,
    queries: Sequence[Query],
    k: int,
    *,
    progress: ProgressSink | None = None,
) -> tuple[list[tuple[str, ...]], DenseCheck]:
    """Each query's best ``k`` documents by the exact float cosine of their best passage."""
    if not same_vector_space(embedder.profile, catalog.profile):
        raise IntegrityFailure(
            f"the embedder produces {embedder.profile.id} vectors; the catalog holds "
            f"{catalog.profile.id}",
            reason="embedder-profile-mismatch",
        )
    rows = sorted(_passages(catalog), key=lambda r: (r.document_id, r.shard_path, r.chunk_id))
    if not rows:
        return [() for _ in queries], DenseCheck(0, 0, 0, 0)
    passages, embedded = _passage_vectors(
        catalog, embedder, _embed_inputs(catalog, embedder, rows), progress
    )
    stored = _stored_int8(catalog, rows).astype(np.int16)
    differs = np.abs(quantize_int8(passages).astype(np.int16) - stored).max(axis=1) > 1
    check = DenseCheck(len(rows), len(rows) - embedded, embedded, int(differs.sum()))

    # Rows are grouped by document, so each document's best passage is one reduceat.
    starts = np.flatnonzero(
        np.fromiter(
            (i == 0 or rows[i - 1].document_id != r.document_id for i, r in enumerate(rows)),
            dtype=np.bool_,
            count=len(rows),
        )
    )
    doc_ids = [rows[int(i)].document_id for i in starts]
    asked = np.asarray(embedder.embed_queries([q.text for q in queries]), dtype=np.float32)
    asked /= np.linalg.norm(asked, axis=1, keepdims=True)
    top = min(k, len(doc_ids))
    rankings: list[tuple[str, ...]] = []
    # Score a block of queries at a time, the cosine block kept near 128 MiB.
    step = max(1, min(256, (1 << 25) // len(rows)))
    for start in range(0, len(queries), step):
        best = np.maximum.reduceat(asked[start : start + step] @ passages.T, starts, axis=1)
        for row in best:
            shortlist = np.argpartition(-row, top - 1)[:top]
            ordered = shortlist[np.lexsort((shortlist, -row[shortlist]))]
            rankings.append(tuple(doc_ids[int(i)] for i in ordered))
    return rankings, check
