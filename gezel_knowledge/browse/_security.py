"""The browser's guard: who may talk to the server, and what every response forbids.

Catalog text is hostile until proven otherwise, and a local web server is reachable from every
page the user's browser opens. So, for every request (a pure ASGI middleware, before any route):

- **Host**: on a loopback bind, only ``127.0.0.1``, ``localhost`` and ``[::1]`` at the served
  port are answered (a DNS-rebinding page has its own host name in ``Host``: 421).
- **Origin**: a request that states an ``Origin`` (every POST and every script's fetch) must
  come from the served origin itself (403); a cross-site ``Sec-Fetch-Site`` is refused for
  anything but a top-level GET navigation (following a link to a citation is fine).
- **Token**: on a non-loopback bind every request needs the token, once as ``?token=`` (which
  sets an ``HttpOnly``, ``SameSite=Strict`` cookie and redirects to the same URL without it),
  then from the cookie or an ``Authorization: Bearer`` header (401).
- **Headers**: a strict Content-Security-Policy (``default-src 'self'``, no inline script or
  style, no framing, forms only to this origin), ``nosniff``, no referrer, same-origin opener
  and resource policies. Asset routes set their own, stricter policy (``sandbox``).

State-changing requests are POSTs carrying a CSRF token (:func:`csrf_token`, an HMAC of the
server's secret) in a form field or the ``X-CSRF-Token`` header; :func:`check_csrf` verifies it.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "SECURITY_HEADERS",
    "Guard",
    "GuardSettings",
    "is_loopback",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'; frame-src 'none'; worker-src 'none'; "
    "manifest-src 'none'"
)
"""Every page's policy: nothing but this origin, and no inline script or style at all."""

SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    ("x-frame-options", "DENY"),
    ("cross-origin-opener-policy", "same-origin"),
    ("cross-origin-resource-policy", "same-origin"),
    ("permissions-policy", "camera=(), microphone=(), geolocation=(), usb=(), payment=()"),
    ("cache-control", "no-store"),
)
"""Sent with every response, besides the Content-Security-Policy."""

TOKEN_COOKIE = "gezel_browse_token"
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    """Whether a bind address is a loopback address (``localhost`` counts)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class GuardSettings:
    """What the guard admits: the bound host and port, and the token of a non-loopback bind."""

    host: str
    port: int
    token: str | None = None
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))

    @property
    def loopback(self) -> bool:
        """Whether the server is bound to a loopback address."""
        return is_loopback(self.host)

    def allowed_hosts(self) -> frozenset[str]:
        """``Host`` values answered: the loopback names, and the bound host, at the port."""
        names = {*_LOOPBACK_NAMES, self.host if ":" not in self.host else f"[{self.host}]"}
        return frozenset(f"{name}:{self.port}" for name in names)

    def csrf_token(self) -> str:
        """The token every state-changing form and request carries."""
        return hmac.new(self.secret, b"csrf", hashlib.sha256).hexdigest()

    def check_csrf(self, value: str | None) -> bool:
        """Whether ``value`` is this server's CSRF token."""
        return value is not None and hmac.compare_digest(value, self.csrf_token())


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def _cookie(scope: Scope, name: str) -> str | None:
    raw = _header(scope, b"cookie")
    if raw is None:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:  # a malformed cookie header is no token
        return None
    morsel = jar.get(name)
    return None if morsel is None else morsel.value


class Guard:
    """ASGI middleware: Host, Origin and token checks, and the security headers."""

    def __init__(self, app: ASGIApp, settings: GuardSettings) -> None:
        self.app = app
        self.settings = settings
        self._hosts = settings.allowed_hosts()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            status, text, extra = refusal
            await _plain(send, status, text, extra)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                names = {bytes(k).lower() for k, _ in headers}
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", CONTENT_SECURITY_POLICY.encode()))
                for name, value in SECURITY_HEADERS:
                    if name.encode() not in names:
                        headers.append((name.encode(), value.encode()))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)

    def _refusal(self, scope: Scope) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
        host = _header(scope, b"host")
        if self.settings.loopback and (host is None or host.lower() not in self._hosts):
            return 421, "This server answers only on its own loopback address.", []
        origin = _header(scope, b"origin")
        if origin is not None and origin != "null" and not self._own_origin(origin, host):
            return 403, "Cross-origin requests are refused.", []
        method = scope.get("method", "GET")
        site = _header(scope, b"sec-fetch-site")
        navigate = _header(scope, b"sec-fetch-mode") == "navigate"
        if site == "cross-site" and not (method == "GET" and navigate):
            return 403, "Cross-site requests are refused.", []
        if method == "POST" and origin is None and site not in (None, "same-origin"):
            return 403, "A POST must come from this origin.", []
        if self.settings.token is not None:
            return self._token_refusal(scope)
        return None

    def _own_origin(self, origin: str, host: str | None) -> bool:
        if host is None:
            return False
        return origin.lower() in (f"http://{host.lower()}", f"https://{host.lower()}")

    def _token_refusal(self, scope: Scope) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
        token = self.settings.token
        assert token is not None
        query = parse_qsl(bytes(scope.get("query_string", b"")).decode("latin-1"))
        given = dict(query).get("token")
        if given is not None and hmac.compare_digest(given, token):
            rest = urlencode([(k, v) for k, v in query if k != "token"])
            location = scope.get("path", "/") + (f"?{rest}" if rest else "")
            cookie = f"{TOKEN_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"
            return 303, "", [(b"location", location.encode()), (b"set-cookie", cookie.encode())]
        bearer = _header(scope, b"authorization")
        candidates = [_cookie(scope, TOKEN_COOKIE)]
        if bearer is not None and bearer.startswith("Bearer "):
            candidates.append(bearer[7:])
        if any(c is not None and hmac.compare_digest(c, token) for c in candidates):
            return None
        return 401, "This server needs its access token: open the URL it printed.", []


async def _plain(send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]]) -> None:
    body = text.encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"content-security-policy", b"default-src 'none'"),
        *((k.encode(), v.encode()) for k, v in SECURITY_HEADERS),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
