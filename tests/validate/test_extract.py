"""extract_verified: the one path from a .gezk to a verified, extracted catalog directory."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gezel_knowledge.archive import ArchiveFile, file_sha256
from gezel_knowledge.errors import Cancelled, IntegrityFailure
from gezel_knowledge.validate import extract_verified
from tests.reader.catalog_builder import mutate_db, pack, reseal
from tests.reader.conftest import shared_toc_build


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_toc_build().write(tmp_path_factory.mktemp("good") / "catalog")


def test_a_valid_archive_is_published_with_its_report(catalog: Path, tmp_path: Path) -> None:
    archive = pack(catalog, tmp_path / "good.gezk")
    dest = tmp_path / "out" / "catalog"
    steps: list[str] = []
    with ArchiveFile(archive) as opened:
        report = extract_verified(
            opened, dest, deep=True, on_extracted=lambda: steps.append("extracted")
        )
    assert steps == ["extracted"]
    assert report.ok
    assert report.deep
    assert "deep" in report.checks
    assert report.path == dest
    assert report.archive_sha256 == file_sha256(archive)
    assert (dest / "manifest.json").is_file()
    assert report.provenance.status == "unsigned"


def test_a_catalog_that_fails_validation_leaves_nothing_behind(
    catalog: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken" / "catalog"
    shutil.copytree(catalog, broken)
    mutate_db(
        broken / "index" / "router.db", "UPDATE topics SET document_count = 99 WHERE id = 'wood'"
    )
    reseal(broken)
    archive = pack(broken, tmp_path / "broken.gezk")
    out = tmp_path / "out"
    with ArchiveFile(archive) as opened, pytest.raises(IntegrityFailure) as info:
        extract_verified(opened, out / "catalog", label="acme/broken")
    assert info.value.reason == "topic-count-mismatch"
    assert str(info.value).startswith("acme/broken failed validation: topic-count-mismatch")
    assert list(out.iterdir()) == []


def test_what_on_extracted_raises_aborts_before_validation(catalog: Path, tmp_path: Path) -> None:
    archive = pack(catalog, tmp_path / "good.gezk")
    out = tmp_path / "out"

    def cancel() -> None:
        raise Cancelled("stopped", reason="cancelled")

    with ArchiveFile(archive) as opened, pytest.raises(Cancelled):
        extract_verified(opened, out / "catalog", on_extracted=cancel)
    assert list(out.iterdir()) == []
