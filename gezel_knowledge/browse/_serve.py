"""Running the browser: the bind rules, the socket, uvicorn, and opening the user's browser.

The server binds ``127.0.0.1`` unless told otherwise. Any other address must be asked for
explicitly and then comes with a token every request must carry (:mod:`._security`); a
non-loopback bind without one is refused before a socket is opened.
"""

from __future__ import annotations

import socket
import threading
import webbrowser
from collections.abc import Callable
from urllib.parse import quote

import uvicorn

from gezel_knowledge.browse._app import create_app
from gezel_knowledge.browse._library import Library
from gezel_knowledge.browse._security import (
    MIN_TOKEN_LENGTH,
    TOKEN_CHARACTERS,
    GuardSettings,
    is_loopback,
)
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput

__all__ = ["DEFAULT_PORT", "HOST", "BrowseServer", "check_bind", "check_port"]

HOST = "127.0.0.1"
DEFAULT_PORT = 8766


def check_bind(host: str, token: str | None) -> None:
    """Refuse a non-loopback bind without a token, or with one too easy to guess or that a
    cookie cannot carry: fewer than 16 characters, or any but letters, digits and ``-._~+/=``
    (``token-required``)."""
    if not token:
        if is_loopback(host):
            return
        raise InvalidInput(
            f"serving on {host} makes the catalogs reachable from other computers: give a "
            "token that every request must carry (--token SECRET, or --token auto)",
            reason="token-required",
            subject=host,
        )
    if len(token) < MIN_TOKEN_LENGTH or not set(token) <= TOKEN_CHARACTERS:
        raise InvalidInput(
            f"the access token must be at least {MIN_TOKEN_LENGTH} letters, digits or -._~+/= "
            "characters, so that it cannot be guessed and a cookie can carry it (--token auto "
            "makes one)",
            reason="token-required",
            subject=host,
        )


def check_port(port: int) -> None:
    """Refuse a port outside 0-65535 (``invalid-port``), as ``mcp --port`` does: the socket
    layer would raise an untyped OverflowError."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise InvalidInput(
            f"the port must be 0 to 65535, got {port!r} (choose another --port)",
            reason="invalid-port",
            subject=str(port),
        )


def _bind(host: str, port: int) -> socket.socket:
    check_port(port)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InvalidInput(
            f"cannot listen on {host}:{port}: {exc.strerror or exc} (choose another --port)",
            reason="port-unavailable",
            subject=f"{host}:{port}",
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


class BrowseServer:
    """The browser over a :class:`Library`, bound and ready to serve (``port=0``: any port)."""

    def __init__(
        self,
        library: Library,
        *,
        host: str = HOST,
        port: int = DEFAULT_PORT,
        token: str | None = None,
        memory_embedder: Embedder | None = None,
    ) -> None:
        check_bind(host, token)
        self.library = library
        self._socket = _bind(host, port)
        self.host = host
        self.port = int(self._socket.getsockname()[1])
        self.settings = GuardSettings(host, self.port, token or None)
        app = create_app(library, self.settings, memory_embedder=memory_embedder, warm=True)
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The address to open (with the token, when there is one)."""
        shown = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        shown = f"[{shown}]" if ":" in shown else shown
        token = self.settings.token
        query = f"/?token={quote(token, safe='')}" if token else "/"
        return f"http://{shown}:{self.port}{query}"

    def serve_forever(
        self, *, open_browser: bool = False, ready: Callable[[str], None] | None = None
    ) -> None:
        """Serve until interrupted; optionally open the page in the user's browser first."""
        if ready is not None:
            ready(self.url)
        if open_browser:
            threading.Thread(target=webbrowser.open, args=(self.url,), daemon=True).start()
        try:
            self._server.run(sockets=[self._socket])
        finally:
            self.close()

    def start(self) -> BrowseServer:
        """Serve on a background thread (tests, notebooks); :meth:`stop` ends it."""
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )
        self._thread.start()
        while not self._server.started and self._thread.is_alive():
            threading.Event().wait(0.01)
        return self

    def stop(self) -> None:
        """End a server started with :meth:`start` and close what it opened."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.close()

    def close(self) -> None:
        """Close the socket and the library's handles."""
        self._socket.close()
        self.library.close()
