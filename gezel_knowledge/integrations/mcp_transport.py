"""How the MCP server meets its client: stdio that answers every request, and HTTP on
127.0.0.1 behind a bearer token and this server's own Host and Origin.

**stdio.** The MCP library drops a request it cannot take (a string holding a lone surrogate
such as ``"\\ud800"``, which JSON allows and UTF-8 does not, or a number of more than 4,300
digits) and the client waits forever; a request nested thousands of levels deep ended the
server. Here each line from the client is checked first, under the untrusted-input policy: such
a request gets a JSON-RPC error (``-32602``, reason ``invalid-unicode``, ``number-too-long`` or
``too-deep``) on the wire and never reaches a tool (with ``"id": null`` when the request is too
deep to read its id); a notification is dropped. While serving, file descriptor 1 points at
stderr, so a stray ``print`` cannot corrupt the wire.

**HTTP.** The server listens on ``127.0.0.1`` only, on a socket bound before it starts, so a
port in use or out of range is one typed error (``port-in-use``, ``invalid-port``) instead of
a server's log. Every request needs ``Authorization: Bearer <token>`` (compared in constant
time), the Host must be ``127.0.0.1:PORT`` or ``localhost:PORT``, and an Origin, when a browser
sends one, must be this server's own (``http://127.0.0.1:PORT``, ``http://localhost:PORT``) or
one given in ``allow_origins``: a page served from another ``localhost`` port is refused.
"""

from __future__ import annotations

import errno
import hmac
import json
import os
import secrets
import socket
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from io import TextIOWrapper
from typing import TYPE_CHECKING, Any, cast

from gezel_knowledge._untrusted import MAX_NESTING, MAX_NUMBER_DIGITS
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.extras import require_extra

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["HOST", "TOKEN_ENV", "request_refusal", "serve_http", "serve_stdio"]

HOST = "127.0.0.1"
"""The only address the HTTP transport binds: the server is for this machine's agents."""

TOKEN_ENV = "GEZEL_MCP_TOKEN"
"""The environment variable ``gezel-knowledge mcp`` takes the bearer token from, if set."""

_INVALID_PARAMS = -32602
_PARSE_ERROR = -32700


class _LongNumber:
    """A number written with more digits than the policy allows, kept in place of its value so
    the rest of the request (its id) can still be read."""


_LONG = _LongNumber()


def _number(text: str, convert: Callable[[str], Any]) -> Any:
    return _LONG if len(text) > MAX_NUMBER_DIGITS else convert(text)


def _problem(value: Any) -> tuple[str, str] | None:
    """The first thing inside a decoded JSON value the server cannot take: ``(reason, what)``
    for a string that is not valid Unicode, a number too long, or nesting too deep."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if item is _LONG:
            return "number-too-long", f"a number of more than {MAX_NUMBER_DIGITS:,} digits"
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                bad = item[exc.start].encode("unicode_escape").decode()
                return (
                    "invalid-unicode",
                    f"text that is not valid Unicode (a lone surrogate, {bad})",
                )
            continue
        if isinstance(item, dict):
            children: list[Any] = [*item.keys(), *item.values()]
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth + 1 > MAX_NESTING:
            return "too-deep", f"values nested deeper than {MAX_NESTING} levels"
        stack.extend((child, depth + 1) for child in children)
    return None


_FIX = {
    "invalid-unicode": "send UTF-8 text",
    "number-too-long": "send a shorter number",
    "too-deep": "send a flatter request",
}


def request_refusal(line: str) -> str | None:
    """For one JSON-RPC line from a client: ``None`` when it may pass, ``""`` to drop it (a
    notification the server cannot take), else the JSON-RPC error line answering it.

    The MCP library never answers a line that is not JSON, a request holding a lone surrogate
    or a number of more than 4,300 digits (Python's conversion limit), and a request nested a
    few thousand levels deep ended the server with a RecursionError; each is answered here with
    its reason instead (a line that is not JSON: JSON-RPC's parse error)."""
    found: tuple[str, str] | None
    try:
        message = json.loads(
            line,
            parse_int=lambda t: _number(t, int),
            parse_float=lambda t: _number(t, float),
        )
    except RecursionError:
        message, found = None, ("too-deep", f"values nested deeper than {MAX_NESTING} levels")
    except ValueError:
        if not line.strip():
            return ""
        error = {"code": _PARSE_ERROR, "message": "the line is not JSON [invalid-json]"}
        return json.dumps({"jsonrpc": "2.0", "id": None, "error": error})
    else:
        found = _problem(message)
        if found is None:
            return None
        if not isinstance(message, dict) or "id" not in message:
            return ""
    reason, what = found
    request_id = message.get("id") if isinstance(message, dict) else None
    if _problem(request_id) is not None:
        request_id = None  # an id that cannot be sent back as it came
    error = {
        "code": _INVALID_PARAMS,
        "message": f"the request holds {what}; {_FIX[reason]} [{reason}]",
        "data": {"reason": reason},
    }
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error})


class _Wire:
    """The client's end of stdout: whole lines, one writer at a time."""

    def __init__(self, raw: Any, lock: Any) -> None:
        self._raw = raw
        self._lock = lock

    async def write(self, text: str) -> None:
        async with self._lock:
            await self._raw.write(text)

    async def flush(self) -> None:
        async with self._lock:
            await self._raw.flush()


class _CheckedLines:
    """The client's lines, each checked by :func:`request_refusal` before the server sees it."""

    def __init__(self, raw: Any, wire: _Wire) -> None:
        self._raw = raw
        self._wire = wire

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self._raw:
            refusal = request_refusal(line)
            if refusal is None:
                yield line
            elif refusal:
                await self._wire.write(refusal + "\n")
                await self._wire.flush()


def serve_stdio(server: MCPServer) -> None:
    """Serve ``server`` over this process's stdin and stdout until the client goes away."""
    anyio = require_extra("anyio", "mcp", "the MCP server")
    stdio = require_extra("mcp.server.stdio", "mcp", "the MCP server")
    sys.stdout.flush()
    wire_fd = os.dup(1)
    os.dup2(2, 1)  # stray output goes to stderr, never between the protocol's lines

    async def run() -> None:
        stdin = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
        out = anyio.wrap_file(open(wire_fd, "w", encoding="utf-8", closefd=False))  # noqa: SIM115
        wire = _Wire(out, anyio.Lock())
        lines = _CheckedLines(stdin, wire)
        async with stdio.stdio_server(cast(Any, lines), cast(Any, wire)) as (read, write):
            # MCPServer.run_stdio_async with the checked streams: the low-level server is the
            # one public way in that takes streams (mcp 2.x).
            lowlevel = server._lowlevel_server
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    try:
        anyio.run(run)
    finally:
        os.dup2(wire_fd, 1)
        os.close(wire_fd)


def bind(port: int) -> socket.socket:
    """A listening socket on ``HOST:port`` (``0``: any free port); a typed error when the port
    is out of range or taken."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise InvalidInput(
            f"the port must be 0 to 65535, got {port!r}", reason="invalid-port", subject=str(port)
        )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise InvalidInput(
                f"port {port} on {HOST} is in use: stop what listens there or give --port",
                reason="port-in-use",
                subject=str(port),
            ) from None
        raise InvalidInput(
            f"cannot listen on {HOST}:{port}: {exc.strerror or exc}",
            reason="port-unavailable",
            subject=str(port),
        ) from None
    return sock


class BearerAuth:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` gets 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                body = b"a bearer token is required: Authorization: Bearer <token>"
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"text/plain; charset=utf-8"),
                            (b"www-authenticate", b'Bearer realm="gezel-knowledge"'),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def serve_http(
    server: MCPServer,
    *,
    port: int,
    token: str | None = None,
    allow_origins: Sequence[str] = (),
    announce: Callable[[str], None] | None = None,
) -> None:
    """Serve ``server`` as streamable HTTP on ``HOST:port`` until the process is stopped."""
    uvicorn = require_extra("uvicorn", "mcp", "the MCP server")
    security = require_extra("mcp.server.transport_security", "mcp", "the MCP server")
    anyio = require_extra("anyio", "mcp", "the MCP server")
    if token is not None and len(token) < 16:
        raise InvalidInput("the bearer token must be at least 16 characters", reason="weak-token")
    sock = bind(port)
    actual = int(sock.getsockname()[1])
    settings = security.TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{HOST}:{actual}", f"localhost:{actual}"],
        allowed_origins=[f"http://{HOST}:{actual}", f"http://localhost:{actual}", *allow_origins],
    )
    app = server.streamable_http_app(transport_security=settings, host=HOST)
    secret = token or secrets.token_urlsafe(32)
    config = uvicorn.Config(BearerAuth(app, secret), log_level="warning", lifespan="on")
    url = f"http://{HOST}:{actual}/mcp"
    told = "the bearer token given" if token else f"bearer token {secret}"
    (announce or _to_stderr)(f"serving MCP at {url}; every request needs {told}")
    try:
        anyio.run(uvicorn.Server(config).serve, [sock])
    finally:
        sock.close()


def _to_stderr(line: str) -> None:
    print(f"gezel-knowledge mcp: {line}", file=sys.stderr, flush=True)
