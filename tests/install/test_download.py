"""Resumable downloads against a local server that drops, ignores or mangles ranges."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.errors import Cancelled, InvalidInput
from gezel_knowledge.install.cancel import CancelToken
from gezel_knowledge.install.download import download, sidecar_path
from gezel_knowledge.install.errors import DownloadFailed, InsufficientSpace
from gezel_knowledge.progress import ProgressEvent

PAYLOAD = os.urandom(300_000)


def _no_sleep(_: float) -> None:
    return None


def test_fresh_download_writes_every_byte(http_file: Any, tmp_path: Path) -> None:
    server = http_file(PAYLOAD)
    partial = tmp_path / "x.partial"
    result = download(server.url, partial, sleep=_no_sleep)
    assert partial.read_bytes() == PAYLOAD
    assert (result.size, result.resumed_from, result.restarted, result.requests) == (
        len(PAYLOAD),
        0,
        False,
        1,
    )
    assert server.served.requests[0]["range"] is None
    meta = json.loads(sidecar_path(partial).read_text())
    assert meta["total"] == len(PAYLOAD)
    assert meta["etag"] == '"v1"'


def test_connection_dropped_mid_body_resumes_with_range(http_file: Any, tmp_path: Path) -> None:
    server = http_file(PAYLOAD, drops=1)
    partial = tmp_path / "x.partial"
    result = download(server.url, partial, sleep=_no_sleep)
    assert partial.read_bytes() == PAYLOAD
    half = len(PAYLOAD) // 2
    assert [r["range"] for r in server.served.requests] == [None, f"bytes={half}-"]
    assert server.served.requests[1]["if-range"] == '"v1"'
    assert result.resumed_from == half
    assert result.requests == 2
    assert not result.restarted


def test_server_ignoring_range_restarts_from_zero_without_corruption(
    http_file: Any, tmp_path: Path
) -> None:
    server = http_file(PAYLOAD, mode="ignore-range", drops=1)
    partial = tmp_path / "x.partial"
    result = download(server.url, partial, sleep=_no_sleep)
    # The second request asked for the rest, got the whole body with 200, and started over.
    assert server.served.requests[1]["range"] == f"bytes={len(PAYLOAD) // 2}-"
    assert partial.read_bytes() == PAYLOAD
    assert result.restarted
    assert result.resumed_from == 0


def test_206_with_a_range_that_does_not_start_at_our_offset_is_not_appended(
    http_file: Any, tmp_path: Path
) -> None:
    server = http_file(PAYLOAD, mode="wrong-range", drops=1)
    partial = tmp_path / "x.partial"
    download(server.url, partial, sleep=_no_sleep)
    assert partial.read_bytes() == PAYLOAD
    ranges = [r["range"] for r in server.served.requests]
    # drop, mangled 206 discarded, then a plain request from zero.
    assert ranges == [None, f"bytes={len(PAYLOAD) // 2}-", None]


def test_cancel_keeps_the_partial_and_a_later_call_resumes(http_file: Any, tmp_path: Path) -> None:
    cancel = CancelToken()

    def cancel_midway(event: ProgressEvent) -> None:
        if event.done >= 100_000:
            cancel.cancel()

    server = http_file(PAYLOAD)
    partial = tmp_path / "x.partial"
    with pytest.raises(Cancelled) as info:
        download(server.url, partial, cancel=cancel, progress=cancel_midway, block_size=4096)
    assert info.value.reason == "cancelled"
    kept = partial.stat().st_size
    assert 100_000 <= kept < 110_000
    assert PAYLOAD.startswith(partial.read_bytes())
    result = download(server.url, partial, sleep=_no_sleep)
    assert partial.read_bytes() == PAYLOAD
    assert result.resumed_from == kept
    assert server.served.requests[-1]["range"] == f"bytes={kept}-"


def test_changed_resource_behind_if_range_restarts(http_file: Any, tmp_path: Path) -> None:
    server = http_file(PAYLOAD)
    partial = tmp_path / "x.partial"
    cancel = CancelToken()

    def stop_midway(event: ProgressEvent) -> None:
        if event.done >= len(PAYLOAD) // 2:
            cancel.cancel()

    with pytest.raises(Cancelled):
        download(server.url, partial, cancel=cancel, progress=stop_midway)
    assert 0 < partial.stat().st_size < len(PAYLOAD)
    new_payload = os.urandom(250_000)
    server.served.payload = new_payload
    server.served.etag = '"v2"'
    result = download(server.url, partial, sleep=_no_sleep)
    assert partial.read_bytes() == new_payload
    assert result.restarted
    assert server.served.requests[-1]["if-range"] == '"v1"'


def test_complete_partial_needs_no_request(http_file: Any, tmp_path: Path) -> None:
    server = http_file(PAYLOAD)
    partial = tmp_path / "x.partial"
    download(server.url, partial, sleep=_no_sleep)
    result = download(server.url, partial, sleep=_no_sleep)
    assert result.requests == 0
    assert len(server.served.requests) == 1


def test_range_beyond_the_end_answered_416_counts_as_complete(
    http_file: Any, tmp_path: Path
) -> None:
    server = http_file(PAYLOAD)
    partial = tmp_path / "x.partial"
    download(server.url, partial, sleep=_no_sleep)
    meta = json.loads(sidecar_path(partial).read_text())
    meta["total"] = None  # pretend we never learned the size
    sidecar_path(partial).write_text(json.dumps(meta))
    result = download(server.url, partial, sleep=_no_sleep)
    assert server.served.requests[-1]["range"] == f"bytes={len(PAYLOAD)}-"
    assert partial.read_bytes() == PAYLOAD
    assert result.resumed_from == len(PAYLOAD)


def test_partial_without_sidecar_is_not_trusted(http_file: Any, tmp_path: Path) -> None:
    server = http_file(PAYLOAD)
    partial = tmp_path / "x.partial"
    partial.write_bytes(b"garbage that is not a prefix")
    download(server.url, partial, sleep=_no_sleep)
    assert partial.read_bytes() == PAYLOAD
    assert server.served.requests[0]["range"] is None


def test_transient_statuses_are_retried(http_file: Any, tmp_path: Path) -> None:
    server = http_file(PAYLOAD, fail_status=[503, 500])
    partial = tmp_path / "x.partial"
    result = download(server.url, partial, sleep=_no_sleep)
    assert partial.read_bytes() == PAYLOAD
    assert result.requests == 3


def test_attempts_without_progress_give_up_with_a_typed_error(
    http_file: Any, tmp_path: Path
) -> None:
    server = http_file(PAYLOAD, fail_status=[503] * 10)
    with pytest.raises(DownloadFailed) as info:
        download(server.url, tmp_path / "x.partial", attempts=3, sleep=_no_sleep)
    assert info.value.reason == "download-failed"
    assert len(server.served.requests) == 3


def test_not_found_is_not_retried(http_file: Any, tmp_path: Path) -> None:
    server = http_file(PAYLOAD, fail_status=[404])
    with pytest.raises(DownloadFailed) as info:
        download(server.url, tmp_path / "x.partial", sleep=_no_sleep)
    assert info.value.reason == "download-status"
    assert len(server.served.requests) == 1


def test_size_other_than_promised_is_refused(http_file: Any, tmp_path: Path) -> None:
    server = http_file(PAYLOAD)
    with pytest.raises(DownloadFailed) as info:
        download(server.url, tmp_path / "x.partial", expected_size=len(PAYLOAD) + 1)
    assert info.value.reason == "size-mismatch"


def test_space_check_runs_before_any_byte_is_written(http_file: Any, tmp_path: Path) -> None:
    server = http_file(PAYLOAD)
    seen: list[int | None] = []

    def no_space(remaining: int | None) -> None:
        seen.append(remaining)
        raise InsufficientSpace("disk full")

    partial = tmp_path / "x.partial"
    with pytest.raises(InsufficientSpace):
        download(server.url, partial, before_write=no_space)
    assert seen == [len(PAYLOAD)]
    assert partial.stat().st_size == 0


def test_a_subscriber_that_raises_does_not_stop_the_download(
    http_file: Any, tmp_path: Path
) -> None:
    server = http_file(PAYLOAD)
    calls: list[int] = []

    def broken(event: ProgressEvent) -> None:
        calls.append(event.done)
        raise BrokenPipeError("subscriber went away")

    partial = tmp_path / "x.partial"
    download(server.url, partial, progress=broken)
    assert partial.read_bytes() == PAYLOAD
    assert calls[-1] == len(PAYLOAD)


def test_only_http_urls_are_downloaded(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as info:
        download("file:///etc/passwd", tmp_path / "x.partial")
    assert info.value.reason == "invalid-url"
