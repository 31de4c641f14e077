"""Dated pages (blog posts, changelogs, release notes) weigh a little less in hybrid search."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.fusion import KEYWORD, SCORE, VECTOR
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezel_knowledge.reader._rows import ChunkRow
from gezel_knowledge.reader.dated import DATED_WEIGHT, is_dated
from gezel_knowledge.reader.hybrid import RankedPassage, fuse_documents
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic


@pytest.mark.parametrize(
    "document_id",
    [
        "blog/2021/09/13/search-better-faster-smaller",  # Material's blog plugin
        "blog/2025-05-29-biome-vscode-v3",  # Docusaurus' blog plugin
        "blog/news/first-post/index",  # a Hugo section
        "posts/hello_geekdoc",
        "Blog/Announcing",  # folder names compared in lower case
        "release-notes/rn-axon-framework/README",
        "change_log/release-2.6",
        "CHANGELOG",
        "about/release-notes",
        "reference/_changelog",  # a Sphinx include
        "internals/changelog_v1",
        "articles/en/whats-new-in-v2",
        "users/releases",
        "news",
        "_posts/2020-01-01-hello",  # Jekyll
        "history/hatchling",  # a folder of changelogs
        "CHANGES",  # as Sphinx projects name their changelog
        "whats-new/2024",
        "articles/vs-test-adapter/AdapterV4-Release-Notes",  # a version before the word
        "community/release-notes-3.15",  # a version after it
        "news-2024",  # a date after it
        "about/changelog.fr",  # a language suffix
    ],
)
def test_blog_posts_news_and_changelogs_are_dated(document_id: str) -> None:
    assert is_dated(document_id)


@pytest.mark.parametrize(
    "document_id",
    [
        "plugins/blog",  # a page about the blog plugin, not a post
        "setup/setting-up-a-blog",
        "docs/content/blog",
        "cli/change",
        "howto/breaking_changes",
        "guides/int_framework/post-execution",
        "methods/menu-entry/Post",
        "newsletter",
        "releases-guide/how-we-release",  # the name must be the whole part, or end at - _ .
        "changes/per-environment-apis",  # a folder of breaking changes explained
        "api/history",  # a history API, not a changelog
        "guides/getting-started",
        # A changelog word with other words beside it names a page about something else.
        "contributing/changelog-format",
        "setup/news-feed-configuration",
        "project/releases-policy",
        "sig-architecture/api_changes",
        "writing-release-notes",
        "solve/significant-changes",
    ],
)
def test_documentation_pages_are_not_dated(document_id: str) -> None:
    assert not is_dated(document_id)


def _row(document_id: str, chunk_id: int) -> ChunkRow:
    return ChunkRow(0, chunk_id, document_id, document_id, 0, "", (), 1, 1, "")


def _lists(post: tuple[float, float], guide: tuple[float, float]) -> dict[str, list[RankedPassage]]:
    """One passage per page: (cosine, BM25) of the blog post and of the guide."""
    pages = [("blog/post", post, 0), ("guide", guide, 1)]
    return {
        VECTOR: sorted(
            (RankedPassage(_row(d, i), s[0]) for d, s, i in pages), key=lambda p: -p.score
        ),
        KEYWORD: sorted(
            (RankedPassage(_row(d, i), s[1]) for d, s, i in pages), key=lambda p: -p.score
        ),
    }


def test_a_documentation_page_that_answers_as_well_goes_before_a_dated_one() -> None:
    lists = _lists(post=(0.80, 10.0), guide=(0.76, 9.0))
    # score: post 0.7 * 1 + 0.3 * 1 = 1.0; guide 0.7 * 0.76 / 0.80 + 0.3 * 0.9 = 0.935.
    assert [f.key for f in fuse_documents(lists, SCORE)] == ["blog/post", "guide"]
    fused = fuse_documents(lists, SCORE, dated=is_dated)
    # The post weighs 0.85 * 1.0 = 0.85, below the guide's 0.935.
    assert [f.key for f in fused] == ["guide", "blog/post"]
    assert [f.score for f in fused] == pytest.approx([0.935, 0.85])
    assert DATED_WEIGHT == 0.85


def test_a_dated_page_that_answers_clearly_better_stays_first() -> None:
    lists = _lists(post=(0.80, 10.0), guide=(0.50, 3.0))
    # guide: 0.7 * 0.5 / 0.8 + 0.3 * 0.3 = 0.5275, below the post's 0.85.
    fused = fuse_documents(lists, SCORE, dated=is_dated)
    assert [f.key for f in fused] == ["blog/post", "guide"]
    assert [f.score for f in fused] == pytest.approx([0.85, 0.5275])


TOPICS = [Topic("all", "All", None, "1")]
TEXT = "Plant tulip bulbs in autumn, three times as deep as the bulb is tall."


@pytest.fixture(scope="module")
def twin_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # A blog post and a guide with the same title and text: every list ties them.
    docs = [
        Doc("blog/planting-tulips", "Planting tulips", f"# Planting tulips\n\n{TEXT}\n", ("all",)),
        Doc("guide/planting-tulips", "Planting tulips", f"# Planting tulips\n\n{TEXT}\n", ("all",)),
    ]
    docs += [
        Doc(f"page-{i:02d}", f"Page {i:02d}", f"# Page {i:02d}\n\nQuiet notes {i:02d}.\n", ("all",))
        for i in range(6)
    ]
    return CatalogBuild(docs, TOPICS).write(tmp_path_factory.mktemp("dated") / "catalog")


@pytest.fixture
def catalog(twin_catalog: Path) -> Iterator[Catalog]:
    with open_catalog(twin_catalog, embedder=HashEmbedder()) as c:
        yield c


def _twins(catalog: Catalog, mode: str) -> list[str]:
    """The two twin pages in the order a search of ``mode`` ranks them."""
    hits = catalog.search("how deep do I plant tulip bulbs", mode=mode, k=8).hits  # type: ignore[arg-type]
    return [h.document_id for h in hits if h.document_id.endswith("planting-tulips")]


def test_hybrid_search_puts_the_guide_before_its_twin_blog_post(catalog: Catalog) -> None:
    # Keyword search ranks the twins as its list does, the post first (its passage comes
    # first); hybrid search weighs the post less. (The test embedder's cosines mean nothing,
    # so the vector list alone is no reference here.)
    assert _twins(catalog, "keyword") == ["blog/planting-tulips", "guide/planting-tulips"]
    assert _twins(catalog, "hybrid") == ["guide/planting-tulips", "blog/planting-tulips"]
