"""Fixtures for the framework retrievers and the MCP server: the handbook catalog, installed or
by path, and a guard that fails any test whose code tries to reach the network."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.compiler import BuildOptions, compile_catalog
from gezel_knowledge.embedders import HashEmbedder, load_embedder
from gezel_knowledge.install import install_catalog
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1
from tests.conftest import HANDBOOK

# Haystack decides on telemetry when first imported; no test may be the one that sends it.
os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"

LOOPBACK = {"127.0.0.1", "::1", "localhost"}

HANDBOOK_KEY = "gezel-knowledge/gezel-handbook"


def _host(address: Any) -> str:
    return str(address[0]) if isinstance(address, tuple) else str(address)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Refuse (and record) every connection or lookup beyond this machine."""
    attempts: list[str] = []
    connect, connect_ex, getaddrinfo = (
        socket.socket.connect,
        socket.socket.connect_ex,
        socket.getaddrinfo,
    )

    def outside(sock: socket.socket, address: Any) -> bool:
        far = sock.family in (socket.AF_INET, socket.AF_INET6) and _host(address) not in LOOPBACK
        if far:
            attempts.append(_host(address))
        return far

    def guarded_connect(sock: socket.socket, address: Any) -> None:
        if outside(sock, address):
            raise OSError(f"tests do not reach the network ({address})")
        connect(sock, address)

    def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
        if outside(sock, address):
            raise OSError(f"tests do not reach the network ({address})")
        return connect_ex(sock, address)

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and str(host) not in LOOPBACK:
            attempts.append(str(host))
            raise socket.gaierror(f"tests do not reach the network ({host})")
        return getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    yield attempts
    assert attempts == [], f"the test tried to reach {attempts}"


@pytest.fixture(scope="session")
def handbook_minilm_gezk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/handbook built with the packaged default model (real cosines, ~3 s)."""
    out = tmp_path_factory.mktemp("handbook-minilm") / "handbook.gezk"
    embedder = load_embedder(ALL_MINILM_L6_V2_INT8_1)
    compile_catalog(
        HANDBOOK, out, BuildOptions(embedder=embedder, created_at="2026-12-01T00:00:00Z")
    )
    return out


@pytest.fixture
def installed_handbook(handbook_gezk: Path) -> str:
    """The handbook installed in this test's Gezel home; its coordinate."""
    install_catalog(handbook_gezk)
    return HANDBOOK_KEY


@pytest.fixture
def handbook(handbook_gezk: Path) -> Iterator[Catalog]:
    """The handbook opened by path with its profile's query embedder (the hash embedder)."""
    with open_catalog(handbook_gezk, embedder=HashEmbedder()) as catalog:
        yield catalog
