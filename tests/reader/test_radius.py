"""Radius discovery and radius-filtered search (spec section 5.2.2), kit-style cases."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezk.errors import InvalidLocation
from gezk.spatial import EARTH_RADIUS_M, RadiusQuery, distance_meters
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic, chunk_document


@pytest.fixture
def catalog(shared_catalog: Path) -> Iterator[Catalog]:
    with open_catalog(shared_catalog, embedder=HashEmbedder()) as c:
        yield c


def ids(catalog: Catalog, lat: float, lon: float, r: float) -> list[str]:
    return [x.document.id for x in catalog.nearby(RadiusQuery(lat, lon, r)).results]


def test_nearest_subject_point_and_distance_order(catalog: Catalog) -> None:
    page = catalog.nearby(RadiusQuery(47.6062, -122.3321, 50_000))
    assert [r.document.id for r in page.results] == ["doc-0001", "doc-0004"]
    assert page.total == 2
    first, second = page.results
    assert first.distance_meters == 0.0
    assert first.location.id == "seattle"
    # doc-0004 has two subject points inside; the nearer one represents it.
    assert second.location.id == "a-near"
    assert second.distance_meters == pytest.approx(
        distance_meters(47.6062, -122.3321, 47.61, -122.3321)
    )
    assert first.citation == "knowledge://tester/demo/doc-0001"


def test_date_line(catalog: Catalog) -> None:
    assert ids(catalog, 0.0, -180.0, 50_000) == ["doc-0002"]
    assert ids(catalog, 0.0, 180.0, 0) == ["doc-0002"]
    assert ids(catalog, 0.0, 179.9, 12_000) == ["doc-0002"]


def test_pole(catalog: Catalog) -> None:
    # Every longitude names the same pole point.
    assert ids(catalog, 90.0, 170.0, 0) == ["doc-0003"]
    assert ids(catalog, 89.99, -45.0, 2_000) == ["doc-0003"]


def test_zero_radius_matches_the_exact_point_only(catalog: Catalog) -> None:
    assert ids(catalog, 47.61, -122.3321, 0) == ["doc-0004"]
    assert ids(catalog, 47.6100001, -122.3321, 0) == []


def test_associated_points_never_qualify(catalog: Catalog) -> None:
    assert ids(catalog, 30.1, 50.2, 0) == []
    assert ids(catalog, 30.1, 50.2, 1_000) == []


def test_whole_sphere_radius_includes_every_subject_document(catalog: Catalog) -> None:
    found = ids(catalog, 0.0, 0.0, math.pi * EARTH_RADIUS_M)
    assert sorted(found) == ["doc-0001", "doc-0002", "doc-0003", "doc-0004"]


def test_pagination_counts_documents_not_points(catalog: Catalog) -> None:
    query = RadiusQuery(0.0, 0.0, math.pi * EARTH_RADIUS_M)
    first = catalog.nearby(query, limit=3)
    rest = catalog.nearby(query, limit=3, offset=3)
    assert first.total == rest.total == 4
    got = [r.document.id for r in first.results + rest.results]
    assert len(got) == len(set(got)) == 4
    distances = [r.distance_meters for r in first.results + rest.results]
    assert distances == sorted(distances)


@pytest.mark.parametrize(
    ("lat", "lon", "r"),
    [(91.0, 0.0, 1.0), (0.0, 181.0, 1.0), (0.0, 0.0, -1.0), (float("nan"), 0.0, 1.0)],
)
def test_invalid_radius_is_refused(catalog: Catalog, lat: float, lon: float, r: float) -> None:
    with pytest.raises(InvalidLocation):
        catalog.nearby(RadiusQuery(lat, lon, r))


def test_radius_filtered_text_search(catalog: Catalog) -> None:
    near = RadiusQuery(47.6062, -122.3321, 50_000)
    everything = catalog.search("paragraph", mode="keyword", k=20)
    assert len({h.document_id for h in everything.hits}) > 2
    filtered = catalog.search("paragraph", mode="keyword", near=near, k=20)
    assert {h.document_id for h in filtered.hits} == {"doc-0001", "doc-0004"}
    assert filtered.sources[0].eligible_documents == 2
    by_doc = {h.document_id: h for h in filtered.hits}
    assert by_doc["doc-0001"].distance_meters == 0.0
    assert by_doc["doc-0001"].matched_location == "seattle"
    assert by_doc["doc-0004"].matched_location == "a-near"


def test_radius_with_no_eligible_documents_returns_nothing(catalog: Catalog) -> None:
    result = catalog.search("paragraph", near=RadiusQuery(-33.0, 151.0, 1_000))
    assert result.hits == ()
    assert result.sources[0].eligible_documents == 0


def test_text_free_discovery_through_search(catalog: Catalog) -> None:
    result = catalog.search("", near=RadiusQuery(47.6062, -122.3321, 50_000))
    assert [h.document_id for h in result.hits] == ["doc-0001", "doc-0004"]
    assert result.hits[0].distance_meters == 0.0


def test_legacy_catalogs_have_no_points(legacy_catalogs: dict[str, Path]) -> None:
    with open_catalog(legacy_catalogs["0.6"]) as c:
        assert c.nearby(RadiusQuery(0, 0, math.pi * EARTH_RADIUS_M)).total == 0
        assert c.search("paragraph", near=RadiusQuery(0, 0, 1e9)).hits == ()


def test_semantic_masking_happens_before_the_stage_one_shortlist(tmp_path: Path) -> None:
    """1,100 identical passages outside the circle must not crowd out the one inside it."""
    topics = [Topic("root", "Root")]
    decoy = "Harbor lighthouse keeper logbook entry."
    docs = [
        Doc(
            f"far-{i:04d}",
            "Decoy",
            decoy,
            ("root",),
            locations=({"id": "p", "latitude": -40.0, "longitude": 170.0, "role": "subject"},),
        )
        for i in range(1100)
    ]
    docs.append(
        Doc(
            "near",
            "Inside",
            "Completely different words about gardens.",
            ("root",),
            locations=({"id": "p", "latitude": 10.0, "longitude": 10.0, "role": "subject"},),
        )
    )
    root = CatalogBuild(docs, topics).write(tmp_path / "c")
    query_text = chunk_document(docs[0])[0].embed_input
    with open_catalog(root, embedder=HashEmbedder()) as c:
        unfiltered = c.search(query_text, mode="vector", min_similarity=-1.0, k=5)
        assert all(h.document_id.startswith("far-") for h in unfiltered.hits)
        near = RadiusQuery(10.0, 10.0, 1_000)
        filtered = c.search(query_text, mode="vector", near=near, min_similarity=-1.0)
        assert [h.document_id for h in filtered.hits] == ["near"]
        assert filtered.hits[0].distance_meters == 0.0
        assert filtered.sources[0].eligible_documents == 1


def test_equal_distances_break_ties_by_document_then_location_id(tmp_path: Path) -> None:
    point = {"latitude": 10.0, "longitude": 20.0, "role": "subject"}
    docs = [
        Doc("b-doc", "B", "Bravo text.\n", ("root",), locations=({"id": "x", **point},)),
        Doc("a-doc", "A", "Alpha text.\n", ("root",), locations=({"id": "y", **point},)),
        # Two points at the same distance east and west of the query: "east" < "west".
        Doc(
            "c-doc",
            "C",
            "Charlie text.\n",
            ("root",),
            locations=(
                {"id": "west", "latitude": 10.0, "longitude": 19.99, "role": "subject"},
                {"id": "east", "latitude": 10.0, "longitude": 20.01, "role": "subject"},
            ),
        ),
    ]
    root = CatalogBuild(docs, [Topic("root", "Root")]).write(tmp_path / "c")
    with open_catalog(root) as c:
        exact = c.nearby(RadiusQuery(10.0, 20.0, 0))
        assert [r.document.id for r in exact.results] == ["a-doc", "b-doc"]
        wide = c.nearby(RadiusQuery(10.0, 20.0, 5_000))
        assert [r.document.id for r in wide.results] == ["a-doc", "b-doc", "c-doc"]
        assert wide.results[2].location.id == "east"
