"""A BEIR corpus as a catalog: corpus.jsonl -> a JSON Lines document list -> ``compile_catalog``.

Each corpus line becomes one document in a single topic: its title (the corpus id when the
title is empty), its text as the Markdown body. Corpus ids that are not valid document ids
(spec section 2) are replaced by ``beir-`` and a digest, the same way when qrels are read, so
judgements still name the right documents. The built archive is cached, keyed by a digest of
the corpus bytes, the embedding profile, the sharding and the library version, in
``<GEZEL_HOME>/cache/eval`` unless the caller names a folder; passage vectors go to the
compiler's shared vector cache, so a rebuild (another shard target, a new library version)
embeds nothing twice.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gezel_knowledge._files import check_output_folder, open_input
from gezel_knowledge._version import __version__
from gezel_knowledge.compiler import (
    DEFAULT_SHARD_MAX,
    DEFAULT_SHARD_TARGET,
    BuildOptions,
    ShardFill,
    compile_catalog,
    default_cache_dir,
)
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.evaluate.beir import read_corpus
from gezel_knowledge.home import gezel_home
from gezel_knowledge.progress import ProgressSink
from gezk.ids import is_document_id
from gezk.jcs import canonicalize

__all__ = [
    "CorpusCatalog",
    "build_corpus_catalog",
    "catalog_document_id",
    "corpus_cache_key",
    "default_eval_cache_dir",
    "eval_cache_folder",
    "write_document_list",
]

_FORMAT = 1
"""Bumped when the corpus-to-document conversion changes (it is part of the cache key)."""

_CREATED_AT = "2000-01-01T00:00:00Z"
_TOPIC = "corpus"

_CATALOG_YAML = """\
id: eval-corpus
version: "1"
name: {name}
description: An evaluation corpus compiled by gezel-knowledge eval.
language: en
publisher: {{id: gezel-eval, name: gezel-knowledge eval}}
license: {{name: the corpus's own licence, attributionRequired: false}}
topics: [{{id: {topic}, name: Corpus}}]
"""


def default_eval_cache_dir() -> Path:
    """``<GEZEL_HOME>/cache/eval``: where built evaluation catalogs are kept."""
    return gezel_home() / "cache" / "eval"


def eval_cache_folder(cache_dir: Path | str | None) -> Path:
    """The folder built catalogs are kept in (``cache_dir``, else the default), refused with
    :class:`InvalidInput` now if it cannot be one."""
    folder = Path(cache_dir) if cache_dir is not None else default_eval_cache_dir()
    return check_output_folder(folder, "the evaluation cache")


def catalog_document_id(corpus_id: str) -> str:
    """The document id a corpus id becomes: itself when valid, else ``beir-`` and a digest."""
    if is_document_id(corpus_id):
        return corpus_id
    return "beir-" + hashlib.sha256(corpus_id.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class CorpusCatalog:
    """A built (or cached) evaluation catalog."""

    path: Path
    key: str
    cached: bool
    documents: int


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open_input(path, "the corpus") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def corpus_cache_key(
    corpus: Path | str, embedder: Embedder, *, shard_target: int, shard_fill: ShardFill
) -> str:
    """The cache key of a corpus's catalog: corpus bytes, profile, sharding, versions."""
    identity = {
        "corpus": _file_digest(Path(corpus)),
        "profile": embedder.profile.to_json(),
        "shardTarget": shard_target,
        "shardFill": shard_fill,
        "library": __version__,
        "format": _FORMAT,
    }
    return hashlib.sha256(canonicalize(identity)).hexdigest()


def write_document_list(corpus: Path | str, folder: Path | str, *, name: str) -> int:
    """Write ``documents.jsonl`` with catalog.yaml, README.md and LICENSE into ``folder``.

    Returns the number of documents. Two corpus ids mapping to one document id is an error.
    """
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    (out / "catalog.yaml").write_text(
        _CATALOG_YAML.format(name=json.dumps(name), topic=_TOPIC), encoding="utf-8"
    )
    (out / "README.md").write_text(f"# {name}\n\nAn evaluation corpus.\n", encoding="utf-8")
    (out / "LICENSE").write_text(
        "The documents keep the licence of the corpus they were read from.\n", encoding="utf-8"
    )
    seen: dict[str, str] = {}
    count = 0
    with (out / "documents.jsonl").open("w", encoding="utf-8") as fh:
        for doc in read_corpus(corpus):
            doc_id = catalog_document_id(doc.id)
            if doc_id in seen:
                raise InvalidInput(
                    f"corpus ids {seen[doc_id]!r} and {doc.id!r} map to one document id",
                    reason="eval-duplicate-id",
                    subject=doc.id,
                )
            seen[doc_id] = doc.id
            record = {
                "id": doc_id,
                "title": doc.title or doc.id,
                "topicPath": [_TOPIC],
                "markdown": doc.text,
            }
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    if not count:
        raise InvalidInput(f"{corpus} has no documents", reason="eval-empty-corpus")
    return count


def build_corpus_catalog(
    corpus: Path | str,
    *,
    embedder: Embedder,
    cache_dir: Path | str | None = None,
    shard_target: int | None = None,
    shard_fill: ShardFill = "semantic",
    rebuild: bool = False,
    progress: ProgressSink | None = None,
) -> CorpusCatalog:
    """The catalog of a BEIR corpus, from the cache when it was built before.

    A corpus is one topic, so filling shards in table-of-contents order would shard it in file
    order and leave routing nothing to go by; shards are filled by k-means (``semantic``)
    unless asked otherwise. It only matters when the corpus needs more than one shard.
    """
    target = shard_target or DEFAULT_SHARD_TARGET
    source = Path(corpus)
    folder = eval_cache_folder(cache_dir)
    key = corpus_cache_key(source, embedder, shard_target=target, shard_fill=shard_fill)
    path = folder / f"{key[:32]}.gezk"
    if path.is_file() and not rebuild:
        return CorpusCatalog(path, key, True, -1)
    folder.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".eval-source-", dir=folder))
    try:
        count = write_document_list(source, work, name=f"Evaluation corpus {source.parent.name}")
        compile_catalog(
            work / "documents.jsonl",
            path,
            BuildOptions(
                embedder=embedder,
                created_at=_CREATED_AT,
                shard_fill=shard_fill,
                shard_target=target,
                shard_max=max(target, DEFAULT_SHARD_MAX),
                cache_dir=default_cache_dir(),
            ),
            progress=progress,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return CorpusCatalog(path, key, False, count)
