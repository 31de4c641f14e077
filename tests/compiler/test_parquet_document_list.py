"""The Parquet document-list input: the JSON Lines list's fields as columns, read in batches."""

from __future__ import annotations

import gc
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.compiler import SourceError, load_source
from gezel_knowledge.compiler.sources.parquet_document_list import (
    DocumentRowError,
    _Transcoder,
    load_parquet_document_list,
)
from gezel_knowledge.extras import MissingExtra
from tests.compiler.trees import CATALOG_YAML, CREATED_AT, PNG, build, write_jsonl, write_tree

TOPICS = """\
topics:
  - {id: places, name: Places, description: Where things are, order: 2}
  - {id: cities, name: Cities, parentId: places}
  - {id: news, name: News, order: 1}
"""


def _docs() -> list[dict[str, Any]]:
    """Every field the JSON Lines list takes, across four documents."""
    return [
        {
            "id": "seattle",
            "title": "Seattle",
            "topicPath": ["places", "cities"],
            "markdown": "# Seattle\n\nA city by the sound. ![map](assets/maps/seattle.png)\n",
            "summary": "City in Washington",
            "slug": "the-emerald-city",
            "ordinal": 3,
            "tocReferences": [{"topicPath": ["news"], "ordinal": -5}, {"topicPath": ["places"]}],
            "aliases": ["Emerald City", "Jet City"],
            "locations": [
                {
                    "id": "sea-2",
                    "latitude": 47.6062,
                    "longitude": -122.3321,
                    "role": "subject",
                    "provenance": {"source": "test", "rank": 2},
                },
                {"id": "sea-1", "latitude": 47.5, "longitude": 180.0, "role": "associated"},
            ],
            "sourceUrl": "https://example.test/seattle",
            "sourceRevision": "r1",
            "sourceUpdatedAt": "2026-01-01",
            "attribution": {"author": "A. Writer", "licence": "CC0"},
            "meta": {"population": 755078, "tags": ["coastal", "pacific"], "nested": {"b": 1}},
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
        {
            "id": "lisbon",
            "title": "Lisbon",
            "topicPath": ["places", "cities"],
            "markdown": "# Lisbon\n\n"
            + "Hills, trams and tiles. " * 60
            + "\n\n## Food\n\nPastéis.\n",
            "ordinal": -2,
        },
    ]


_LOCATION = pa.struct(
    [
        ("id", pa.string()),
        ("latitude", pa.float64()),
        ("longitude", pa.float64()),
        ("role", pa.string()),
        ("provenance", pa.string()),  # JSON text inside a struct
    ]
)
_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("title", pa.string()),
        ("topicPath", pa.list_(pa.string())),
        ("markdown", pa.large_string()),
        ("body", pa.string()),
        ("summary", pa.string()),
        ("slug", pa.string()),
        ("language", pa.dictionary(pa.int8(), pa.string())),
        ("ordinal", pa.int64()),
        (
            "tocReferences",
            pa.list_(pa.struct([("topicPath", pa.list_(pa.string())), ("ordinal", pa.int32())])),
        ),
        ("aliases", pa.list_(pa.string())),
        ("locations", pa.list_(_LOCATION)),
        ("sourceUrl", pa.string()),
        ("sourceRevision", pa.string()),
        ("sourceUpdatedAt", pa.string()),
        ("attribution", pa.map_(pa.string(), pa.string())),
        ("meta", pa.string()),  # JSON text
    ]
)


def _parquet_rows(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for doc in docs:
        row = {name: doc.get(name) for name in _SCHEMA.names}
        if doc.get("meta") is not None:
            row["meta"] = json.dumps(doc["meta"])
        if doc.get("attribution") is not None:
            row["attribution"] = list(doc["attribution"].items())
        if doc.get("locations") is not None:
            row["locations"] = [
                {
                    **loc,
                    "provenance": json.dumps(loc["provenance"]) if "provenance" in loc else None,
                }
                for loc in doc["locations"]
            ]
        rows.append(row)
    return rows


def write_parquet(
    path: Path, docs: list[dict[str, Any]], schema: pa.Schema = _SCHEMA, *, group: int = 1
) -> Path:
    """A Parquet document list, one row group per ``group`` rows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(
        pa.Table.from_pylist(_parquet_rows(docs), schema=schema), path, row_group_size=group
    )
    return path


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A source folder with catalog.yaml (and its topics), README, licence and an image."""
    return write_tree(
        tmp_path / "src", {"assets/maps/seattle.png": PNG}, catalog=CATALOG_YAML + TOPICS
    )


def test_the_same_documents_as_json_lines_and_parquet_build_the_same_bytes(
    source: Path, tmp_path: Path
) -> None:
    jsonl = write_jsonl(source / "docs.jsonl", _docs())
    parquet = write_parquet(source / "docs.parquet", _docs())
    assert pq.ParquetFile(parquet).metadata.num_row_groups == len(_docs())
    a = build(jsonl, tmp_path / "a.gezk")
    b = build(parquet, tmp_path / "b.gezk")
    assert (a.documents, a.assets) == (4, 1)
    assert a.manifest.to_json()["spatial"]["locationCount"] == 4
    assert b.sha256 == a.sha256
    assert (tmp_path / "b.gezk").read_bytes() == (tmp_path / "a.gezk").read_bytes()


def test_the_cli_builds_a_parquet_list(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jsonl = write_jsonl(source / "docs.jsonl", _docs())
    parquet = write_parquet(source / "docs.parquet", _docs(), group=3)
    common = [
        "--embedder",
        "test-hash-embed@1",
        "--created-at",
        CREATED_AT,
        "--no-cache",
        "--quiet",
    ]
    assert main(["build", str(jsonl), "-o", str(tmp_path / "a.gezk"), *common]) == 0
    assert main(["build", str(parquet), "-o", str(tmp_path / "b.gezk"), *common]) == 0
    assert "4 documents" in capsys.readouterr().out
    assert (tmp_path / "b.gezk").read_bytes() == (tmp_path / "a.gezk").read_bytes()


def test_native_structs_and_json_text_are_the_same_input(source: Path, tmp_path: Path) -> None:
    """meta as a struct column, tocReferences as JSON text: the same documents either way."""
    docs = [
        {"id": "a", "title": "A", "topicPath": ["news"], "markdown": "Alpha.\n",
         "meta": {"k": "v", "n": 1}, "tocReferences": [{"topicPath": ["places"], "ordinal": 4}]},
        {"id": "b", "title": "B", "topicPath": ["news"], "markdown": "Beta.\n",
         "meta": {"k": "w", "n": 2}},
    ]  # fmt: skip
    write_jsonl(source / "docs.jsonl", docs)
    schema = pa.schema(
        [
            ("id", pa.string()),
            ("title", pa.string()),
            ("topicPath", pa.string()),  # JSON text
            ("markdown", pa.string()),
            ("meta", pa.struct([("k", pa.string()), ("n", pa.int64())])),
            ("tocReferences", pa.string()),  # JSON text
        ]
    )
    rows = [
        {
            **d,
            "topicPath": json.dumps(d["topicPath"]),
            "tocReferences": json.dumps(d["tocReferences"]) if "tocReferences" in d else None,
        }
        for d in docs
    ]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), source / "docs.parquet")
    a = build(source / "docs.jsonl", tmp_path / "a.gezk")
    b = build(source / "docs.parquet", tmp_path / "b.gezk")
    assert b.sha256 == a.sha256


def test_rows_without_a_topic_path_go_to_the_root_topic(source: Path, tmp_path: Path) -> None:
    docs = [
        {"id": "a", "title": "A", "markdown": "Alpha.\n"},
        {"id": "b", "title": "B", "markdown": "Beta.\n", "topicPath": ["news"]},
    ]
    schema = pa.schema(
        [("id", pa.string()), ("title", pa.string()), ("markdown", pa.string()),
         ("topicPath", pa.list_(pa.string()))]
    )  # fmt: skip
    rows = [{"topicPath": None, **d} for d in docs]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), source / "docs.parquet")
    loaded = load_source(source / "docs.parquet")
    assert [d.topic_path for d in loaded.documents] == [("demo",), ("news",)]
    root = next(t for t in loaded.topics if t.id == "demo")
    assert (root.name, root.parent_id) == ("Demo catalog", None)
    # The same list as JSON Lines, with the root topic spelled out, builds the same archive.
    write_jsonl(source / "docs.jsonl", [{"topicPath": ["demo"], **docs[0]}, docs[1]])
    (source / "catalog.yaml").write_text(
        CATALOG_YAML + TOPICS + "  - {id: demo, name: Demo catalog}\n", encoding="utf-8"
    )
    a = build(source / "docs.jsonl", tmp_path / "a.gezk")
    b = build(source / "docs.parquet", tmp_path / "b.gezk")
    assert b.sha256 == a.sha256


def test_root_topic_comes_from_catalog_yaml_when_declared(source: Path) -> None:
    (source / "catalog.yaml").write_text(
        CATALOG_YAML + "rootTopic: {id: home, name: Home}\n", encoding="utf-8"
    )
    table = pa.table({"id": ["a"], "title": ["A"], "markdown": ["Alpha.\n"]})
    pq.write_table(table, source / "docs.parquet")
    loaded = load_source(source / "docs.parquet")
    assert loaded.documents[0].topic_path == ("home",)
    assert [(t.id, t.name) for t in loaded.topics] == [("home", "Home")]


@pytest.mark.parametrize(
    ("row", "reason", "message"),
    [
        ({"title": None}, "invalid-document", "title is required"),
        ({"ordinal": 1.5}, "invalid-document", "ordinal must be an integer"),
        ({"meta": "{not json"}, "invalid-json", "meta is text but not JSON"),
        ({"meta": "[1, 2]"}, "invalid-document", "meta must be an object"),
        ({"topicPath": "[]"}, "invalid-document", "topicPath must be a non-empty list"),
        (
            {"locations": json.dumps([{"id": "x", "latitude": "north", "longitude": 0}])},
            "invalid-coordinate",
            "location 'x': latitude must be a number",
        ),
    ],
)
def test_a_bad_row_is_named_by_its_row_number(
    source: Path, row: dict[str, Any], reason: str, message: str
) -> None:
    good = {"id": "a", "title": "A", "topicPath": '["news"]', "markdown": "A.\n", "ordinal": None,
            "meta": None, "locations": None}  # fmt: skip
    rows = [good, {**good, "id": "b"}, {**good, "id": "c", **row}]
    schema = pa.schema(
        [("id", pa.string()), ("title", pa.string()), ("topicPath", pa.string()),
         ("markdown", pa.string()), ("ordinal", pa.float64()), ("meta", pa.string()),
         ("locations", pa.string())]
    )  # fmt: skip
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), source / "docs.parquet")
    with pytest.raises(DocumentRowError) as caught:
        load_parquet_document_list(source / "docs.parquet")
    error = caught.value
    assert (error.reason, error.row, error.path) == (reason, 3, "docs.parquet")
    assert str(error).startswith(f"docs.parquet row 3: {message}")


def test_errors_found_during_the_build_name_the_row_too(source: Path, tmp_path: Path) -> None:
    table = pa.table(
        {
            "id": ["a", "b", "a"],
            "title": ["A", "B", "A again"],
            "topicPath": [["news"], ["news"], ["news"]],
            "markdown": ["A.\n", "B.\n", "C.\n"],
        }
    )
    pq.write_table(table, source / "docs.parquet")
    with pytest.raises(SourceError) as caught:
        build(source / "docs.parquet", tmp_path / "x.gezk")
    assert caught.value.reason == "duplicate-document-id"
    assert "docs.parquet row 3" in str(caught.value)
    assert "docs.parquet row 1" in str(caught.value)
    assert not (tmp_path / "x.gezk").exists()


@pytest.mark.parametrize(
    ("table", "reason", "message"),
    [
        (
            pa.table({"id": ["a"], "title": ["A"], "markdown": ["A.\n"], "colour": ["red"]}),
            "invalid-document",
            "unknown columns ['colour']",
        ),
        (
            pa.table({"id": ["a"], "markdown": ["A.\n"]}),
            "invalid-document",
            "missing columns ['title']",
        ),
        (
            pa.table({"id": ["a"], "title": ["A"], "markdown": [b"A.\n"]}),
            "invalid-column-type",
            "column markdown has type binary",
        ),
    ],
)
def test_columns_are_checked_before_any_row(
    source: Path, table: pa.Table, reason: str, message: str
) -> None:
    pq.write_table(table, source / "docs.parquet")
    with pytest.raises(SourceError) as caught:
        load_parquet_document_list(source / "docs.parquet")
    assert caught.value.reason == reason
    assert str(caught.value).startswith(f"docs.parquet: {message}")


def test_a_file_that_is_not_parquet_is_refused(source: Path) -> None:
    (source / "docs.parquet").write_bytes(b"id,title\na,A\n")
    with pytest.raises(SourceError) as caught:
        load_source(source / "docs.parquet")
    assert caught.value.reason == "invalid-parquet"


def test_without_pyarrow_the_error_names_the_extra(
    source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_parquet(source / "docs.parquet", _docs())
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(MissingExtra) as caught:
        load_source(source / "docs.parquet")
    assert caught.value.reason == "missing-extra"
    assert "gezel-knowledge[parquet]" in str(caught.value)


def test_the_list_is_read_a_row_group_at_a_time(
    source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Arrow memory while rows are transcoded stays near one row group, not the file."""
    body = "Wide body text. " * 4000  # 64 KB
    table = pa.table(
        {
            "id": [f"d{i:03d}" for i in range(64)],
            "title": [f"D {i}" for i in range(64)],
            "topicPath": [["news"]] * 64,
            "markdown": [f"{body}{i}\n" for i in range(64)],
        }
    )
    path = source / "docs.parquet"
    pq.write_table(table, path, row_group_size=4, compression="none")
    assert path.stat().st_size > 4_000_000
    peaks: list[int] = []
    objects = _Transcoder._objects

    def recording(self: _Transcoder, batch: Any) -> Any:
        peaks.append(pa.total_allocated_bytes())
        yield from objects(self, batch)

    monkeypatch.setattr(_Transcoder, "_objects", recording)
    before = pa.total_allocated_bytes()
    loaded = load_source(path)
    assert len(loaded.documents) == 64
    assert len(peaks) == 16  # one batch per row group
    assert max(peaks) - before < 1_000_000  # a row group is 256 KB; the file is 4 MB


def test_bodies_are_staged_until_the_source_is_dropped(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    write_parquet(source / "docs.parquet", _docs())
    loaded = load_source(source / "docs.parquet")
    assert len(list(scratch.iterdir())) == 1
    lisbon = next(d for d in loaded.documents if d.id == "lisbon")
    assert "Pastéis." in lisbon.load_body(None)  # type: ignore[arg-type]
    del loaded, lisbon
    gc.collect()
    assert list(scratch.iterdir()) == []


def test_a_refused_list_leaves_no_staged_rows(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    pq.write_table(
        pa.table({"id": ["a"], "title": [None], "markdown": ["A.\n"]}), source / "d.parquet"
    )
    with pytest.raises(DocumentRowError):
        load_source(source / "d.parquet")
    assert list(scratch.iterdir()) == []
