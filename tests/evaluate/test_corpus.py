"""A BEIR corpus as a document list and a cached catalog."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from gezel_knowledge import open_catalog
from gezel_knowledge.compiler import DEFAULT_SHARD_TARGET
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.evaluate import evaluate_beir
from gezel_knowledge.evaluate.corpus import (
    build_corpus_catalog,
    catalog_document_id,
    corpus_cache_key,
    write_document_list,
)
from tests.evaluate.conftest import LONG_ID


def test_valid_ids_are_kept_and_others_get_a_stable_digest() -> None:
    assert catalog_document_id("MED-10") == "MED-10"
    assert catalog_document_id("a b") == "a b"
    mapped = catalog_document_id(LONG_ID)
    assert mapped.startswith("beir-")
    assert len(mapped) == len("beir-") + 32
    assert catalog_document_id(LONG_ID) == mapped
    assert catalog_document_id(" padded") != catalog_document_id("padded")


def test_the_document_list_holds_one_document_per_line(beir_folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "source"
    assert write_document_list(beir_folder / "corpus.jsonl", out, name="Tiny") == 8
    records = [json.loads(line) for line in (out / "documents.jsonl").read_text().splitlines()]
    by_id = {r["id"]: r for r in records}
    assert by_id["roses"] == {
        "id": "roses",
        "title": "Roses",
        "topicPath": ["corpus"],
        "markdown": "Prune roses in late winter just above an outward-facing bud.",
    }
    assert by_id["espresso"]["title"] == "espresso"  # an empty title falls back to the id
    assert catalog_document_id(LONG_ID) in by_id
    assert {"catalog.yaml", "README.md", "LICENSE"} <= {p.name for p in out.iterdir()}


def test_two_corpus_ids_mapping_to_one_document_id_are_refused(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    rows = [{"_id": LONG_ID, "text": "a"}, {"_id": catalog_document_id(LONG_ID), "text": "b"}]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InvalidInput) as caught:
        write_document_list(corpus, tmp_path / "out", name="x")
    assert caught.value.reason == "eval-duplicate-id"


def test_an_empty_corpus_is_refused(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n")
    with pytest.raises(InvalidInput) as caught:
        write_document_list(corpus, tmp_path / "out", name="x")
    assert caught.value.reason == "eval-empty-corpus"


def test_the_catalog_is_built_once_and_then_reused(beir_folder: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    corpus = beir_folder / "corpus.jsonl"
    first = build_corpus_catalog(corpus, embedder=HashEmbedder(), cache_dir=cache)
    assert not first.cached
    assert first.path.parent == cache
    assert first.documents == 8
    stamp = first.path.stat().st_mtime_ns
    again = build_corpus_catalog(corpus, embedder=HashEmbedder(), cache_dir=cache)
    assert (again.cached, again.path, again.key) == (True, first.path, first.key)
    assert again.path.stat().st_mtime_ns == stamp
    rebuilt = build_corpus_catalog(corpus, embedder=HashEmbedder(), cache_dir=cache, rebuild=True)
    assert not rebuilt.cached
    assert rebuilt.path == first.path
    with open_catalog(first.path) as catalog:
        assert catalog.list_documents().total == 8
        assert catalog.body("roses").strip() == (
            "Prune roses in late winter just above an outward-facing bud."
        )


def test_a_changed_corpus_or_shard_target_is_another_catalog(
    beir_folder: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    corpus = beir_folder / "corpus.jsonl"
    base = build_corpus_catalog(corpus, embedder=HashEmbedder(), cache_dir=cache)
    sharded = build_corpus_catalog(corpus, embedder=HashEmbedder(), cache_dir=cache, shard_target=1)
    assert sharded.path != base.path
    with corpus.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"_id": "new", "title": "New", "text": "A new document."}) + "\n")
    changed = build_corpus_catalog(corpus, embedder=HashEmbedder(), cache_dir=cache)
    assert not changed.cached
    assert changed.path != base.path


def test_the_default_cache_is_under_the_gezel_home(
    beir_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    built = build_corpus_catalog(beir_folder / "corpus.jsonl", embedder=HashEmbedder())
    assert built.path.parent == tmp_path / "home" / "cache" / "eval"


class _Counting(HashEmbedder):
    """The hash embedder, counting the passages it is asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.passages = 0

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.passages += len(texts)
        return super().embed_passages(texts)


def test_a_cached_catalog_name_taken_by_a_folder_is_refused_before_embedding(
    beir_folder: Path, tmp_path: Path
) -> None:
    embedder = _Counting()
    key = corpus_cache_key(
        beir_folder / "corpus.jsonl",
        embedder,
        shard_target=DEFAULT_SHARD_TARGET,
        shard_fill="semantic",
    )
    (tmp_path / f"{key[:32]}.gezk").mkdir()
    with pytest.raises(InvalidInput) as caught:
        evaluate_beir(beir_folder, embedder=embedder, cache_dir=tmp_path)
    assert caught.value.reason == "output-is-directory"
    assert embedder.passages == 0
