"""Resumable HTTP(S) download of an archive into a ``.partial`` file (standard library only).

A download writes to ``<name>.partial`` next to a small ``<name>.meta.json`` sidecar that
records the URL, the server's validators (strong ``ETag`` or ``Last-Modified``) and the total
size. A later call with a partial present asks for the rest with ``Range: bytes=N-`` and
``If-Range``, and trusts the answer only when the server demonstrably honoured it: status 206
with a ``Content-Range`` that starts exactly at ``N`` (and, when known, reports the same total).
A 200 means the server ignored the range or the resource changed; anything else that does not
fit means we cannot prove the bytes line up. In both cases the partial is discarded and the
download restarts from zero, because appending a whole body to a prefix would corrupt the file
(the later digest check would catch it, but only after another full download).

A connection that drops mid-body leaves the bytes received so far; the next attempt resumes.
Consecutive attempts that make no progress are bounded, and so is the whole transfer, whatever
a server claims: at most ``max_requests`` requests and three times the file's size received in
all (``download-abandoned``). The file itself may not grow beyond its expected size or, when
that is unknown, ``max_bytes`` (default :data:`DEFAULT_MAX_DOWNLOAD_BYTES`), with or without a
``Content-Length`` (``download-too-large``). ``on_written`` is told the partial's size every few
MiB as bytes arrive (a free-space check). Cancellation is checked between blocks and leaves the
partial for a later resume.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gezel_knowledge._faults import naming
from gezel_knowledge._locking import FileLock, LockTimeout
from gezel_knowledge._version import __version__
from gezel_knowledge.archive.limits import DEFAULT_LIMITS
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.install.cancel import CancelToken
from gezel_knowledge.install.errors import DownloadFailed
from gezel_knowledge.progress import ProgressEvent, ProgressSink, emit_safely
from gezk import untrusted_json

__all__ = [
    "DEFAULT_MAX_DOWNLOAD_BYTES",
    "DownloadResult",
    "download",
    "is_url",
    "sidecar_path",
    "sweep_partials",
]

DEFAULT_MAX_DOWNLOAD_BYTES = DEFAULT_LIMITS.max_total_bytes + 64 * 1024 * 1024
"""The largest archive fetched when nothing declares its size: the reference limit on a
catalog's uncompressed entries (32 GiB; entries are stored) plus room for the ZIP structures."""

_RECEIVE_FACTOR = 3
"""Bytes received over all attempts may reach this many times the file's size (restarts)."""
_WRITTEN_EVERY = 4 * 1024 * 1024

_RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
_CONTENT_RANGE = re.compile(r"^\s*bytes\s+(\d+)-(\d+)/(\d+|\*)\s*$", re.IGNORECASE)
_UNSATISFIED_RANGE = re.compile(r"^\s*bytes\s+\*/(\d+)\s*$", re.IGNORECASE)


def is_url(source: str) -> bool:
    """Whether ``source`` is an ``http`` or ``https`` URL."""
    return urllib.parse.urlsplit(source).scheme.lower() in ("http", "https")


def sidecar_path(partial: Path) -> Path:
    """The metadata sidecar kept next to a partial download."""
    return partial.with_name(partial.name.removesuffix(".partial") + ".meta.json")


@dataclass(frozen=True, slots=True)
class DownloadResult:
    """The finished download and how it got there."""

    path: Path
    size: int
    resumed_from: int
    """Bytes that were already on disk when the successful transfer began (0: from scratch)."""
    restarted: bool
    """A partial was discarded because the server ignored or mishandled the range request."""
    requests: int


@dataclass(slots=True)
class _Sidecar:
    url: str
    etag: str | None = None
    last_modified: str | None = None
    total: int | None = None

    @classmethod
    def load(cls, path: Path, url: str) -> _Sidecar | None:
        try:
            obj = untrusted_json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(obj, dict) or obj.get("url") != url:
            return None
        total = obj.get("total")
        return cls(
            url=url,
            etag=obj.get("etag") if isinstance(obj.get("etag"), str) else None,
            last_modified=obj.get("lastModified")
            if isinstance(obj.get("lastModified"), str)
            else None,
            total=total if isinstance(total, int) and total >= 0 else None,
        )

    def save(self, path: Path) -> None:
        obj = {
            "url": self.url,
            "etag": self.etag,
            "lastModified": self.last_modified,
            "total": self.total,
        }
        path.write_text(json.dumps(obj), encoding="utf-8")

    def validator(self) -> str | None:
        # If-Range needs a strong validator; a weak ETag would make the server send 200.
        if self.etag and not self.etag.startswith("W/"):
            return self.etag
        return self.last_modified


class _Retry(Exception):
    """An attempt failed in a way a new request may fix."""


def sweep_partials(folder: Path) -> list[str]:
    """Remove what cannot be resumed: empty partials, partials without their sidecar and
    sidecars without their partial; return the names removed.

    Each key is examined under its download lock (``<key>.lock``, held by an install while it
    downloads), taken without waiting: a download in progress is left alone. Lock files stay.
    """
    removed: list[str] = []
    if not folder.is_dir():
        return removed
    keys = sorted(
        {p.name.removesuffix(".partial") for p in folder.glob("*.partial")}
        | {p.name.removesuffix(".meta.json") for p in folder.glob("*.meta.json")}
    )
    for key in keys:
        partial = folder / f"{key}.partial"
        sidecar = sidecar_path(partial)
        try:
            with FileLock(folder / f"{key}.lock", timeout=0.0):
                if partial.exists() and sidecar.exists() and partial.stat().st_size > 0:
                    continue  # resumable
                for path in (partial, sidecar):
                    if path.exists():
                        path.unlink()
                        removed.append(path.name)
        except (LockTimeout, OSError):
            continue
    return removed


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _truncate(path: Path) -> None:
    with path.open("wb"):
        pass


def download(
    url: str,
    partial: Path,
    *,
    expected_size: int | None = None,
    cancel: CancelToken | None = None,
    progress: ProgressSink | None = None,
    before_write: Callable[[int | None], None] | None = None,
    opener: urllib.request.OpenerDirector | None = None,
    timeout: float = 30.0,
    attempts: int = 4,
    backoff: float = 0.25,
    sleep: Callable[[float], None] = time.sleep,
    block_size: int = 1 << 16,
    job: str = "install",
    max_bytes: int | None = None,
    max_requests: int = 16,
    on_written: Callable[[int], None] | None = None,
) -> DownloadResult:
    """Download ``url`` into ``partial``, resuming what is there; return when it is complete.

    ``before_write(remaining)`` is called once the server has said how many bytes are coming
    (``None`` when it did not), before anything is written; it may raise to stop (a space check).
    ``on_written(size)`` is called with the partial's size every few MiB as bytes arrive; it may
    raise to stop too. The file may not exceed ``expected_size`` or else ``max_bytes``.
    """
    if not is_url(url):
        raise InvalidInput(f"not an http(s) URL: {url}", reason="invalid-url", subject=url)
    partial.parent.mkdir(parents=True, exist_ok=True)
    meta_path = sidecar_path(partial)
    sidecar = _Sidecar.load(meta_path, url)
    if sidecar is None:
        # No record of what these bytes are: they cannot be resumed safely.
        _truncate(partial)
        sidecar = _Sidecar(url=url)
    limit = expected_size if expected_size is not None else max_bytes
    if limit is None:
        limit = DEFAULT_MAX_DOWNLOAD_BYTES
    transfer = _Transfer(
        url,
        partial,
        sidecar,
        meta_path,
        expected_size,
        opener or urllib.request.build_opener(),
        timeout,
        cancel,
        progress,
        before_write,
        block_size,
        job,
        limit,
        on_written,
        _Received(max(limit, block_size), expected_size is not None),
    )
    requests = 0
    restarted = False
    failures = 0
    last_error = "no attempt made"
    while True:
        if cancel is not None:
            cancel.check("download")
        if requests >= max_requests:
            raise DownloadFailed(
                f"download of {url} abandoned after {requests} requests: {last_error}",
                reason="download-abandoned",
                subject=url,
            )
        offset = _size(partial)
        total = expected_size if expected_size is not None else sidecar.total
        if total is not None and offset > total:
            _truncate(partial)
            offset = 0
        if total is not None and offset == total and offset > 0:
            return DownloadResult(partial, offset, offset, restarted, requests)
        written_before = offset
        try:
            requests += 1
            restart = _attempt(transfer, offset)
        except _Retry as exc:
            last_error = str(exc)
            made_progress = _size(partial) > written_before
            failures = 0 if made_progress else failures + 1
            if failures >= attempts:
                raise DownloadFailed(
                    f"download of {url} failed after {attempts} attempts without progress: "
                    f"{last_error}; run the install again to resume",
                    subject=url,
                ) from None
            if not made_progress:
                sleep(backoff * failures)
            continue
        restarted = restarted or restart
        return DownloadResult(
            partial, _size(partial), 0 if restart else offset, restarted, requests
        )


@dataclass(slots=True)
class _Received:
    """Bytes received over every attempt of one download, against a multiple of the file's
    size: the size expected, else the first a server announced, else the cap."""

    size: int
    known: bool
    total: int = 0

    def learn(self, size: int) -> None:
        """A server announced the file's size (only the first announcement counts)."""
        if not self.known:
            self.size, self.known = min(self.size, size), True

    @property
    def bound(self) -> int:
        return _RECEIVE_FACTOR * self.size


@dataclass(frozen=True, slots=True)
class _Transfer:
    """What every attempt of one download shares."""

    url: str
    partial: Path
    sidecar: _Sidecar
    meta_path: Path
    expected_size: int | None
    opener: urllib.request.OpenerDirector
    timeout: float
    cancel: CancelToken | None
    progress: ProgressSink | None
    before_write: Callable[[int | None], None] | None
    block_size: int
    job: str
    limit: int
    """The largest the file may be."""
    on_written: Callable[[int], None] | None
    received: _Received

    def emit(self, done: int, total: int | None) -> None:
        emit_safely(self.progress, ProgressEvent(self.job, "download", done, total, "bytes"))


def _attempt(t: _Transfer, offset: int) -> bool:
    """One request that completes the file; returns whether it restarted from zero.

    Raises :class:`_Retry` when another request may succeed.
    """
    try:
        response = t.opener.open(_request(t, offset), timeout=t.timeout)
    except urllib.error.HTTPError as exc:
        with contextlib.closing(exc):
            return _http_error(exc, t.partial, offset)
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        raise _Retry(f"{type(exc).__name__}: {exc}") from None
    with response:
        start, total, mode = _accepted_range(t, response, offset)
        if t.expected_size is not None and total is not None and total != t.expected_size:
            raise DownloadFailed(
                f"{t.url} is {total} bytes but {t.expected_size} were promised",
                reason="size-mismatch",
                subject=t.url,
            )
        if total is not None and total > t.limit:
            raise DownloadFailed(
                f"{t.url} is {total} bytes, more than the {t.limit} allowed",
                reason="download-too-large",
                subject=t.url,
            )
        if total is not None:
            t.received.learn(max(total, t.block_size))
        _remember_validators(t, response, mode, total)
        if t.before_write is not None:
            t.before_write(None if total is None else total - start)
        done = _stream(t, response, start, total, mode)
        if total is not None and done < total:
            raise _Retry(f"connection closed after {done} of {total} bytes")
        if total is None:
            t.sidecar.total = done
            t.sidecar.save(t.meta_path)
        # A 200 to a range request sends the whole file again: the partial starts over.
        return mode == "wb" and offset > 0


def _request(t: _Transfer, offset: int) -> urllib.request.Request:
    headers = {"Accept-Encoding": "identity", "User-Agent": f"gezel-knowledge/{__version__}"}
    if offset > 0:
        headers["Range"] = f"bytes={offset}-"
        validator = t.sidecar.validator()
        if validator:
            headers["If-Range"] = validator
    return urllib.request.Request(t.url, headers=headers)


def _accepted_range(
    t: _Transfer, response: http.client.HTTPResponse, offset: int
) -> tuple[int, int | None, str]:
    """Where the response's bytes start, the file's total size if known, and the file mode."""
    status = int(response.status)
    if status == 206:
        return offset, _partial_content_total(t, response, offset), "ab"
    if status == 200:
        length = response.headers.get("Content-Length")
        return 0, int(length) if length and length.isdigit() else None, "wb"
    raise DownloadFailed(
        f"server answered {status} for {t.url}", reason="download-status", subject=t.url
    )


def _partial_content_total(t: _Transfer, response: http.client.HTTPResponse, offset: int) -> int:
    """The total a 206 reports; a range that does not continue our bytes restarts the file."""
    span = _CONTENT_RANGE.match(response.headers.get("Content-Range", ""))
    reported_total = None if span is None or span.group(3) == "*" else int(span.group(3))
    honoured = (
        offset > 0
        and span is not None
        and int(span.group(1)) == offset
        and int(span.group(2)) >= offset
        and (t.expected_size is None or reported_total in (None, t.expected_size))
        and (t.sidecar.total is None or reported_total in (None, t.sidecar.total))
    )
    if not honoured:
        # A range we did not ask for, or one that does not start where our bytes end.
        _truncate(t.partial)
        t.sidecar.total = None
        t.sidecar.save(t.meta_path)
        raise _Retry(
            "server answered 206 with Content-Range "
            f"{response.headers.get('Content-Range')!r} for a request from byte {offset}"
        )
    assert span is not None
    return reported_total if reported_total is not None else int(span.group(2)) + 1


def _remember_validators(
    t: _Transfer, response: http.client.HTTPResponse, mode: str, total: int | None
) -> None:
    """Record what a later resume must match (ETag or Last-Modified) and the total size."""
    etag = response.headers.get("ETag")
    last_modified = response.headers.get("Last-Modified")
    if mode == "wb" or (etag or last_modified):
        t.sidecar.etag = etag
        t.sidecar.last_modified = last_modified
    t.sidecar.total = total
    t.sidecar.save(t.meta_path)


def _stream(
    t: _Transfer, response: http.client.HTTPResponse, done: int, total: int | None, mode: str
) -> int:
    """Append (``ab``) or write (``wb``) the body to the partial file; return its new size."""
    t.emit(done, total)
    reported = done
    with naming(t.partial), t.partial.open(mode) as out:
        try:
            while True:
                if t.cancel is not None and t.cancel.cancelled:
                    out.flush()
                    t.cancel.check("download")
                block = response.read(t.block_size)
                if not block:
                    break
                _check_bounds(t, done + len(block), len(block))
                out.write(block)
                done += len(block)
                t.emit(done, total)
                if t.on_written is not None and done - reported >= _WRITTEN_EVERY:
                    out.flush()
                    reported = done
                    t.on_written(done)
        except (OSError, http.client.HTTPException) as exc:
            out.flush()
            raise _Retry(f"connection lost after {done} bytes: {exc}") from None
    return done


def _check_bounds(t: _Transfer, size: int, block: int) -> None:
    """The file stays within its size limit and the transfer within its byte budget."""
    if size > t.limit:
        raise DownloadFailed(
            f"{t.url} sends more than the {t.limit} bytes allowed",
            reason="download-too-large",
            subject=t.url,
        )
    t.received.total += block
    if t.received.total > t.received.bound:
        raise DownloadFailed(
            f"download of {t.url} abandoned after receiving {t.received.total} bytes for a file "
            f"of at most {t.limit}",
            reason="download-abandoned",
            subject=t.url,
        )


def _http_error(exc: urllib.error.HTTPError, partial: Path, offset: int) -> bool:
    code = int(exc.code)
    if code == 416 and offset > 0:
        unsatisfied = _UNSATISFIED_RANGE.match(exc.headers.get("Content-Range", "") or "")
        if unsatisfied is not None and int(unsatisfied.group(1)) == offset:
            return False  # we already hold every byte
        _truncate(partial)
        raise _Retry(f"server refused the range from byte {offset} (416)")
    if code in _RETRYABLE_STATUS:
        raise _Retry(f"server answered {code}")
    raise DownloadFailed(
        f"server answered {code} {exc.reason} for {exc.url}",
        reason="download-status",
        subject=str(exc.url),
    )
