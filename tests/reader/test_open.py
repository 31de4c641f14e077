"""Opening catalogs: extracted directories, .gezk files through the digest-keyed cache."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

import brotli
import pytest

from gezel_knowledge import embedders
from gezel_knowledge.archive import file_sha256
from gezel_knowledge.archive import verify as archive_verify
from gezel_knowledge.errors import IntegrityFailure, ModelUnavailable, NotFound, Unsupported
from gezel_knowledge.opening import default_cache_dir, open_catalog
from gezk.profiles import TEST_HASH_EMBED_1, ModelRef
from tests.reader.catalog_builder import CatalogBuild, mutate_db, reseal, sample_docs


def test_gezk_file_is_verified_and_extracted_once_by_digest(
    shared_catalog: Path, packed: Callable[[Path], Path], tmp_path: Path
) -> None:
    archive = packed(shared_catalog)
    cache = tmp_path / "cache"
    digest = file_sha256(archive)
    with open_catalog(archive, cache_dir=cache) as c:
        assert c.root == cache / digest
        assert c.archive_sha256 == digest
        assert c.provenance().archive_sha256 == digest
        assert c.document("doc-0000").title
    marker = cache / digest / "manifest.json"
    before = marker.stat().st_mtime_ns
    with open_catalog(archive, cache_dir=cache, expected_sha256=digest) as c:
        assert c.root == cache / digest
    assert marker.stat().st_mtime_ns == before
    # Besides the entry only the cache's own records (dot-named) are there.
    assert sorted(p.name for p in cache.iterdir() if not p.name.startswith(".")) == [digest]


def test_opening_a_gezk_file_hashes_it_once(
    shared_catalog: Path,
    packed: Callable[[Path], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    archive = packed(shared_catalog)
    hashed: list[int] = []
    real = archive_verify._stream_sha256

    def counting(fh: BinaryIO) -> str:
        hashed.append(1)
        return real(fh)

    monkeypatch.setattr(archive_verify, "_stream_sha256", counting)
    with open_catalog(archive, cache_dir=tmp_path / "cache") as c:
        assert c.document("doc-0000").title
    assert len(hashed) == 1


def test_expected_digest_is_checked_before_extraction(
    shared_catalog: Path, packed: Callable[[Path], Path], tmp_path: Path
) -> None:
    archive = packed(shared_catalog)
    cache = tmp_path / "cache"
    with pytest.raises(IntegrityFailure) as info:
        open_catalog(archive, cache_dir=cache, expected_sha256="a" * 64)
    assert info.value.reason == "archive-digest-mismatch"
    assert not cache.exists() or [p for p in cache.iterdir() if not p.name.startswith(".")] == []
    assert not (cache / ".entries").exists()


def test_a_structurally_broken_archive_is_never_published_to_the_cache(
    shared_catalog: Path, packed: Callable[[Path], Path], tmp_path: Path
) -> None:
    root = tmp_path / "broken"
    shutil.copytree(shared_catalog, root)
    mutate_db(
        root / "index" / "router.db", "UPDATE topics SET document_count = 99 WHERE id = 'wood'"
    )
    reseal(root)
    archive = packed(root)
    cache = tmp_path / "cache"
    with pytest.raises(IntegrityFailure) as info:
        open_catalog(archive, cache_dir=cache)
    assert info.value.reason == "topic-count-mismatch"
    assert [p for p in cache.iterdir() if not p.name.startswith(".")] == []
    # Only the verdict is kept, so the same bytes are refused again without extraction.
    records = [p for p in (cache / ".entries").iterdir() if p.suffix not in (".lock", ".lease")]
    assert [p.suffix for p in records] == [".json"]


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(NotFound) as info:
        open_catalog(tmp_path / "nothing.gezk")
    assert info.value.reason == "catalog-not-found"


def test_router_meta_must_match_the_manifest_on_open(shared_catalog: Path, tmp_path: Path) -> None:
    root = tmp_path / "c"
    shutil.copytree(shared_catalog, root)
    mutate_db(
        root / "index" / "router.db",
        "UPDATE meta SET value = 'someone-else' WHERE key = 'catalog_id'",
    )
    with pytest.raises(IntegrityFailure) as info:
        open_catalog(root)
    assert info.value.reason == "meta-mismatch"


@pytest.mark.parametrize(
    ("requires", "reason"),
    [
        ({"formatVersion": "0.9", "features": []}, "unsupported-format"),
        ({"formatVersion": "0.7", "features": ["vector-pq"]}, "unsupported-feature"),
    ],
)
def test_a_catalog_whose_requirements_the_reader_lacks_is_refused(
    shared_catalog: Path, tmp_path: Path, requires: dict[str, object], reason: str
) -> None:
    # Spec sections 1 and 4: requires is what a reader must implement to open the catalog.
    root = tmp_path / "c"
    shutil.copytree(shared_catalog, root)
    reseal(root, manifest_edit=lambda m: m.update(requires=requires))
    with pytest.raises(Unsupported) as info:
        open_catalog(root)
    assert info.value.reason == reason


def test_shard_from_another_catalog_is_refused_when_first_used(tmp_path: Path) -> None:
    docs, topics = sample_docs(6)
    a = CatalogBuild(docs, topics, external_shards=True).write(tmp_path / "a")
    b = CatalogBuild(docs, topics, external_shards=True, catalog_id="bee").write(tmp_path / "b")
    shutil.copy(b / "index" / "shards" / "000.db", a / "index" / "shards" / "000.db")
    with open_catalog(a) as c:
        with pytest.raises(IntegrityFailure) as info:
            c.search("lattice", mode="keyword")
        assert info.value.reason == "shard-mismatch"


def test_default_cache_dir_is_under_the_gezel_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / "cache" / "catalogs"


def test_bodies_that_expand_beyond_the_cap_are_refused(
    shared_catalog: Path, tmp_path: Path
) -> None:
    root = tmp_path / "c"
    shutil.copytree(shared_catalog, root)
    bomb = brotli.compress(b"a" * (16 * 1024 * 1024 + 1), quality=5)
    mutate_db(
        root / "index" / "router.db",
        ("UPDATE documents SET body_codec = 'br', body_blob = ? WHERE id = 'doc-0002'", [bomb]),
    )
    with open_catalog(root) as c:
        with pytest.raises(IntegrityFailure) as info:
            c.body("doc-0002")
        assert info.value.reason == "body-too-large"
        exactly = brotli.compress(b"a" * (16 * 1024 * 1024), quality=5)
        mutate_db(
            root / "index" / "router.db",
            ("UPDATE documents SET body_blob = ? WHERE id = 'doc-0002'", [exactly]),
        )
    with open_catalog(root) as c:
        assert len(c.body("doc-0002")) == 16 * 1024 * 1024


def test_open_catalog_finds_the_query_embedder_of_its_profile(shared_catalog: Path) -> None:
    # The shared catalog is in the test-hash-embed@1 space, which needs no model files.
    with open_catalog(shared_catalog) as c:
        assert c.embedder is None  # nothing is loaded until a search needs vectors
        result = c.search(sample_docs(12)[0][2].title)
        assert result.sources[0].semantic == "used"
        assert result.semantic_unavailable is None
        assert c.embedder is not None
        assert c.embedder.profile.id == "test-hash-embed@1"
    with open_catalog(shared_catalog, embedder=None) as c:
        assert c.search("lattice").sources[0].reason == "no-embedder"


def test_browsing_and_keyword_search_do_not_look_for_a_model(
    shared_catalog: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []

    def refuse(profile: object) -> object:
        asked.append(str(profile))
        raise AssertionError("no embedder is needed here")

    monkeypatch.setattr(embedders, "resolve_query_embedder", refuse)
    with open_catalog(shared_catalog) as c:
        c.topics()
        c.search("lattice", mode="keyword")
    assert asked == []


def test_without_its_model_a_catalog_says_why_and_warns_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    unknown = replace(TEST_HASH_EMBED_1, id="acme-embed@1", model=ModelRef("acme/embed", "r1"))
    docs, topics = sample_docs(4)
    root = CatalogBuild(docs, topics, profile=unknown).write(tmp_path / "catalog")
    with caplog.at_level(logging.WARNING), open_catalog(root) as c:
        first = c.search(docs[1].title)
        second = c.search(docs[2].title)
        with pytest.raises(ModelUnavailable) as vector_only:
            c.search(docs[2].title, mode="vector")  # nothing else to answer with
    assert vector_only.value.reason == "vector-search-unavailable"
    assert "acme-embed@1" in str(vector_only.value)
    for result in (first, second):
        report = result.sources[0]
        assert (report.status, report.semantic, report.reason) == (
            "degraded",
            "unavailable",
            "unknown-profile",
        )
        assert result.semantic_unavailable is not None
        assert "acme-embed@1" in result.semantic_unavailable
    assert first.hits[0].document_id == docs[1].id
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "semantic search is off" in warnings[0].getMessage()
