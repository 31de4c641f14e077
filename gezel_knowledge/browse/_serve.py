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

import uvicorn

from gezel_knowledge.browse._app import create_app
from gezel_knowledge.browse._library import Library
from gezel_knowledge.browse._security import GuardSettings, is_loopback
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput

__all__ = ["DEFAULT_PORT", "HOST", "BrowseServer", "check_bind"]

HOST = "127.0.0.1"
DEFAULT_PORT = 8766


def check_bind(host: str, token: str | None) -> None:
    """Refuse a non-loopback bind without a token (``token-required``)."""
    if not is_loopback(host) and not token:
        raise InvalidInput(
            f"serving on {host} makes the catalogs reachable from other computers: give a "
            "token that every request must carry (--token)",
            reason="token-required",
            subject=host,
        )


def _bind(host: str, port: int) -> socket.socket:
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
        self.settings = GuardSettings(host, self.port, token)
        app = create_app(library, self.settings, memory_embedder=memory_embedder, warm=True)
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The address to open (with the token, when there is one)."""
        shown = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        shown = f"[{shown}]" if ":" in shown else shown
        token = f"/?token={self.settings.token}" if self.settings.token else "/"
        return f"http://{shown}:{self.port}{token}"

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
