"""The JSON Lines document-list input (spec section 5.2.1 plus the body)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from gezel_knowledge.compiler import LinkBase, SourceError
from gezel_knowledge.compiler.sources.document_list import load_document_list
from gezel_knowledge.validate import validate_catalog
from tests.compiler.trees import CATALOG_YAML, PNG, build, entries, extract, write_jsonl, write_tree

TOPICS = """\
topics:
  - {id: places, name: Places, description: Where things are, order: 2}
  - {id: cities, name: Cities, parentId: places}
  - {id: news, name: News, order: 1}
"""


def _docs() -> list[dict[str, object]]:
    return [
        {
            "id": "seattle",
            "title": "Seattle",
            "topicPath": ["places", "cities"],
            "markdown": "# Seattle\n\nA city by the sound. ![map](assets/maps/seattle.png)\n",
            "summary": "City in Washington",
            "ordinal": 3,
            "tocReferences": [
                {"topicPath": ["news"], "ordinal": -5},
                {"topicPath": ["places"]},
            ],
            "locations": [
                {
                    "id": "sea-2",
                    "latitude": 47.6062,
                    "longitude": -122.3321,
                    "role": "subject",
                    "provenance": {"source": "test"},
                },
                {"id": "sea-1", "latitude": 47.5, "longitude": 180, "role": "associated"},
            ],
            "sourceUrl": "https://example.test/seattle",
            "sourceRevision": "r1",
            "sourceUpdatedAt": "2026-01-01",
        },
        {
            "id": "fiji",
            "title": "Fiji",
            "topicPath": ["places"],
            "body": "Islands across the date line.\n",
            "language": "fj",
            "locations": [
                {"id": "east", "latitude": -17.0, "longitude": 179.5, "role": "subject"},
                {"id": "west", "latitude": -16.5, "longitude": -179.8, "role": "subject"},
            ],
        },
        {"id": "storm", "title": "Storm", "topicPath": ["news", "weekly"], "markdown": "Wind.\n"},
    ]


def _source(tmp_path: Path) -> Path:
    root = write_tree(
        tmp_path / "list", {"assets/maps/seattle.png": PNG}, catalog=CATALOG_YAML + TOPICS
    )
    return write_jsonl(root / "docs.jsonl", _docs())


def test_document_list_source(tmp_path: Path) -> None:
    source = load_document_list(_source(tmp_path))
    assert source.kind == "document-list"
    topics = {t.id: (t.name, t.parent_id, t.description) for t in source.topics}
    assert topics == {
        "places": ("Places", None, "Where things are"),
        "cities": ("Cities", "places", None),
        "news": ("News", None, None),
        "weekly": ("Weekly", "news", None),  # declared from its use
    }
    assert [a.path for a in source.assets] == ["assets/maps/seattle.png"]
    fiji = next(d for d in source.documents if d.id == "fiji")
    assert fiji.load_body(LinkBase("x", "y")) == "Islands across the date line.\n"
    assert (fiji.origin, fiji.origin_line) == ("docs.jsonl", 2)


def test_locations_and_shared_placements_reach_the_router(tmp_path: Path) -> None:
    result = build(_source(tmp_path), tmp_path / "list.gezk")
    out = extract(result.path, tmp_path / "x")
    conn = sqlite3.connect(out / "index/router.db")
    assert conn.execute(
        "SELECT * FROM document_locations ORDER BY document_id, location_id"
    ).fetchall() == [
        ("fiji", "east", -17.0, 179.5, "subject", None),
        ("fiji", "west", -16.5, -179.8, "subject", None),
        ("seattle", "sea-1", 47.5, -180.0, "associated", None),
        ("seattle", "sea-2", 47.6062, -122.3321, "subject", '{"source":"test"}'),
    ]
    assert conn.execute(
        "SELECT * FROM topic_documents ORDER BY topic_id, document_id"
    ).fetchall() == [
        ("cities", "seattle", 3),
        ("news", "seattle", -5),
        ("places", "fiji", None),
        ("places", "seattle", None),
        ("weekly", "storm", None),
    ]
    counts = dict(conn.execute("SELECT id, document_count FROM topics").fetchall())
    assert counts == {"places": 2, "cities": 1, "news": 1, "weekly": 1}
    assert conn.execute(
        "SELECT ordinal, topic_id, language FROM documents WHERE id='seattle'"
    ).fetchone() == (3, "cities", "en")
    assert conn.execute("SELECT language FROM documents WHERE id='fiji'").fetchone() == ("fj",)
    spatial = result.manifest.to_json()["spatial"]
    assert spatial["locationCount"] == 4
    assert spatial["locatedDocuments"] == 2
    # Subject points only; Fiji straddles the date line, so the arc wraps and splits.
    assert spatial["coverage"] == [
        {"west": 179.5, "south": -17.0, "east": 180.0, "north": 47.6062},
        {"west": -180.0, "south": -17.0, "east": -122.3321, "north": 47.6062},
    ]
    sort_keys = {t["id"]: t["sortKey"] for t in result.manifest.to_json()["topics"]}
    assert sort_keys["news"] < sort_keys["places"]
    assert entries(result.path)["assets/maps/seattle.png"] == PNG
    report = validate_catalog(out, deep=True)
    assert report.ok, report.findings


def test_input_order_of_documents_references_and_locations_does_not_matter(tmp_path: Path) -> None:
    first = build(_source(tmp_path / "a"), tmp_path / "a.gezk")
    docs = _docs()[::-1]
    for doc in docs:
        for key in ("tocReferences", "locations"):
            if key in doc:
                doc[key] = list(doc[key])[::-1]  # type: ignore[call-overload]
    root = write_tree(
        tmp_path / "b" / "list", {"assets/maps/seattle.png": PNG}, catalog=CATALOG_YAML + TOPICS
    )
    second = build(write_jsonl(root / "docs.jsonl", docs), tmp_path / "b.gezk")
    assert first.sha256 == second.sha256


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("not json", "invalid-json"),
        ('["a list"]', "invalid-document"),
        ('{"id": "x", "title": "X", "topicPath": ["t"]}', "invalid-document"),
        ('{"id": "x", "title": "X", "topicPath": [], "markdown": ""}', "invalid-document"),
        (
            '{"id": "x", "title": "X", "topicPath": ["t"], "markdown": "", "colour": 1}',
            "invalid-document",
        ),
        (
            '{"id": "x", "title": "X", "topicPath": ["t"], "markdown": "", "body": ""}',
            "invalid-document",
        ),
        (
            '{"id": "x", "title": "X", "topicPath": ["t"], "markdown": "", "ordinal": "1"}',
            "invalid-document",
        ),
    ],
)
def test_malformed_lines_name_the_line(tmp_path: Path, line: str, reason: str) -> None:
    root = write_tree(tmp_path / "l", {})
    (root / "docs.jsonl").write_text(
        '{"id": "ok", "title": "Ok", "topicPath": ["t"], "markdown": "x"}\n\n' + line + "\n"
    )
    with pytest.raises(SourceError) as err:
        load_document_list(root / "docs.jsonl")
    assert (err.value.reason, err.value.path, err.value.line) == (reason, "docs.jsonl", 3)


def test_a_referenced_asset_must_exist(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "l", {})
    write_jsonl(
        root / "docs.jsonl",
        [{"id": "a", "title": "A", "topicPath": ["t"], "markdown": "![x](assets/nope.png)\n"}],
    )
    with pytest.raises(SourceError) as err:
        load_document_list(root / "docs.jsonl")
    assert (err.value.reason, err.value.line) == ("missing-link-target", 1)


def test_an_asset_shown_in_a_code_block_passes_deep_validation(tmp_path: Path) -> None:
    # The compiler ignores fenced code when it collects asset references; the deep check
    # must read the body the same way, or install would refuse what build produced.
    root = write_tree(tmp_path / "l", {})
    body = "# A\n\nWrite an image like this:\n\n```markdown\n![x](assets/nope.png)\n```\n"
    write_jsonl(
        root / "docs.jsonl", [{"id": "a", "title": "A", "topicPath": ["t"], "markdown": body}]
    )
    result = build(root / "docs.jsonl", tmp_path / "out")
    report = validate_catalog(extract(result.path, tmp_path / "x"), deep=True)
    assert report.findings == ()


@pytest.mark.parametrize(
    ("files", "markdown", "reason"),
    [
        ({"assets/aux.png": PNG}, "![x](assets/aux.png)\n", "invalid-asset-path"),
        (
            {"assets/A.png": PNG, "assets/a.png": PNG},
            "![x](assets/a.png) ![y](assets/A.png)\n",
            "asset-path-collision",
        ),
    ],
)
def test_an_asset_the_archive_could_not_ship_is_refused_when_read(
    tmp_path: Path, files: dict[str, bytes], markdown: str, reason: str
) -> None:
    root = write_tree(tmp_path / "l", files)
    doc = {"id": "a", "title": "A", "topicPath": ["t"], "markdown": markdown}
    first = {"id": "z", "title": "Z", "topicPath": ["t"], "markdown": "Z.\n"}
    write_jsonl(root / "docs.jsonl", [first, doc])
    with pytest.raises(SourceError) as err:
        load_document_list(root / "docs.jsonl")
    assert (err.value.reason, err.value.path, err.value.line) == (reason, "docs.jsonl", 2)


def test_a_named_catalog_file_replaces_the_one_beside_the_list(tmp_path: Path) -> None:
    list_file = _source(tmp_path)
    other = tmp_path / "other.yaml"
    other.write_text(CATALOG_YAML + "topics:\n  - {id: news, name: Headlines}\n")
    source = load_document_list(list_file, catalog=other)
    topics = {t.id: (t.name, t.description) for t in source.topics}
    # Only the named file's topics are declared; the description of "places", declared beside
    # the list, is not read.
    assert topics["news"] == ("Headlines", None)
    assert topics["places"][1] is None
