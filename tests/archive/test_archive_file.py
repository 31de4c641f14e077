"""One open archive: hashed once and scanned once, whatever the caller asks of it (section 3.3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.archive import ArchiveFile, file_sha256
from gezel_knowledge.archive import verify as archive_verify
from gezel_knowledge.errors import IntegrityFailure
from gezel_knowledge.validate import validate_archive
from tests.archive.archive_builders import ArchiveSpec

Build = Callable[[ArchiveSpec], Path]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often the archive is hashed and its structure scanned."""
    calls = {"hash": 0, "scan": 0}
    real_hash = archive_verify._stream_sha256
    real_scan = archive_verify._scan_structure

    def hashing(*args: Any) -> str:
        calls["hash"] += 1
        return real_hash(*args)

    def scanning(*args: Any) -> archive_verify.ArchiveInfo:
        calls["scan"] += 1
        return real_scan(*args)

    monkeypatch.setattr(archive_verify, "_stream_sha256", hashing)
    monkeypatch.setattr(archive_verify, "_scan_structure", scanning)
    return calls


def test_digest_checks_and_extraction_read_the_file_once(
    spec: ArchiveSpec, build: Build, tmp_path: Path
) -> None:
    path = build(spec)
    digest = file_sha256(path)
    with ArchiveFile(path) as archive:
        assert archive.sha256 == digest
        info, findings = archive.scan(digest)
        assert findings == []
        assert archive.inspect() == info
        extracted = archive.extract(tmp_path / "out", digest.upper())
    assert extracted == info
    assert (tmp_path / "out" / "README.md").is_file()


def test_one_open_archive_is_hashed_and_scanned_once(
    spec: ArchiveSpec, build: Build, tmp_path: Path, counted: dict[str, int]
) -> None:
    path = build(spec)
    with ArchiveFile(path) as archive:
        archive.scan()
        archive.inspect()
        archive.extract(tmp_path / "out")
    assert counted == {"hash": 1, "scan": 1}


def test_a_wrong_promised_digest_is_refused_before_anything_is_extracted(
    spec: ArchiveSpec, build: Build, tmp_path: Path
) -> None:
    path = build(spec)
    with ArchiveFile(path) as archive:
        info, findings = archive.scan("0" * 64)
        assert info is None
        assert [f.reason for f in findings] == ["archive-digest-mismatch"]
        with pytest.raises(IntegrityFailure) as caught:
            archive.extract(tmp_path / "out", "0" * 64)
    assert caught.value.reason == "archive-digest-mismatch"
    assert list(tmp_path.iterdir()) == [path]


def test_validating_an_archive_hashes_and_scans_it_once(
    spec: ArchiveSpec, build: Build, counted: dict[str, int]
) -> None:
    # The placeholder databases fail validation after extraction; that is not the point here.
    report = validate_archive(build(spec))
    assert "archive" in report.checks
    assert "files" in report.checks
    assert counted == {"hash": 1, "scan": 1}
