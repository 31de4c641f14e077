"""Fixtures for the install tests: a local HTTP server with controllable misbehaviour."""

from __future__ import annotations

import contextlib
import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.install.publisher import Publisher
from tests.reader.catalog_builder import CatalogBuild, pack, sample_docs


@dataclass
class ServedFile:
    """What the server sends and how it misbehaves."""

    payload: bytes
    mode: str = "range"
    """``range`` (honours Range), ``ignore-range`` (always 200), ``wrong-range`` (206 from 0)."""
    etag: str = '"v1"'
    drops: int = 0
    """How many upcoming responses close the connection after half their body."""
    fail_status: list[int] = field(default_factory=list)
    """Statuses to answer (once each, in order) before serving normally."""
    requests: list[dict[str, str | None]] = field(default_factory=list)
    on_body: Any = None
    """Called with the number of body bytes sent so far (lets a test cancel mid-transfer)."""
    max_requests: int | None = None
    """After this many requests, answer 410 (so a client that never gives up still ends)."""
    no_length: int | None = None
    """Send no Content-Length: stream this many bytes of the payload repeated, then close."""


_RANGE = re.compile(r"^bytes=(\d+)-$")


class _FileHandler(BaseHTTPRequestHandler):
    """Serves one ``ServedFile``; a subclass per server names which."""

    served: ServedFile

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def do_GET(self) -> None:
        self.served.requests.append(
            {
                "path": self.path,
                "range": self.headers.get("Range"),
                "if-range": self.headers.get("If-Range"),
            }
        )
        if (
            self.served.max_requests is not None
            and len(self.served.requests) > self.served.max_requests
        ):
            self.served.fail_status.append(410)
        if self.served.no_length is not None and not self.served.fail_status:
            self._stream_without_length(self.served.no_length)
            return
        if self.served.fail_status:
            self._empty(self.served.fail_status.pop(0))
            return
        payload = self.served.payload
        total = len(payload)
        status, start = self._status_and_start(total)
        if status == 416:
            self._empty(416, {"Content-Range": f"bytes */{total}"})
            return
        body = payload[start:]
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", self.served.etag)
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{total - 1}/{total}")
        self.end_headers()
        if self.served.drops > 0:
            self.served.drops -= 1
            half = body[: len(body) // 2]
            self.wfile.write(half)
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        self._send(body)

    def _empty(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _status_and_start(self, total: int) -> tuple[int, int]:
        """200 from byte 0, 206 from the range asked for, or 416 past the end."""
        requested = _RANGE.match(self.headers.get("Range") or "")
        if_range = self.headers.get("If-Range")
        if self.served.mode == "wrong-range" and requested:
            return 206, 0
        if self.served.mode == "range" and requested and (if_range in (None, self.served.etag)):
            start = int(requested.group(1))
            return (416, 0) if start >= total else (206, start)
        return 200, 0

    def _stream_without_length(self, n: int) -> None:
        self.send_response(200)
        self.end_headers()
        self.close_connection = True
        sent = 0
        block = self.served.payload or b"x"
        with contextlib.suppress(OSError):
            while sent < n:
                chunk = block[: n - sent]
                self.wfile.write(chunk)
                sent += len(chunk)

    def _send(self, body: bytes) -> None:
        sent = 0
        step = 4096
        while sent < len(body):
            self.wfile.write(body[sent : sent + step])
            sent += min(step, len(body) - sent)
            if self.served.on_body is not None:
                self.served.on_body(sent)


def _handler(served: ServedFile) -> type[BaseHTTPRequestHandler]:
    return type("Handler", (_FileHandler,), {"served": served})


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that cancels mid-body resets the connection; that is the point of the test.
        return


@dataclass
class LocalServer:
    """A running server and the file it serves."""

    served: ServedFile
    url: str


@pytest.fixture
def http_file() -> Iterator[Any]:
    """Factory: ``http_file(payload, mode=...)`` starts a server on 127.0.0.1."""
    servers: list[_QuietServer] = []

    def start(payload: bytes, **options: Any) -> LocalServer:
        served = ServedFile(payload, **options)
        server = _QuietServer(("127.0.0.1", 0), _handler(served))
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
        thread.start()
        servers.append(server)
        host, port = server.server_address[:2]
        return LocalServer(served, f"http://{host}:{port}/catalog.gezk")

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def archive_factory(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Factory: ``archive_factory(catalog_id=..., version=..., docs=...)`` -> a ``.gezk`` path.

    Archives are cached per argument set for the session (they are immutable inputs).
    """
    made: dict[tuple[Any, ...], Path] = {}

    def make(
        catalog_id: str = "demo",
        version: str = "1.0.0",
        *,
        publisher_id: str = "tester",
        n_docs: int = 8,
        sign_with: Any = None,
        shard_every: int = 0,
        **options: Any,
    ) -> Path:
        key = (
            catalog_id,
            version,
            publisher_id,
            n_docs,
            id(sign_with),
            repr(sorted(options.items())),
        )
        if key in made:
            return made[key]
        docs, topics = sample_docs(n_docs)
        if shard_every:
            for i, doc in enumerate(docs):
                doc.shard = i % shard_every
        build = CatalogBuild(
            docs,
            topics,
            catalog_id=catalog_id,
            publisher_id=publisher_id,
            version=version,
            smoke=[{"query": docs[0].title, "expectedDocumentIds": [docs[0].id]}],
            **options,
        )
        base = tmp_path_factory.mktemp(f"{catalog_id}-{version}")
        root = build.write(base / "catalog", sign_with=sign_with)
        made[key] = pack(root, base / f"{catalog_id}-{version}.gezk")
        return made[key]

    return make


@dataclass
class Site:
    """A local web site: path -> bytes, and every path requested so far."""

    files: dict[str, bytes]
    base: str
    requests: list[str] = field(default_factory=list)

    def url(self, path: str) -> str:
        """The absolute URL of ``path``."""
        return f"{self.base}/{path}"

    def downloads(self, suffix: str = ".gezk") -> int:
        """How many requests fetched a file ending in ``suffix``."""
        return sum(1 for p in self.requests if p.endswith(suffix))


def _site_handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def do_GET(self) -> None:
            path = self.path.lstrip("/")
            site.requests.append(path)
            body = site.files.get(path)
            if body is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@pytest.fixture
def http_site() -> Iterator[Any]:
    """Factory: ``http_site()`` starts a server on 127.0.0.1 serving ``site.files``."""
    servers: list[_QuietServer] = []

    def start(files: dict[str, bytes] | None = None) -> Site:
        site = Site(dict(files or {}), "")
        server = _QuietServer(("127.0.0.1", 0), _site_handler(site))
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True).start()
        servers.append(server)
        host, port = server.server_address[:2]
        site.base = f"http://{host}:{port}"
        return site

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def publisher(http_site: Any, archive_factory: Any) -> Publisher:
    """Publisher ``tester`` serving ``demo`` 1.0.0 and its signed registry document."""
    pub = Publisher(http_site())
    pub.release(archive_factory("demo"), "demo", "1.0.0")
    return pub
