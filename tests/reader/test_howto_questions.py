"""For a how-to question, API reference and landing pages weigh a little less in hybrid search."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.fusion import KEYWORD, SCORE, VECTOR
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezel_knowledge.reader._rows import ChunkRow
from gezel_knowledge.reader.howto import (
    HOWTO_WEIGHT,
    asks_how,
    is_broad,
    is_landing,
    is_reference,
)
from gezel_knowledge.reader.hybrid import RankedPassage, fuse_documents
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic


@pytest.mark.parametrize(
    "document_id",
    [
        "reference/overrides",  # Starlight
        "en/reference/runtime-api",  # VitePress
        "api",  # Jest's, MobX's, redux-saga's one-page API reference
        "docs/api",
        "ref/mcp/server",  # mkdocstrings
        "API/Client",  # names compared in lower case
        "apis/content-services-api/export",
        "rules/References",
        "sdk/api-reference/client",
    ],
)
def test_reference_pages(document_id: str) -> None:
    assert is_reference(document_id)


@pytest.mark.parametrize(
    "document_id",
    [
        "guides/overriding-components",
        "docs/child-loggers",
        "api-design-guide",  # a guide about designing an API
        "guides/rapid-start",
        "concepts/reference-architecture",
        "referencing-other-pages",
    ],
)
def test_other_pages_are_no_reference(document_id: str) -> None:
    assert not is_reference(document_id)


@pytest.mark.parametrize(
    ("document_id", "landing"),
    [
        ("usage/index", True),  # MkDocs, Sphinx
        ("chaos/index", True),
        ("README", True),  # GitBook, mdBook
        ("man/crystal/README", True),
        ("docs/deployment/_index", True),  # Hugo
        ("index", True),  # the site's home page
        ("usage/webworker", False),
        ("reindex", False),
        ("guides/index-pages", False),  # a page about index pages
        ("index/overview", False),  # a folder named index says nothing of its pages
    ],
)
def test_landing_pages(document_id: str, landing: bool) -> None:
    assert is_landing(document_id) is landing
    # A landing page is broad, and so is a reference page; a task page is neither.
    assert is_broad(document_id) is (landing or is_reference(document_id))


def test_broad_pages() -> None:
    assert is_broad("reference/overrides")
    assert is_broad("usage/index")
    assert not is_broad("usage/webworker")


@pytest.mark.parametrize(
    ("question", "how"),
    [
        ("How do I create a child logger with extra bindings?", True),
        ("how can we share a server with another user?", True),
        ("How to deploy on Kubernetes?", True),
        ("  How should I name my tests?", True),
        ("How would you split a store into slices?", True),
        ("What is a child logger?", False),
        ("How does the query cache work?", False),  # how it works, not how to do it
        ("However I try, the build fails: why?", False),
        ("Why does it fail, and how do I fix it?", False),  # it asks why first
        ("How do I call the REST API with a token?", False),  # it names the API
        ("How do I read the reference for Client?", False),
    ],
)
def test_questions_that_ask_how(question: str, how: bool) -> None:
    assert asks_how(question) is how


def _row(document_id: str, chunk_id: int) -> ChunkRow:
    return ChunkRow(0, chunk_id, document_id, document_id, 0, "", (), 1, 1, "")


def _lists(ref: tuple[float, float], guide: tuple[float, float]) -> dict[str, list[RankedPassage]]:
    """One passage per page: (cosine, BM25) of the reference page and of the guide."""
    pages = [("reference/logger", ref, 0), ("guides/child-loggers", guide, 1)]
    return {
        VECTOR: sorted(
            (RankedPassage(_row(d, i), s[0]) for d, s, i in pages), key=lambda p: -p.score
        ),
        KEYWORD: sorted(
            (RankedPassage(_row(d, i), s[1]) for d, s, i in pages), key=lambda p: -p.score
        ),
    }


def test_a_guide_that_answers_as_well_goes_before_the_reference() -> None:
    lists = _lists(ref=(0.80, 10.0), guide=(0.76, 9.0))
    # score: reference 0.7 * 1 + 0.3 * 1 = 1.0; guide 0.7 * 0.76 / 0.80 + 0.3 * 0.9 = 0.935.
    assert [f.key for f in fuse_documents(lists, SCORE)] == [
        "reference/logger",
        "guides/child-loggers",
    ]
    fused = fuse_documents(lists, SCORE, broad=is_broad)
    # The reference weighs 0.9 * 1.0 = 0.9, below the guide's 0.935.
    assert [f.key for f in fused] == ["guides/child-loggers", "reference/logger"]
    assert [f.score for f in fused] == pytest.approx([0.935, 0.9])
    assert HOWTO_WEIGHT == 0.9


def test_a_reference_that_answers_clearly_better_stays_first() -> None:
    lists = _lists(ref=(0.80, 10.0), guide=(0.60, 6.0))
    # guide: 0.7 * 0.6 / 0.8 + 0.3 * 0.6 = 0.705, below the reference's 0.9.
    fused = fuse_documents(lists, SCORE, broad=is_broad)
    assert [f.key for f in fused] == ["reference/logger", "guides/child-loggers"]
    assert [f.score for f in fused] == pytest.approx([0.9, 0.705])


def test_a_task_page_goes_before_a_landing_page_that_answers_as_well() -> None:
    lists = {
        VECTOR: [
            RankedPassage(_row("usage/index", 0), 0.80),
            RankedPassage(_row("usage/webworker", 1), 0.76),
        ],
        KEYWORD: [
            RankedPassage(_row("usage/index", 0), 10.0),
            RankedPassage(_row("usage/webworker", 1), 9.0),
        ],
    }
    # As above: the landing page 1.0, weighed 0.9; the task page 0.935.
    assert [f.key for f in fuse_documents(lists, SCORE)] == ["usage/index", "usage/webworker"]
    fused = fuse_documents(lists, SCORE, broad=is_broad)
    assert [f.key for f in fused] == ["usage/webworker", "usage/index"]
    assert [f.score for f in fused] == pytest.approx([0.935, 0.9])


TOPICS = [Topic("all", "All", None, "1")]
TEXT = "Plant tulip bulbs in autumn, three times as deep as the bulb is tall."


@pytest.fixture(scope="module")
def twin_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # A reference page and a guide with the same title and text: every list ties them, the
    # reference first (its passage comes first: ids in order).
    docs = [
        Doc("api/planting", "Planting tulips", f"# Planting tulips\n\n{TEXT}\n", ("all",)),
        Doc("guides/planting", "Planting tulips", f"# Planting tulips\n\n{TEXT}\n", ("all",)),
    ]
    docs += [
        Doc(f"page-{i:02d}", f"Page {i:02d}", f"# Page {i:02d}\n\nQuiet notes {i:02d}.\n", ("all",))
        for i in range(6)
    ]
    return CatalogBuild(docs, TOPICS).write(tmp_path_factory.mktemp("reference") / "catalog")


@pytest.fixture
def catalog(twin_catalog: Path) -> Iterator[Catalog]:
    with open_catalog(twin_catalog, embedder=HashEmbedder()) as c:
        yield c


def _twins(catalog: Catalog, question: str, mode: str) -> list[str]:
    """The two twin pages in the order a search of ``mode`` ranks them."""
    hits = catalog.search(question, mode=mode, k=8).hits  # type: ignore[arg-type]
    return [h.document_id for h in hits if h.document_id.endswith("/planting")]


def test_a_how_to_question_finds_the_guide_first(catalog: Catalog) -> None:
    question = "How do I plant tulip bulbs deep enough?"
    assert _twins(catalog, question, "keyword") == ["api/planting", "guides/planting"]
    assert _twins(catalog, question, "hybrid") == ["guides/planting", "api/planting"]


@pytest.mark.parametrize(
    "question",
    [
        "tulip bulbs: how deep to plant them?",  # no how-to opening
        "How do I plant tulip bulbs deep enough, says the reference?",  # it names the reference
    ],
)
def test_other_questions_keep_the_lists_order(catalog: Catalog, question: str) -> None:
    assert _twins(catalog, question, "hybrid") == ["api/planting", "guides/planting"]
