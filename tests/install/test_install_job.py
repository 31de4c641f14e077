"""The install job end to end: every step, every failure, and what is left behind."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.archive import verify as archive_verify
from gezel_knowledge.errors import Cancelled, IntegrityFailure, InvalidInput, NotFound
from gezel_knowledge.install import CancelToken, InsufficientSpace, KnowledgeHome
from gezel_knowledge.install.registry_document import RegistryDocument
from gezel_knowledge.install.source import normalize_sha256
from gezel_knowledge.progress import ProgressEvent
from gezk.signing import TrustAnchors, generate_private_key

STEPS = [
    "resolve",
    "placement",
    "space",
    "digest",
    "archive",
    "space",
    "extract",
    "validate",
    "publish",
    "register",
]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _leftovers(home: KnowledgeHome) -> list[str]:
    found = []
    for name in (".staging", ".trash"):
        d = home.knowledge_dir / name
        if d.exists():
            found += [f"{name}/{p.name}" for p in d.iterdir()]
    return found


def _steps(events: list[ProgressEvent]) -> list[str]:
    out: list[str] = []
    for e in events:
        if not out or out[-1] != e.step:
            out.append(e.step)
    return out


def test_install_from_a_file_publishes_read_only_and_registers(
    archive_factory: Any, tmp_path: Path
) -> None:
    archive = archive_factory()
    home = KnowledgeHome(tmp_path / "home")
    events: list[ProgressEvent] = []
    result = home.install(archive, progress=events.append)
    digest = _sha(archive)
    assert result.status == "installed"
    assert result.path == tmp_path / "home/knowledge/tester/demo/1.0.0" / digest[:16]
    assert result.version.archive_sha256 == digest
    assert result.version.provenance == "unsigned"
    assert _steps(events) == STEPS
    assert all(e.job == "install" for e in events)
    manifest = result.path / "manifest.json"
    assert not manifest.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    assert not result.path.stat().st_mode & stat.S_IWUSR
    assert (result.path / "index" / "router.db").is_file()
    catalog = home.catalog("tester/demo")
    assert catalog.enabled
    assert catalog.active == result.version
    assert _leftovers(home) == []


def test_the_archive_checks_and_the_extraction_share_one_open_file(
    archive_factory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = {"hash": 0, "scan": 0}
    real_hash, real_scan = archive_verify._stream_sha256, archive_verify._scan_structure

    def hashing(*args: Any) -> str:
        calls["hash"] += 1
        return real_hash(*args)

    def scanning(*args: Any) -> Any:
        calls["scan"] += 1
        return real_scan(*args)

    monkeypatch.setattr(archive_verify, "_stream_sha256", hashing)
    monkeypatch.setattr(archive_verify, "_scan_structure", scanning)
    result = KnowledgeHome(tmp_path / "home").install(archive_factory())
    assert result.status == "installed"
    # The job's own digest (with progress and cancellation) plus one open archive file for the
    # checks and the extraction, instead of one for each.
    assert calls == {"hash": 1, "scan": 1}


def test_reinstalling_the_same_bytes_is_a_no_op(archive_factory: Any, tmp_path: Path) -> None:
    archive = archive_factory()
    home = KnowledgeHome(tmp_path)
    first = home.install(archive)
    registry_before = home.registry.path.read_bytes()
    events: list[ProgressEvent] = []
    again = home.install(archive, progress=events.append)
    assert again.status == "unchanged"
    assert again.path == first.path
    assert home.registry.path.read_bytes() == registry_before
    assert "extract" not in _steps(events)
    # With the digest promised up front, nothing is even read.
    promised = home.install(archive, _sha(archive))
    assert promised.status == "unchanged"


def test_bad_digest_is_refused_before_anything_is_extracted(
    archive_factory: Any, tmp_path: Path
) -> None:
    home = KnowledgeHome(tmp_path)
    events: list[ProgressEvent] = []
    with pytest.raises(IntegrityFailure) as info:
        home.install(archive_factory(), "0" * 64, progress=events.append)
    assert info.value.reason == "digest-mismatch"
    assert "extract" not in _steps(events)
    assert home.installed() == []
    assert _leftovers(home) == []
    assert not (home.knowledge_dir / "tester").exists()


def test_no_space_stops_the_job_with_a_typed_error(archive_factory: Any, tmp_path: Path) -> None:
    home = KnowledgeHome(tmp_path, free_space=lambda _: 1024)
    with pytest.raises(InsufficientSpace) as info:
        home.install(archive_factory())
    assert info.value.reason == "insufficient-space"
    assert home.installed() == []
    assert _leftovers(home) == []


def test_space_is_checked_again_against_the_declared_extracted_size(
    archive_factory: Any, tmp_path: Path
) -> None:
    archive = archive_factory()
    size = archive.stat().st_size
    probes: list[int] = []

    def probe(_: Path) -> int:
        probes.append(1)
        # Enough for the first check (archive size), not for the extracted catalog.
        return 16 * 2**20 + size if len(probes) == 1 else 16 * 2**20 + 10

    home = KnowledgeHome(tmp_path, free_space=probe)
    with pytest.raises(InsufficientSpace):
        home.install(archive)
    assert len(probes) == 2
    assert _leftovers(home) == []


def test_a_newer_version_replaces_the_active_one_and_keeps_the_enabled_setting(
    archive_factory: Any, tmp_path: Path
) -> None:
    home = KnowledgeHome(tmp_path)
    old = home.install(archive_factory(version="1.0.0"))
    home.disable("demo")
    new = home.install(archive_factory(version="2.0.0", n_docs=9))
    assert new.status == "installed"
    assert new.previous is not None
    assert new.previous.version == "1.0.0"
    catalog = home.catalog("demo")
    assert catalog.active is not None
    assert catalog.active.version == "2.0.0"
    assert catalog.enabled is False
    assert [v.version for v in catalog.versions] == ["2.0.0"]
    assert not old.path.exists()
    assert new.path.exists()
    assert _leftovers(home) == []


def test_keep_previous_keeps_the_old_version_and_reinstall_reactivates_it(
    archive_factory: Any, tmp_path: Path
) -> None:
    home = KnowledgeHome(tmp_path)
    v1 = archive_factory(version="1.0.0")
    old = home.install(v1)
    home.install(archive_factory(version="2.0.0", n_docs=9), keep_previous=True)
    assert old.path.exists()
    back = home.install(v1)
    assert back.status == "activated"
    assert back.previous is not None
    assert back.previous.version == "2.0.0"
    assert home.catalog("demo").active == old.version


def test_a_subscriber_that_raises_does_not_cancel_the_job(
    archive_factory: Any, tmp_path: Path
) -> None:
    def gone(event: ProgressEvent) -> None:
        raise ConnectionResetError("the client disconnected")

    result = KnowledgeHome(tmp_path).install(archive_factory(), progress=gone)
    assert result.status == "installed"


@pytest.mark.parametrize("at", ["digest", "extract", "validate"])
def test_cancel_publishes_nothing(archive_factory: Any, tmp_path: Path, at: str) -> None:
    home = KnowledgeHome(tmp_path)
    cancel = CancelToken()

    def stop(event: ProgressEvent) -> None:
        if event.step == at:
            cancel.cancel()

    with pytest.raises(Cancelled):
        home.install(archive_factory(), progress=stop, cancel=cancel)
    assert home.installed() == []
    assert not (home.knowledge_dir / "tester").exists()
    assert _leftovers(home) == []


def test_a_corrupt_archive_is_refused(archive_factory: Any, tmp_path: Path) -> None:
    data = bytearray(archive_factory().read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad = tmp_path / "bad.gezk"
    bad.write_bytes(bytes(data))
    home = KnowledgeHome(tmp_path / "home")
    with pytest.raises(IntegrityFailure):
        home.install(bad)
    assert home.installed() == []
    assert _leftovers(home) == []


def test_a_missing_source_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFound) as info:
        KnowledgeHome(tmp_path).install(tmp_path / "nope.gezk")
    assert info.value.reason == "source-not-found"


def test_an_orphaned_directory_from_an_interrupted_run_is_replaced(
    archive_factory: Any, tmp_path: Path
) -> None:
    archive = archive_factory()
    home = KnowledgeHome(tmp_path)
    digest = _sha(archive)
    orphan = home.version_dir("tester", "demo", "1.0.0", digest)
    orphan.mkdir(parents=True)
    (orphan / "half-written").write_text("x")
    result = home.install(archive)
    assert result.status == "installed"
    assert not (result.path / "half-written").exists()
    assert (result.path / "manifest.json").is_file()


def test_signed_catalog_records_verified_provenance(archive_factory: Any, tmp_path: Path) -> None:
    key = generate_private_key()
    archive = archive_factory(catalog_id="signed", sign_with=key)
    anchors = TrustAnchors([key.public_key()])
    result = KnowledgeHome(tmp_path).install(archive, trust=anchors)
    assert result.version.provenance.startswith("verified:")
    unsigned = KnowledgeHome(tmp_path / "other")
    with pytest.raises(IntegrityFailure) as info:
        unsigned.install(archive_factory(catalog_id="plain"), trust=anchors, require_signature=True)
    assert info.value.reason == "unverified-provenance"


def test_require_signature_refuses_bytes_that_are_installed_already(
    archive_factory: Any, tmp_path: Path
) -> None:
    # Reinstalling the active bytes is a no-op, but never one that skips the signature demand:
    # an unsigned (or otherwise signed) copy must not pass because it is installed already.
    key, other = generate_private_key(), generate_private_key()
    plain = archive_factory(catalog_id="plain")
    signed = archive_factory(catalog_id="signed", sign_with=key)
    home = KnowledgeHome(tmp_path)
    home.install(plain)
    home.install(signed)
    anchors = TrustAnchors([key.public_key()])
    strangers = TrustAnchors([other.public_key()])
    attempts = [
        (plain, anchors, None),
        (plain, anchors, _sha(plain)),  # a promised digest takes the early path
        (signed, strangers, None),
        (signed, strangers, _sha(signed)),
    ]
    for archive, trust, digest in attempts:
        with pytest.raises(IntegrityFailure) as info:
            home.install(archive, digest, trust=trust, require_signature=True)
        assert info.value.reason == "unverified-provenance"
    assert home.install(signed, trust=anchors, require_signature=True).status == "unchanged"


# -- over http ---------------------------------------------------------------------------------


def test_install_from_a_url_resumes_after_a_dropped_connection(
    archive_factory: Any, http_file: Any, tmp_path: Path
) -> None:
    archive = archive_factory()
    server = http_file(archive.read_bytes(), drops=1)
    home = KnowledgeHome(tmp_path)
    result = home.install(server.url, _sha(archive))
    assert result.status == "installed"
    assert result.download is not None
    assert result.download.resumed_from > 0
    assert server.served.requests[1]["range"] is not None
    assert list((home.downloads_dir).glob("*.partial")) == []


def test_cancelled_download_leaves_the_partial_and_a_later_install_resumes(
    archive_factory: Any, http_file: Any, tmp_path: Path
) -> None:
    archive = archive_factory()
    payload = archive.read_bytes()
    server = http_file(payload)
    home = KnowledgeHome(tmp_path)
    cancel = CancelToken()

    def stop(event: ProgressEvent) -> None:
        if event.step == "download" and event.done >= len(payload) // 3:
            cancel.cancel()

    with pytest.raises(Cancelled):
        home.install(server.url, progress=stop, cancel=cancel)
    partials = list(home.downloads_dir.glob("*.partial"))
    assert len(partials) == 1
    kept = partials[0].stat().st_size
    assert 0 < kept < len(payload)
    assert home.installed() == []
    result = home.install(server.url)
    assert result.status == "installed"
    assert result.download is not None
    assert result.download.resumed_from == kept
    assert server.served.requests[-1]["range"] == f"bytes={kept}-"


def test_download_with_a_wrong_promise_discards_the_bytes(
    archive_factory: Any, http_file: Any, tmp_path: Path
) -> None:
    archive = archive_factory()
    server = http_file(archive.read_bytes())
    home = KnowledgeHome(tmp_path)
    with pytest.raises(IntegrityFailure) as info:
        home.install(server.url, "1" * 64)
    assert info.value.reason == "digest-mismatch"
    assert list(home.downloads_dir.glob("*")) == [] or all(
        p.suffix == ".lock" for p in home.downloads_dir.iterdir()
    )


def test_no_space_for_the_download_is_detected_from_the_response(
    archive_factory: Any, http_file: Any, tmp_path: Path
) -> None:
    archive = archive_factory()
    server = http_file(archive.read_bytes())
    home = KnowledgeHome(tmp_path, free_space=lambda _: 1000)
    with pytest.raises(InsufficientSpace):
        home.install(server.url)
    # Refused before any byte was written: an empty partial holds nothing to resume.
    assert list(home.downloads_dir.glob("*.partial")) == []
    assert list(home.downloads_dir.glob("*.meta.json")) == []


def test_a_registry_coordinate_resolves_to_url_and_promised_digest(
    archive_factory: Any, http_file: Any, tmp_path: Path
) -> None:
    archive = archive_factory()
    server = http_file(archive.read_bytes())
    registry = RegistryDocument.parse(
        {
            "kind": "gezk-registry",
            "formatVersion": "0.7",
            "publisher": {"id": "tester", "name": "Tester"},
            "generatedAt": "2026-01-01T00:00:00Z",
            "catalogs": [
                {
                    "catalogId": "demo",
                    "version": "1.0.0",
                    "name": "Demo",
                    "language": "en",
                    "documents": 8,
                    "archiveBytes": archive.stat().st_size,
                    "contentDigest": _sha(archive),
                    "url": server.url,
                    "license": {"name": "CC0", "attributionRequired": False},
                }
            ],
        }
    )
    home = KnowledgeHome(tmp_path)
    result = home.install("tester/demo", registries=[registry])
    assert result.status == "installed"
    assert result.version.source == "tester/demo@1.0.0"
    # Promised digest known up front: a second install does no network work at all.
    before = len(server.served.requests)
    assert home.install("tester/demo@1.0.0", registries=[registry]).status == "unchanged"
    assert len(server.served.requests) == before


def test_read_only_bits_survive_for_other_users(archive_factory: Any, tmp_path: Path) -> None:
    result = KnowledgeHome(tmp_path).install(archive_factory())
    for dirpath, _, files in os.walk(result.path):
        for name in files:
            assert oct(os.stat(os.path.join(dirpath, name)).st_mode & 0o777) == "0o444"


def test_different_bytes_under_one_version_label_get_their_own_directory(
    archive_factory: Any, tmp_path: Path
) -> None:
    home = KnowledgeHome(tmp_path)
    first = home.install(archive_factory(version="1.0.0", n_docs=8))
    second = home.install(archive_factory(version="1.0.0", n_docs=9))
    assert second.status == "installed"
    assert first.path.parent == second.path.parent  # .../demo/1.0.0/
    assert first.path.name != second.path.name  # different digest segments
    assert home.catalog("demo").active == second.version
    assert not first.path.exists()


def test_reinstalling_repairs_a_quarantined_copy(archive_factory: Any, tmp_path: Path) -> None:
    archive = archive_factory()
    home = KnowledgeHome(tmp_path)
    result = home.install(archive)
    router = result.path / "index" / "router.db"
    os.chmod(result.path / "index", 0o755)
    router.unlink()
    with pytest.raises(IntegrityFailure):
        home.mount("demo")
    assert home.catalog("demo").quarantine is not None
    repaired = home.install(archive)
    assert repaired.status == "installed"
    assert home.catalog("demo").usable
    with home.mount("demo") as catalog:
        assert catalog.search("lattice", mode="keyword").hits
    assert _leftovers(home) == []


def test_a_downloaded_archive_that_fails_its_checks_is_not_kept_for_resume(
    archive_factory: Any, http_file: Any, tmp_path: Path
) -> None:
    data = bytearray(archive_factory().read_bytes())
    data[len(data) // 2] ^= 0xFF
    server = http_file(bytes(data))
    home = KnowledgeHome(tmp_path)
    with pytest.raises(IntegrityFailure):
        home.install(server.url)
    assert list(home.downloads_dir.glob("*.partial")) == []
    assert home.installed() == []


def test_an_expected_digest_is_normalised_or_refused_as_invalid_digest() -> None:
    digest = hashlib.sha256(b"x").hexdigest()
    assert normalize_sha256(f"  SHA256:{digest.upper()} ") == digest
    assert normalize_sha256(None) is None
    for bad in ("xyz", digest[:63], digest + "00", "sha256:" + "g" * 64):
        with pytest.raises(InvalidInput) as err:
            normalize_sha256(bad)
        assert (err.value.reason, err.value.subject) == ("invalid-digest", bad)
