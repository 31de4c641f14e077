"""Lying servers on 127.0.0.1: downloads are bounded in requests, bytes and disk, and a refused
download leaves nothing behind (issue 17 items 4 and 5)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.install import InsufficientSpace, KnowledgeHome
from gezel_knowledge.install.download import download, sidecar_path
from gezel_knowledge.install.errors import DownloadFailed
from gezel_knowledge.install.space import SAFETY_MARGIN
from tests.install.publisher import Publisher

PAYLOAD = os.urandom(200_000)
MIB = 1024 * 1024


def _no_sleep(_: float) -> None:
    return None


def _downloads(home: KnowledgeHome) -> list[str]:
    folder = home.downloads_dir
    return (
        sorted(p.name for p in folder.iterdir() if p.suffix != ".lock") if folder.exists() else []
    )


def test_short_bodies_and_bogus_206_resumes_end_after_bounded_requests(
    http_file: Any, tmp_path: Path
) -> None:
    # Every response promises the whole file and sends half of it; every resume is answered
    # with a 206 from byte 0. Before: the installer alternated forever (3,451 requests in 8
    # minutes); here the server gives up with 410 after 200, which is not a bound.
    server = http_file(PAYLOAD, mode="wrong-range", drops=10**9, max_requests=200)
    with pytest.raises(DownloadFailed) as err:
        download(server.url, tmp_path / "x.partial", sleep=_no_sleep)
    assert err.value.reason == "download-abandoned"
    assert len(server.served.requests) <= 16


def test_bytes_received_over_all_attempts_are_bounded(http_file: Any, tmp_path: Path) -> None:
    # The same liar with no request bound to speak of: every other request delivers half the
    # file again, so only the byte budget (three times the file's size) stops the restarts.
    server = http_file(PAYLOAD, mode="wrong-range", drops=10**9, max_requests=200)
    with pytest.raises(DownloadFailed) as err:
        download(server.url, tmp_path / "x.partial", sleep=_no_sleep, max_requests=1000)
    assert err.value.reason == "download-abandoned"
    assert "receiving" in str(err.value)
    assert len(server.served.requests) == 13  # 7 half bodies, 6 bogus 206 answers


def test_a_body_without_content_length_is_capped(http_file: Any, tmp_path: Path) -> None:
    server = http_file(PAYLOAD, no_length=8 * MIB)
    partial = tmp_path / "x.partial"
    with pytest.raises(DownloadFailed) as err:
        download(server.url, partial, max_bytes=MIB, sleep=_no_sleep)
    assert err.value.reason == "download-too-large"
    assert partial.stat().st_size <= MIB


def test_a_content_length_beyond_the_cap_is_refused_before_reading(
    http_file: Any, tmp_path: Path
) -> None:
    server = http_file(PAYLOAD)
    partial = tmp_path / "x.partial"
    with pytest.raises(DownloadFailed) as err:
        download(server.url, partial, max_bytes=1000, sleep=_no_sleep)
    assert err.value.reason == "download-too-large"
    assert partial.stat().st_size == 0


def test_without_content_length_the_declared_size_caps_the_install(
    publisher: Publisher, http_file: Any, tmp_path: Path
) -> None:
    # Before: a response without Content-Length streamed without limit (1.5 GB was written
    # before the archive was refused).
    declared = publisher.rows[0]["archiveBytes"]
    liar = http_file(publisher.site.files["demo-1.0.0.gezk"], no_length=declared + 4 * MIB)
    publisher.rows[0]["url"] = liar.url
    home = KnowledgeHome(tmp_path / "home")
    with pytest.raises(DownloadFailed) as err:
        home.install("tester/demo", registries=[publisher.document()], trust=publisher.anchors)
    assert err.value.reason == "download-too-large"
    assert _downloads(home) == []


def test_free_space_is_checked_as_bytes_arrive(http_file: Any, tmp_path: Path) -> None:
    # No Content-Length, so nothing is known before the first byte; the disk "fills" as the
    # partial grows, and the download stops well before it is full.
    server = http_file(PAYLOAD, no_length=64 * MIB)
    free = SAFETY_MARGIN + 6 * MIB

    def probe(_: Path) -> int:
        return free - sum(p.stat().st_size for p in (tmp_path / "home").rglob("*.partial"))

    home = KnowledgeHome(tmp_path / "home", free_space=probe)
    with pytest.raises(InsufficientSpace):
        home.install(server.url)
    written = sum(p.stat().st_size for p in home.downloads_dir.glob("*.partial"))
    assert written <= 5 * MIB
    assert len(server.served.requests) == 1


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        pytest.param({"fail_status": [404]}, "download-status", id="not-found"),
        pytest.param({"no_length": 9 * MIB}, "download-too-large", id="too-large"),
    ],
)
def test_a_refused_download_leaves_no_partial_behind(
    http_file: Any, tmp_path: Path, options: dict[str, Any], reason: str
) -> None:
    # Before: a 0-byte .partial and its .meta.json stayed in knowledge/.downloads.
    server = http_file(PAYLOAD, **options)
    home = KnowledgeHome(tmp_path / "home")
    with pytest.raises(DownloadFailed) as err:
        home.install(server.url, max_download_bytes=8 * MIB)
    assert err.value.reason == reason
    assert _downloads(home) == []
    assert not any(sidecar_path(p).exists() for p in home.downloads_dir.glob("*.partial"))
