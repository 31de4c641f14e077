"""Project catalog policy filtering and free-space checks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.install.errors import InsufficientSpace
from gezel_knowledge.install.policy import CatalogPolicy, eligible_catalogs
from gezel_knowledge.install.registry import (
    InstalledCatalog,
    InstalledVersion,
    Quarantine,
    RegistrySnapshot,
)
from gezel_knowledge.install.space import SAFETY_MARGIN, check_free_space, disk_free_space
from gezk.errors import InvalidIdentifier


def _catalog(publisher: str, catalog: str, **changes: object) -> InstalledCatalog:
    digest = (catalog * 64)[:64].replace(catalog[0], "a")
    digest = "".join(c if c in "0123456789abcdef" else "b" for c in digest)
    version = InstalledVersion(
        "1.0",
        digest,
        f"knowledge/{publisher}/{catalog}/1.0/{digest[:16]}",
        1,
        1,
        "t",
        "0.7",
        "test-hash-embed@1",
        catalog,
        "src",
        "unsigned",
    )
    base = InstalledCatalog(publisher, catalog, True, digest, (version,))
    return replace(base, **changes)  # type: ignore[arg-type]


@pytest.fixture
def snapshot() -> RegistrySnapshot:
    snap = RegistrySnapshot()
    good = _catalog("acme", "alpha")
    disabled = _catalog("acme", "beta", enabled=False)
    broken = _catalog("acme", "gamma")
    broken = broken.with_quarantine(broken.active_sha256 or "", Quarantine("corrupt", "x", "t"))
    other = _catalog("bendyline", "delta")
    for c in (good, disabled, broken, other):
        snap = snap.with_catalog(c)
    return snap


def test_inherit_admits_every_usable_catalog(snapshot: RegistrySnapshot) -> None:
    keys = [c.key for c in eligible_catalogs(snapshot, CatalogPolicy.inherit())]
    assert keys == ["acme/alpha", "bendyline/delta"]


def test_selected_admits_only_named_and_still_requires_usable(snapshot: RegistrySnapshot) -> None:
    policy = CatalogPolicy.selected(["acme/beta", "acme/gamma", "bendyline/delta", "acme/zeta"])
    keys = [c.key for c in eligible_catalogs(snapshot, policy)]
    # beta is disabled, gamma quarantined, zeta not installed.
    assert keys == ["bendyline/delta"]


def test_off_admits_nothing(snapshot: RegistrySnapshot) -> None:
    assert eligible_catalogs(snapshot, CatalogPolicy.off()) == []


def test_policy_json_round_trip() -> None:
    policy = CatalogPolicy.selected(["acme/alpha", "acme/alpha", "bendyline/delta"])
    assert policy.catalogs == ("acme/alpha", "bendyline/delta")
    assert CatalogPolicy.from_json(policy.to_json()) == policy
    assert CatalogPolicy.from_json("off") == CatalogPolicy.off()


def test_selected_catalogs_must_name_their_publisher() -> None:
    with pytest.raises(InvalidInput) as info:
        CatalogPolicy.selected(["alpha"])
    assert info.value.reason == "invalid-policy"
    with pytest.raises(InvalidIdentifier):
        CatalogPolicy.selected(["Acme/alpha"])


def test_unknown_mode_and_list_with_inherit_are_refused() -> None:
    with pytest.raises(InvalidInput):
        CatalogPolicy.from_json({"mode": "some"})
    with pytest.raises(InvalidInput):
        CatalogPolicy("inherit", ("acme/alpha",))


def test_no_space_is_a_typed_error_naming_the_shortfall(tmp_path: Path) -> None:
    with pytest.raises(InsufficientSpace) as info:
        check_free_space(tmp_path, 10 * 2**20, what="extracting x", probe=lambda _: 2**20)
    assert info.value.reason == "insufficient-space"
    assert "extracting x" in str(info.value)


def test_enough_space_returns_the_free_figure(tmp_path: Path) -> None:
    free = check_free_space(tmp_path, 1, what="x", probe=lambda _: SAFETY_MARGIN + 1)
    assert free == SAFETY_MARGIN + 1


def test_real_probe_walks_up_to_an_existing_directory(tmp_path: Path) -> None:
    assert disk_free_space(tmp_path / "not" / "yet" / "there") > 0
