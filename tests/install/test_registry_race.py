"""Races between installers on one home: the registry never names a version that is not there
(issue 17 item 1)."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.errors import IntegrityFailure
from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.install import job as job_module
from gezel_knowledge.install.registry import RegistrySnapshot


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _consistent(home: KnowledgeHome) -> None:
    for catalog in home.installed():
        if catalog.active_sha256 is not None:
            active = catalog.version_by_digest(catalog.active_sha256)
            assert active is not None, f"{catalog.key} names a missing version"
            assert home.path_of(active).is_dir()


def test_reactivating_a_version_a_concurrent_install_removed_installs_it_again(
    archive_factory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: the reuse path read the snapshot without the lock and set `active` under it
    # without re-checking, so it named the removed version (and died on `assert version`).
    v1 = archive_factory(version="1.0.0")
    v2 = archive_factory(version="2.0.0", n_docs=9)
    v3 = archive_factory(version="3.0.0", n_docs=10)
    home = KnowledgeHome(tmp_path)
    home.install(v1)
    home.install(v2, keep_previous=True)
    real = job_module.activate_existing

    def after_a_concurrent_install(*args: Any, **kwargs: Any) -> Any:
        # Another process installs v3 between the unlocked read and the locked update; without
        # keep_previous it releases v1 and v2.
        KnowledgeHome(tmp_path).install(v3)
        return real(*args, **kwargs)

    monkeypatch.setattr(job_module, "activate_existing", after_a_concurrent_install)
    result = home.install(v1)
    _consistent(home)
    catalog = home.catalog("demo")
    assert catalog.active is not None
    assert catalog.active.archive_sha256 == _sha(v1)
    assert result.status == "installed"
    assert result.path.is_dir()
    assert result.previous is not None
    assert result.previous.version == "3.0.0"


def test_the_registry_refuses_to_write_an_active_version_it_does_not_list(
    archive_factory: Any, tmp_path: Path
) -> None:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory())
    catalog = home.catalog("demo")
    dangling = replace(catalog, active_sha256="f" * 64)
    with pytest.raises(IntegrityFailure) as err, home.registry.lock():
        home.registry.write(RegistrySnapshot().with_catalog(dangling))
    assert err.value.reason == "registry-invariant"
    _consistent(home)
