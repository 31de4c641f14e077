"""Pages of an older documentation version weigh as dated pages do in hybrid search."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezel_knowledge.reader.versions import names_version, older_versions, version_of
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("v3.5", (3, 5)),  # Hugo's etcd
        ("V2", (2,)),
        ("v1", (1,)),
        ("2.20", (2, 20)),  # Jaeger's minor versions
        ("1.76", (1, 76)),
        ("version-2", (2,)),  # Docusaurus' versioned_docs
        ("version2.1", (2, 1)),
        ("1.x", (1,)),
        ("v2.x", (2,)),
        ("3.0.1", (3, 0, 1)),
    ],
)
def test_version_folders(name: str, version: tuple[int, ...]) -> None:
    assert version_of(name) == version


@pytest.mark.parametrize(
    "name",
    ["1", "10", "2024", "05", "latest", "v1beta", "3-version-management", "docs", "vue", "1.a"],
)
def test_other_folders_are_no_version(name: str) -> None:
    assert version_of(name) is None


def test_pages_under_a_lower_version_beside_a_higher_one_are_older() -> None:
    ids = [
        "docs/v1/1.76/storage/badger",
        "docs/v2/2.9/storage/badger",
        "docs/v2/2.10/storage/badger",  # 2.10 is after 2.9: versions compare as numbers
        "docs/v2/_dev/storage/badger",  # unreleased, beside the versions
        "docs/v2/_index",  # the v2 section's own page: under no version folder of v2
        "etcd/v3.4/op-guide/recovery",
        "etcd/v3.8/op-guide/recovery",
        "download",
    ]
    assert older_versions(ids) == {
        "docs/v1/1.76/storage/badger",  # v1 beside v2
        "docs/v2/2.9/storage/badger",
        "docs/v2/_dev/storage/badger",
        "etcd/v3.4/op-guide/recovery",
    }


def test_dated_pages_chapters_and_lone_versions_are_not_older() -> None:
    ids = [
        "blog/v1.2/release",  # a dated page: left to reader.dated
        "blog/v1.3/release",
        "tutorial/1/setup",  # bare integers number chapters
        "tutorial/2/setup",
        "api/v1/users",  # one version only: the current one
        "guides/dev/setup",  # a dev folder beside no version folder
        "guides/next/setup",
        "v1",  # a page named like a version: not a folder
        "v2",
    ]
    assert older_versions(ids) == set()


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("How do I migrate from the v1 API to the v2 API?", True),
        ("What changed in version 1.6.0?", True),
        ("How do I upgrade from Tauri 1.0 to 2.0?", True),
        ("Is there a V3 of the client?", True),
        ("How do I run three workers?", False),
        ("How do I run 3 workers on IPv4?", False),  # a bare number; v4 inside a word
        ("Which Python3 bindings exist?", False),
    ],
)
def test_questions_that_name_a_version(question: str, names: bool) -> None:
    assert names_version(question) is names


TOPICS = [Topic("all", "All", None, "1")]
TEXT = "Plant tulip bulbs in autumn, three times as deep as the bulb is tall."


@pytest.fixture(scope="module")
def versioned_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The same page in two versions of the documentation; the older one says it in fewer
    # words, so the keyword list puts it first (BM25 favours the shorter passage).
    docs = [
        Doc("docs/v1/planting", "Planting tulips", f"# Planting tulips\n\n{TEXT}\n", ("all",)),
        Doc(
            "docs/v2/planting",
            "Planting tulips",
            f"# Planting tulips\n\n{TEXT} Water them once.\n",
            ("all",),
        ),
    ]
    docs += [
        Doc(f"page-{i:02d}", f"Page {i:02d}", f"# Page {i:02d}\n\nQuiet notes {i:02d}.\n", ("all",))
        for i in range(6)
    ]
    return CatalogBuild(docs, TOPICS).write(tmp_path_factory.mktemp("versions") / "catalog")


@pytest.fixture
def catalog(versioned_catalog: Path) -> Iterator[Catalog]:
    with open_catalog(versioned_catalog, embedder=HashEmbedder()) as c:
        yield c


def _versions(catalog: Catalog, question: str, mode: str) -> list[str]:
    """The two versions of the page in the order a search of ``mode`` ranks them."""
    hits = catalog.search(question, mode=mode, k=8).hits  # type: ignore[arg-type]
    return [h.document_id for h in hits if h.document_id.endswith("/planting")]


def test_hybrid_search_puts_the_current_version_first(catalog: Catalog) -> None:
    question = "how deep do I plant tulip bulbs"
    assert _versions(catalog, question, "keyword") == ["docs/v1/planting", "docs/v2/planting"]
    assert _versions(catalog, question, "hybrid") == ["docs/v2/planting", "docs/v1/planting"]


def test_a_question_naming_a_version_keeps_the_lists_order(catalog: Catalog) -> None:
    # "v1" names a version: no page is weighed as older, and the v1 page, which every list
    # puts first for this question, stays first.
    question = "how deep do I plant tulip bulbs in v1"
    assert _versions(catalog, question, "keyword") == ["docs/v1/planting", "docs/v2/planting"]
    assert _versions(catalog, question, "hybrid") == ["docs/v1/planting", "docs/v2/planting"]
