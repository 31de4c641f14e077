"""The knowledge home: layout, enable/disable, remove, quarantine records, and their CLI verbs."""

from __future__ import annotations

import json
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from gezel_knowledge._atomic import make_read_only, move_to_trash, remove_tree
from gezel_knowledge.cli import main
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.install.home import KnowledgeHome, gezel_home
from gezel_knowledge.install.registry import InstalledCatalog, InstalledVersion, RegistrySnapshot
from gezk.errors import InvalidIdentifier


def _install_fake(
    home: KnowledgeHome, publisher: str, catalog: str, version: str, digit: str
) -> Path:
    digest = digit * 64
    target = home.version_dir(publisher, catalog, version, digest)
    target.mkdir(parents=True)
    (target / "manifest.json").write_text("{}")
    make_read_only(target)
    record = InstalledVersion(
        version,
        digest,
        home.relative(target),
        1,
        1,
        "2026-01-01T00:00:00.000Z",
        "0.7",
        "test-hash-embed@1",
        catalog.title(),
        "test",
        "unsigned",
    )

    def change(snap: RegistrySnapshot) -> RegistrySnapshot:
        current = snap.get(f"{publisher}/{catalog}") or InstalledCatalog(publisher, catalog)
        return snap.with_catalog(replace(current.with_version(record), active_sha256=digest))

    home.registry.update(change)
    return target


def test_home_defaults_to_gezel_home_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "h"))
    assert KnowledgeHome().root == tmp_path / "h"
    monkeypatch.delenv("GEZEL_HOME")
    assert gezel_home() == Path.home() / ".gezel"
    assert KnowledgeHome(tmp_path).knowledge_dir == tmp_path / "knowledge"


def test_version_dir_uses_the_digest_segment_and_validates_ids(tmp_path: Path) -> None:
    home = KnowledgeHome(tmp_path)
    digest = "0123456789abcdef" + "f" * 48
    path = home.version_dir("acme", "physics", "2026.9.1", digest)
    assert path == tmp_path / "knowledge" / "acme" / "physics" / "2026.9.1" / "0123456789abcdef"
    with pytest.raises(InvalidIdentifier):
        home.version_dir("acme", "../etc", "1.0", digest)
    with pytest.raises(InvalidIdentifier):
        home.version_dir("acme", "physics", "..", digest)
    for bad in ("xyz", digest.upper(), digest + "\n"):
        with pytest.raises(InvalidInput, match="not a lowercase SHA-256 hex digest"):
            home.version_dir("acme", "physics", "1.0", bad)


def test_published_files_are_read_only(tmp_path: Path) -> None:
    home = KnowledgeHome(tmp_path)
    target = _install_fake(home, "acme", "alpha", "1.0", "a")
    mode = (target / "manifest.json").stat().st_mode
    assert not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    assert not target.stat().st_mode & stat.S_IWUSR


def test_a_read_only_directory_moves_to_the_trash_whole(tmp_path: Path) -> None:
    published = tmp_path / "knowledge" / "acme" / "alpha"
    (published / "index").mkdir(parents=True)
    (published / "index" / "router.db").write_bytes(b"router")
    make_read_only(published)
    trash = tmp_path / "knowledge" / ".trash"
    grave = move_to_trash(published, trash)
    assert not published.exists()
    assert grave.parent == trash
    assert grave.name.startswith("alpha-")
    assert (grave / "index" / "router.db").read_bytes() == b"router"
    other = tmp_path / ("f" * 64)
    other.mkdir()
    assert move_to_trash(other, trash, name=other.name[:16]).name.startswith("f" * 16 + "-")
    with pytest.raises(FileNotFoundError):
        move_to_trash(tmp_path / "missing", trash)
    remove_tree(grave)
    assert not grave.exists()


def test_enable_disable_round_trip_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = KnowledgeHome(tmp_path)
    _install_fake(home, "acme", "alpha", "1.0", "a")
    assert main(["disable", "alpha", "--home", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["enabled"] is False
    assert not home.catalog("acme/alpha").enabled
    assert main(["enable", "acme/alpha", "--home", str(tmp_path)]) == 0
    assert "acme/alpha@1.0" in capsys.readouterr().out
    assert home.catalog("alpha").enabled


def test_remove_deletes_the_reference_and_the_private_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = KnowledgeHome(tmp_path)
    target = _install_fake(home, "acme", "alpha", "1.0", "a")
    other = _install_fake(home, "acme", "beta", "1.0", "b")
    assert main(["remove", "acme/alpha", "--home", str(tmp_path)]) == 0
    assert "removed acme/alpha (1.0)" in capsys.readouterr().out
    assert not target.exists()
    assert not (tmp_path / "knowledge" / "acme" / "alpha").exists()
    assert other.exists()
    assert [c.key for c in home.installed()] == ["acme/beta"]
    with pytest.raises(NotFound):
        home.remove("acme/alpha")


def test_unknown_catalog_is_a_one_line_cli_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["enable", "acme/nope", "--home", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.strip().endswith("[not-installed]")
    assert len(err.strip().splitlines()) == 1


def test_quarantine_is_recorded_and_cleared_without_touching_files(tmp_path: Path) -> None:
    home = KnowledgeHome(tmp_path)
    target = _install_fake(home, "acme", "alpha", "1.0", "a")
    before = sorted(p.name for p in target.iterdir())
    catalog = home.quarantine("acme/alpha", "a" * 64, "missing-shard", "index/shards/001.db\n gone")
    assert catalog.quarantine is not None
    assert catalog.quarantine.message == "index/shards/001.db gone"
    assert not catalog.usable
    assert sorted(p.name for p in target.iterdir()) == before
    assert home.clear_quarantine("acme/alpha", "a" * 64).usable
