"""Mounting installed catalogs; quarantine on failure without touching the files."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.install.mount import MountFailed


def _fingerprint(root: Path) -> dict[str, tuple[str, int]]:
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            p = Path(dirpath) / name
            out[str(p.relative_to(root))] = (
                hashlib.sha256(p.read_bytes()).hexdigest(),
                p.stat().st_mode,
            )
    return out


@pytest.fixture
def two_installed(archive_factory: Any, tmp_path: Path) -> KnowledgeHome:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory("alpha", external_shards=True))
    home.install(archive_factory("beta"))
    return home


def test_mount_opens_the_active_version_with_its_digest(two_installed: KnowledgeHome) -> None:
    catalog = two_installed.mount("alpha")
    with catalog:
        assert catalog.provenance().archive_sha256 == two_installed.catalog("alpha").active_sha256
        assert catalog.search("lattice", mode="keyword").hits


def test_missing_shard_quarantines_only_that_catalog(two_installed: KnowledgeHome) -> None:
    alpha = two_installed.catalog("alpha")
    assert alpha.active is not None
    root = two_installed.path_of(alpha.active)
    shard = root / "index" / "shards" / "000.db"
    os.chmod(shard.parent, 0o755)
    shard.unlink()
    before = _fingerprint(root)
    with pytest.raises(MountFailed) as info:
        two_installed.mount("alpha")
    assert info.value.reason == "mount-failed"
    record = two_installed.catalog("alpha")
    assert record.quarantine is not None
    assert record.quarantine.reason == "missing-file"
    assert "index/shards/000.db" in record.quarantine.message
    assert not record.usable
    assert _fingerprint(root) == before  # nothing rewritten
    with two_installed.mount("beta") as beta:
        assert beta.search("lattice", mode="keyword").hits
    with pytest.raises(InvalidInput) as again:
        two_installed.mount("alpha")
    assert again.value.reason == "quarantined"


def test_corrupt_router_is_quarantined_and_recheck_clears_after_repair(
    two_installed: KnowledgeHome,
) -> None:
    beta = two_installed.catalog("beta")
    assert beta.active is not None
    router = two_installed.path_of(beta.active) / "index" / "router.db"
    original = router.read_bytes()
    os.chmod(router, 0o644)
    router.write_bytes(b"\0" * len(original))  # same size: only opening can tell
    with pytest.raises(MountFailed):
        two_installed.mount("beta")
    record = two_installed.catalog("beta")
    assert record.quarantine is not None
    assert two_installed.recheck("beta").quarantine is not None
    router.write_bytes(original)
    assert two_installed.recheck("beta").usable


def test_disabled_catalogs_do_not_mount_for_search_but_read(
    two_installed: KnowledgeHome,
) -> None:
    two_installed.disable("beta")
    with pytest.raises(InvalidInput) as info:
        two_installed.mount("beta")
    assert info.value.reason == "disabled"
    with two_installed.mount("beta", allow_disabled=True) as catalog:
        doc = catalog.list_documents(limit=1).documents[0]
        uri = catalog.citation(doc.id)
    assert two_installed.read(uri).document_id == doc.id


def _install_in_child(home: str, archive: str) -> None:
    KnowledgeHome(home).install(Path(archive))


def test_two_processes_installing_the_same_archive_agree(
    archive_factory: Any, tmp_path: Path
) -> None:
    archive = archive_factory("gamma")
    ctx = multiprocessing.get_context("spawn")
    procs = [
        ctx.Process(target=_install_in_child, args=(str(tmp_path), str(archive))) for _ in "ab"
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    home = KnowledgeHome(tmp_path)
    catalog = home.catalog("gamma")
    assert len(catalog.versions) == 1
    with home.mount("gamma") as mounted:
        assert mounted.search("lattice", mode="keyword").hits
    assert not any((home.knowledge_dir / ".staging").iterdir())
