"""compile_catalog end to end: bytes, databases and manifest of built catalogs."""

from __future__ import annotations

import dataclasses
import json
import math
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import brotli
import numpy as np
import pytest
from numpy.typing import NDArray

from gezel_knowledge.archive import inspect_archive
from gezel_knowledge.compiler import BuildResult, SourceError
from gezel_knowledge.embedders.base import WhitespaceTokenizer
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.progress import ProgressEvent
from gezel_knowledge.validate import validate_catalog
from gezk.ddl import check_database, read_meta
from gezk.hashembed import hash_embed
from gezk.jcs import canonicalize
from gezk.profiles import (
    MARKDOWN_CHUNKS_2,
    MULTILINGUAL_E5_SMALL_2,
    TEST_HASH_EMBED_1,
    ChunkingProfile,
    EmbeddingProfile,
)
from gezk.quantize import pack_sign_bits, quantize_int8
from gezk.schemas import validate_manifest
from gezk.signing import TrustAnchors, generate_private_key, verify_manifest
from tests.compiler.trees import CATALOG_YAML, build, entries, extract, write_jsonl, write_tree


def _sentence(topic: str, i: int, n: int) -> str:
    return " ".join(f"{topic}{(i * 7 + k) % 13}" for k in range(n)) + "."


def _handbook(root: Path) -> Path:
    long_body = "\n\n".join(_sentence("para", i, 60) for i in range(12))
    return write_tree(
        root,
        {
            "SUMMARY.md": (
                "# Summary\n\n* [Welcome](README.md)\n\n## Basics\n\n"
                "* [Install](basics/install.md)\n* [Configure](basics/configure.md)\n\n"
                "## Reference\n\n* [Long page](ref/long.md)\n* [Install notes](basics/install.md)\n"
                "* [Empty](ref/empty.md)\n"
            ),
            "basics/install.md": (
                "---\nsummary: How to install\naliases: [setup, installation]\n"
                "meta: {tags: [b, a], level: 1}\nattribution: {author: Ann}\n---\n"
                "# Install\n\nRun the installer.\n\n## Verify\n\nCheck the version.\n"
            ),
            "basics/configure.md": "# Configure\n\nEdit the [install](install.md#verify) file.\n",
            "ref/long.md": f"# Long page\n\n{long_body}\n",
            "ref/empty.md": "---\ntitle: Empty\n---\n",
        },
    )


@pytest.fixture(scope="module")
def handbook(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BuildResult]:
    root = _handbook(tmp_path_factory.mktemp("hb") / "src")
    result = build(root, root.parent / "hb.gezk")
    return root, result


@pytest.fixture(scope="module")
def handbook_dir(
    handbook: tuple[Path, BuildResult], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return extract(handbook[1].path, tmp_path_factory.mktemp("hbx"))


def _rows(conn: sqlite3.Connection, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in conn.execute(sql, args)]


def test_same_inputs_give_byte_identical_archives(
    handbook: tuple[Path, BuildResult], tmp_path: Path
) -> None:
    root, first = handbook
    again = build(root, tmp_path / "again.gezk", cache_dir=tmp_path / "cache")
    assert again.sha256 == first.sha256
    assert again.path.read_bytes() == first.path.read_bytes()


def test_changing_created_at_changes_only_the_manifest_and_router_meta(
    handbook: tuple[Path, BuildResult], tmp_path: Path
) -> None:
    root, first = handbook
    later = build(root, tmp_path / "later.gezk", created_at="2027-03-04T05:06:07.890Z")
    one, two = entries(first.path), entries(later.path)
    assert one.keys() == two.keys()
    assert {k for k in one if one[k] != two[k]} == {"manifest.json", "index/router.db"}
    m1, m2 = json.loads(one["manifest.json"]), json.loads(two["manifest.json"])
    assert m2["createdAt"] == "2027-03-04T05:06:07.890Z"
    for manifest in (m1, m2):
        del manifest["createdAt"]
        manifest["files"] = [f for f in manifest["files"] if f["path"] != "index/router.db"]
        for shard in manifest["router"]["shards"]:
            del shard["sha256"]
    assert m1 == m2
    dbs = [
        extract(p, tmp_path / n) / "index/router.db"
        for p, n in ((first.path, "a"), (later.path, "b"))
    ]
    c1, c2 = (sqlite3.connect(p) for p in dbs)
    tables = [r[0] for r in c1.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    for table in tables:
        if table == "meta":
            continue
        assert _rows(c1, f"SELECT * FROM {table}") == _rows(c2, f"SELECT * FROM {table}"), table
    meta1, meta2 = read_meta(c1), read_meta(c2)
    assert {k for k in meta1 if meta1[k] != meta2[k]} == {"created_at"}


def test_router_holds_the_embedded_shard_with_dense_chunks_and_vectors(
    handbook: tuple[Path, BuildResult], handbook_dir: Path
) -> None:
    _, result = handbook
    conn = sqlite3.connect(handbook_dir / "index/router.db")
    assert check_database(conn, "router+shard", 4) == []
    assert conn.execute("PRAGMA page_size").fetchone()[0] == 8192
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x47455A4B
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 4
    assert (handbook_dir / "index/router.db").read_bytes()[18:20] == b"\x01\x01"  # not WAL
    assert not (handbook_dir / "index/shards").exists()
    n = result.chunks
    assert n == conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] > 4
    assert _rows(conn, "SELECT MIN(id), MAX(id) FROM chunks") == [(1, n)]
    ordered = _rows(conn, "SELECT id FROM chunks ORDER BY document_id, ordinal")
    assert [r[0] for r in ordered] == list(range(1, n + 1))
    assert _rows(
        conn, "SELECT COUNT(*), MIN(length(v)), MAX(length(v)) FROM chunk_vectors_bit"
    ) == [(n, 48, 48)]
    assert _rows(
        conn, "SELECT COUNT(*), MIN(length(v)), MAX(length(v)) FROM chunk_vectors_int8"
    ) == [(n, 384, 384)]
    assert _rows(conn, "SELECT MIN(chunk_id), MAX(chunk_id) FROM chunk_vectors_int8") == [(1, n)]
    hit = _rows(conn, "SELECT rowid FROM fts_chunks WHERE fts_chunks MATCH 'installer'")
    assert _rows(conn, "SELECT text LIKE '%installer%' FROM chunks WHERE id = ?", hit[0][0]) == [
        (1,)
    ]
    assert _rows(conn, "SELECT path, bytes, chunk_count FROM shards") == [("index/router.db", 0, n)]
    meta = read_meta(conn)
    manifest = result.manifest.to_json()
    assert meta["format_version"] == "0.7"
    assert meta["index_schema_version"] == "4"
    assert meta["catalog_id"] == manifest["id"] == "demo"
    assert meta["catalog_version"] == manifest["version"]
    assert meta["shard_id"] == "0"
    assert meta["chunk_count"] == str(n)
    assert meta["created_at"] == manifest["createdAt"] == "2026-12-01T00:00:00.000Z"
    assert json.loads(meta["embedding_profile_json"]) == manifest["embedding"]
    assert json.loads(meta["chunking_profile_json"]) == manifest["chunking"]
    assert json.loads(meta["toolchain_json"]) == manifest["toolchain"]


def test_vectors_are_the_quantized_hash_vectors_of_the_embed_inputs(handbook_dir: Path) -> None:
    conn = sqlite3.connect(handbook_dir / "index/router.db")
    rows = _rows(conn, "SELECT c.id, c.title, c.heading_path, c.text FROM chunks c ORDER BY id")
    tok = WhitespaceTokenizer()
    for chunk_id, title, heading_path, text in rows:
        path = json.loads(heading_path)
        header = f"{title}\n" if not path else f"{title}\n{' > '.join(path)}\n"
        assert tok.count(header) <= 64
        vector = hash_embed([header + text])[0]
        bits = conn.execute(
            "SELECT v FROM chunk_vectors_bit WHERE chunk_id = ?", (chunk_id,)
        ).fetchone()
        int8 = conn.execute(
            "SELECT v FROM chunk_vectors_int8 WHERE chunk_id = ?", (chunk_id,)
        ).fetchone()
        assert bits[0] == pack_sign_bits(vector).tobytes()
        assert int8[0] == quantize_int8(vector).tobytes()


def test_documents_topics_placements_and_bodies(handbook_dir: Path) -> None:
    conn = sqlite3.connect(handbook_dir / "index/router.db")
    docs = {
        r[0]: r[1:]
        for r in conn.execute(
            "SELECT id, title, topic_id, ordinal, chunk_count, summary, meta_json, "
            "attribution_json, body_codec FROM documents"
        )
    }
    assert docs["basics/install"] == (
        "Install",
        "basics",
        0,
        2,
        "How to install",
        '{"level":1,"tags":["b","a"]}',
        '{"author":"Ann"}',
        "none",
    )
    assert docs["ref/long"][-1] == "br"
    assert docs["ref/empty"][3] == 0
    blob = conn.execute("SELECT body_blob FROM documents WHERE id = 'ref/long'").fetchone()[0]
    body = brotli.decompress(blob).decode("utf-8")
    assert body.startswith("# Long page\n\npara0 para1")
    small = conn.execute(
        "SELECT body_blob FROM documents WHERE id = 'basics/configure'"
    ).fetchone()[0]
    assert small.decode() == (
        "# Configure\n\nEdit the [install](knowledge://tester/demo/basics/install#line=5-7) file.\n"
    )
    assert _rows(conn, "SELECT * FROM topic_documents ORDER BY topic_id, document_id") == [
        ("basics", "basics/configure", 1),
        ("basics", "basics/install", 0),
        ("demo", "README", 0),
        ("reference", "basics/install", 1),
        ("reference", "ref/empty", 2),
        ("reference", "ref/long", 0),
    ]
    # document_count counts placements: install is placed twice.
    assert _rows(conn, "SELECT id, document_count FROM topics ORDER BY id") == [
        ("basics", 2),
        ("demo", 1),
        ("reference", 3),
    ]
    assert _rows(conn, "SELECT * FROM aliases ORDER BY alias") == [
        ("installation", "basics/install"),
        ("setup", "basics/install"),
    ]
    assert _rows(
        conn, "SELECT document_id FROM fts_documents WHERE fts_documents MATCH 'setup'"
    ) == [("basics/install",)]


def test_manifest_is_complete_valid_and_accepted_by_the_verifier(
    handbook: tuple[Path, BuildResult], handbook_dir: Path
) -> None:
    _, result = handbook
    manifest = result.manifest.to_json()
    validate_manifest(manifest)
    assert json.loads((handbook_dir / "manifest.json").read_text()) == manifest
    assert manifest["counts"] == {"documents": 5, "chunks": result.chunks, "shards": 1, "assets": 0}
    assert manifest["toolchain"]["name"] == "gezel-knowledge"
    assert manifest["requires"] == {"formatVersion": "0.7", "features": []}
    assert manifest["spatial"] == {
        "schema": "document-points@1",
        "crs": "EPSG:4326",
        "distanceModel": "sphere-6371000",
        "locationCount": 0,
        "locatedDocuments": 0,
        "coverage": [],
    }
    assert [f["path"] for f in manifest["files"]] == [
        "LICENSES/catalog.txt",
        "README.md",
        "index/router.db",
    ]
    for f in manifest["files"]:
        data = (handbook_dir / f["path"]).read_bytes()
        assert f["sizeBytes"] == len(data)
    assert manifest["router"]["shards"][0]["path"] == "index/router.db"
    assert [t["id"] for t in manifest["topics"]] == ["demo", "basics", "reference"]
    info = inspect_archive(result.path, expected_sha256=result.sha256)
    assert info.manifest.id == "demo"
    report = validate_catalog(handbook_dir, deep=True)
    assert report.ok, report.findings
    assert (handbook_dir / "README.md").read_text().startswith("# Demo")
    assert (handbook_dir / "LICENSES/catalog.txt").read_text() == "CC BY 4.0\n"


def test_derived_smoke_queries_find_their_documents(
    handbook: tuple[Path, BuildResult], handbook_dir: Path
) -> None:
    queries = handbook[1].manifest.to_json()["smokeQueries"]
    assert 1 <= len(queries) <= 3
    conn = sqlite3.connect(handbook_dir / "index/router.db")
    titles = dict(_rows(conn, "SELECT id, title FROM documents"))
    for query in queries:
        (expected,) = query["expectedDocumentIds"]
        assert query["query"] == titles[expected]
        match = " OR ".join(f'"{t}"' for t in query["query"].split())
        top = [
            r[0]
            for r in conn.execute(
                "SELECT document_id FROM fts_documents WHERE fts_documents MATCH ? "
                "ORDER BY rank LIMIT 10",
                (match,),
            )
        ]
        assert expected in top


def test_empty_documents_are_a_warning(handbook: tuple[Path, BuildResult]) -> None:
    warnings = [(w.reason, w.document) for w in handbook[1].warnings]
    assert ("empty-document", "ref/empty") in warnings


def test_given_smoke_queries_must_pass(tmp_path: Path) -> None:
    catalog = CATALOG_YAML + "smokeQueries:\n  - {query: zebra, expectedDocumentIds: [a]}\n"
    root = write_tree(tmp_path / "s", {"a.md": "# Alpha\n\nText.\n"}, catalog=catalog)
    with pytest.raises(SourceError) as err:
        build(root, tmp_path / "s.gezk")
    assert err.value.reason == "smoke-query-failed"
    assert not (tmp_path / "s.gezk").exists()
    assert list(tmp_path.glob(".s.gezk*")) == []
    good = CATALOG_YAML + "smokeQueries:\n  - {query: alpha, expectedDocumentIds: [a]}\n"
    (root / "catalog.yaml").write_text(good)
    result = build(root, tmp_path / "s.gezk")
    assert result.manifest.to_json()["smokeQueries"] == [
        {"query": "alpha", "expectedDocumentIds": ["a"]}
    ]


def test_a_smoke_query_the_installer_would_refuse_is_refused_at_build(tmp_path: Path) -> None:
    # Deep validation (run by every install) drops stopwords and weighs titles; the build must
    # judge a query the same way. Here only "search" survives as a term, twelve shorter titles
    # hold it, and the long-titled target falls out of the top ten.
    query = "What is it all about search"
    catalog = CATALOG_YAML + f"smokeQueries:\n  - {{query: {query}, expectedDocumentIds: [z]}}\n"
    pages = {f"s{i:02d}.md": f"# Search {i}\n\nSearch search notes {i}.\n" for i in range(12)}
    pages["z.md"] = "# What is it all about search, really, in this long title\n\nBody.\n"
    root = write_tree(tmp_path / "s", pages, catalog=catalog)
    with pytest.raises(SourceError) as err:
        build(root, tmp_path / "s.gezk")
    assert err.value.reason == "smoke-query-failed"
    assert query in str(err.value)


def test_derived_smoke_queries_pass_deep_validation(
    handbook: tuple[Path, BuildResult], handbook_dir: Path
) -> None:
    assert handbook[1].manifest.to_json()["smokeQueries"]
    report = validate_catalog(handbook_dir, deep=True)
    assert [f.reason for f in report.findings if f.reason == "smoke-query-failed"] == []


def test_signed_manifest_verifies(handbook: tuple[Path, BuildResult], tmp_path: Path) -> None:
    key = generate_private_key()
    result = build(handbook[0], tmp_path / "signed.gezk", signing_key=key)
    manifest = json.loads(entries(result.path)["manifest.json"])
    anchors = TrustAnchors([key.public_key()])
    assert verify_manifest(manifest, anchors) == manifest["signature"]["keyId"]
    unsigned = dict(manifest)
    del unsigned["signature"]
    assert unsigned == handbook[1].manifest.to_json()


def test_vector_cache_reuses_vectors_across_builds(
    handbook: tuple[Path, BuildResult], tmp_path: Path
) -> None:
    first = build(handbook[0], tmp_path / "1.gezk", cache_dir=tmp_path / "cache")
    assert first.embedded > 0
    second = build(handbook[0], tmp_path / "2.gezk", cache_dir=tmp_path / "cache")
    assert second.embedded == 0
    assert second.cached == second.chunks == first.chunks
    assert second.sha256 == first.sha256 == handbook[1].sha256


def test_progress_events_are_reported(handbook: tuple[Path, BuildResult], tmp_path: Path) -> None:
    events: list[ProgressEvent] = []
    build(handbook[0], tmp_path / "p.gezk", progress=events.append)
    steps = [e.step for e in events]
    assert steps[0] == "read"
    assert {"read", "embed", "write", "archive"} <= set(steps)
    last_read = [e for e in events if e.step == "read"][-1]
    assert (last_read.done, last_read.total) == (5, 5)


def _many_docs(root: Path, topics: Sequence[str], per_topic: int, sentences: int) -> Path:
    docs = []
    for t in topics:
        for i in range(per_topic):
            body = "\n\n".join(_sentence(f"{t}w", i * 5 + s, 8) for s in range(sentences))
            docs.append(
                {"id": f"{t}/doc-{i:02d}", "title": f"{t} {i}", "topicPath": [t], "markdown": body}
            )
    write_tree(root, {})
    write_jsonl(root / "docs.jsonl", docs)
    return root / "docs.jsonl"


def test_small_shard_target_gives_several_topic_filled_shards(tmp_path: Path) -> None:
    source = _many_docs(tmp_path / "m", ["alpha", "beta", "gamma"], 4, 3)
    profile_target = 20
    result = build(
        source,
        tmp_path / "m.gezk",
        shard_target=profile_target,
        shard_max=40,
        chunking=_small_chunks(),
    )
    out = extract(result.path, tmp_path / "mx")
    router = sqlite3.connect(out / "index/router.db")
    assert check_database(router, "router", 4) == []
    meta = read_meta(router)
    assert (meta["shard_id"], meta["chunk_count"]) == ("-1", "0")
    docs = _rows(
        router, "SELECT id, topic_id, chunk_count, shard_id FROM documents ORDER BY topic_id, id"
    )
    # Greedy topic fill, recomputed independently.
    expected, shard, filled = [], 0, 0
    for _, _, count, _ in docs:
        if filled and filled + count > profile_target:
            shard, filled = shard + 1, 0
        expected.append(shard)
        filled += count
    assert [d[3] for d in docs] == expected
    assert result.shards == expected[-1] + 1 > 1
    shards = _rows(
        router, "SELECT id, path, chunk_count, document_count, bytes, centroid_count FROM shards"
    )
    manifest_shards = result.manifest.to_json()["router"]["shards"]
    for (sid, path, chunks, ndocs, size, centroids), entry in zip(
        shards, manifest_shards, strict=True
    ):
        assert path == f"index/shards/{sid:03d}.db" == entry["path"]
        assert size == (out / path).stat().st_size
        assert (chunks, ndocs, centroids) == (
            entry["chunks"],
            entry["documents"],
            entry["centroids"],
        )
        assert centroids == 1
        conn = sqlite3.connect(out / path)
        assert check_database(conn, "shard", 4) == []
        shard_meta = read_meta(conn)
        assert (shard_meta["shard_id"], shard_meta["chunk_count"]) == (str(sid), str(chunks))
        assert shard_meta["catalog_id"] == "demo"
        assert _rows(conn, "SELECT COUNT(*), MIN(id), MAX(id) FROM chunks") == [(chunks, 1, chunks)]
        ids = [r[0] for r in conn.execute("SELECT document_id FROM chunks ORDER BY id")]
        assert ids == sorted(ids)
        owned = {d[0] for d in docs if d[3] == sid}
        assert set(ids) <= owned
        assert _rows(conn, "SELECT COUNT(*) FROM chunk_vectors_bit") == [(chunks,)]
        centroid = router.execute(
            "SELECT embedding, weight FROM route_centroids WHERE shard_id = ?", (sid,)
        ).fetchall()
        vector = np.frombuffer(centroid[0][0], dtype="<f4")
        assert vector.shape == (384,)
        assert math.isclose(float(np.linalg.norm(vector)), 1.0, rel_tol=1e-5)
        assert centroid[0][1] == chunks
    assert sum(s[2] for s in shards) == result.chunks
    report = validate_catalog(out, deep=True)
    assert report.ok, report.findings


def _small_chunks() -> ChunkingProfile:
    return dataclasses.replace(MARKDOWN_CHUNKS_2, id="test-small-chunks@1", target=10, overlap=0)


class _TopicEmbedder:
    """Vectors that only know which of two vocabularies a text uses (for semantic fill)."""

    def __init__(self, profile: EmbeddingProfile | None = None) -> None:
        self._profile = profile or TEST_HASH_EMBED_1
        self._tokenizer = WhitespaceTokenizer()

    @property
    def profile(self) -> EmbeddingProfile:
        return self._profile

    @property
    def tokenizer(self) -> WhitespaceTokenizer:
        return self._tokenizer

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self.embed_passages(texts)

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        noise = hash_embed(list(texts)) * 0.2
        axis = np.zeros((len(texts), 384), dtype=np.float32)
        for i, text in enumerate(texts):
            axis[i, 0 if "redw" in text else 1] = 1.0
        out = axis + noise
        return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def test_semantic_fill_groups_documents_by_their_vectors(tmp_path: Path) -> None:
    # Two topics that each mix both vocabularies: topic fill splits by topic,
    # semantic fill by vocabulary.
    docs = []
    for t in ("one", "two"):
        for i in range(6):
            colour = "red" if i % 2 == 0 else "blue"
            body = "\n\n".join(_sentence(f"{colour}w", i + s, 8) for s in range(2))
            docs.append(
                {"id": f"{t}/{colour}-{i}", "title": f"{t} {i}", "topicPath": [t], "markdown": body}
            )
    write_tree(tmp_path / "s", {})
    source = write_jsonl(tmp_path / "s" / "docs.jsonl", docs)
    kwargs: dict[str, Any] = {"shard_target": 12, "shard_max": 20, "chunking": _small_chunks()}
    semantic = build(
        source, tmp_path / "sem.gezk", embedder=_TopicEmbedder(), shard_fill="semantic", **kwargs
    )
    again = build(
        source, tmp_path / "sem2.gezk", embedder=_TopicEmbedder(), shard_fill="semantic", **kwargs
    )
    assert semantic.sha256 == again.sha256
    out = extract(semantic.path, tmp_path / "semx")
    router = sqlite3.connect(out / "index/router.db")
    rows = _rows(router, "SELECT id, shard_id, chunk_count FROM documents ORDER BY id")
    total = sum(r[2] for r in rows)
    assert total == 24
    assert semantic.shards == math.ceil(total / 12) == 2
    by_shard: dict[int, set[str]] = {}
    for doc_id, shard, _ in rows:
        by_shard.setdefault(shard, set()).add(doc_id.split("/")[1].split("-")[0])
    assert sorted(map(sorted, by_shard.values())) == [["blue"], ["red"]]
    # Shards are numbered by their first document in (topicPathKey, documentId) order.
    first = _rows(router, "SELECT shard_id FROM documents ORDER BY topic_id, id LIMIT 1")
    assert first == [(0,)]
    capacity = math.ceil(total / 2 * 1.02)
    loads = _rows(router, "SELECT shard_id, SUM(chunk_count) FROM documents GROUP BY shard_id")
    assert all(load <= capacity for _, load in loads)
    topical = build(source, tmp_path / "top.gezk", embedder=_TopicEmbedder(), **kwargs)
    out2 = extract(topical.path, tmp_path / "topx")
    router2 = sqlite3.connect(out2 / "index/router.db")
    assert _rows(router2, "SELECT DISTINCT topic_id, shard_id FROM documents ORDER BY 1") == [
        ("one", 0),
        ("two", 1),
    ]


def test_centered_sign_template_gets_its_center(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "e5",
        {f"d{i}.md": f"# Doc {i}\n\n{_sentence('word', i, 12)}\n" for i in range(6)},
    )
    embedder = _TopicEmbedder(MULTILINGUAL_E5_SMALL_2)
    result = build(root, tmp_path / "e5.gezk", embedder=embedder)
    binary = result.manifest.to_json()["embedding"]["quantization"]["binary"]
    assert binary["method"] == "centered-sign"
    center = np.asarray(binary["center"], dtype=np.float32)
    assert center.shape == (384,)
    out = extract(result.path, tmp_path / "e5x")
    conn = sqlite3.connect(out / "index/router.db")
    meta_profile = json.loads(read_meta(conn)["embedding_profile_json"])
    assert meta_profile == result.manifest.to_json()["embedding"]
    rows = _rows(
        conn,
        "SELECT c.title, c.text, b.v FROM chunks c JOIN chunk_vectors_bit b ON b.chunk_id = c.id",
    )
    vectors = embedder.embed_passages([f"{title}\n{text}" for title, text, _ in rows])
    expected_center = vectors.astype(np.float64).sum(axis=0)
    expected_center /= np.linalg.norm(expected_center)
    assert np.allclose(center, expected_center, atol=1e-6)
    for (_, _, bits), vector in zip(rows, vectors, strict=True):
        assert bits == pack_sign_bits(vector, center).tobytes()
    assert json.loads(canonicalize(meta_profile)) == meta_profile
    report = validate_catalog(out, deep=True)
    assert report.ok, report.findings


def test_a_missing_readme_is_generated_and_a_missing_licence_stops_the_build(
    tmp_path: Path,
) -> None:
    root = write_tree(tmp_path / "r", {"a.md": "# A\n\nText.\n"})
    (root / "README.md").unlink()
    result = build(root, tmp_path / "r.gezk")
    readme = entries(result.path)["README.md"].decode()
    assert readme.startswith("# Demo catalog\n\nA catalog for tests.\n")
    assert "- Catalog: `tester/demo`, version 1.0.0, language en\n" in readme
    assert "- Licence: CC BY 4.0 (SPDX CC-BY-4.0); attribution required" in readme
    # Only metadata goes in: the same metadata gives the same README bytes.
    again = build(root, tmp_path / "again.gezk")
    assert entries(again.path)["README.md"] == readme.encode()
    (tmp_path / "r.gezk").unlink()
    (tmp_path / "again.gezk").unlink()
    (root / "LICENSE").unlink()
    with pytest.raises(SourceError) as err:
        build(root, tmp_path / "r.gezk")
    assert err.value.reason == "missing-input"
    assert "licence" in str(err.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_a_modified_profile_may_not_keep_a_registered_id(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "c", {"a.md": "# A\n\nText.\n"})
    changed = dataclasses.replace(MARKDOWN_CHUNKS_2, target=100)
    with pytest.raises(InvalidInput) as err:
        build(root, tmp_path / "c.gezk", chunking=changed)
    assert err.value.reason == "invalid-profile"


def test_source_notices_are_validated_and_shipped(tmp_path: Path) -> None:
    catalog = CATALOG_YAML + "sourceNotices: notices.json\n"
    root = write_tree(
        tmp_path / "n",
        {"a.md": "# A\n\nText.\n", "notices.json": '{"sources": [{"name": "Docs"}]}'},
        catalog=catalog,
    )
    with pytest.raises(SourceError) as err:
        build(root, tmp_path / "n.gezk")
    assert err.value.reason == "invalid-source-notices"
    good = '{"sources": [{"name": "Docs", "license": "CC0-1.0"}]}'
    (root / "notices.json").write_text(good)
    result = build(root, tmp_path / "n.gezk")
    assert entries(result.path)["LICENSES/source-notices.json"] == good.encode()
    assert "LICENSES/source-notices.json" in {f["path"] for f in result.manifest.to_json()["files"]}
