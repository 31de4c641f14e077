"""Copies of a page (same title, same passage) go after the other pages in hybrid search."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.fusion import Fused
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader._rows import ChunkRow
from gezel_knowledge.reader.hybrid import copies_last
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic


def _fused(document_id: str, title: str, text: str | None) -> Fused[str, ChunkRow]:
    row = (
        None
        if text is None
        else ChunkRow(0, len(document_id), "", document_id, 0, title, (), 1, 1, text)
    )
    return Fused(document_id, 1.0, row, ())


def test_copies_go_after_the_other_documents_each_part_in_its_order() -> None:
    fused = [
        _fused("v3.5/watch-keys", "How to watch keys", "etcdctl watch foo"),
        _fused("v3.6/watch-keys", "How to watch keys", "etcdctl watch foo"),  # a copy
        _fused("v3.7/watch-keys", "How to watch keys", "etcdctl watch foo"),  # a copy
        _fused("v3.3/interacting", "Interacting with etcd", "etcdctl put foo bar"),
        _fused("v3.4/interacting", "Interacting with etcd", "etcdctl put foo bar"),  # a copy
        _fused("faq", "FAQ", "etcdctl watch foo"),  # the same text under another title
        _fused("title-only", "Watch", None),  # no kept passage: never a copy
        _fused("title-only-2", "Watch", None),
    ]
    assert [f.key for f in copies_last(fused)] == [
        "v3.5/watch-keys",
        "v3.3/interacting",
        "faq",
        "title-only",
        "title-only-2",
        "v3.6/watch-keys",
        "v3.7/watch-keys",
        "v3.4/interacting",
    ]


def test_without_copies_the_order_stands() -> None:
    fused = [_fused(f"page-{i}", f"Page {i}", f"text {i}") for i in range(5)]
    assert copies_last(fused) == fused


PAGE = "Lattice ember meridian drift orchard lumen copper beacon vellum saffron."


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = [
        Doc("v1/watch", "Watch keys", PAGE, ("t",)),
        Doc("v2/watch", "Watch keys", PAGE, ("t",)),
        Doc("guide", "Guide", "Lattice ember meridian drift orchard quartz willow.", ("t",)),
    ]
    return CatalogBuild(docs, [Topic("t", "T", None, "1")]).write(
        tmp_path_factory.mktemp("copies") / "catalog"
    )


def test_hybrid_search_lists_a_copy_after_the_other_pages(versions: Path) -> None:
    with open_catalog(versions, embedder=HashEmbedder()) as catalog:
        keyword = [h.document_id for h in catalog.search(PAGE, mode="keyword", k=3).hits]
        hybrid = [h.document_id for h in catalog.search(PAGE, mode="hybrid", k=3).hits]
        two = [h.document_id for h in catalog.search(PAGE, mode="hybrid", k=2).hits]
    # By words the two copies share the first places; hybrid search lists one, then the guide.
    assert keyword[2] == "guide"
    assert hybrid[1] == "guide"
    assert {hybrid[0], hybrid[2]} == {"v1/watch", "v2/watch"}
    # Asked for two, the copy is the one left out.
    assert two == hybrid[:2]
