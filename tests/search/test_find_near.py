"""Radius-filtered search and radius discovery across installed catalogs (spec 5.2.2)."""

from __future__ import annotations

import json

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.search import KnowledgeSearch
from gezk.spatial import RadiusQuery
from tests.reader.catalog_builder import CatalogBuild, pack, sample_docs

SEATTLE = RadiusQuery(47.6062, -122.3321, 5000.0)


def _subject(name: str, lat: float, lon: float, role: str = "subject") -> dict[str, object]:
    return {"id": name, "latitude": lat, "longitude": lon, "role": role}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeHome:
    """Four catalogs: two with places around Seattle, one without places, one 0.6 catalog
    (built once: searching changes nothing)."""
    tmp_path = tmp_path_factory.mktemp("near")
    home = KnowledgeHome(tmp_path / "home")
    layouts = {
        "north": {
            1: (_subject("north-1", 47.62, -122.33),),  # about 1.5 km from the centre
            2: (_subject("north-2", 47.6062, -122.3321, "associated"),),  # never qualifies
            3: (_subject("north-3", 48.5, -122.33),),  # about 100 km away
        },
        "south": {
            0: (_subject("south-0", 47.605, -122.333),),  # about 150 m
            1: (_subject("south-1", 47.60, -122.33),),  # about 700 m
        },
        "plain": {},
    }
    for cid, places in layouts.items():
        docs, topics = sample_docs(8)
        for i, doc in enumerate(docs):
            doc.locations = places.get(i, ())
            doc.shard = i % 2
        root = CatalogBuild(docs, topics, catalog_id=cid).write(tmp_path / cid)
        home.install(pack(root, tmp_path / f"{cid}.gezk"))
    docs, topics = sample_docs(8)
    legacy = CatalogBuild(docs, topics, catalog_id="legacy", format_version="0.6")
    home.install(pack(legacy.write(tmp_path / "legacy"), tmp_path / "legacy.gezk"))
    return home


def test_radius_discovery_merges_catalogs_nearest_first(home: KnowledgeHome) -> None:
    with KnowledgeSearch(home) as search:
        results = search.search("", near=SEATTLE, k=10)
    assert [(h.source, h.document_id) for h in results.hits] == [
        ("tester/south", "doc-0000"),
        ("tester/south", "doc-0001"),
        ("tester/north", "doc-0001"),
    ]
    assert [h.matched_location for h in results.hits] == ["south-0", "south-1", "north-1"]
    distances = [h.distance_meters or 0.0 for h in results.hits]
    assert distances == sorted(distances)
    assert 100 < distances[0] < 200
    assert 1000 < distances[2] < 2000
    # Catalogs without subject locations (and 0.5/0.6 catalogs) take part without error.
    assert {c.source: c.hits for c in results.sources} == {
        "tester/legacy": 0,
        "tester/north": 1,
        "tester/plain": 0,
        "tester/south": 2,
    }
    assert results.quarantined == ()
    with KnowledgeSearch(home) as search:
        assert len(search.search("", near=SEATTLE, k=2).hits) == 2


def test_a_text_query_is_filtered_to_documents_in_the_radius(home: KnowledgeHome) -> None:
    eligible = {("tester/south", "doc-0000"), ("tester/south", "doc-0001")}
    eligible.add(("tester/north", "doc-0001"))
    with KnowledgeSearch(home) as search:
        unfiltered = search.search("lattice ember orchard saffron", k=30)
        filtered = search.search("lattice ember orchard saffron", k=30, near=SEATTLE)
    assert {h.source for h in unfiltered.hits} >= {"tester/plain", "tester/legacy"}
    found = {(h.source, h.document_id) for h in filtered.hits}
    assert found
    assert found <= eligible
    assert all(h.distance_meters is not None and h.distance_meters <= 5000 for h in filtered.hits)


def test_eligibility_comes_before_shard_routing(home: KnowledgeHome) -> None:
    query = "lattice ember orchard saffron"
    with KnowledgeSearch(home) as search:
        routed = search.search(query, mode="vector", shard_budget=1, catalogs=["north", "south"])
        near = search.search(
            query,
            mode="vector",
            shard_budget=1,
            catalogs=["north", "south"],
            near=SEATTLE,
            min_similarity=-1.0,  # every eligible passage counts, whatever the hash cosines are
        )
    # Without a radius, one shard of one catalog is all the budget allows ...
    assert sum(len(c.shards_searched) for c in routed.sources) == 1
    # ... but a radius search scans the shards holding eligible documents in every catalog.
    assert {c.source: c.semantic for c in near.sources} == {
        "tester/north": "used",
        "tester/south": "used",
    }
    assert {c.source: c.shards_searched for c in near.sources} == {
        "tester/north": (1,),
        "tester/south": (0, 1),
    }
    assert {h.source for h in near.hits} == {"tester/north", "tester/south"}


def test_find_near_on_the_command_line(
    home: KnowledgeHome, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["find", "--home", str(home.root), "--near", "47.6062,-122.3321,5000"]
    assert main([*base, "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert [(h["source"], h["documentId"]) for h in hits] == [
        ("tester/south", "doc-0000"),
        ("tester/south", "doc-0001"),
        ("tester/north", "doc-0001"),
    ]
    assert main(base) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("1. ")
    assert lines[0].endswith(" m from south-0)")
    assert main([*base, "lattice", "orchard"]) == 0
    assert "tester/plain" not in capsys.readouterr().out
    assert main(["find", "--home", str(home.root), "--near", "95,0,10"]) == 1
    assert "latitude" in capsys.readouterr().err
    assert main(["find", "--home", str(home.root)]) == 1
    assert "give a query, --near, or both" in capsys.readouterr().err
