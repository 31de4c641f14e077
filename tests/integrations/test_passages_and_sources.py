"""The one hit-to-document mapping every retriever uses, and what a retriever's source may be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gezel_knowledge.errors import KnowledgeError
from gezel_knowledge.hits import SearchHit
from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.integrations.passages import (
    METADATA_KEYS,
    retrieved_passage,
    retrieved_passages,
)
from gezel_knowledge.integrations.sources import RetrievalSource
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezel_knowledge.search import KnowledgeSearch
from tests.integrations.conftest import HANDBOOK_KEY

QUERY = "how do I sign a catalog"


def test_a_hit_maps_to_its_citation_text_relevance_and_provenance(handbook: Catalog) -> None:
    hits = handbook.search(QUERY, k=3).hits
    passages = retrieved_passages(hits)
    assert [p.id for p in passages] == [h.citation for h in hits]
    for hit, passage in zip(hits, passages, strict=True):
        assert passage.id.startswith("knowledge://gezel-knowledge/gezel-handbook/")
        assert f"#chunk={hit.chunk_uid}" in passage.id
        assert passage.text == hit.text
        cosine = next(s.score for s in hit.signals if s.name in ("vector", "keyword-only"))
        assert passage.score == hit.score == cosine  # the cosine to the query, for a cutoff
        assert passage.metadata["relevance"] == hit.relevance == 11 / (11 + hit.rank)
        meta = passage.metadata
        assert tuple(meta)[: len(METADATA_KEYS)] == METADATA_KEYS
        assert meta["citation"] == hit.citation
        assert meta["document_id"] == hit.document_id
        assert meta["title"] == hit.title
        assert meta["heading_path"] == list(hit.heading_path)
        assert (meta["line_start"], meta["line_end"]) == (hit.line_start, hit.line_end)
        assert meta["chunk_uid"] == hit.chunk_uid
        assert meta["source"] == HANDBOOK_KEY
        assert meta["catalog_version"] == "2026.12.1"
        assert meta["archive_sha256"] == handbook.archive_sha256
        assert meta["signals"] == {s.name: {"rank": s.rank, "score": s.score} for s in hit.signals}
        assert meta["untrusted"] is True
        json.dumps(dict(meta))  # JSON values only: frameworks store and serialise metadata


def test_a_framework_gets_its_own_copy_of_the_metadata(handbook: Catalog) -> None:
    passage = retrieved_passage(handbook.search(QUERY, k=1).hits[0])
    mine = passage.metadata_dict()
    mine["heading_path"].append("changed")
    next(iter(mine["signals"].values()))["rank"] = 999
    assert "changed" not in passage.metadata["heading_path"]
    assert 999 not in [s["rank"] for s in passage.metadata["signals"].values()]


def test_memory_hits_carry_their_day_kind_and_scope() -> None:
    hit = SearchHit(
        "memory",
        "memory",
        "2026-12-02",
        "2026-12-02 decision (project)",
        "We ship 0.7.",
        "memory/2026-12-02.md#line=3-3",
        0,
        1.0,
        line_start=3,
        line_end=3,
        date="2026-12-02",
        scope="project",
        kind="decision",
    )
    meta = retrieved_passage(hit).metadata
    assert (meta["date"], meta["kind"], meta["scope"]) == ("2026-12-02", "decision", "project")
    assert meta["catalog_version"] is None
    assert "distance_meters" not in meta


def test_a_catalog_handle_is_searched_and_left_open(handbook: Catalog) -> None:
    source = RetrievalSource(handbook)
    result = source.search(QUERY, k=3)
    assert [h.citation for h in result.hits] == [
        h.citation for h in handbook.search(QUERY, k=3).hits
    ]
    source.close()
    assert handbook.search(QUERY, k=1).hits  # still open: the caller owns it


def test_a_path_is_verified_opened_with_its_embedder_and_closed(handbook_gezk: Path) -> None:
    source = RetrievalSource(handbook_gezk)
    catalog = source.catalog
    assert catalog is not None
    # Given when it was opened: the hash profile's shared embedder, found on first use.
    assert catalog.query_embedder()[0] is not None
    result = source.search(QUERY, k=2)
    assert result.sources[0].semantic == "used"
    assert source.read(result.hits[0].citation).text == result.hits[0].text
    source.close()
    with pytest.raises(KnowledgeError) as closed:
        catalog.search(QUERY)
    assert closed.value.reason == "catalog-closed"


def test_an_extracted_folder_is_a_source(handbook: Catalog) -> None:
    source = RetrievalSource(str(handbook.root))
    assert source.search(QUERY, k=1).hits[0].source == HANDBOOK_KEY
    source.close()


def test_an_installed_coordinate_searches_that_catalog(
    installed_handbook: str, handbook: Catalog
) -> None:
    for ref in (installed_handbook, "gezel-handbook"):
        source = RetrievalSource(ref)
        assert source.installed is not None
        assert source.catalogs == (HANDBOOK_KEY,)
        result = source.search(QUERY, k=3)
        assert [h.citation for h in result.hits] == [
            h.citation for h in handbook.search(QUERY, k=3).hits
        ]
        source.close()


def test_no_source_means_every_installed_catalog(installed_handbook: str) -> None:
    source = RetrievalSource(None, catalogs=[installed_handbook])
    assert source.search(QUERY, k=2).hits
    source.close()
    search = KnowledgeSearch()
    mine = RetrievalSource(search)
    assert mine.installed is search
    assert mine.search(QUERY, k=2).hits
    mine.close()
    assert search.search(QUERY, k=1).hits  # not closed: the caller owns it
    search.close()


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: RetrievalSource("nobody/nothing"), "catalog-not-found"),
        (lambda p: RetrievalSource(p, catalogs=["other/catalog"]), "catalog-filtered-out"),
        (lambda p: RetrievalSource(42), "invalid-source"),  # type: ignore[arg-type]
    ],
)
def test_a_source_that_cannot_be_searched_is_refused(
    handbook_gezk: Path, make: object, reason: str
) -> None:
    with pytest.raises(KnowledgeError) as refused:
        make(handbook_gezk)  # type: ignore[operator]
    assert refused.value.reason == reason


def test_a_disabled_catalog_is_refused_by_coordinate(installed_handbook: str) -> None:
    KnowledgeHome().disable(installed_handbook)
    with pytest.raises(KnowledgeError) as refused:
        RetrievalSource(installed_handbook)
    assert refused.value.reason == "catalog-not-searchable"


def test_the_filter_accepts_the_source_catalog(handbook_gezk: Path) -> None:
    with open_catalog(handbook_gezk) as catalog:
        assert RetrievalSource(catalog, catalogs=["gezel-handbook"]).catalog is catalog
