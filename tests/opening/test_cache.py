"""Opening a .gezk by path: deep validation on first extraction, the verdict kept with the
digest, cheap re-checks on reuse, a remembered digest, and a cache that keeps to its budget
(issue 17 item 9, issue 13 goal 4)."""

from __future__ import annotations

import gc
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import pytest

import gezel_knowledge.validate as validating
from gezel_knowledge._locking import FileLock
from gezel_knowledge.archive import file_sha256
from gezel_knowledge.archive import verify as archive_verify
from gezel_knowledge.cli import main
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import IntegrityFailure, InvalidInput
from gezel_knowledge.opening import CatalogCache, open_catalog, parse_size
from gezel_knowledge.opening import _cache as cache_module

MakeArchive = Callable[..., Path]


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times an archive is hashed."""
    counted: list[int] = []
    real = archive_verify._stream_sha256

    def counting(fh: BinaryIO) -> str:
        counted.append(1)
        return real(fh)

    monkeypatch.setattr(archive_verify, "_stream_sha256", counting)
    return counted


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times an archive is extracted and validated."""
    counted: list[int] = []
    real = validating.extract_verified

    def counting(*args: Any, **kwargs: Any) -> Any:
        counted.append(1)
        return real(*args, **kwargs)

    # The cache reaches the extraction through the validate face, loaded on first use.
    monkeypatch.setattr(validating, "extract_verified", counting)
    return counted


def _published(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir() if not p.name.startswith("."))


@pytest.mark.parametrize(
    ("router_sql", "shard_sql", "reason"),
    [
        pytest.param(
            ("UPDATE documents SET title = CAST(X'c328' AS TEXT) WHERE id = 'doc-0001'",),
            (),
            "invalid-text",
            id="title-not-utf8",
        ),
        pytest.param(
            (), ("UPDATE chunks SET text = CAST(X'c328' AS TEXT)",), "invalid-text", id="chunk-text"
        ),
        pytest.param(
            (),
            ("UPDATE chunk_vectors_int8 SET v = CAST(substr(hex(v), 1, length(v)) AS TEXT)",),
            "invalid-value",
            id="int8-vectors-as-text",
        ),
        pytest.param(
            (),
            ("UPDATE fts_chunks_data SET block = zeroblob(length(block)) WHERE id > 10",),
            "integrity-check",
            id="fts-index-zeroed",
        ),
    ],
)
def test_an_archive_deep_validation_refuses_is_not_served_by_path(
    make_archive: MakeArchive,
    tmp_path: Path,
    router_sql: tuple[str, ...],
    shard_sql: tuple[str, ...],
    reason: str,
) -> None:
    # Before: only structural checks ran, so open_catalog served these archives (and search
    # then failed with OperationalError or TypeError).
    archive = make_archive("broken", *router_sql, shard_sql=shard_sql)
    cache = tmp_path / "cache"
    with pytest.raises(IntegrityFailure) as err:
        open_catalog(archive, cache_dir=cache, embedder=HashEmbedder())
    assert err.value.reason == reason
    assert _published(cache) == []


def test_a_refused_archive_is_refused_again_from_its_verdict(
    make_archive: MakeArchive, tmp_path: Path, validations: list[int]
) -> None:
    sql = "UPDATE documents SET title = CAST(X'c328' AS TEXT) WHERE id = 'doc-0001'"
    archive = make_archive("broken", sql)
    cache = tmp_path / "cache"
    for _ in range(3):
        with pytest.raises(IntegrityFailure) as err:
            open_catalog(archive, cache_dir=cache)
        assert err.value.reason == "invalid-text"
    assert len(validations) == 1


def test_a_verdict_reached_under_other_validation_rules_is_reached_again(
    make_archive: MakeArchive,
    tmp_path: Path,
    validations: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A rule that changed without a new release (a refusal the old rules reached may be
    # wrong now) must not be trusted from the kept verdict.
    sql = "UPDATE documents SET title = CAST(X'c328' AS TEXT) WHERE id = 'doc-0001'"
    archive = make_archive("broken", sql)
    cache = tmp_path / "cache"
    with pytest.raises(IntegrityFailure):
        open_catalog(archive, cache_dir=cache)
    monkeypatch.setattr(cache_module, "CHECKED_BY", cache_module.CHECKED_BY + " next")
    with pytest.raises(IntegrityFailure):
        open_catalog(archive, cache_dir=cache)
    with pytest.raises(IntegrityFailure):
        open_catalog(archive, cache_dir=cache)
    assert len(validations) == 2


def test_an_unchanged_archive_is_not_hashed_or_validated_again(
    make_archive: MakeArchive, tmp_path: Path, hashes: list[int], validations: list[int]
) -> None:
    archive = make_archive("good")
    cache = tmp_path / "cache"
    digest = file_sha256(archive)
    hashes.clear()
    for _ in range(3):
        with open_catalog(archive, cache_dir=cache, expected_sha256=digest) as catalog:
            assert catalog.archive_sha256 == digest
            assert catalog.root == cache / digest
            assert catalog.document("doc-0000").title
    assert len(hashes) == 1
    assert len(validations) == 1
    with pytest.raises(IntegrityFailure) as err:
        open_catalog(archive, cache_dir=cache, expected_sha256="0" * 64)
    assert err.value.reason == "archive-digest-mismatch"
    assert len(hashes) == 1


def test_an_archive_rewritten_with_its_old_size_and_mtime_is_hashed_again(
    make_archive: MakeArchive, tmp_path: Path, hashes: list[int]
) -> None:
    archive = make_archive("good")
    cache = tmp_path / "cache"
    open_catalog(archive, cache_dir=cache).close()
    before = os.stat(archive)
    raw = bytearray(archive.read_bytes())
    at = raw.find(b"# good")
    raw[at + 2 : at + 6] = b"evil"  # same size; the entry's CRC and digest now fail
    archive.write_bytes(bytes(raw))
    os.utime(archive, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(archive).st_mtime_ns == before.st_mtime_ns
    hashes.clear()
    with pytest.raises(IntegrityFailure):
        open_catalog(archive, cache_dir=cache)
    assert len(hashes) == 1


def test_a_damaged_cache_entry_is_extracted_again(
    make_archive: MakeArchive, tmp_path: Path, validations: list[int]
) -> None:
    archive = make_archive("good")
    cache = tmp_path / "cache"
    digest = file_sha256(archive)
    open_catalog(archive, cache_dir=cache).close()
    readme = cache / digest / "README.md"
    readme.write_text("# tampered, and longer than before\n", encoding="utf-8")
    with open_catalog(archive, cache_dir=cache) as catalog:
        assert catalog.root == cache / digest
    assert readme.read_text(encoding="utf-8") == "# good\n"
    assert len(validations) == 2


def test_an_entry_from_before_verdicts_is_validated_again(
    make_archive: MakeArchive, tmp_path: Path, validations: list[int]
) -> None:
    sql = "UPDATE documents SET title = CAST(X'c328' AS TEXT) WHERE id = 'doc-0001'"
    archive = make_archive("broken", sql)
    cache = tmp_path / "cache"
    digest = file_sha256(archive)
    # What the old cache left: the structurally checked extraction, trusted forever.
    shutil.copytree(tmp_path / "src" / "broken", cache / digest)
    with pytest.raises(IntegrityFailure) as err:
        open_catalog(archive, cache_dir=cache)
    assert err.value.reason == "invalid-text"
    assert _published(cache) == []


def _size_of(cache: Path, digest: str) -> int:
    return sum(p.stat().st_size for p in (cache / digest).rglob("*") if p.is_file())


def test_the_cache_keeps_to_its_budget_least_recently_used_first(
    make_archive: MakeArchive, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    archives = [make_archive(name) for name in ("a", "b", "c")]
    digests = [file_sha256(a) for a in archives]
    open_catalog(archives[0], cache_dir=cache).close()
    budget = 2 * _size_of(cache, digests[0]) + 1024
    open_catalog(archives[1], cache_dir=cache, cache_budget_bytes=budget).close()
    # a is used again, so b is now the least recently used.
    os.utime(cache / ".entries" / f"{digests[1]}.json", (1, 1))
    open_catalog(archives[0], cache_dir=cache, cache_budget_bytes=budget).close()
    gc.collect()
    open_catalog(archives[2], cache_dir=cache, cache_budget_bytes=budget).close()
    assert _published(cache) == sorted([digests[0], digests[2]])


def test_an_open_catalog_is_never_pruned(make_archive: MakeArchive, tmp_path: Path) -> None:
    if not cache_module.fcntl_available():
        pytest.skip("leases need fcntl.flock (POSIX)")
    cache = tmp_path / "cache"
    first, second = make_archive("a"), make_archive("b")
    held = open_catalog(first, cache_dir=cache)
    open_catalog(second, cache_dir=cache, cache_budget_bytes=1).close()
    gc.collect()
    assert held.root.is_dir()
    assert held.document("doc-0000").title
    report = CatalogCache(cache).prune(everything=True)
    assert [e.sha256 for e in report.removed] == [file_sha256(second)]
    assert held.root.is_dir()
    held.close()
    del held
    gc.collect()
    assert [e.sha256 for e in CatalogCache(cache).prune(everything=True).removed] == [
        file_sha256(first)
    ]
    assert _published(cache) == []


def test_prune_removes_what_killed_runs_left_and_reports_it(
    make_archive: MakeArchive, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    archive = make_archive("a")
    digest = file_sha256(archive)
    open_catalog(archive, cache_dir=cache).close()
    # What kill -9 leaves: a staging copy mid-extraction, an entry published without its
    # verdict, and a half-deleted entry in the trash.
    other = "b" * 64
    staging = cache / f".{other}.staging-k1ll3d"
    (staging / "index").mkdir(parents=True)
    (staging / "index" / "router.db").write_bytes(b"\0" * 4096)
    orphan = cache / ("c" * 64)
    orphan.mkdir()
    (orphan / "manifest.json").write_text("{}")
    (cache / ".trash" / "x-123").mkdir(parents=True)
    # An extraction in progress (its lock held) is left alone.
    busy = cache / f".{'d' * 64}.staging-alive"
    busy.mkdir()
    with FileLock(cache / ".entries" / f"{'d' * 64}.lock", timeout=1):
        report = CatalogCache(cache).prune()
    assert set(report.leftovers) == {staging.name, orphan.name, ".trash/x-123"}
    assert not staging.exists()
    assert not orphan.exists()
    assert busy.exists()
    assert _published(cache) == [digest]
    assert report.removed == ()


def test_entries_list_what_the_cache_holds(make_archive: MakeArchive, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    archive = make_archive("a")
    with open_catalog(archive, cache_dir=cache):
        (entry,) = CatalogCache(cache).entries()
    assert entry.sha256 == file_sha256(archive)
    assert entry.catalog == "tester/demo@1.0.0"
    assert entry.bytes == _size_of(cache, entry.sha256)
    assert entry.path == cache / entry.sha256


@pytest.mark.parametrize(
    ("text", "size"),
    [("1024", 1024), ("512M", 512 << 20), ("4GiB", 4 << 30), ("2 kb", 2048), ("1T", 1 << 40)],
)
def test_sizes_parse(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_a_bad_size_is_refused() -> None:
    with pytest.raises(InvalidInput) as err:
        parse_size("lots")
    assert err.value.reason == "invalid-size"


def test_the_cache_command_lists_and_prunes(
    make_archive: MakeArchive, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    archive = make_archive("a")
    digest = file_sha256(archive)
    open_catalog(archive, cache_dir=cache).close()
    gc.collect()
    (cache / f".{digest}.staging-k1ll3d").mkdir()
    assert main(["cache", "list", "--cache-dir", str(cache), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [e["sha256"] for e in listed["entries"]] == [digest]
    assert listed["budgetBytes"] > 0  # camelCase JSON
    assert "lastUsed" in listed["entries"][0]
    assert main(["cache", "--cache-dir", str(cache)]) == 0
    assert "tester/demo@1.0.0" in capsys.readouterr().out
    assert main(["cache", "prune", "--cache-dir", str(cache), "--budget", "1G"]) == 0
    out = capsys.readouterr().out
    assert f"removed leftover .{digest}.staging-k1ll3d" in out
    assert _published(cache) == [digest]
    assert main(["cache", "prune", "--all", "--cache-dir", str(cache), "--json"]) == 0
    pruned = json.loads(capsys.readouterr().out)
    assert [e["sha256"] for e in pruned["removed"]] == [digest]
    assert pruned["freedBytes"] == pruned["removed"][0]["bytes"]
    assert _published(cache) == []


def test_a_damaged_entry_is_named_in_the_error_and_in_its_remembered_refusal(
    make_archive: MakeArchive, tmp_path: Path
) -> None:
    # Before: "cannot read entry: the entry fails its CRC check", without saying which entry.
    archive = make_archive("crc")
    data = bytearray(archive.read_bytes())
    start = data.find(b"SQLite format 3\x00")  # the first database entry's bytes
    data[start + 200] ^= 0xFF
    archive.write_bytes(bytes(data))
    messages = []
    for _ in range(2):  # the second refusal comes from the recorded verdict
        with pytest.raises(IntegrityFailure) as err:
            open_catalog(archive, cache_dir=tmp_path / "cache")
        messages.append(str(err.value))
    assert err.value.reason in {"corrupt-archive", "digest-mismatch"}
    assert messages[0] == messages[1]
    assert messages[0].startswith("index/")
    assert messages[0].count("index/") == 1
