"""The user registry: JSON round trip, lookups, and safety against concurrent writers."""

from __future__ import annotations

import json
import multiprocessing
import os
import socket
import time
from dataclasses import replace
from pathlib import Path

import pytest

from gezel_knowledge._locking import FileLock, LockTimeout, fcntl_available
from gezel_knowledge.errors import IntegrityFailure, InvalidInput, NotFound, Unsupported
from gezel_knowledge.install.registry import (
    AmbiguousCatalog,
    InstalledCatalog,
    InstalledVersion,
    Quarantine,
    RegistrySnapshot,
    UserRegistry,
)


def _version(label: str, digest_char: str = "a") -> InstalledVersion:
    digest = (digest_char * 64)[:64]
    return InstalledVersion(
        version=label,
        archive_sha256=digest,
        path=f"knowledge/pub/cat/{label}/{digest[:16]}",
        archive_bytes=10,
        extracted_bytes=12,
        installed_at="2026-01-01T00:00:00.000Z",
        format_version="0.7",
        embedding_profile="test-hash-embed@1",
        name="Cat",
        source="/tmp/cat.gezk",
        provenance="unsigned",
    )


def test_snapshot_round_trips_through_the_file(tmp_path: Path) -> None:
    registry = UserRegistry(tmp_path / "registry.json")
    quarantined = replace(
        _version("1.0", "b"), quarantine=Quarantine("missing-shard", "gone", "2026-01-02T00:00:00Z")
    )
    catalog = InstalledCatalog(
        "pub",
        "cat",
        enabled=False,
        active_sha256="a" * 64,
        versions=(_version("2.0", "a"), quarantined),
    )
    registry.update(lambda snap: snap.with_catalog(catalog))
    again = registry.read()
    assert again.get("pub/cat") == catalog
    assert again.find("cat").active == _version("2.0", "a")
    raw = json.loads((tmp_path / "registry.json").read_text())
    assert raw["kind"] == "gezel-knowledge-installed"
    assert raw["catalogs"][0]["versions"][1]["quarantine"]["reason"] == "missing-shard"


def test_missing_registry_reads_as_empty(tmp_path: Path) -> None:
    assert len(UserRegistry(tmp_path / "none.json").read()) == 0


def test_bare_catalog_id_must_be_unambiguous() -> None:
    snap = (
        RegistrySnapshot()
        .with_catalog(InstalledCatalog("one", "cat"))
        .with_catalog(InstalledCatalog("two", "cat"))
    )
    with pytest.raises(InvalidInput) as info:
        snap.find("cat")
    assert info.value.reason == "ambiguous-catalog"
    assert isinstance(info.value, AmbiguousCatalog)
    assert info.value.candidates == ("one/cat", "two/cat")
    assert "one/cat, two/cat" in str(info.value)
    assert snap.find("two/cat").publisher_id == "two"
    with pytest.raises(NotFound) as missing:
        snap.find("three/cat")
    assert missing.value.reason == "not-installed"


def test_corrupt_registry_is_an_integrity_failure(tmp_path: Path) -> None:
    path = tmp_path / "registry.json"
    path.write_text("{ not json")
    with pytest.raises(IntegrityFailure) as info:
        UserRegistry(path).read()
    assert info.value.reason == "registry-corrupt"


def test_newer_registry_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"kind": "gezel-knowledge-installed", "schema": 99, "catalogs": []}))
    with pytest.raises(Unsupported) as info:
        UserRegistry(path).read()
    assert info.value.reason == "registry-schema"


def test_usable_requires_enabled_active_and_not_quarantined() -> None:
    v = _version("1.0")
    catalog = InstalledCatalog("pub", "cat", active_sha256=v.archive_sha256, versions=(v,))
    assert catalog.usable
    assert not replace(catalog, enabled=False).usable
    assert not replace(catalog, active_sha256=None).usable
    q = Quarantine("corrupt", "bad page", "t")
    assert not catalog.with_quarantine(v.archive_sha256, q).usable


# -- concurrency ---------------------------------------------------------------------------

WRITERS = 4
UPDATES = 25


def _writer(registry_path: str, worker: int, use_fcntl: bool) -> None:
    registry = UserRegistry(Path(registry_path), use_fcntl=use_fcntl)
    for i in range(UPDATES):
        digest = f"{worker:02d}{i:02d}".ljust(64, "0")

        def change(snap: RegistrySnapshot, digest: str = digest, i: int = i) -> RegistrySnapshot:
            current = snap.get("pub/cat") or InstalledCatalog("pub", "cat")
            return snap.with_catalog(
                current.with_version(replace(_version(f"{worker}.{i}"), archive_sha256=digest))
            )

        registry.update(change)


@pytest.mark.parametrize(
    "use_fcntl",
    [
        pytest.param(
            True,
            marks=pytest.mark.skipif(not fcntl_available(), reason="fcntl needs a POSIX system"),
        ),
        False,
    ],
    ids=["fcntl", "lock-directory-fallback"],
)
def test_concurrent_writer_processes_lose_no_update(tmp_path: Path, use_fcntl: bool) -> None:
    path = tmp_path / "registry.json"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(path), w, use_fcntl)) for w in range(WRITERS)]
    for p in procs:
        p.start()
    # Meanwhile, unlocked reads must always see a complete document.
    torn = 0
    while any(p.is_alive() for p in procs):
        try:
            UserRegistry(path).read()
        except IntegrityFailure:
            torn += 1
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    catalog = UserRegistry(path).read().find("pub/cat")
    assert len(catalog.versions) == WRITERS * UPDATES
    assert torn == 0
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


@pytest.mark.parametrize("use_fcntl", [fcntl_available(), False])
def test_a_held_lock_times_out_other_acquirers(tmp_path: Path, use_fcntl: bool) -> None:
    path = tmp_path / "x.lock"
    with FileLock(path, use_fcntl=use_fcntl):
        with pytest.raises(LockTimeout) as info:
            FileLock(path, timeout=0.05, use_fcntl=use_fcntl).acquire()
        assert info.value.reason == "lock-timeout"
    with FileLock(path, timeout=0.05, use_fcntl=use_fcntl):
        pass


def _exit_at_once() -> None:
    return None


def test_fallback_lock_left_by_a_dead_process_is_broken(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    dead = ctx.Process(target=_exit_at_once)
    dead.start()
    dead.join()
    lock_dir = tmp_path / "x.lock.d"
    lock_dir.mkdir()
    (lock_dir / "owner").write_text(
        json.dumps({"host": socket.gethostname(), "pid": dead.pid, "time": time.time()})
    )
    with FileLock(tmp_path / "x.lock", timeout=2.0, use_fcntl=False) as lock:
        assert lock.held
    assert not lock_dir.exists()


def test_fallback_lock_of_a_live_process_is_respected(tmp_path: Path) -> None:
    lock_dir = tmp_path / "x.lock.d"
    lock_dir.mkdir()
    (lock_dir / "owner").write_text(
        json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "time": time.time()})
    )
    with pytest.raises(LockTimeout):
        FileLock(tmp_path / "x.lock", timeout=0.1, use_fcntl=False).acquire()


def test_deeply_nested_registry_file_is_corrupt_not_a_recursion_error(tmp_path: Path) -> None:
    # Before: RecursionError from json.loads escaped UserRegistry.read.
    path = tmp_path / "registry.json"
    path.write_text('{"kind": "gezel-knowledge-installed", "catalogs": ' + "[" * 100_000)
    with pytest.raises(IntegrityFailure) as err:
        UserRegistry(path).read()
    assert err.value.reason == "registry-corrupt"


@pytest.mark.parametrize("ref", ["pub/cat", "pub/cat@2.0", "cat", "cat@2.0"])
def test_a_catalog_is_found_by_the_coordinate_list_prints(ref: str) -> None:
    # Issue 16 item 4: `list` prints publisher/catalog@version; every command accepts it.
    catalog = InstalledCatalog("pub", "cat", active_sha256="a" * 64, versions=(_version("2.0"),))
    assert RegistrySnapshot().with_catalog(catalog).find(ref) == catalog


@pytest.mark.parametrize("ref", ["pub/cat@1.0", "cat@1.0", "cat@"])
def test_a_version_that_is_not_the_active_one_is_not_found(ref: str) -> None:
    catalog = InstalledCatalog(
        "pub", "cat", active_sha256="a" * 64, versions=(_version("2.0"), _version("1.0", "b"))
    )
    with pytest.raises(NotFound) as missing:
        RegistrySnapshot().with_catalog(catalog).find(ref)
    assert missing.value.reason == "version-not-installed"
    assert "version 2.0 is active" in str(missing.value)
