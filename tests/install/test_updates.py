"""Updates from registry documents: checks download nothing, the network policy is respected,
applying keeps the enabled setting and the previous version until the new one is active."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.install import (
    KnowledgeHome,
    NetworkNotAllowed,
    SharedStore,
    UpdatePolicy,
    load_registry_document,
)
from gezel_knowledge.install.registry import UserRegistry
from gezel_knowledge.progress import ProgressEvent
from gezk.signing import public_key_to_pem
from tests.install.publisher import Publisher

EXPLICIT = UpdatePolicy.explicit()
OFFLINE = UpdatePolicy.background(network_allowed=False)


@pytest.fixture
def home(publisher: Publisher, tmp_path: Path) -> KnowledgeHome:
    """A home with tester/demo 1.0.0 installed through a registry file, then disabled."""
    home = KnowledgeHome(tmp_path / "home")
    registry = publisher.write(tmp_path / "registry.json")
    home.install("tester/demo", registries=[load_registry_document(registry)])
    home.disable("demo")
    return home


def _publish_v2(publisher: Publisher, archive_factory: Any, tmp_path: Path) -> str:
    digest = publisher.release(
        archive_factory("demo", version="1.10.0", n_docs=9), "demo", "1.10.0"
    )
    publisher.write(tmp_path / "registry.json")
    return digest


def test_check_reports_a_newer_release_without_downloading(
    publisher: Publisher, home: KnowledgeHome, archive_factory: Any, tmp_path: Path
) -> None:
    assert home.check_updates(policy=OFFLINE).updates == ()
    _publish_v2(publisher, archive_factory, tmp_path)
    before = publisher.site.downloads()
    # No registries given: the one the catalog was installed through (a local file).
    check = home.check_updates(policy=OFFLINE)
    assert [(u.catalog, u.current_version, u.release.version) for u in check.updates] == [
        ("tester/demo", "1.0.0", "1.10.0")
    ]
    assert check.updates[0].registry == str(tmp_path / "registry.json")
    assert check.updates[0].verified is False
    assert publisher.site.downloads() == before
    assert home.catalog("demo").active.version == "1.0.0"  # type: ignore[union-attr]


def test_a_check_reads_the_user_registry_once(
    publisher: Publisher,
    home: KnowledgeHome,
    archive_factory: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _publish_v2(publisher, archive_factory, tmp_path)
    reads: list[Path] = []
    real = UserRegistry.read

    def counting(self: UserRegistry) -> Any:
        reads.append(self.path)
        return real(self)

    monkeypatch.setattr(UserRegistry, "read", counting)
    check = home.check_updates(policy=OFFLINE)
    assert [u.coordinate for u in check.updates] == ["tester/demo@1.10.0"]
    assert reads == [home.registry.path]


def test_a_url_registry_is_not_fetched_when_the_policy_forbids_the_network(
    publisher: Publisher, home: KnowledgeHome
) -> None:
    url = publisher.site.url("registry.json")
    check = home.check_updates([url], policy=OFFLINE)
    assert [(p.registry, p.reason) for p in check.problems] == [(url, "network-not-allowed")]
    assert check.unlisted == ("tester/demo",)
    assert publisher.site.requests == ["demo-1.0.0.gezk"]
    allowed = home.check_updates([url], policy=UpdatePolicy.background(network_allowed=True))
    assert allowed.problems == ()
    assert allowed.current == ("tester/demo",)


def test_applying_is_refused_by_a_policy_without_network(
    publisher: Publisher, home: KnowledgeHome, archive_factory: Any, tmp_path: Path
) -> None:
    _publish_v2(publisher, archive_factory, tmp_path)
    registry_before = home.registry.path.read_bytes()
    with pytest.raises(NetworkNotAllowed) as info:
        home.apply_updates(policy=OFFLINE)
    assert info.value.reason == "network-not-allowed"
    assert "tester/demo 1.10.0" in info.value.message
    assert home.registry.path.read_bytes() == registry_before
    assert publisher.site.downloads() == 1


def test_applying_installs_through_the_job_and_keeps_the_enabled_setting(
    publisher: Publisher, home: KnowledgeHome, archive_factory: Any, tmp_path: Path
) -> None:
    old = home.catalog("demo").active
    assert old is not None
    old_path = home.path_of(old)
    digest = _publish_v2(publisher, archive_factory, tmp_path)
    events: list[ProgressEvent] = []
    report = home.apply_updates(policy=EXPLICIT, progress=events.append)
    assert report.failed == ()
    [result] = report.applied
    assert (result.version.version, result.version.archive_sha256) == ("1.10.0", digest)
    assert result.previous is not None
    assert result.previous.version == "1.0.0"
    catalog = home.catalog("demo")
    assert catalog.enabled is False  # the user's choice survives the update
    assert [v.version for v in catalog.versions] == ["1.10.0"]
    assert not old_path.exists()
    # The old version was released only after the new one was registered.
    steps = [e.step for e in events]
    assert steps.index("register") > steps.index("validate")
    assert home.check_updates(policy=OFFLINE).updates == ()


def test_trust_excludes_registries_that_do_not_verify(
    publisher: Publisher, home: KnowledgeHome, archive_factory: Any, tmp_path: Path
) -> None:
    _publish_v2(publisher, archive_factory, tmp_path)
    unsigned = tmp_path / "unsigned.json"
    unsigned.write_text(json.dumps(publisher.document_json(signed=False)))
    check = home.check_updates([unsigned], policy=OFFLINE, trust=publisher.anchors)
    assert [(p.reason, p.registry) for p in check.problems] == [("unsigned", str(unsigned))]
    assert check.updates == ()
    signed = home.check_updates(
        [publisher.write(tmp_path / "signed.json")], policy=OFFLINE, trust=publisher.anchors
    )
    assert [u.verified for u in signed.updates] == [True]


def test_a_private_on_request_install_stays_private_after_an_update(
    publisher: Publisher, archive_factory: Any, tmp_path: Path
) -> None:
    store = SharedStore(tmp_path / "shared")
    store.root.mkdir()
    home = KnowledgeHome(tmp_path / "home", shared_store=store)
    docs = [publisher.document()]
    home.install("tester/demo", registries=docs, trust=publisher.anchors, placement="private")
    _publish_v2(publisher, archive_factory, tmp_path)
    report = home.apply_updates([publisher.document()], policy=EXPLICIT, trust=publisher.anchors)
    assert [(r.version.version, r.placement) for r in report.applied] == [("1.10.0", "private")]
    assert store.entries() == []


def test_a_failed_update_keeps_the_previous_version(
    publisher: Publisher, home: KnowledgeHome, archive_factory: Any, tmp_path: Path
) -> None:
    _publish_v2(publisher, archive_factory, tmp_path)
    publisher.site.files["demo-1.10.0.gezk"] = b"not the promised bytes"
    report = home.apply_updates(policy=EXPLICIT)
    assert report.applied == ()
    assert [(f.catalog, f.reason) for f in report.failed] == [("tester/demo", "size-mismatch")]
    assert home.catalog("demo").active.version == "1.0.0"  # type: ignore[union-attr]


def test_cli_update_check_then_apply(
    publisher: Publisher,
    home: KnowledgeHome,
    archive_factory: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _publish_v2(publisher, archive_factory, tmp_path)
    pub = tmp_path / "pub.pem"
    pub.write_bytes(public_key_to_pem(publisher.key.public_key()))
    url = publisher.site.url("registry.json")
    base = ["update", "--home", str(home.root), "--registry", url, "--trust", str(pub)]
    capsys.readouterr()
    assert main([*base, "--check"]) == 0
    assert "tester/demo 1.0.0 -> 1.10.0" in capsys.readouterr().out
    assert main([*base, "--offline"]) == 0
    captured = capsys.readouterr()
    assert "no updates available" in captured.out
    assert "network policy does not allow" in captured.err
    assert main([*base, "--json"]) == 0
    applied = json.loads(capsys.readouterr().out)["applied"]
    assert [(a["catalog"], a["previousVersion"], a["version"]) for a in applied] == [
        ("tester/demo", "1.0.0", "1.10.0")
    ]
    assert main([*base]) == 0
    assert "no updates available" in capsys.readouterr().out


def test_a_check_can_be_limited_to_some_catalogs(
    publisher: Publisher, home: KnowledgeHome, archive_factory: Any, tmp_path: Path
) -> None:
    # Issue 10 point 5: the API filters what the CLI used to filter after the fact.
    home.install(archive_factory("other"))
    _publish_v2(publisher, archive_factory, tmp_path)
    only_demo = home.check_updates(policy=OFFLINE, catalogs=["tester/demo@1.0.0"])
    assert [u.catalog for u in only_demo.updates] == ["tester/demo"]
    assert "tester/other" not in (*only_demo.current, *only_demo.unlisted)
    only_other = home.check_updates(policy=OFFLINE, catalogs=["other"])
    assert only_other.updates == ()
    assert "tester/demo" not in (*only_other.current, *only_other.unlisted)
