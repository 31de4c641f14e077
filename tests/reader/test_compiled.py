"""What the conformance kit asks of its fixture, reproduced on catalogs the compiler built.

The kit's own fixture archives are not shipped with the spec copy here, so a source shaped like
the kit's (40 generated documents, a nested topic, shared placements, ordinals, metadata, an
asset, subject and associated points, a signature) is compiled with ``test-hash-embed@1`` and
read back. Expected values are computed from the source below, never from the reader.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.archive.assets import asset_media_type
from gezel_knowledge.compiler import BuildResult
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezel_knowledge.validate import validate_archive
from gezk.signing import TrustAnchors, generate_private_key
from gezk.spatial import RadiusQuery
from tests.compiler.trees import CATALOG_YAML, PNG, build, write_jsonl, write_tree

WORDS = [
    "lattice",
    "ember",
    "meridian",
    "drift",
    "orchard",
    "lumen",
    "copper",
    "beacon",
    "vellum",
    "saffron",
    "sonata",
    "garnet",
    "anvil",
    "tide",
    "jasper",
    "russet",
    "quartz",
    "harbor",
    "cinder",
    "willow",
    "falcon",
    "marble",
    "thistle",
    "cobalt",
]
TOPICS = """topics:
  - {id: craft, name: Craft, order: 1}
  - {id: metals, name: Metals, parentId: craft, order: 1}
  - {id: nature, name: Nature, order: 2}
"""
N = 40


def _leaf(i: int) -> list[str]:
    return [["craft"], ["craft", "metals"], ["nature"]][i % 3]


def _doc(i: int) -> dict[str, Any]:
    words = [WORDS[(i * 5 + k * 7) % len(WORDS)] for k in range(16)]
    title = f"{WORDS[i % len(WORDS)]} {WORDS[(i * 3 + 1) % len(WORDS)]} {i:04d}"
    lead = " ".join(words).capitalize() + "."
    body = f"{lead}\n\n## Details\n\nDetail {i:04d} mentions {words[2]} and {words[5]}.\n"
    if i == 1:
        body += "\n![mark](assets/mark.png)\n"
    doc: dict[str, Any] = {
        "id": f"doc-{i:04d}",
        "title": title,
        "slug": f"doc-{i:04d}",
        "topicPath": _leaf(i),
        "markdown": body,
    }
    if i % 4 == 1:
        doc["ordinal"] = 40 - i
    if i == 0:
        doc["tocReferences"] = [
            {"topicPath": ["nature"], "ordinal": -7},
            {"topicPath": ["craft", "metals"]},
        ]
    if i == 7:
        doc["meta"] = {"tags": ["fixture", "odd"], "generatedIndex": 7}
    points = {
        0: [(47.6062, -122.3321, "subject")],
        1: [(0.0, 180.0, "subject")],
        2: [(90.0, 0.0, "subject")],
        3: [(30.1, 50.2, "associated")],
        4: [(30.1, 50.2, "subject")],
    }
    if i in points:
        doc["locations"] = [
            {"id": f"p{n}", "latitude": lat, "longitude": lon, "role": role}
            for n, (lat, lon, role) in enumerate(points[i])
        ]
    return doc


DOCS = [_doc(i) for i in range(N)]


@dataclass
class Compiled:
    result: BuildResult
    key: Any


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    root = tmp_path_factory.mktemp("kitlike")
    yaml = (
        CATALOG_YAML
        + TOPICS
        + (f"smokeQueries:\n  - {{query: {DOCS[5]['title']}, expectedDocumentIds: [doc-0005]}}\n")
    )
    write_tree(root / "src", {"assets/mark.png": PNG}, catalog=yaml)
    source = write_jsonl(root / "src" / "docs.jsonl", DOCS)
    key = generate_private_key()
    return Compiled(build(source, root / "kit.gezk", signing_key=key), key)


@pytest.fixture(scope="module")
def catalog(compiled: Compiled, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Catalog]:
    with open_catalog(
        compiled.result.path,
        embedder=HashEmbedder(),
        cache_dir=tmp_path_factory.mktemp("cache"),
        expected_sha256=compiled.result.sha256,
    ) as c:
        yield c


def test_compiled_catalog_passes_deep_validation_with_verified_provenance(
    compiled: Compiled,
) -> None:
    report = validate_archive(
        compiled.result.path,
        deep=True,
        trust=TrustAnchors([compiled.key]),
        expected_sha256=compiled.result.sha256,
    )
    assert report.findings == ()
    assert report.provenance.status == "verified"


def test_counts(catalog: Catalog) -> None:
    m = catalog.manifest
    assert (m.counts.documents, m.counts.shards, m.counts.assets) == (N, 1, 1)
    assert catalog.list_documents().total == N


@pytest.mark.parametrize("i", [0, 1, 2, 17])
def test_fts_answers(catalog: Catalog, i: int) -> None:
    hits = catalog.search(DOCS[i]["title"], mode="keyword").hits
    assert hits[0].document_id == f"doc-{i:04d}"


@pytest.mark.parametrize("i", [1, 3, 30])
def test_body_round_trip(catalog: Catalog, i: int) -> None:
    expected = unicodedata.normalize("NFC", DOCS[i]["markdown"])
    body = catalog.body(f"doc-{i:04d}")
    assert (
        hashlib.sha256(body.encode()).hexdigest() == hashlib.sha256(expected.encode()).hexdigest()
    )


@pytest.mark.parametrize("i", [3, 21])
def test_semantic_probe(catalog: Catalog, i: int) -> None:
    lead = DOCS[i]["markdown"].split("\n\n")[0]
    embed_input = f"{DOCS[i]['title']}\n{lead}"
    for stage1 in ("lut", "hamming"):
        hit = catalog.search(embed_input, mode="vector", stage1=stage1).hits[0]  # type: ignore[arg-type]
        assert hit.document_id == f"doc-{i:04d}"
        passage = catalog.read(hit.citation)
        assert passage.text == lead
        assert hit.line_start == 1


def test_nested_topic_rollup(catalog: Catalog) -> None:
    topics = {t.id: t for t in catalog.topics()}
    placed: dict[str, set[str]] = {"craft": set(), "metals": set(), "nature": set()}
    for d in DOCS:
        placed[d["topicPath"][-1]].add(d["id"])
        for ref in d.get("tocReferences", []):
            placed[ref["topicPath"][-1]].add(d["id"])
    assert topics["metals"].parent_id == "craft"
    assert topics["metals"].direct_count == len(placed["metals"])
    assert topics["craft"].direct_count == len(placed["craft"])
    assert topics["craft"].subtree_count == len(placed["craft"] | placed["metals"])
    assert (
        topics["craft"].subtree_count < topics["craft"].direct_count + topics["metals"].direct_count
    )


def test_ordered_listing(catalog: Catalog) -> None:
    def key(d: dict[str, Any], ordinal: int | None) -> tuple[bool, int, str]:
        return (ordinal is None, ordinal or 0, d["slug"])

    rows = []
    for d in DOCS:
        if d["topicPath"][-1] == "nature":
            rows.append((key(d, d.get("ordinal")), d["id"]))
        for ref in d.get("tocReferences", []):
            if ref["topicPath"][-1] == "nature":
                rows.append((key(d, ref.get("ordinal")), d["id"]))
    expected = [doc_id for _, doc_id in sorted(rows)]
    page = catalog.list_documents("nature", limit=100)
    assert [d.id for d in page.documents] == expected
    assert page.documents[0].id == "doc-0000"
    assert page.documents[0].ordinal == -7


def test_shared_toc_placements(catalog: Catalog) -> None:
    doc = catalog.document("doc-0000")
    assert doc.topic_id == "craft"
    assert {p.topic_id for p in doc.placements if not p.primary} == {"nature", "metals"}
    # Listed once in the craft subtree, at its first placement, before pagination.
    seen = []
    for offset in range(0, 40, 5):
        seen += [d.id for d in catalog.list_documents("craft", limit=5, offset=offset).documents]
    assert seen.count("doc-0000") == 1
    assert len(seen) == len(set(seen)) == catalog.list_documents("craft").total
    # Search and citations identify the canonical document only.
    hits = catalog.search(DOCS[0]["title"], mode="keyword").hits
    assert [h.document_id for h in hits].count("doc-0000") == 1


def test_metadata_sample(catalog: Catalog) -> None:
    assert catalog.document("doc-0007").meta == {"tags": ["fixture", "odd"], "generatedIndex": 7}


def test_asset(catalog: Catalog) -> None:
    data = catalog.asset("assets/mark.png")
    assert hashlib.sha256(data).hexdigest() == hashlib.sha256(PNG).hexdigest()
    assert asset_media_type("assets/mark.png") == "image/png"
    assert "assets/mark.png" in catalog.body("doc-0001")


@pytest.mark.parametrize(
    ("lat", "lon", "radius", "expected"),
    [
        (47.6062, -122.3321, 50_000, ["doc-0000"]),
        (0.0, -180.0, 50_000, ["doc-0001"]),
        (90.0, 170.0, 0, ["doc-0002"]),
        (30.1, 50.2, 0, ["doc-0004"]),
    ],
)
def test_radius_results(
    catalog: Catalog, lat: float, lon: float, radius: float, expected: list[str]
) -> None:
    page = catalog.nearby(RadiusQuery(lat, lon, radius))
    assert [r.document.id for r in page.results] == expected


def test_multi_shard_compiled_catalog_searches_and_validates(tmp_path: Path) -> None:
    write_tree(tmp_path / "src", {"assets/mark.png": PNG}, catalog=CATALOG_YAML + TOPICS)
    source = write_jsonl(tmp_path / "src" / "docs.jsonl", DOCS)
    result = build(source, tmp_path / "multi.gezk", shard_target=20, shard_max=30)
    assert result.shards > 2
    assert validate_archive(result.path, deep=True).findings == ()
    with open_catalog(result.path, embedder=HashEmbedder(), cache_dir=tmp_path / "cache") as c:
        lead = DOCS[11]["markdown"].split("\n\n")[0]
        embed_input = f"{DOCS[11]['title']}\n{lead}"
        everywhere = c.search(embed_input, mode="vector", shard_budget=len(c.shards))
        assert everywhere.hits[0].document_id == "doc-0011"
        budget = c.search(embed_input, mode="vector", shard_budget=1)
        assert len(budget.sources[0].shards_searched) == 1
        assert c.search(DOCS[11]["title"], mode="keyword").hits[0].document_id == "doc-0011"
