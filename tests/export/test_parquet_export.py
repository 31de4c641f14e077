"""The Parquet companion, read back with DuckDB as the spec kit's recipe does, against the
catalog's own databases read with plain sqlite3."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import brotli
import duckdb
import numpy as np
import pyarrow.parquet as pq
import pytest

from gezel_knowledge.errors import IntegrityFailure, InvalidInput
from gezel_knowledge.export import ParquetExport, export_parquet
from gezel_knowledge.export import parquet as parquet_module
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.progress import ProgressEvent
from gezk.jcs import canonicalize
from tests.reader.catalog_builder import copy_catalog, mutate_db

# -- helpers -----------------------------------------------------------------------------------


def _manifest(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    return data


def _sqlite(path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        yield conn
    finally:
        conn.close()


def _rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    for conn in _sqlite(path):
        return conn.execute(sql).fetchall()
    raise AssertionError("unreachable")


def _shard_db(root: Path, shard: dict[str, Any]) -> Path:
    return root.joinpath(*shard["path"].split("/"))


def _duck(sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with duckdb.connect() as con:
        return con.execute(sql, list(params)).fetchall()


def _extracted(catalog: Path) -> Path:
    """The extracted directory of a catalog (a .gezk is verified and extracted first)."""
    with open_catalog(catalog) as handle:
        return handle.root


@pytest.fixture(scope="module")
def handbook_export(handbook_gezk: Path, tmp_path_factory: pytest.TempPathFactory) -> ParquetExport:
    return export_parquet(handbook_gezk, tmp_path_factory.mktemp("companion") / "handbook")


@pytest.fixture(scope="module")
def shared_export(shared_catalog: Path, tmp_path_factory: pytest.TempPathFactory) -> ParquetExport:
    return export_parquet(shared_catalog, tmp_path_factory.mktemp("companion") / "shared")


# -- determinism and writer options -------------------------------------------------------------


def test_exporting_twice_gives_identical_bytes(
    handbook_gezk: Path, handbook_export: ParquetExport, tmp_path: Path
) -> None:
    again = export_parquet(handbook_gezk, tmp_path / "again")
    first = sorted(p.name for p in handbook_export.directory.iterdir())
    assert first == sorted(p.name for p in again.directory.iterdir())
    assert "parquet-manifest.json" in first
    for name in first:
        assert (again.directory / name).read_bytes() == (
            handbook_export.directory / name
        ).read_bytes(), name


def test_writer_options_are_pinned_in_every_file(handbook_export: ParquetExport) -> None:
    for exported in handbook_export.files:
        meta = pq.ParquetFile(handbook_export.directory / exported.path).metadata
        assert meta.created_by == handbook_export.writer
        assert meta.format_version == "2.6"
        for g in range(meta.num_row_groups):
            group = meta.row_group(g)
            for c in range(group.num_columns):
                column = group.column(c)
                assert column.compression == "ZSTD"
                assert column.is_stats_set, (exported.path, column.path_in_schema)


def test_row_groups_are_cut_at_the_requested_size(handbook_gezk: Path, tmp_path: Path) -> None:
    result = export_parquet(handbook_gezk, tmp_path / "small", row_group_rows=10)
    chunks = result.rows("chunks")
    meta = pq.ParquetFile(result.directory / "chunks-000.parquet").metadata
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert sizes == [10] * (chunks // 10) + ([chunks % 10] if chunks % 10 else [])


def test_report_lists_every_file_with_its_digest(handbook_export: ParquetExport) -> None:
    report = json.loads(handbook_export.report.read_text(encoding="utf-8"))
    assert report == handbook_export.to_json()
    assert report["catalog"]["id"] == "gezel-handbook"
    for entry in report["files"]:
        data = (handbook_export.directory / entry["path"]).read_bytes()
        assert entry["sizeBytes"] == len(data)
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
        assert (
            entry["rows"]
            == pq.ParquetFile(handbook_export.directory / entry["path"]).metadata.num_rows
        )
    assert [e["path"] for e in report["files"]] == [
        "topics.parquet",
        "topic_documents.parquet",
        "document_locations.parquet",
        "documents-000.parquet",
        "chunks-000.parquet",
    ]


# -- DuckDB, as the recipe reads it ------------------------------------------------------------


def test_duckdb_counts_equal_the_manifest(
    handbook_gezk: Path, handbook_export: ParquetExport
) -> None:
    root = _extracted(handbook_gezk)
    manifest = _manifest(root)
    d = handbook_export.directory
    assert _duck(f"SELECT count(*) FROM '{d}/documents-*.parquet'") == [
        (manifest["counts"]["documents"],)
    ]
    assert _duck(f"SELECT count(*) FROM '{d}/chunks-*.parquet'") == [
        (manifest["counts"]["chunks"],)
    ]
    assert _duck(f"SELECT count(*) FROM '{d}/topics.parquet'") == [(len(manifest["topics"]),)]
    placements = _rows(root / "index/router.db", "SELECT count(*) FROM topic_documents")
    assert _duck(f"SELECT count(*) FROM '{d}/topic_documents.parquet'") == placements
    assert _duck(f"SELECT count(*) FROM '{d}/document_locations.parquet'") == [
        (manifest["spatial"]["locationCount"],)
    ]


def test_duckdb_joins_chunks_to_their_documents(handbook_export: ParquetExport) -> None:
    d = handbook_export.directory
    rows = _duck(
        f"""SELECT d.id, d.chunk_count, count(c.chunk_uid)
              FROM '{d}/documents-*.parquet' d
              LEFT JOIN '{d}/chunks-*.parquet' c ON c.document_id = d.id
             GROUP BY d.id, d.chunk_count ORDER BY d.id"""
    )
    assert rows
    assert all(chunk_count == joined for _, chunk_count, joined in rows)
    orphans = _duck(
        f"""SELECT count(*) FROM '{d}/chunks-*.parquet' c
             ANTI JOIN '{d}/documents-*.parquet' d ON d.id = c.document_id"""
    )
    assert orphans == [(0,)]


def test_dequantised_vectors_equal_the_catalogs(
    handbook_gezk: Path, handbook_export: ParquetExport
) -> None:
    root = _extracted(handbook_gezk)
    dims = _manifest(root)["embedding"]["dimensions"]
    stored = _rows(
        root / "index/router.db",
        "SELECT c.chunk_uid, q.v, b.v FROM chunks c JOIN chunk_vectors_int8 q ON q.chunk_id = c.id "
        "JOIN chunk_vectors_bit b ON b.chunk_id = c.id ORDER BY c.id",
    )
    exported = _duck(
        f"""SELECT chunk_uid, list_transform(embedding, lambda x: x / 127.0), embedding_bit
              FROM '{handbook_export.directory}/chunks-000.parquet' ORDER BY id"""
    )
    assert [uid for uid, _, _ in exported] == [uid for uid, _, _ in stored]
    got = np.array([v for _, v, _ in exported], dtype=np.float64)
    want = np.stack([np.frombuffer(q, dtype=np.int8) for _, q, _ in stored]) / 127.0
    assert got.shape == (len(stored), dims)
    np.testing.assert_array_equal(got, want)
    assert [bits for _, _, bits in exported] == [bits for _, _, bits in stored]


def test_recipe_scoring_finds_a_chunk_by_its_own_vector(handbook_export: ParquetExport) -> None:
    """The recipe's stage 2 (cosine over dequantised int8) and stage 1 (Hamming over bits)."""
    d = handbook_export.directory
    uid, vector, bits = _duck(
        f"SELECT chunk_uid, list_transform(embedding, lambda x: x / 127.0), embedding_bit "
        f"FROM '{d}/chunks-*.parquet' ORDER BY chunk_uid LIMIT 1"
    )[0]
    dims = len(vector)
    ranked = _duck(
        f"""WITH q AS (SELECT list_transform(embedding, lambda x: x / 127.0) AS v, chunk_uid
                         FROM '{d}/chunks-*.parquet')
            SELECT chunk_uid, list_cosine_similarity(v, ?::DOUBLE[{dims}]::DOUBLE[]) AS cosine
              FROM q ORDER BY cosine DESC LIMIT 3""",
        vector,
    )
    assert ranked[0][0] == uid
    assert ranked[0][1] == pytest.approx(1.0)
    hamming = _duck(
        f"""SELECT chunk_uid, bit_count(xor(embedding_bit::BIT, ?::BLOB::BIT)) AS hamming
              FROM '{d}/chunks-000.parquet' ORDER BY hamming, chunk_uid LIMIT 1""",
        bits,
    )
    assert hamming == [(uid, 0)]


def test_the_rules_travel_with_every_file(
    handbook_gezk: Path, handbook_export: ParquetExport
) -> None:
    manifest = _manifest(_extracted(handbook_gezk))
    for exported in handbook_export.files:
        kv = dict(
            _duck(
                "SELECT decode(key), decode(value) FROM parquet_kv_metadata(?)",
                str(handbook_export.directory / exported.path),
            )
        )
        assert kv["gezk_catalog_id"] == "gezel-handbook"
        assert kv["gezk_archive_sha256"] == handbook_export.archive_sha256
        assert kv["gezk_embedding_int8_scale"] == "127"
        assert "x[i] = q[i] / 127" in kv["gezk_embedding_int8"]
        assert kv["gezk_embedding_bit_method"] == "sign"
        assert kv["gezk_embedding_bit_packing"] == "lsb-first"
        assert "gezk_embedding_bit_center" not in kv
        assert kv["gezk_embedding_dimensions"] == str(manifest["embedding"]["dimensions"])
        assert kv["gezk_embedding_profile_json"] == canonicalize(manifest["embedding"]).decode()


def test_centered_sign_profile_carries_its_center(centered_catalog: Path, tmp_path: Path) -> None:
    result = export_parquet(centered_catalog, tmp_path / "centered")
    kv = dict(
        _duck(
            "SELECT decode(key), decode(value) FROM parquet_kv_metadata(?)",
            str(result.directory / "chunks-000.parquet"),
        )
    )
    center = _manifest(centered_catalog)["embedding"]["quantization"]["binary"]["center"]
    assert kv["gezk_embedding_bit_method"] == "centered-sign"
    assert json.loads(kv["gezk_embedding_bit_center"]) == center
    assert "x[i] - c[i] > 0" in kv["gezk_embedding_bit"]


# -- lossless tables ---------------------------------------------------------------------------


def test_every_placement_is_exported_not_only_primary_paths(
    shared_catalog: Path, shared_export: ParquetExport
) -> None:
    router = shared_catalog / "index/router.db"
    placements = _rows(
        router,
        "SELECT topic_id, document_id, ordinal FROM topic_documents ORDER BY topic_id, document_id",
    )
    exported = _duck(
        f"SELECT topic_id, document_id, ordinal FROM '{shared_export.directory}/"
        "topic_documents.parquet'"
    )
    assert exported == placements
    assert ("nature", "doc-0000", -5) in exported  # a shared placement, not the primary one
    primary = _duck(
        f"SELECT topic_id, topic_path FROM '{shared_export.directory}/documents-000.parquet' "
        "WHERE id = 'doc-0000'"
    )
    assert primary == [("craft", ["craft"])]


def test_document_rows_carry_canonical_meta_sorted_aliases_and_bodies(
    shared_catalog: Path, shared_export: ParquetExport
) -> None:
    rows = {
        r[0]: r[1:]
        for r in _duck(
            "SELECT id, meta, aliases, markdown, ordinal, topic_path "
            f"FROM '{shared_export.directory}/documents-*.parquet'"
        )
    }
    stored = _rows(
        shared_catalog / "index/router.db",
        "SELECT id, meta_json, body_codec, body_blob, ordinal FROM documents",
    )
    assert set(rows) == {r[0] for r in stored}
    for doc_id, meta_json, codec, blob, ordinal in stored:
        meta, _, markdown, exported_ordinal, _ = rows[doc_id]
        body = brotli.decompress(blob) if codec == "br" else blob
        assert markdown == body.decode("utf-8")
        assert exported_ordinal == ordinal
        expected_meta = None if meta_json is None else canonicalize(json.loads(meta_json)).decode()
        assert meta == expected_meta
    assert rows["doc-0000"][0] == (
        '{"b":{"a":2,"z":1},"generatedIndex":0,"tags":["fixture","even"]}'
    )
    assert rows["doc-0006"][1] == ["Another", "Quasar Alias"]
    assert rows["doc-0001"][1] == []
    assert rows["doc-0002"][4] == ["craft", "wood"]


def test_meta_and_attribution_are_written_in_canonical_form(
    shared_catalog: Path, tmp_path: Path
) -> None:
    """A producer SHOULD store RFC 8785 JSON; the companion's meta is canonical either way."""
    catalog = copy_catalog(shared_catalog, tmp_path / "catalog")
    mutate_db(
        catalog / "index/router.db",
        """UPDATE documents SET meta_json = '{ "z": 1.0, "a": [true, null], "é": "x" }',
                                attribution_json = '{"b": "2",  "a": "1"}'
            WHERE id = 'doc-0003'""",
    )
    result = export_parquet(catalog, tmp_path / "out")
    rows = _duck(
        f"SELECT meta, attribution FROM '{result.directory}/documents-*.parquet' "
        "WHERE id = 'doc-0003'"
    )
    assert rows == [('{"a":[true,null],"z":1,"é":"x"}', '{"a":"1","b":"2"}')]


def test_locations_are_exported_with_their_provenance(
    shared_catalog: Path, shared_export: ParquetExport
) -> None:
    stored = _rows(
        shared_catalog / "index/router.db",
        "SELECT document_id, location_id, latitude, longitude, role, provenance_json "
        "FROM document_locations ORDER BY document_id, location_id",
    )
    exported = _duck(f"SELECT * FROM '{shared_export.directory}/document_locations.parquet'")
    assert exported == stored
    assert len(exported) == 2


def test_each_shard_has_its_own_documents_and_chunks(sharded_catalog: Path, tmp_path: Path) -> None:
    result = export_parquet(sharded_catalog, tmp_path / "sharded")
    manifest = _manifest(sharded_catalog)
    assert len(manifest["router"]["shards"]) == 3
    for shard in manifest["router"]["shards"]:
        tag = f"{shard['id']:03d}"
        docs = _duck(
            "SELECT DISTINCT shard_id, count(*) OVER () "
            f"FROM '{result.directory}/documents-{tag}.parquet'"
        )
        assert docs == [(shard["id"], shard["documents"])]
        stored = _rows(
            _shard_db(sharded_catalog, shard), "SELECT chunk_uid FROM chunks ORDER BY id"
        )
        exported = _duck(
            f"SELECT chunk_uid, shard_id FROM '{result.directory}/chunks-{tag}.parquet' ORDER BY id"
        )
        assert [u for u, _ in exported] == [u for (u,) in stored]
        assert {s for _, s in exported} == {shard["id"]}
    aliases = _duck(
        f"SELECT aliases FROM '{result.directory}/documents-*.parquet' WHERE id = 'doc-0004'"
    )
    assert aliases == [(["Zeta", "alpha", "Émile"],)]  # bytewise order, as SQLite sorts


def test_legacy_catalogs_export_their_primary_placements(
    legacy_catalog: Path, tmp_path: Path
) -> None:
    result = export_parquet(legacy_catalog, tmp_path / "legacy")
    documents = _rows(
        legacy_catalog / "index/router.db",
        "SELECT topic_id, id FROM documents ORDER BY topic_id, id",
    )
    placements = _duck(
        f"SELECT topic_id, document_id FROM '{result.directory}/topic_documents.parquet'"
    )
    assert placements == documents
    assert result.rows("document_locations") == 0
    assert result.rows("documents") == _manifest(legacy_catalog)["counts"]["documents"]


# -- progress, output folder, failures ---------------------------------------------------------


def test_progress_reports_rows_per_file(handbook_gezk: Path, tmp_path: Path) -> None:
    events: list[ProgressEvent] = []
    result = export_parquet(
        handbook_gezk, tmp_path / "p", row_group_rows=10, progress=events.append
    )
    chunk_events = [e for e in events if e.step == "chunks-000.parquet"]
    assert [e.done for e in chunk_events] == [0, 10, 20, result.rows("chunks")]
    assert {e.total for e in chunk_events} == {result.rows("chunks")}
    assert {e.job for e in events} == {"export-parquet"}
    assert {e.step for e in events} == {f.path for f in result.files}


def test_a_non_empty_folder_is_refused_without_overwrite(
    handbook_gezk: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InvalidInput) as caught:
        export_parquet(handbook_gezk, out)
    assert caught.value.reason == "output-exists"
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_overwrite_replaces_a_previous_export_and_drops_its_extra_files(
    handbook_gezk: Path, sharded_catalog: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    export_parquet(sharded_catalog, out)
    (out / "notes.txt").write_text("mine")
    assert (out / "chunks-002.parquet").is_file()
    result = export_parquet(handbook_gezk, out, overwrite=True)
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([*(f.path for f in result.files), "parquet-manifest.json", "notes.txt"])
    assert json.loads(result.report.read_text())["catalog"]["id"] == "gezel-handbook"
    assert not list(tmp_path.glob(".out.*"))


def test_an_overwrite_drops_the_locations_file_of_an_earlier_export_by_its_old_name(
    handbook_gezk: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    export_parquet(handbook_gezk, out)
    report = json.loads((out / "parquet-manifest.json").read_text())
    for entry in report["files"]:
        if entry["path"] == "document_locations.parquet":
            entry["path"] = "document-locations.parquet"
    (out / "document_locations.parquet").rename(out / "document-locations.parquet")
    (out / "parquet-manifest.json").write_text(json.dumps(report))
    export_parquet(handbook_gezk, out, overwrite=True)
    assert not (out / "document-locations.parquet").exists()
    assert (out / "document_locations.parquet").is_file()


def test_the_refusal_names_the_cli_option(handbook_gezk: Path, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    with pytest.raises(InvalidInput) as caught:
        export_parquet(handbook_gezk, tmp_path / "out")
    assert "--overwrite" in str(caught.value)
    assert "overwrite=True" not in str(caught.value)


def _folder(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir())}


def test_an_overwrite_that_fails_while_publishing_leaves_the_previous_export_whole(
    handbook_gezk: Path,
    sharded_catalog: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "out"
    export_parquet(sharded_catalog, out)
    (out / "notes.txt").write_text("mine")
    before = _folder(out)
    moves = {"rename": os.rename, "replace": os.replace}

    def failing(kind: str) -> Any:
        def move(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
            # A crash as the new export goes in: the staging folder, or its largest file.
            source = str(src)
            if ".partial" in source and source.endswith((".partial", "chunks-000.parquet")):
                raise OSError(errno.EIO, os.strerror(errno.EIO), source)
            moves[kind](src, dst, *args, **kwargs)

        return move

    with monkeypatch.context() as patched:
        patched.setattr(parquet_module.os, "rename", failing("rename"))
        patched.setattr(parquet_module.os, "replace", failing("replace"))
        with pytest.raises(OSError, match=os.strerror(errno.EIO)):
            export_parquet(handbook_gezk, out, overwrite=True)
    assert _folder(out) == before  # not a mix of the old and the new export
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_corrupt_catalog_fails_and_leaves_nothing(shared_catalog: Path, tmp_path: Path) -> None:
    broken = copy_catalog(shared_catalog, tmp_path / "broken")
    mutate_db(broken / "index/router.db", "DELETE FROM chunk_vectors_int8 WHERE chunk_id = 3")
    out = tmp_path / "out"
    with pytest.raises(IntegrityFailure) as caught:
        export_parquet(broken, out)
    assert caught.value.reason == "corrupt-vector"
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken"]


def test_counts_that_disagree_with_the_manifest_are_refused(
    shared_catalog: Path, tmp_path: Path
) -> None:
    broken = copy_catalog(shared_catalog, tmp_path / "broken")
    mutate_db(
        broken / "index/router.db",
        "DELETE FROM document_locations WHERE location_id = 'birthplace'",
    )
    with pytest.raises(IntegrityFailure) as caught:
        export_parquet(broken, tmp_path / "out")
    assert caught.value.reason == "count-mismatch"
    assert not (tmp_path / "out").exists()


def test_row_group_rows_must_be_positive(handbook_gezk: Path, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as caught:
        export_parquet(handbook_gezk, tmp_path / "x", row_group_rows=0)
    assert caught.value.reason == "invalid-argument"
