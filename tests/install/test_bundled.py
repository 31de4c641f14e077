"""Bundled catalogs (the built-in Handboek): idempotent installs that keep the enabled choice."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.progress import ProgressEvent


def test_the_same_bundled_bytes_are_a_no_op(archive_factory: Any, tmp_path: Path) -> None:
    bundle = archive_factory("handboek")
    home = KnowledgeHome(tmp_path / "home")
    first = home.install_bundled(bundle)
    assert first.status == "installed"
    assert first.version.source == f"bundled:{bundle.absolute()}"
    registry = home.registry.path.read_bytes()
    events: list[ProgressEvent] = []
    again = home.install_bundled(bundle, progress=events.append)
    assert again.status == "unchanged"
    assert again.path == first.path
    assert home.registry.path.read_bytes() == registry
    assert {"extract", "validate", "publish"}.isdisjoint(e.step for e in events)


def test_changed_bundled_bytes_replace_it_and_keep_a_disabled_choice(
    archive_factory: Any, tmp_path: Path
) -> None:
    home = KnowledgeHome(tmp_path / "home")
    old = home.install_bundled(archive_factory("handboek"))
    home.disable("handboek")
    # The application ships changed bytes (here: under the same version label, rebuilt).
    shipped = tmp_path / "app" / "handboek.gezk"
    shipped.parent.mkdir()
    shutil.copy(archive_factory("handboek", n_docs=9), shipped)
    new = home.install_bundled(shipped)
    assert new.status == "installed"
    assert new.version.archive_sha256 != old.version.archive_sha256
    assert new.previous is not None
    assert new.previous.archive_sha256 == old.version.archive_sha256
    catalog = home.catalog("handboek")
    assert catalog.enabled is False
    assert [v.archive_sha256 for v in catalog.versions] == [new.version.archive_sha256]
    assert not old.path.exists()
    home.enable("handboek")
    newer = home.install_bundled(archive_factory("handboek", version="1.1.0"))
    assert (newer.status, newer.version.version) == ("installed", "1.1.0")
    assert home.catalog("handboek").enabled is True


def test_a_newer_version_installed_from_elsewhere_is_not_downgraded(
    archive_factory: Any, tmp_path: Path
) -> None:
    home = KnowledgeHome(tmp_path / "home")
    home.install_bundled(archive_factory("handboek"))
    upgraded = home.install(archive_factory("handboek", version="2.0.0"))
    kept = home.install_bundled(archive_factory("handboek"))
    assert kept.status == "kept"
    assert kept.version == upgraded.version
    assert home.catalog("handboek").active.version == "2.0.0"  # type: ignore[union-attr]
    # A newer bundle than what the user installed does replace it.
    bundled = home.install_bundled(archive_factory("handboek", version="3.0.0"))
    assert (bundled.status, bundled.version.version) == ("installed", "3.0.0")
