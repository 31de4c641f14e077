"""The machine-wide shared store: one copy of trusted public bytes, per-user references."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge._atomic import make_writable
from gezel_knowledge._locking import FileLock
from gezel_knowledge.cli import main
from gezel_knowledge.errors import IntegrityFailure
from gezel_knowledge.install import (
    KnowledgeHome,
    LockTimeout,
    SharedPlacementUnavailable,
    SharedStore,
)
from gezel_knowledge.progress import ProgressEvent
from gezel_knowledge.search import KnowledgeSearch
from gezk.signing import public_key_to_pem
from tests.install.publisher import Publisher


@pytest.fixture
def store(tmp_path: Path) -> SharedStore:
    root = tmp_path / "shared"
    root.mkdir()
    return SharedStore(root)


def _home(tmp_path: Path, name: str, store: SharedStore | None) -> KnowledgeHome:
    return KnowledgeHome(tmp_path / name, shared_store=store if store is not None else False)


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_two_homes_share_one_copy_of_a_trusted_coordinate(
    publisher: Publisher, store: SharedStore, tmp_path: Path
) -> None:
    alice, bob = _home(tmp_path, "alice", store), _home(tmp_path, "bob", store)
    docs = [publisher.document()]
    first = alice.install("tester/demo", registries=docs, trust=publisher.anchors)
    assert first.status == "installed"
    assert first.placement == "shared"
    assert first.placement_reason is None
    assert publisher.site.downloads() == 1
    digest = first.version.archive_sha256
    assert first.path == store.catalog_dir(digest)
    # The entry is published read-only, down to its files.
    writable = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    entry = store.entry_dir(digest)
    assert not entry.stat().st_mode & writable
    assert not (entry / "entry.json").stat().st_mode & writable
    assert not (first.path / "manifest.json").stat().st_mode & writable

    events: list[ProgressEvent] = []
    second = bob.install(
        "tester/demo", registries=docs, trust=publisher.anchors, progress=events.append
    )
    assert second.status == "installed"
    assert second.placement == "shared"
    assert second.download is None
    assert publisher.site.downloads() == 1  # Bob's install fetched nothing
    assert {e.step for e in events}.isdisjoint({"download", "extract", "validate"})
    assert second.path == first.path
    assert [e.archive_sha256 for e in store.entries()] == [digest]
    assert sorted(r.home for r in store.references(digest)) == sorted(
        [str(alice.root.absolute()), str(bob.root.absolute())]
    )
    # Nothing of the catalog was copied into either home.
    for home in (alice, bob):
        assert not (home.knowledge_dir / "tester").exists()
        assert home.catalog("demo").active.placement == "shared"  # type: ignore[union-attr]
    with KnowledgeSearch(bob) as search:
        assert search.search("lattice").hits


def test_removing_one_home_keeps_the_bytes_and_reclaim_frees_them_after_the_last(
    publisher: Publisher, store: SharedStore, tmp_path: Path
) -> None:
    alice, bob = _home(tmp_path, "alice", store), _home(tmp_path, "bob", store)
    docs = [publisher.document()]
    digest = alice.install("tester/demo", registries=docs, trust=publisher.anchors).version
    bob.install("tester/demo", registries=docs, trust=publisher.anchors)
    sha = digest.archive_sha256
    before = _files(store.catalog_dir(sha))

    alice.remove("demo")
    assert store.has(sha)
    assert [r.home for r in store.references(sha)] == [str(bob.root.absolute())]
    kept = store.reclaim()
    assert kept.reclaimed == ()
    assert kept.kept == (sha,)
    assert _files(store.catalog_dir(sha)) == before
    with bob.mount("demo") as catalog:
        assert catalog.list_documents().total == 8

    bob.remove("demo")
    assert store.has(sha)  # removal never deletes shared bytes; reclaim does
    report = store.reclaim()
    assert report.reclaimed == (sha,)
    assert report.bytes_freed >= sum(len(b) for b in before.values())
    assert not store.entry_dir(sha).exists()
    assert store.entries() == []
    assert list(store.trash_dir.iterdir()) == []


def test_reclaim_drops_references_of_homes_that_are_gone(
    publisher: Publisher, store: SharedStore, tmp_path: Path
) -> None:
    alice = _home(tmp_path, "alice", store)
    result = alice.install(
        "tester/demo", registries=[publisher.document()], trust=publisher.anchors
    )
    sha = result.version.archive_sha256
    assert store.reclaim().kept == (sha,)
    shutil.rmtree(alice.root)  # deleted without "remove"
    report = store.reclaim()
    assert [r.home for r in report.dropped_references] == [str(alice.root.absolute())]
    assert report.reclaimed == (sha,)
    # Without checking homes, a reference is trusted as it stands.
    bob = _home(tmp_path, "bob", store)
    bob.install("tester/demo", registries=[publisher.document()], trust=publisher.anchors)
    shutil.rmtree(bob.root)
    assert store.reclaim(check_homes=False).kept == (sha,)


def test_file_and_url_installs_stay_private_with_a_store_configured(
    archive_factory: Any, publisher: Publisher, store: SharedStore, tmp_path: Path
) -> None:
    home = _home(tmp_path, "alice", store)
    from_file = home.install(archive_factory("local"))
    assert from_file.placement == "private"
    assert from_file.placement_reason == "local-import"
    assert from_file.path.is_relative_to(home.knowledge_dir)
    from_url = home.install(publisher.site.url("demo-1.0.0.gezk"))
    assert from_url.placement == "private"
    assert from_url.placement_reason == "arbitrary-url"
    assert store.entries() == []


def test_coordinates_go_private_when_asked_untrusted_or_without_a_store(
    publisher: Publisher, store: SharedStore, tmp_path: Path
) -> None:
    docs = [publisher.document()]
    asked = _home(tmp_path, "a", store).install(
        "tester/demo", registries=docs, trust=publisher.anchors, placement="private"
    )
    assert (asked.placement, asked.placement_reason) == ("private", "private-requested")
    untrusted = _home(tmp_path, "b", store).install("tester/demo", registries=docs)
    assert (untrusted.placement, untrusted.placement_reason) == ("private", "unverified-registry")
    no_store = _home(tmp_path, "c", None).install(
        "tester/demo", registries=docs, trust=publisher.anchors
    )
    assert (no_store.placement, no_store.placement_reason) == ("private", "no-shared-store")
    assert store.entries() == []
    with pytest.raises(SharedPlacementUnavailable) as info:
        _home(tmp_path, "d", None).install(
            "tester/demo", registries=docs, trust=publisher.anchors, placement="shared"
        )
    assert info.value.reason == "no-shared-store"


def test_the_store_comes_from_the_environment_when_not_given(
    publisher: Publisher, store: SharedStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEZEL_SHARED_STORE", str(store.root))
    home = KnowledgeHome(tmp_path / "env")
    assert home.shared_store == store
    result = home.install("tester/demo", registries=[publisher.document()], trust=publisher.anchors)
    assert result.placement == "shared"
    assert KnowledgeHome(tmp_path / "off", shared_store=False).shared_store is None


@contextlib.contextmanager
def _unwritable(directory: Path) -> Iterator[None]:
    """Make ``directory`` unwritable for this process: mode bits, or ``chattr +i`` for root."""
    if os.geteuid() != 0:
        os.chmod(directory, 0o555)
        try:
            yield
        finally:
            os.chmod(directory, 0o755)
        return
    chattr = shutil.which("chattr")
    done = chattr is not None and (
        subprocess.run([chattr, "+i", str(directory)], capture_output=True, check=False).returncode
        == 0
    )
    if not done:
        pytest.skip("running as root and chattr +i is unavailable: cannot make a read-only dir")
    try:
        yield
    finally:
        subprocess.run([str(chattr), "-i", str(directory)], check=True)


def test_a_read_only_store_falls_back_to_private_with_the_reason(
    publisher: Publisher, store: SharedStore, tmp_path: Path
) -> None:
    home = _home(tmp_path, "alice", store)
    events: list[ProgressEvent] = []
    with _unwritable(store.root):
        result = home.install(
            "tester/demo",
            registries=[publisher.document()],
            trust=publisher.anchors,
            progress=events.append,
        )
    assert result.placement == "private"
    assert result.placement_reason == "shared-store-unavailable"
    assert "not writable" in str(result.placement_message)
    assert result.version.placement_reason == "shared-store-unavailable"
    placement = [e for e in events if e.step == "placement"]
    assert "shared-store-unavailable" in placement[0].message
    assert result.path.is_relative_to(home.knowledge_dir)
    assert list(store.root.iterdir()) == []


def test_a_store_path_that_is_not_a_directory_falls_back_to_private(
    publisher: Publisher, tmp_path: Path
) -> None:
    (tmp_path / "not-a-dir").write_text("x")
    home = KnowledgeHome(tmp_path / "alice", shared_store=tmp_path / "not-a-dir")
    result = home.install("tester/demo", registries=[publisher.document()], trust=publisher.anchors)
    assert (result.placement, result.placement_reason) == ("private", "shared-store-unavailable")


def test_shared_bytes_are_read_only_and_never_modified_by_use(
    publisher: Publisher, store: SharedStore, tmp_path: Path
) -> None:
    home = _home(tmp_path, "alice", store)
    result = home.install("tester/demo", registries=[publisher.document()], trust=publisher.anchors)
    entry = store.entry_dir(result.version.archive_sha256)
    for dirpath, dirs, files in os.walk(entry):
        for name in dirs + files:
            mode = os.stat(os.path.join(dirpath, name)).st_mode
            assert not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH), name
    before = _files(entry)
    with KnowledgeSearch(home) as search:
        search.search("lattice ember")
    home.disable("demo")
    home.enable("demo")
    assert _files(entry) == before
    assert json.loads((entry / "entry.json").read_text())["catalogId"] == "demo"


def test_bytes_that_fail_verification_publish_nothing_in_the_store(
    archive_factory: Any, http_site: Any, store: SharedStore, tmp_path: Path
) -> None:
    # A trusted registry pins the digest of a damaged archive: the digest matches, but the
    # archive and extraction checks refuse it before anything reaches the store.
    data = bytearray(archive_factory("demo").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "bad.gezk").write_bytes(bytes(data))
    publisher = Publisher(http_site())
    publisher.release(tmp_path / "bad.gezk", "demo", "1.0.0")
    home = _home(tmp_path, "alice", store)
    with pytest.raises(IntegrityFailure):
        home.install("tester/demo", registries=[publisher.document()], trust=publisher.anchors)
    assert store.entries() == []
    assert list(store.staging_dir.iterdir()) == []
    assert home.installed() == []


def test_a_damaged_shared_copy_is_not_adopted(
    publisher: Publisher, store: SharedStore, tmp_path: Path
) -> None:
    docs = [publisher.document()]
    alice = _home(tmp_path, "alice", store)
    sha = alice.install("tester/demo", registries=docs, trust=publisher.anchors).version
    entry = store.entry_dir(sha.archive_sha256)
    make_writable(entry)
    (entry / "catalog" / "README.md").write_text("tampered, a different size")
    bob = _home(tmp_path, "bob", store)
    result = bob.install("tester/demo", registries=docs, trust=publisher.anchors)
    assert (result.placement, result.placement_reason) == ("private", "shared-copy-damaged")
    assert result.path.is_relative_to(bob.knowledge_dir)
    assert [r.home for r in store.references(sha.archive_sha256)] == [str(alice.root.absolute())]


def _damaged_copy_appears_during_download(
    store: SharedStore, digest: str, tmp_path: Path
) -> Callable[[ProgressEvent], None]:
    """Hide the store's (damaged) entry until the installer starts downloading, as if another
    process published it meanwhile: the installer then finds it only after its download."""
    entry = store.entry_dir(digest)
    make_writable(entry)
    (entry / "catalog" / "README.md").write_text("tampered, a different size")
    hidden = tmp_path / "hidden-entry"
    entry.rename(hidden)

    def on_progress(event: ProgressEvent) -> None:
        if event.step == "download" and hidden.exists():
            hidden.rename(entry)

    return on_progress


@pytest.mark.parametrize("placement", ["shared", "auto"])
def test_a_damaged_copy_found_after_downloading_honours_the_placement_request(
    publisher: Publisher, store: SharedStore, tmp_path: Path, placement: Any
) -> None:
    docs = [publisher.document()]
    alice = _home(tmp_path, "alice", store)
    sha = alice.install("tester/demo", registries=docs, trust=publisher.anchors).version
    progress = _damaged_copy_appears_during_download(store, sha.archive_sha256, tmp_path)
    bob = _home(tmp_path, "bob", store)

    def install() -> Any:
        return bob.install(
            "tester/demo",
            registries=docs,
            trust=publisher.anchors,
            placement=placement,
            progress=progress,
        )

    if placement == "shared":
        with pytest.raises(SharedPlacementUnavailable) as err:
            install()
        assert err.value.reason == "shared-copy-damaged"
        assert bob.installed() == []
        # The downloaded bytes were fine: they are kept for an attempt that may go private.
        assert [p.suffix for p in bob.downloads_dir.glob("*.partial")] == [".partial"]
    else:
        result = install()
        assert (result.placement, result.placement_reason) == ("private", "shared-copy-damaged")
    assert [r.home for r in store.references(sha.archive_sha256)] == [str(alice.root.absolute())]


def test_a_newer_shared_version_releases_the_old_reference(
    archive_factory: Any, publisher: Publisher, store: SharedStore, tmp_path: Path
) -> None:
    home = _home(tmp_path, "alice", store)
    old = home.install("tester/demo", registries=[publisher.document()], trust=publisher.anchors)
    home.disable("demo")
    publisher.release(archive_factory("demo", version="2.0.0", n_docs=9), "demo", "2.0.0")
    new = home.install("tester/demo", registries=[publisher.document()], trust=publisher.anchors)
    assert (new.version.version, new.placement) == ("2.0.0", "shared")
    assert new.previous is not None
    assert new.previous.version == "1.0.0"
    assert home.catalog("demo").enabled is False
    assert store.references(old.version.archive_sha256) == []
    assert store.reclaim().reclaimed == (old.version.archive_sha256,)
    assert store.has(new.version.archive_sha256)


def test_list_and_status_show_the_placement(
    publisher: Publisher,
    store: SharedStore,
    tmp_path: Path,
    *,
    archive_factory: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEZEL_SHARED_STORE", str(store.root))
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "alice"))
    home = KnowledgeHome()
    home.install("tester/demo", registries=[publisher.document()], trust=publisher.anchors)
    home.install(archive_factory("local"))
    capsys.readouterr()
    assert main(["list", "--json"]) == 0
    rows = {r["catalog"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["tester/demo"]["placement"] == "shared"
    assert rows["tester/local"]["placement"] == "private"
    assert rows["tester/local"]["placementReason"] == "local-import"
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any("tester/demo@1.0.0" in line and "shared" in line for line in lines)
    assert main(["status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["sharedStore"] == {"path": str(store.root), "problem": None}
    assert {c["catalog"]: c["placement"] for c in status["catalogs"]} == {
        "tester/demo": "shared",
        "tester/local": "private",
    }
    assert main(["status"]) == 0
    assert f"shared store: {store.root}" in capsys.readouterr().out


def test_cli_install_placement_and_reclaim(
    publisher: Publisher,
    store: SharedStore,
    tmp_path: Path,
    *,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registry = publisher.write(tmp_path / "registry.json")
    pub = tmp_path / "pub.pem"
    pub.write_bytes(public_key_to_pem(publisher.key.public_key()))
    common = ["--registry", str(registry), "--trust", str(pub), "--json"]
    alice = ["--home", str(tmp_path / "alice")]
    monkeypatch.setenv("GEZEL_SHARED_STORE", str(store.root))
    assert main(["install", "tester/demo", *common, *alice]) == 0
    row = json.loads(capsys.readouterr().out)
    assert (row["placement"], row["status"]) == ("shared", "installed")
    bob = ["--home", str(tmp_path / "bob"), "--placement", "private"]
    assert main(["install", "tester/demo", *common, *bob]) == 0
    private = json.loads(capsys.readouterr().out)
    assert (private["placement"], private["placementReason"]) == ("private", "private-requested")
    assert main(["remove", "demo", *alice]) == 0
    capsys.readouterr()
    assert main(["reclaim", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reclaimed"] == [row["archiveSha256"]]
    assert store.entries() == []
    monkeypatch.delenv("GEZEL_SHARED_STORE")
    assert main(["reclaim"]) == 1  # no store configured: a one-line error
    assert "GEZEL_SHARED_STORE" in capsys.readouterr().err


def test_two_homes_installing_at_once_publish_one_entry(
    publisher: Publisher, store: SharedStore, tmp_path: Path
) -> None:
    docs = [publisher.document()]
    homes = [_home(tmp_path, f"user{i}", store) for i in range(3)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(
            pool.map(
                lambda h: h.install("tester/demo", registries=docs, trust=publisher.anchors),
                homes,
            )
        )
    assert {r.placement for r in results} == {"shared"}
    assert len({r.path for r in results}) == 1
    sha = results[0].version.archive_sha256
    assert [e.archive_sha256 for e in store.entries()] == [sha]
    assert len(store.references(sha)) == 3
    assert list(store.staging_dir.iterdir()) == []


def test_a_forged_shared_path_in_the_registry_is_refused(
    publisher: Publisher, store: SharedStore, tmp_path: Path
) -> None:
    home = _home(tmp_path, "alice", store)
    result = home.install("tester/demo", registries=[publisher.document()], trust=publisher.anchors)
    sha = result.version.archive_sha256
    forged = [
        tmp_path / "elsewhere" / "catalog",
        # The right digest, but not under a store's catalogs/ folder.
        tmp_path / "elsewhere" / "entries" / sha / "catalog",
        store.root / "catalogs" / sha / ".." / sha / "catalog",
        store.catalog_dir("0" * 64),
    ]
    for path in forged:
        data = json.loads(home.registry.path.read_text())
        data["catalogs"][0]["versions"][0]["path"] = str(path)
        home.registry.path.write_text(json.dumps(data))
        with pytest.raises(IntegrityFailure) as info:
            home.path_of(home.catalog("demo").active)  # type: ignore[arg-type]
        assert info.value.reason == "registry-corrupt", path
    assert store.has(sha)


def test_the_store_lock_works_on_a_lock_file_this_account_cannot_write(
    store: SharedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    with store.lock():
        pass  # another account created store.lock
    lock_file = store.root / "store.lock"
    real_open = Path.open
    modes: list[str] = []

    def open_as_another_user(self: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if self == lock_file:
            modes.append(mode)
            if "+" in mode or "a" in mode or "w" in mode:
                raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", open_as_another_user)
    with store.lock() as held:
        assert held.held
        with pytest.raises(LockTimeout):
            FileLock(lock_file, timeout=0.05).acquire()  # still exclusive
    assert modes[:2] == ["a+b", "rb"]


def test_an_entry_is_named_by_a_lowercase_digest_only(tmp_path: Path) -> None:
    store = SharedStore(tmp_path / "store")
    digest = "ab" * 32
    assert store.entry_dir(digest) == store.catalogs_dir / digest
    for bad in (digest.upper(), digest[:63], "../" + digest[3:]):
        with pytest.raises(IntegrityFailure) as err:
            store.entry_dir(bad)
        assert err.value.reason == "invalid-digest"
    assert store.owns(store.catalogs_dir / digest.upper() / "catalog") is None
